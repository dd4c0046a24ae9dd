`timescale 1ns / 1ps
// Stand-ins for the binary32 multiplier and adder and the f16 converter in the AMP's formal check
// (amp_formal.sv, hw/amp/README.md "Formal checks"): the check is about the datapath
// that carries operands and partial sums through the pipeline, so the arithmetic is
// replaced by cheap functions that are not commutative (a product or a sum taken in the
// wrong order, or from the wrong lane, gives another value) and cost the solver little.
// The real units are held to the ISS bit for bit by the equivalence test.
module amp_f32_mul (
  input  logic [31:0] a_i,
  input  logic [31:0] b_i,
  output logic [31:0] p_o
);
  assign p_o = a_i ^ {b_i[20:0], b_i[31:21]} ^ 32'h0000_0001;
endmodule

module amp_f32_add (
  input  logic [31:0] a_i,
  input  logic [31:0] b_i,
  output logic [31:0] s_o
);
  assign s_o = {a_i[30:0], a_i[31]} ^ b_i;
endmodule

// The f16 -> f32 converter likewise: an injective stand-in (each half's bits land in
// different places), so an operand from the wrong lane, row or format still shows. The
// RTL converter is held to the ISS by the equivalence test (random f16 operands rich in
// zeros, subnormals, infinities and NaNs), not here.
module amp_f16_to_f32 (
  input  logic [15:0] h_i,
  output logic [31:0] f_o
);
  assign f_o = {h_i[7:0], ~h_i, h_i[15:8]};
endmodule
