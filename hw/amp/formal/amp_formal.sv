`timescale 1ns / 1ps
// Bounded model check of amp_top (hw/amp/README.md, "Formal checks"): yosys-smtbmc
// explores every input / back-pressure pattern and every operand value up to the depth
// the suite runs (hw/amp/formal/CMakeLists.txt), and proves that the AMP never loses an
// amp.mac:
//   - every result that leaves (out_valid_o && out_ready_i) is the next amp.mac taken
//     in (in_valid_i && in_ready_o), in order, and is that amp.mac's
//     acc + W[i][0]*x[0] + .. + W[i][3]*x[3] in every row, in the documented order;
//   - nothing leaves that was not taken in;
//   - a result waits at most 4 cycles in which out_ready_i is high, and at most 5 are in.
// The multiplier, the adder and the f16 -> f32 converter are amp_arith_abstract.sv's
// stand-ins (the datapath, not the arithmetic, is what is checked here; the RTL's units
// are the equivalence test's).
module amp_formal #(
  parameter int unsigned ROWS  = 2,
  parameter int unsigned DEPTH = 8   // scoreboard entries (the pipeline holds 5)
) (
  input logic                clk_i,
  input logic                in_valid_i,
  input logic                f16_i,
  input logic [ROWS*128-1:0] w_i,
  input logic [127:0]        x_i,
  input logic [ROWS*32-1:0]  acc_i,
  input logic                out_ready_i
);
  logic rst_n = 1'b0;
  always_ff @(posedge clk_i) rst_n <= 1'b1;

  logic               in_ready, out_valid;
  logic [ROWS*32-1:0] acc_o;

  amp_top #(
    .ROWS(ROWS)
  ) dut (
    .clk_i,
    .rst_ni     (rst_n),
    .in_valid_i,
    .in_ready_o (in_ready),
    .f16_i,
    .w_i,
    .x_i,
    .acc_i,
    .out_valid_o(out_valid),
    .out_ready_i,
    .acc_o
  );

  // The reference: the amp.mac's result computed when it is taken in.
  logic [127:0]       x_ref;
  logic [ROWS*32-1:0] expect_acc;
  for (genvar j = 0; j < 4; j++) begin : g_x
    logic [31:0] conv;
    amp_f16_to_f32 u_conv (.h_i(x_i[32*j +: 16]), .f_o(conv));
    assign x_ref[32*j +: 32] = f16_i ? conv : x_i[32*j +: 32];
  end
  for (genvar i = 0; i < ROWS; i++) begin : g_row
    logic [31:0] w_ref [4];
    logic [31:0] p [4];
    logic [31:0] s [5];
    assign s[0] = acc_i[32*i +: 32];
    for (genvar j = 0; j < 4; j++) begin : g_col
      logic [31:0] conv;
      amp_f16_to_f32 u_conv (.h_i(w_i[128*i + 32*j +: 16]), .f_o(conv));
      assign w_ref[j] = f16_i ? conv : w_i[128*i + 32*j +: 32];
      amp_f32_mul u_mul (.a_i(w_ref[j]), .b_i(x_ref[32*j +: 32]), .p_o(p[j]));
      amp_f32_add u_add (.a_i(s[j]), .b_i(p[j]), .s_o(s[j+1]));
    end
    assign expect_acc[32*i +: 32] = s[4];
  end

  // Scoreboard: the expected results of the amp.macs taken in and not yet out.
  localparam int unsigned PtrW = $clog2(DEPTH);
  logic [ROWS*32-1:0] fifo_q [DEPTH];
  logic [PtrW-1:0]    head_q = '0, tail_q = '0;
  logic [PtrW:0]      count_q = '0;
  logic               take, give;
  logic [2:0]         waited_q = '0;   // cycles with out_ready_i high and no result out

  assign take = rst_n && in_valid_i && in_ready;
  assign give = rst_n && out_valid && out_ready_i;

  always_ff @(posedge clk_i) begin
    if (take) begin
      fifo_q[tail_q] <= expect_acc;
      tail_q         <= tail_q + 1'b1;
    end
    if (give) head_q <= head_q + 1'b1;
    count_q <= count_q + (PtrW+1)'(take) - (PtrW+1)'(give);
    if (give || count_q == '0) waited_q <= '0;
    else if (rst_n && out_ready_i) waited_q <= waited_q + 1'b1;
  end

  always_comb begin
    if (rst_n) begin
      // Nothing leaves that was not taken in, and what leaves is the oldest, computed.
      if (out_valid) assert (count_q != '0);
      if (give) assert (acc_o == fifo_q[head_q]);
      // Nothing stays in: a result is out after at most four ready cycles.
      assert (waited_q <= 3'd4);
      assert (count_q <= 5);
    end
  end
endmodule
