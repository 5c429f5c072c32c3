// Unit bench: memchan_skid (register slice) against a reference queue: random valid on the
// input and random ready on the output; every word comes out once, in order; the input's
// ready and the output come from registers (checked: they do not change between clock
// edges); one word per cycle when both sides are always ready. Verilator and Icarus.
`default_nettype none

module tb_skid;
  logic clk = 0, rst_n = 0;
  always #2 clk = ~clk;

  logic        s_valid, s_ready, m_valid, m_ready;
  logic [15:0] s_data, m_data;

  memchan_skid #(.WIDTH(16)) dut (
    .clk_i(clk), .rst_ni(rst_n), .s_valid_i(s_valid), .s_data_i(s_data), .s_ready_o(s_ready),
    .m_valid_o(m_valid), .m_data_o(m_data), .m_ready_i(m_ready));

  logic [15:0] next_in, next_out;
  int cycle, errors, got, streak, best_streak, mode;
  logic s_ready_e, m_valid_e;    // values right after the edge

  initial begin
    next_in = 0; next_out = 0; cycle = 0; errors = 0; got = 0; streak = 0; best_streak = 0;
    mode = 0; s_valid = 0; m_ready = 0; s_data = 0;
    s_ready_e = 1; m_valid_e = 0;    // reset values
    repeat (3) @(posedge clk);
    rst_n = 1;
  end

  // drive on the falling edge (after checking that the registered outputs held still)
  always @(negedge clk) if (rst_n) begin
    if (s_ready !== s_ready_e || m_valid !== m_valid_e) begin
      $display("skid: ready/valid changed between edges"); errors = errors + 1;
    end
    cycle = cycle + 1;
    if (cycle == 20000) mode = 1;
    if (mode == 0) begin
      // a valid word stays offered until taken (AXI-Stream rule)
      if (!s_valid || s_ready_e) s_valid = ($random & 1);
      m_ready = ($random & 3) != 0;
    end else begin
      s_valid = 1; m_ready = 1;
    end
    s_data = next_in;
  end

  always @(posedge clk) if (rst_n) begin
    if (m_valid && m_ready) begin
      if (m_data !== next_out) begin
        $display("skid: got %h, expected %h", m_data, next_out); errors = errors + 1;
      end
      next_out = next_out + 1;
      got = got + 1;
    end
    if (s_valid && s_ready) next_in = next_in + 1;
    if (mode == 1) begin
      if (m_valid && m_ready) streak = streak + 1; else streak = 0;
      if (streak > best_streak) best_streak = streak;
    end
    if (cycle == 21000) begin
      if (got < 5000) begin $display("skid: only %0d words", got); errors = errors + 1; end
      if (best_streak < 900) begin
        $display("skid: no one word per cycle (best %0d)", best_streak); errors = errors + 1;
      end
      if (errors != 0) $fatal(1, "skid: %0d errors", errors);
      $display("skid: PASS (%0d words, %0d in a row at one per cycle)", got, best_streak);
      $finish;
    end
    #1 s_ready_e = s_ready; m_valid_e = m_valid;
  end
endmodule : tb_skid

`default_nettype wire
