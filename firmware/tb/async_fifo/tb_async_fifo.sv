// Unit bench: memchan_async_fifo between two unrelated clocks against a reference queue.
// The write clock runs at +wr_ps, the read clock at +rd_ps with a jitter of +jitter_ps per
// edge, so that edges of the two domains come close to each other again and again; the
// synchronizers' metastability model (MEMCHAN_CDC_MODEL) then resolves every bit in flight at
// random. Random write valid and read ready, phases where one side stops. Checks: every word
// comes out once, in order, unchanged; nothing is read that was not written; the write side's
// free count never promises more room than there is. With GRAY=0 (binary pointers crossing)
// it must fail.
`default_nettype none

module tb_async_fifo #(
  parameter bit GRAY = 1'b1
);
  localparam int DEPTH = 16;
  localparam int AW = $clog2(DEPTH);

  int wr_ps = 6400, rd_ps = 4000, jitter_ps = 150, words = 200000, seed = 1;
  logic wclk = 0, rclk = 0, rst_n = 0;

  initial begin
    void'($value$plusargs("wr_ps=%d", wr_ps));
    void'($value$plusargs("rd_ps=%d", rd_ps));
    void'($value$plusargs("jitter_ps=%d", jitter_ps));
    void'($value$plusargs("words=%d", words));
    void'($value$plusargs("seed=%d", seed));
    void'($urandom(seed));
  end
  always begin
    #(wr_ps / 2) wclk = ~wclk;
  end
  always begin
    #(rd_ps / 2 + $urandom_range(2 * jitter_ps) - jitter_ps) rclk = ~rclk;
  end

  logic           wr_valid, wr_ready, rd_valid, rd_ready;
  logic [31:0]    wr_data, rd_data;
  logic [AW:0]    wr_free;

  memchan_async_fifo #(.WIDTH(32), .DEPTH(DEPTH), .GRAY(GRAY)) dut (
    .wr_clk_i(wclk), .wr_rst_ni(rst_n), .wr_valid_i(wr_valid), .wr_data_i(wr_data),
    .wr_ready_o(wr_ready), .wr_free_o(wr_free),
    .rd_clk_i(rclk), .rd_rst_ni(rst_n), .rd_valid_o(rd_valid), .rd_data_o(rd_data),
    .rd_ready_i(rd_ready));

  // the words are a counter: word n is n, so the reference queue is two counts
  int unsigned written, read_n, errors, wcycle, rcycle;
  initial begin
    written = 0; read_n = 0; errors = 0; wcycle = 0; rcycle = 0;
    wr_valid = 0; wr_data = 0; rd_ready = 0;
    #(20 * wr_ps) rst_n = 1;
  end

  // write side: phases of 4096 cycles, the writer idle in every fourth
  always @(posedge wclk) if (rst_n) begin
    wcycle++;
    // the free count (before this edge's write) promises at most the room there is
    if (int'(wr_free) > DEPTH - int'(written - read_n)) begin
      $display("async_fifo: FAIL free count %0d with %0d words stored", wr_free, written - read_n);
      errors++;
    end
    if (wr_valid && wr_ready) written++;
    wr_valid <= ((wcycle / 4096) % 4 != 3) && ($urandom_range(99) < 70);
    wr_data  <= written;
  end

  // read side: the reader stalls in every third phase so that the FIFO fills up
  always @(posedge rclk) if (rst_n) begin
    rcycle++;
    if (rd_valid && rd_ready) begin
      if (read_n >= written) begin
        $display("async_fifo: FAIL read %0d with only %0d written", rd_data, written);
        errors++;
      end else if (rd_data != read_n) begin
        $display("async_fifo: FAIL data mismatch: read %0d, expected %0d", rd_data, read_n);
        errors++;
      end
      read_n++;
    end
    rd_ready <= ((rcycle / 3000) % 3 != 2) && ($urandom_range(99) < 60);
    if (errors > 10) $fatal(1, "async_fifo: FAIL %0d errors", errors);
    if (read_n >= words) begin
      if (errors != 0) $fatal(1, "async_fifo: FAIL %0d errors", errors);
      $display("async_fifo: PASS %0d words, write clock %0d ps, read clock %0d ps +-%0d ps",
               read_n, wr_ps, rd_ps, jitter_ps);
      $finish;
    end
    if (rcycle > 40 * words) $fatal(1, "async_fifo: FAIL no progress: %0d words in %0d cycles", read_n, rcycle);
  end
endmodule : tb_async_fifo

`default_nettype wire
