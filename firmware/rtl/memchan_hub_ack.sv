// Hub acknowledgement merging (seed 000: an acknowledge request to several receivers is
// complete only when every one of them has acknowledged). Every receiver of a DATA frame with
// ACK_REQ, or of a barrier sweep (ACKREQ), answers its sender with ACK(count); the hub
// consumes those ACKs and answers the sender itself, once per request, when all of the
// request's destinations have answered.
//   * Per sender s: a queue of the destination sets of its acknowledge requests, in the order
//     the hub granted them (push_i at the frame's first grant, only live ports in the set).
//   * Per (sender s, receiver r): acknowledgements received from r for s not yet merged
//     (pend). A receiver acknowledges the requests of one sender in the order it received
//     them, i.e. in the queue's order, so the head request is complete when every live
//     destination r of it has pend[s][r] > 0; it then takes one from each and owes s one
//     acknowledgement.
//   * The owed acknowledgements of s leave as one ACK(count) frame on output s (inject_o:
//     memchan_hub puts it in front of its crossbar grants while the output is free).
//   * A receiver that is not awaited (wait_i: its port is down, or its link discards and
//     the hub announces it, memchan_hub) will not answer: it leaves every pending set (its
//     pend is cleared, and the requests queued until it is awaited again are completed
//     without it: per sender a count of them, so that none of those waits for it when it is
//     back). A sender that goes down is owed nothing: its queue and owed count are cleared.
//   * Pipelining: pushes and consumed ACKs come from the crossbar's grant (the deepest logic
//     of the hub); both are registered here before they reach the queue and the pending
//     counts, so a request is queued, and an ACK counted, one cycle after its grant. A receiver
//     answers a request long after its frame's grant, so no ACK overtakes its request; the
//     full flag's margin covers the grants in flight (below).
`default_nettype none

module memchan_hub_ack #(
  parameter int unsigned PORTS = 8,
  parameter int unsigned DEPTH = 16,   // acknowledge requests queued per sender
  localparam int unsigned PW = (PORTS > 1) ? $clog2(PORTS) : 1,
  localparam int unsigned DW = $clog2(DEPTH)
) (
  input  wire logic                     clk_i,
  input  wire logic                     rst_ni,
  input  wire logic [PORTS-1:0]         up_i,        // ports whose link is up (senders)
  input  wire logic [PORTS-1:0]         wait_i,      // receivers awaited (live, not discarding)
  // an acknowledge request from sender s granted to the destinations [PORTS*s +: PORTS]
  input  wire logic [PORTS-1:0]         push_i,
  input  wire logic [PORTS*PORTS-1:0]   push_set_i,
  output logic      [PORTS-1:0]         full_o,      // registered: no room for a push
  // an ACK from receiver r consumed: for sender [PW*r +: PW], count [8*r +: 8]
  input  wire logic [PORTS-1:0]         ack_i,
  input  wire logic [PORTS*PW-1:0]      ack_dst_i,
  input  wire logic [PORTS*8-1:0]       ack_cnt_i,
  // ACK(count) owed to sender s ([8*s +: 8], 0: none); taken_i: it was sent this cycle
  output logic      [PORTS*8-1:0]       owed_o,
  input  wire logic [PORTS-1:0]         taken_i
);
  if (DEPTH < 2 || (1 << DW) != DEPTH) begin : g_check
    $error("memchan_hub_ack: DEPTH must be a power of two >= 2");
  end

  // consumed ACKs' counts, registered (per receiver; which sender each is for: ack_q below)
  logic [PORTS*8-1:0] ack_cnt_q;
  always_ff @(posedge clk_i) ack_cnt_q <= ack_cnt_i;

  for (genvar s = 0; s < PORTS; s++) begin : g_snd
    logic [PORTS-1:0] set_q [DEPTH];
    // the registered push and its set, and per receiver r an ACK for s registered (counted
    // only while s is up and r awaited at its grant, as the state it would enter is cleared
    // then)
    logic             push_q;
    logic [PORTS-1:0] push_set_q, ack_q;
    logic [DW:0]      wr_q, rd_q;
    logic [PORTS*8-1:0] pend_q;      // [8*r +: 8]: from receiver r, not merged yet
    logic [7:0]       owed_q;
    logic [PORTS*(DW+1)-1:0] excused_q;   // [(DW+1)*r +: DW+1]: requests from the head on
                                          // that receiver r no longer answers
    logic [PORTS-1:0] head, need;
    logic [DW:0]      held;               // requests queued after this cycle
    logic             nonempty, done;

    assign nonempty = (wr_q != rd_q);
    assign head     = set_q[rd_q[DW-1:0]];
    always_comb begin
      for (int r = 0; r < PORTS; r++)
        need[r] = head[r] && wait_i[r] && excused_q[(DW+1)*r +: DW+1] == '0;
    end
    assign held = (wr_q - rd_q) + (DW+1)'(push_q) - (DW+1)'(done);
    always_comb begin
      done = nonempty && (owed_q != 8'hFF);
      for (int r = 0; r < PORTS; r++)
        if (need[r] && pend_q[8*r +: 8] == 8'd0) done = 1'b0;
    end
    assign owed_o[8*s +: 8] = owed_q;

    always_ff @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni) begin
        push_q <= 1'b0; ack_q <= '0;
      end else begin
        push_q <= push_i[s] && up_i[s];
        for (int r = 0; r < PORTS; r++)
          ack_q[r] <= ack_i[r] && ack_dst_i[PW*r +: PW] == PW'(s) && wait_i[r] && up_i[s];
      end
    end
    always_ff @(posedge clk_i) push_set_q <= push_set_i[PORTS*s +: PORTS];

    always_ff @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni) begin
        wr_q <= '0; rd_q <= '0; pend_q <= '0; owed_q <= '0; full_o[s] <= 1'b0;
        excused_q <= '0;
      end else if (!up_i[s]) begin
        wr_q <= '0; rd_q <= '0; pend_q <= '0; owed_q <= '0; full_o[s] <= 1'b0;
        excused_q <= '0;
      end else begin
        if (push_q) wr_q <= wr_q + 1'b1;
        if (done) rd_q <= rd_q + 1'b1;
        // full_o in cycle c counts the grants up to c-2 (push_q holds c-2's): the grants of
        // c-1 and c (one a cycle at most) still fit when it is low, so it is high from DEPTH-1
        full_o[s] <= ((wr_q - rd_q) + (DW+1)'(push_q)) >= (DW+1)'(DEPTH - 1);
        owed_q <= (taken_i[s] ? 8'd0 : owed_q) + 8'(done);
        for (int r = 0; r < PORTS; r++) begin
          logic [8:0] p;
          p = {1'b0, pend_q[8*r +: 8]};
          if (ack_q[r]) p = p + {1'b0, ack_cnt_q[8*r +: 8]};
          if (done && need[r]) p = p - 9'd1;
          // saturates (only acknowledgements that no request of the queue asked for, e.g.
          // of a port that just came up again, could pile up)
          pend_q[8*r +: 8] <= !wait_i[r] ? 8'd0 : p[8] ? 8'hFF : p[7:0];
          // a request queued while r was not awaited never needs r (r not in its set, or
          // its frame to r dropped, or its answer cleared above)
          if (!wait_i[r]) excused_q[(DW+1)*r +: DW+1] <= held;
          else if (done && excused_q[(DW+1)*r +: DW+1] != '0)
            excused_q[(DW+1)*r +: DW+1] <= excused_q[(DW+1)*r +: DW+1] - 1'b1;
        end
      end
    end
    always_ff @(posedge clk_i) begin
      if (push_q) set_q[wr_q[DW-1:0]] <= push_set_q;
    end
  end
endmodule : memchan_hub_ack

`default_nettype wire
