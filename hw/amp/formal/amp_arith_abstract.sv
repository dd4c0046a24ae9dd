`timescale 1ns / 1ps
// Stand-ins for the binary32 multiplier and adder in the AMP's formal check
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
