`timescale 1ns / 1ps
// One row of the AMP array: acc + W[0]*x[0] + ... + W[3]*x[3] in the order docs/xipu.md
// states, acc = (((acc + p0) + p1) + p2) + p3, every product and every sum one binary32
// operation rounded to nearest even. Five pipeline stages, each loaded when its enable is
// high (the top's handshake control): products, then one addition per stage.
module amp_row (
  input  logic         clk_i,
  input  logic         f16_i,      // 1: W and x are binary16 in the low half of each lane
  input  logic [127:0] w_i,        // W[row][j] at [32*j +: 32]
  input  logic [127:0] x_f32_i,    // the inputs, already binary32 (the array converts them once)
  input  logic [31:0]  acc_i,
  input  logic [4:0]   en_i,       // en_i[k]: load stage k + 1
  output logic [31:0]  acc_o
);
  logic [127:0] w_f32;
  logic [127:0] prod;

  for (genvar j = 0; j < 4; j++) begin : g_col
    logic [31:0] w_conv;
    amp_f16_to_f32 u_w_conv (
      .h_i(w_i[32*j +: 16]),
      .f_o(w_conv)
    );
    assign w_f32[32*j +: 32] = f16_i ? w_conv : w_i[32*j +: 32];
    amp_f32_mul u_mul (
      .a_i(w_f32[32*j +: 32]),
      .b_i(x_f32_i[32*j +: 32]),
      .p_o(prod[32*j +: 32])
    );
  end

  // Stage 1: the four products and the accumulator.
  logic [127:0] prod_q;
  logic [31:0]  acc1_q;
  always_ff @(posedge clk_i) begin
    if (en_i[0]) begin
      prod_q <= prod;
      acc1_q <= acc_i;
    end
  end

  // Stages 2..5: one addition each; the products not yet added travel along.
  logic [31:0] sum1, sum2, sum3, sum4;
  logic [31:0] acc2_q, acc3_q, acc4_q;
  logic [95:0] prod2_q;
  logic [63:0] prod3_q;
  logic [31:0] prod4_q;

  amp_f32_add u_add0 (.a_i(acc1_q), .b_i(prod_q[31:0]),   .s_o(sum1));
  amp_f32_add u_add1 (.a_i(acc2_q), .b_i(prod2_q[31:0]),  .s_o(sum2));
  amp_f32_add u_add2 (.a_i(acc3_q), .b_i(prod3_q[31:0]),  .s_o(sum3));
  amp_f32_add u_add3 (.a_i(acc4_q), .b_i(prod4_q),        .s_o(sum4));

  always_ff @(posedge clk_i) begin
    if (en_i[1]) begin
      acc2_q  <= sum1;
      prod2_q <= prod_q[127:32];
    end
    if (en_i[2]) begin
      acc3_q  <= sum2;
      prod3_q <= prod2_q[95:32];
    end
    if (en_i[3]) begin
      acc4_q  <= sum3;
      prod4_q <= prod3_q[63:32];
    end
    if (en_i[4]) begin
      acc_o <= sum4;
    end
  end
endmodule
