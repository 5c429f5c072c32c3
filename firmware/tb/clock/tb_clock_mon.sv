// Ground truth of one cable for the clock bench: the latency of every sync frame's header
// word from the sender's link port (handshake into the cable) to the receiver's (handshake
// out of it), frames matched in order (a cable keeps order; a bit flip may disguise a
// header at the far end, so frame kinds are taken at the near end).
`default_nettype none

module tb_clock_mon (
  input wire logic       clk,
  input wire logic       rst_n,
  input wire logic       i_tvalid,
  input wire logic       i_tready,
  input wire logic       i_tlast,
  input wire logic [3:0] i_ttype,
  input wire logic       o_tvalid,
  input wire logic       o_tready,
  input wire logic       o_tlast
);
  import memchan_pkt_pkg::TP_SYNC;

  longint cyc;
  longint t_in [$];      // per frame in the cable: cycle its header went in (-1: no sync)
  bit     in_frame_i, in_frame_o;
  longint max_lat, min_lat, syncs;

  initial begin cyc = 0; in_frame_i = 0; in_frame_o = 0; max_lat = 0; min_lat = -1; syncs = 0; end

  always @(posedge clk) begin
    cyc++;
    if (!rst_n) begin
      t_in.delete();
      in_frame_i = 0;
      in_frame_o = 0;
    end else begin
      if (o_tvalid && o_tready) begin
        if (!in_frame_o) begin
          longint t;
          if (t_in.size() == 0) $fatal(1, "tb_clock_mon: a frame came out that never went in");
          t = t_in.pop_front();
          if (t >= 0) begin
            syncs++;
            if (cyc - t > max_lat) max_lat = cyc - t;
            if (min_lat < 0 || cyc - t < min_lat) min_lat = cyc - t;
          end
        end
        in_frame_o = !o_tlast;
      end
      if (i_tvalid && i_tready) begin
        if (!in_frame_i) t_in.push_back(i_ttype == TP_SYNC ? cyc : -1);
        in_frame_i = !i_tlast;
      end
    end
  end
endmodule : tb_clock_mon

`default_nettype wire
