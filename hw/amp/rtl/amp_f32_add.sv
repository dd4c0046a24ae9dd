`timescale 1ns / 1ps
// IEEE-754 binary32 addition, round to nearest even, subnormals in and out, the canonical
// NaN (0x7fc00000) for every NaN result (a NaN operand, or infinities of opposite signs).
// An exact zero sum is +0 unless both operands are -0. Combinational.
//
// The smaller operand is aligned to the larger with three extra bits (guard, round,
// sticky); a cancellation that needs more than one bit of left shift only happens when
// the exponents differ by at most one, where the sum is exact.
module amp_f32_add (
  input  logic [31:0] a_i,
  input  logic [31:0] b_i,
  output logic [31:0] s_o
);
  localparam logic [31:0] CanonicalNan = 32'h7fc0_0000;

  logic        nan_a, nan_b, inf_a, inf_b;
  logic        swap;
  logic [31:0] greater;
  logic [30:0] lesser;               // its sign is not needed
  logic [7:0]  exp_greater, exp_lesser;   // subnormals: 1
  logic [26:0] sig_greater, sig_lesser;   // {hidden, fraction, 3 extra bits}
  logic [7:0]  diff;
  logic [26:0] lesser_aligned;
  logic        subtract;
  logic [27:0] sum;                  // bit 27: carry of an addition
  logic [4:0]  lz;                   // leading zeros of sum[26:0]
  logic [4:0]  lshift;
  logic [26:0] norm;                 // {hidden, fraction, guard, round, sticky}
  logic [7:0]  exp_norm;
  logic [30:0] packed_mag;
  logic        round_up;
  logic [30:0] rounded;

  assign nan_a = (a_i[30:23] == 8'hff) && (a_i[22:0] != 23'h0);
  assign nan_b = (b_i[30:23] == 8'hff) && (b_i[22:0] != 23'h0);
  assign inf_a = a_i[30:0] == 31'h7f80_0000;
  assign inf_b = b_i[30:0] == 31'h7f80_0000;

  assign swap      = b_i[30:0] > a_i[30:0];
  assign greater       = swap ? b_i : a_i;
  assign lesser     = swap ? a_i[30:0] : b_i[30:0];
  assign exp_greater   = greater[30:23] == 8'h0 ? 8'h1 : greater[30:23];
  assign exp_lesser = lesser[30:23] == 8'h0 ? 8'h1 : lesser[30:23];
  assign sig_greater   = {greater[30:23] != 8'h0, greater[22:0], 3'b0};
  assign sig_lesser = {lesser[30:23] != 8'h0, lesser[22:0], 3'b0};
  assign diff      = exp_greater - exp_lesser;
  assign subtract  = a_i[31] ^ b_i[31];

  always_comb begin
    if (diff >= 8'd27) begin
      lesser_aligned = {26'h0, sig_lesser != 27'h0};
    end else begin
      lesser_aligned = sig_lesser >> diff;
      lesser_aligned[0] = lesser_aligned[0] | ((lesser_aligned << diff) != sig_lesser);
    end
  end

  assign sum = subtract ? 28'(sig_greater) - 28'(lesser_aligned) : 28'(sig_greater) + 28'(lesser_aligned);

  always_comb begin
    lz = 5'd27;
    for (int i = 0; i < 27; i++) begin
      if (sum[i]) lz = 5'(26 - i);
    end
  end

  // Normalise: right by one after a carry; else left by the leading zeros, but not below
  // the smallest exponent (the result is then subnormal: hidden bit 0).
  always_comb begin
    lshift = 5'd0;
    if (sum[27]) begin
      norm     = {sum[27:2], sum[1] | sum[0]};
      exp_norm = exp_greater + 8'd1;
    end else begin
      lshift   = 8'(lz) < exp_greater ? lz : 5'(exp_greater - 8'd1);
      norm     = sum[26:0] << lshift;
      exp_norm = exp_greater - 8'(lshift);
    end
  end

  always_comb begin
    packed_mag = {norm[26] ? exp_norm : 8'h0, norm[25:3]};
    round_up   = norm[2] && (norm[1] || norm[0] || norm[3]);
    rounded    = packed_mag + 31'(round_up);
  end

  always_comb begin
    if (nan_a || nan_b || (inf_a && inf_b && subtract)) begin
      s_o = CanonicalNan;
    end else if (inf_a || inf_b) begin
      s_o = inf_a ? a_i : b_i;
    end else if (sum == 28'h0) begin
      s_o = {a_i[31] & b_i[31], 31'h0};  // exact zero: -0 only for (-0) + (-0)
    end else if (sum[27] && exp_greater == 8'hfe) begin
      s_o = {greater[31], 8'hff, 23'h0};     // carried past the largest exponent
    end else begin
      s_o = {greater[31], rounded};          // a rounding carry into 0xff is infinity too
    end
  end
endmodule
