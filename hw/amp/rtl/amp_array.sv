`timescale 1ns / 1ps
// ROWS rows of the AMP sharing one input vector x: ROWS x 4 multiply-accumulates per
// cycle. The four inputs are converted from binary16 once, here, for every row.
module amp_array #(
  parameter int unsigned ROWS = 16
) (
  input  logic                 clk_i,
  input  logic                 f16_i,
  input  logic [ROWS*128-1:0]  w_i,    // W[i][j] at [128*i + 32*j +: 32]
  input  logic [127:0]         x_i,    // x[j] at [32*j +: 32]
  input  logic [ROWS*32-1:0]   acc_i,  // acc[i] at [32*i +: 32]
  input  logic [4:0]           en_i,
  output logic [ROWS*32-1:0]   acc_o
);
  logic [127:0] x_f32;

  for (genvar j = 0; j < 4; j++) begin : g_x
    logic [31:0] x_conv;
    amp_f16_to_f32 u_x_conv (
      .h_i(x_i[32*j +: 16]),
      .f_o(x_conv)
    );
    assign x_f32[32*j +: 32] = f16_i ? x_conv : x_i[32*j +: 32];
  end

  for (genvar i = 0; i < ROWS; i++) begin : g_row
    amp_row u_row (
      .clk_i,
      .f16_i,
      .w_i    (w_i[128*i +: 128]),
      .x_f32_i(x_f32),
      .acc_i  (acc_i[32*i +: 32]),
      .en_i,
      .acc_o  (acc_o[32*i +: 32])
    );
  end
endmodule
