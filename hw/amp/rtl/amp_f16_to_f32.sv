`timescale 1ns / 1ps
// IEEE-754 binary16 -> binary32, exactly (every f16 value is an f32 value): the exponent
// is rebiased, subnormals are normalised, infinities and NaNs keep an all-ones exponent
// and their payload (a NaN stays a NaN; the array makes every NaN result canonical).
module amp_f16_to_f32 (
  input  logic [15:0] h_i,
  output logic [31:0] f_o
);
  logic        sign;
  logic [4:0]  exp16;
  logic [9:0]  frac16;
  logic [3:0]  lz;        // leading zeros of a subnormal's fraction (0..9)
  logic [9:0]  frac_norm; // the fraction shifted so its leading one drops off the top

  assign sign   = h_i[15];
  assign exp16  = h_i[14:10];
  assign frac16 = h_i[9:0];

  // The highest set bit wins: later iterations overwrite earlier ones.
  always_comb begin
    lz = 4'd0;
    for (int i = 0; i < 10; i++) begin
      if (frac16[i]) lz = 4'(9 - i);
    end
  end

  assign frac_norm = 10'(frac16 << (lz + 4'd1));

  always_comb begin
    if (exp16 == 5'h1f) begin
      f_o = {sign, 8'hff, frac16, 13'b0};                  // infinity or NaN
    end else if (exp16 != 5'h0) begin
      f_o = {sign, 8'(exp16) + 8'd112, frac16, 13'b0};     // normal: bias 15 -> 127
    end else if (frac16 == 10'h0) begin
      f_o = {sign, 31'b0};                                 // signed zero
    end else begin
      // frac16 * 2^-24 with its leading one at bit 9 - lz: 2^(-15 - lz) * 1.frac_norm
      f_o = {sign, 8'd112 - 8'(lz), frac_norm, 13'b0};
    end
  end
endmodule
