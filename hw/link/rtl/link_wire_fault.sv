// Error injection on the wire, between the transmitter and the wire's far end: flips the
// bits of inj_flip_i in the beat and loses the beat when inj_drop_i is high. The
// co-simulation transactor drives both from the C++ FaultInjector (tlm/links/
// fault_injector.h), so the RTL and the TLM model see the same faults; a duplicated frame
// is the transmitter's business (link_tx's inj_dup_i), since the copy takes the wire.
`timescale 1ns / 1ps
module link_wire_fault #(
  parameter int unsigned DATA_BYTES  = 16,
  parameter int unsigned FRAME_BYTES = 256,
  localparam int unsigned NbW  = $clog2(DATA_BYTES + 1),
  localparam int unsigned PosW = $clog2(FRAME_BYTES + 8 + DATA_BYTES + 1)
) (
  input  logic                    valid_i,
  input  logic                    sof_i,
  input  logic                    eof_i,
  input  logic [NbW-1:0]          nbytes_i,
  input  logic [PosW-1:0]         pos_i,
  input  logic [8*DATA_BYTES-1:0] data_i,
  input  logic                    inj_drop_i,
  input  logic [8*DATA_BYTES-1:0] inj_flip_i,
  output logic                    valid_o,
  output logic                    sof_o,
  output logic                    eof_o,
  output logic [NbW-1:0]          nbytes_o,
  output logic [PosW-1:0]         pos_o,
  output logic [8*DATA_BYTES-1:0] data_o
);
  assign valid_o  = valid_i && !inj_drop_i;
  assign sof_o    = sof_i;
  assign eof_o    = eof_i;
  assign nbytes_o = nbytes_i;
  assign pos_o    = pos_i;
  assign data_o   = data_i ^ inj_flip_i;
endmodule
