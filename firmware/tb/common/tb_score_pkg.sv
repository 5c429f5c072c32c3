// Scoreboard pieces shared by the two-adapter pair (tb_pair) and the hub network
// (tb_hub_net): where a store goes according to the PCT model, the host address it lands
// at, and the in-order match of one logged host word against a (sender, receiver) stream.
`default_nettype none

package tb_score_pkg;
  import memchan_regs_pkg::*;

  localparam int PS = 4096;

  // does a packet of sender s (node ID s_id) with transmit entry tx reach receiver r (node
  // ID r_id, receive entry rx)? mc: the multicast group masks. A packet for the sender
  // itself, or with LOCAL_COPY, reaches the sender.
  function automatic bit routed(input logic [31:0] tx, input logic [63:0] rx, input int s,
                                input int r, input int s_id, input int r_id,
                                input logic [31:0] mc [16]);
    int kind, dest;
    if ((tx & MC_TX_PCT_TX_EN_MASK) == 0) return 0;
    if ((rx & MC_RX_PCT_RX_EN_MASK) == 0) return 0;
    kind = int'((tx & MC_TX_PCT_DEST_KIND_MASK) >> MC_TX_PCT_DEST_KIND_SHIFT);
    dest = int'((tx & MC_TX_PCT_DEST_MASK) >> MC_TX_PCT_DEST_SHIFT);
    if (r == s) return ((tx & MC_TX_PCT_LOCAL_COPY_MASK) != 0) || (kind == 0 && dest == s_id);
    case (kind)
      0: return dest == r_id;
      1: return 1;
      2: return mc[dest[3:0]][r_id];
      default: return 0;
    endcase
  endfunction

  // host address of network address net at a receiver with receive entry rx (of net's page)
  function automatic longint host_addr(input logic [63:0] rx, input longint rx_base,
                                       input longint net);
    if ((rx & MC_RX_PCT_REMAP_EN_MASK) != 0)
      return longint'(rx & MC_RX_PCT_REMAP_ADDR_MASK) + net % PS;
    return rx_base + net;
  endfunction

  // the next word receiver r logged (la = lv) must be the next one expected from its sender
  // s (the sender is the value's top 4 bits): n_exp words expected, the first ea0 = ev0.
  // (Values, not queue references: Verilator 5.006 passes an element of an array of queues
  // to a ref argument as a copy.)
  function automatic void match_word(input int n_exp, input longint ea0, input logic [31:0] ev0,
                                     input int r, input int s, input longint la,
                                     input logic [31:0] lv);
    if (n_exp == 0)
      $fatal(1, "node %0d: unexpected host write %h = %h (from %0d)", r, la, lv, s);
    if (ea0 != la || ev0 != lv)
      $fatal(1, "node %0d: from %0d expected %h = %h, got %h = %h", r, s, ea0, ev0, la, lv);
  endfunction

  // n_exp words still expected from sender s at receiver r (the first ea0 = ev0): lost
  function automatic void none_missing(input int n_exp, input longint ea0, input logic [31:0] ev0,
                                       input int r, input int s);
    if (n_exp != 0)
      $fatal(1, "node %0d: %0d words from %0d never arrived (next %h = %h)", r, n_exp, s, ea0,
             ev0);
  endfunction

  // a register of node n read got, v expected
  function automatic void expect_value(input int n, input string what, input logic [31:0] got,
                                       input logic [31:0] v);
    if (got != v) $fatal(1, "node %0d: %s reads %0d (0x%h), expected %0d", n, what, got, got, v);
  endfunction
endpackage : tb_score_pkg

`default_nettype wire
