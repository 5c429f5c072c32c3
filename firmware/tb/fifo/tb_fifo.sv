// Unit bench: memchan_fifo (first-word-fall-through, packet commit/drop) against a reference
// model, random writes / commits / drops / read stalls; also checks one word per cycle when
// both sides are always ready (Verilator; Icarus 11 cannot elaborate the $error checks).
`default_nettype none

module tb_fifo;
  localparam int DEPTH = 16;
  logic clk = 0, rst_n = 0;
  always #2 clk = ~clk;

  logic        wr_valid, wr_commit, wr_drop, rd_valid, rd_ready;
  logic [15:0] wr_data, rd_data;
  logic [4:0]  wr_space;
  logic        wr_room;
  localparam int ROOM = 3;

  memchan_fifo #(.WIDTH(16), .DEPTH(DEPTH), .ROOM(ROOM)) dut (
    .clk_i(clk), .rst_ni(rst_n), .wr_valid_i(wr_valid), .wr_data_i(wr_data),
    .wr_commit_i(wr_commit), .wr_drop_i(wr_drop), .wr_space_o(wr_space),
    .wr_room_o(wr_room),
    .rd_valid_o(rd_valid), .rd_data_o(rd_data), .rd_ready_i(rd_ready));

  // model: committed words exp[head..ctail), pending words exp[ctail..wtail)
  logic [15:0] exp [0:65535];
  int head, ctail, wtail, popped, errors, cycle, mode, streak, best_streak;
  logic [15:0] next_val;

  initial begin
    head = 0; ctail = 0; wtail = 0; popped = 0; errors = 0; next_val = 0; cycle = 0;
    wr_valid = 0; wr_commit = 0; wr_drop = 0; rd_ready = 0; wr_data = 0; mode = 0;
    streak = 0; best_streak = 0;
    repeat (3) @(posedge clk);
    rst_n = 1;
  end

  // drive on the falling edge, check and update the model on the rising edge
  always @(negedge clk) if (rst_n) begin
    cycle = cycle + 1;
    if (cycle == 20000) mode = 1;           // streaming phase: everything always ready
    if (mode == 0) begin
      // half of the time the writer trusts wr_room alone (write only when wr_room)
      wr_valid  = ($random & 1) && ((cycle & 1024) ? wr_room : (wr_space != 0));
      wr_commit = (($random & 7) == 0);
      wr_drop   = !wr_commit && (($random & 15) == 0);
      rd_ready  = ($random & 3) != 0;
    end else begin
      wr_valid  = (wr_space != 0);
      wr_commit = 1; wr_drop = 0; rd_ready = 1;
    end
    wr_data = next_val;
  end

  always @(posedge clk) if (rst_n) begin
    // wr_room_o (registered) promises at least ROOM free entries
    if (wr_room && wr_space < ROOM) begin
      $display("fifo: wr_room with only %0d free", wr_space); errors = errors + 1;
    end
    if (rd_valid && rd_ready) begin
      if (head == ctail) begin
        $display("fifo: read %h with nothing committed", rd_data); errors = errors + 1;
      end else if (rd_data !== exp[head]) begin
        $display("fifo: read %h, expected %h", rd_data, exp[head]); errors = errors + 1;
      end
      head = head + 1;
      popped = popped + 1;
    end
    if (mode == 1) begin
      if (rd_valid && rd_ready) streak = streak + 1; else streak = 0;
      if (streak > best_streak) best_streak = streak;
    end
    if (wr_drop) begin
      wtail = ctail;
    end else begin
      if (wr_valid && wr_space != 0) begin
        exp[wtail] = wr_data; wtail = wtail + 1; next_val = next_val + 1;
      end
      if (wr_commit) ctail = wtail;
    end
    // capacity: RAM + output buffer and read in flight (at most three words together)
    if (wtail - head > DEPTH + 3) begin $display("fifo: model overflow"); errors = errors + 1; end
    if (cycle == 21000) begin
      if (popped < 5000) begin $display("fifo: only %0d words read", popped); errors = errors + 1; end
      if (best_streak < 500) begin $display("fifo: no sustained one word per cycle (best %0d)", best_streak); errors = errors + 1; end
      if (errors != 0) $fatal(1, "fifo: %0d errors", errors);
      $display("fifo: PASS (%0d words, %0d in a row at one per cycle)", popped, best_streak);
      $finish;
    end
  end
endmodule : tb_fifo

`default_nettype wire
