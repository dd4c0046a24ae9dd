`timescale 1ns / 1ps
// IEEE-754 binary32 multiply, round to nearest even, subnormals in and out, the canonical
// NaN (0x7fc00000) for every NaN result (a NaN operand, or infinity times zero).
// Combinational; the row registers its result.
module amp_f32_mul (
  input  logic [31:0] a_i,
  input  logic [31:0] b_i,
  output logic [31:0] p_o
);
  localparam logic [31:0] CanonicalNan = 32'h7fc0_0000;

  logic        sign;
  logic [7:0]  exp_a, exp_b;
  logic [7:0]  exp_a_eff, exp_b_eff;  // a subnormal's exponent is the smallest normal's
  logic [23:0] sig_a, sig_b;
  logic        nan_a, nan_b, inf_a, inf_b, zero_a, zero_b;
  logic [47:0] prod;        // sig_a * sig_b: the value is prod * 2^(ea + eb - 300)
  logic [5:0]  lz;          // leading zeros of prod (subnormal operands)
  logic [47:0] prod_norm;   // prod << lz: bit 47 set
  logic signed [10:0] exp_r;  // biased exponent of prod_norm / 2^47
  logic [5:0]  rshift;      // right shift into the subnormal range (exp_r <= 0)
  logic [47:0] prod_den;    // prod_norm >> rshift
  logic        sticky_den;  // any one shifted out by rshift
  logic [30:0] packed_mag;  // {exponent field, fraction} before rounding
  logic        guard, sticky, round_up;
  logic [30:0] rounded;

  assign sign   = a_i[31] ^ b_i[31];
  assign exp_a  = a_i[30:23];
  assign exp_b  = b_i[30:23];
  assign nan_a  = (exp_a == 8'hff) && (a_i[22:0] != 23'h0);
  assign nan_b  = (exp_b == 8'hff) && (b_i[22:0] != 23'h0);
  assign inf_a  = (exp_a == 8'hff) && (a_i[22:0] == 23'h0);
  assign inf_b  = (exp_b == 8'hff) && (b_i[22:0] == 23'h0);
  assign zero_a = a_i[30:0] == 31'h0;
  assign zero_b = b_i[30:0] == 31'h0;
  // A subnormal has no hidden one and the exponent of the smallest normal.
  assign sig_a  = {exp_a != 8'h0, a_i[22:0]};
  assign sig_b  = {exp_b != 8'h0, b_i[22:0]};

  assign prod = 48'(sig_a) * 48'(sig_b);

  always_comb begin
    lz = 6'd0;
    for (int i = 0; i < 48; i++) begin
      if (prod[i]) lz = 6'(47 - i);
    end
  end

  assign prod_norm = prod << lz;
  // prod_norm / 2^47 * 2^(ea' + eb' - 253 - lz), ea' = max(ea, 1): biased by 127.
  assign exp_a_eff = exp_a == 8'h0 ? 8'h1 : exp_a;
  assign exp_b_eff = exp_b == 8'h0 ? 8'h1 : exp_b;
  assign exp_r = 11'(exp_a_eff) + 11'(exp_b_eff) - 11'sd126 - 11'(lz);

  always_comb begin
    if (exp_r > 11'sd0) begin
      rshift = 6'd0;
    end else if (exp_r < -11'sd47) begin
      rshift = 6'd48;
    end else begin
      rshift = 6'(11'sd1 - exp_r);
    end
  end

  always_comb begin
    prod_den   = prod_norm >> rshift;
    sticky_den = (prod_den << rshift) != prod_norm;
  end

  always_comb begin
    if (exp_r > 11'sd0) begin
      packed_mag = {exp_r[7:0], prod_norm[46:24]};
    end else begin
      packed_mag = {8'h0, prod_den[46:24]};  // subnormal (or zero): exponent field 0
    end
    guard    = prod_den[23];
    sticky   = (prod_den[22:0] != 23'h0) || sticky_den;
    // Nearest, ties to even; a carry out of the fraction moves into the exponent field
    // (subnormal -> normal, largest finite -> infinity) by itself.
    round_up = guard && (sticky || packed_mag[0]);
    rounded  = packed_mag + 31'(round_up);
  end

  always_comb begin
    if (nan_a || nan_b || (inf_a && zero_b) || (inf_b && zero_a)) begin
      p_o = CanonicalNan;
    end else if (inf_a || inf_b) begin
      p_o = {sign, 8'hff, 23'h0};
    end else if (zero_a || zero_b) begin
      p_o = {sign, 31'h0};
    end else if (exp_r > 11'sd254) begin
      p_o = {sign, 8'hff, 23'h0};  // overflow: nearest is infinity
    end else begin
      p_o = {sign, rounded};
    end
  end
endmodule
