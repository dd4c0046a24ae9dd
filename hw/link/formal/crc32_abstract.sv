`timescale 1ns / 1ps
// Stand-in for crc32.sv in the link's formal check (link_formal.sv, hw/link/README.md
// "Formal checks"): every register value is the residue the receiver compares with, so
// every frame passes the CRC and the transmitter sends its complement as the CRC field.
// The check is about what the link layer does with a corrupted frame, not whether CRC-32
// finds the corruption: the harness's injector corrupts a transmission by setting a
// reserved header bit, which the receiver rejects through the same branch as a CRC error
// (result 1, NAK). That CRC-32 finds the injector's real corruption is the polynomial's
// (it detects every burst of up to 32 bits and every error of up to 3 bits in a frame
// of up to 91,607 bits); crc32.sv is held to zlib's CRC by the equivalence test. With
// the real CRC in the problem z3 had not finished 10 steps after 83 CPU seconds.
module crc32 #(
  parameter int unsigned BYTES = 16,
  localparam int unsigned CountW = $clog2(BYTES + 1)
) (
  input  logic [31:0]        crc_i,
  input  logic [8*BYTES-1:0] data_i,
  input  logic [CountW-1:0]  count_i,
  output logic [31:0]        crc_o
);
  assign crc_o = 32'hDEBB20E3;
endmodule
