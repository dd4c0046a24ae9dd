// CRC-32 (IEEE 802.3, reflected, polynomial 0xEDB88320) over the first count_i bytes of
// a beat, byte 0 first, each byte least significant bit first: zlib's crc32() without its
// initial and final inversion, which the callers apply (tlm/links/crc.h is the reference).
// Purely combinational, so one beat of up to BYTES bytes updates the register in a cycle.
`timescale 1ns / 1ps
module crc32 #(
  parameter int unsigned BYTES = 16,
  localparam int unsigned CountW = $clog2(BYTES + 1)
) (
  input  logic [31:0]        crc_i,    // the running register before this beat
  input  logic [8*BYTES-1:0] data_i,   // byte j in bits 8j+7 .. 8j
  input  logic [CountW-1:0]  count_i,  // bytes 0 .. count_i-1 are included
  output logic [31:0]        crc_o
);
  localparam logic [31:0] Poly = 32'hEDB88320;

  always_comb begin
    logic [31:0] c;
    c = crc_i;
    for (int unsigned j = 0; j < BYTES; j++) begin
      if (j < 32'(count_i)) begin
        for (int unsigned b = 0; b < 8; b++) begin
          c = (c >> 1) ^ (Poly & {32{c[0] ^ data_i[8*j+b]}});
        end
      end
    end
    crc_o = c;
  end
endmodule
