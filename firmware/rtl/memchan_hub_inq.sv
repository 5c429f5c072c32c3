// Hub input queue: the store-and-forward buffer of one hub port. memchan_link_rx writes a
// frame (header + payload, CRC stripped) and commits or drops it at its CRC word, as it does
// into the adapter's receive FIFO; committed frame ends go into a small queue, so the frame
// length never has to be decoded from the header (any frame type works).
// The head frame's header is presented to the hub's allocator; a grant (start_i) streams the
// frame out, one word per cycle without back-pressure (the hub grants only outputs that can
// take a whole frame). keep_i streams it again later (a multicast served output by output when
// broadcast synchronization is off, see memchan_hub); otherwise the frame is released.
`default_nettype none

module memchan_hub_inq #(
  parameter int unsigned DEPTH  = 512,   // words
  parameter int unsigned FRAMES = 32,    // committed frames held at most
  localparam int unsigned AW = $clog2(DEPTH),
  localparam int unsigned FW = $clog2(FRAMES)
) (
  input  wire logic        clk_i,
  input  wire logic        rst_ni,
  // write side (memchan_link_rx)
  input  wire logic        we_i,
  input  wire logic [63:0] wdata_i,
  input  wire logic        commit_i,
  input  wire logic        drop_i,
  output logic             room_o,      // registered: a maximum frame and a frame slot are free
  // head frame
  output logic             hdr_valid_o, // a header is presented (and no stream is under way)
  output logic             hdr_new_o,   // hdr_valid_o rises for a new frame (not a replay)
  output logic [63:0]      hdr_o,
  input  wire logic        start_i,     // stream the head frame (only while hdr_valid_o)
  input  wire logic        keep_i,      // ... and keep it for another pass
  // frame stream
  output logic             s_valid_o,
  output logic [63:0]      s_data_o,
  output logic             s_last_o,
  // committed frames held (the head included until released), and a head frame released
  output logic [FW:0]      frames_o,
  output logic             release_o
);
  import memchan_pkt_pkg::*;

  if (DEPTH < 2 * MAX_FRAME_WORDS || (1 << AW) != DEPTH || FRAMES < 2 ||
      (1 << FW) != FRAMES) begin : g_check
    $error("memchan_hub_inq: DEPTH a power of two >= 2 frames, FRAMES a power of two >= 2");
  end

  typedef enum logic [1:0] {HS_EMPTY, HS_LOAD, HS_READY, HS_STREAM} hs_e;
  hs_e         hs_q;
  logic [AW:0] wr_q, cm_q, fs_q, rd_q;   // write, committed end, head frame start, stream read
  logic [AW:0] fe_q [FRAMES];            // ends of the committed frames, oldest at fh_q
  logic [FW:0] fh_q, ft_q;
  logic        keep_q, room_q, sv_q, sl_q;
  logic [63:0] hdr_q;
  logic [AW:0] fe_head, wr_d;
  logic        re, last_rd;
  logic [AW-1:0] raddr;
  logic [63:0] rdata;

  assign fe_head = fe_q[fh_q[FW-1:0]];
  assign wr_d    = wr_q + (AW+1)'(we_i);
  assign last_rd = (hs_q == HS_STREAM) && (rd_q + 1'b1 == fe_head);
  always_comb begin
    re    = 1'b0;
    raddr = rd_q[AW-1:0];
    if (hs_q == HS_EMPTY && fh_q != ft_q) begin
      re    = 1'b1;
      raddr = fs_q[AW-1:0];
    end else if (hs_q == HS_STREAM) begin
      re = 1'b1;
    end
  end

  memchan_ram_sdp #(.WIDTH(64), .DEPTH(DEPTH)) u_ram (
    .clk_i, .we_i, .waddr_i(wr_q[AW-1:0]), .wdata_i,
    .re_i(re), .raddr_i(raddr), .rdata_o(rdata));

  assign room_o      = room_q;
  assign hdr_valid_o = (hs_q == HS_READY);
  assign hdr_o       = hdr_q;
  assign s_valid_o   = sv_q;
  assign s_data_o    = rdata;
  assign s_last_o    = sl_q;
  assign frames_o    = ft_q - fh_q;
  assign release_o   = last_rd && !keep_q;

  logic hdr_new_q;
  assign hdr_new_o = hdr_new_q;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      hs_q <= HS_EMPTY; wr_q <= '0; cm_q <= '0; fs_q <= '0; rd_q <= '0;
      fh_q <= '0; ft_q <= '0; keep_q <= 1'b0; room_q <= 1'b1; sv_q <= 1'b0; sl_q <= 1'b0;
      hdr_q <= '0; hdr_new_q <= 1'b0;
      for (int i = 0; i < FRAMES; i++) fe_q[i] <= '0;
    end else begin
      // write side: one word per cycle at most, so a margin of one word and one frame slot
      room_q <= ((AW+1)'(DEPTH) - (wr_q - fs_q) >= (AW+1)'(MAX_FRAME_WORDS + 1)) &&
                ((ft_q - fh_q) < (FW+1)'(FRAMES - 1));
      wr_q <= wr_d;
      if (commit_i) begin
        cm_q <= wr_d;
        fe_q[ft_q[FW-1:0]] <= wr_d;
        ft_q <= ft_q + 1'b1;
      end else if (drop_i) begin
        wr_q <= cm_q;
      end
      // read side
      sv_q      <= (hs_q == HS_STREAM);
      sl_q      <= last_rd;
      hdr_new_q <= 1'b0;
      unique case (hs_q)
        HS_EMPTY: if (re) hs_q <= HS_LOAD;
        HS_LOAD: begin
          hdr_q     <= rdata;
          hdr_new_q <= 1'b1;
          hs_q      <= HS_READY;
        end
        HS_READY: if (start_i) begin
          rd_q   <= fs_q;
          keep_q <= keep_i;
          hs_q   <= HS_STREAM;
        end
        HS_STREAM: begin
          rd_q <= rd_q + 1'b1;
          if (last_rd) begin
            if (keep_q) begin
              hs_q <= HS_READY;
            end else begin
              fs_q <= fe_head;
              fh_q <= fh_q + 1'b1;
              hs_q <= HS_EMPTY;
            end
          end
        end
        default: hs_q <= HS_EMPTY;
      endcase
    end
  end
endmodule : memchan_hub_inq

`default_nettype wire
