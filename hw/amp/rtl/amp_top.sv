`timescale 1ns / 1ps
// The AMP datapath: one amp.mac per cycle through a five-stage pipeline with valid /
// ready handshakes on both sides. A transaction is the operands of one amp.mac (the type,
// W, the four inputs x and the ROWS accumulators of the bank it names); its result, the
// ROWS new accumulators, leaves LATENCY = 5 cycles after the input handshake when nothing
// stalls. Back-pressure (out_ready_i low) stalls only the stages that hold data: an empty
// stage keeps filling, so the pipeline never drops or duplicates a transaction.
// The accumulator banks and W live beside the datapath (docs: hw/amp/README.md).
module amp_top #(
  parameter int unsigned ROWS = 16
) (
  input  logic                 clk_i,
  input  logic                 rst_ni,
  // operands of one amp.mac
  input  logic                 in_valid_i,
  output logic                 in_ready_o,
  input  logic                 f16_i,   // 1: f16 W and x (low half of each 32-bit lane)
  input  logic [ROWS*128-1:0]  w_i,     // W[i][j] at [128*i + 32*j +: 32]
  input  logic [127:0]         x_i,     // x[j] at [32*j +: 32]
  input  logic [ROWS*32-1:0]   acc_i,   // acc[i] at [32*i +: 32]
  // the bank's new accumulators
  output logic                 out_valid_o,
  input  logic                 out_ready_i,
  output logic [ROWS*32-1:0]   acc_o
);
  localparam int unsigned Stages = 5;

  logic [Stages-1:0] valid_q;  // valid_q[k]: stage k + 1 holds a transaction
  logic [Stages-1:0] en;       // en[k]: stage k + 1 loads this cycle

  // A stage loads when it is empty or its content moves on.
  always_comb begin
    en[Stages-1] = !valid_q[Stages-1] || out_ready_i;
    for (int k = Stages - 2; k >= 0; k--) begin
      en[k] = !valid_q[k] || en[k+1];
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      valid_q <= '0;
    end else begin
      for (int k = 0; k < Stages; k++) begin
        if (en[k]) valid_q[k] <= k == 0 ? in_valid_i : valid_q[k-1];
      end
    end
  end

  assign in_ready_o  = en[0];
  assign out_valid_o = valid_q[Stages-1];

  amp_array #(
    .ROWS(ROWS)
  ) u_array (
    .clk_i,
    .f16_i,
    .w_i,
    .x_i,
    .acc_i,
    .en_i (en),
    .acc_o
  );
endmodule
