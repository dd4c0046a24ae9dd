// One direction of an IPU-Link for co-simulation: link_tx -> link_wire_fault -> wire ...
// wire -> link_rx, with the return path (ACK / NAK / credit) from link_rx back to link_tx.
// The wire's serialisation is link_tx's; its latency, and the return path's, live in the
// transactor (tlm/cosim/link/), which carries the beats and DLLPs from the *_o ports
// back to the *_i ports latency cycles later: a delay line of hundreds of cycles of
// DATA_BYTES-wide beats is no hardware of the link layer's, and outside the model the
// transactor can skip the cycles while nothing but the delay is going on.
`timescale 1ns / 1ps
module link_top #(
  parameter int unsigned DATA_BYTES    = 16,
  parameter int unsigned FRAME_BYTES   = 256,
  parameter int unsigned REPLAY_FRAMES = 128,
  parameter int unsigned CREDIT_FRAMES = 128,
  parameter int unsigned TIME_W        = 32,
  parameter int unsigned INDEX_W       = 32,
  localparam int unsigned NbW  = $clog2(DATA_BYTES + 1),
  localparam int unsigned PosW = $clog2(FRAME_BYTES + 8 + DATA_BYTES + 1),
  localparam int unsigned CntW = $clog2(REPLAY_FRAMES + 1),
  localparam int unsigned CrW  = $clog2(CREDIT_FRAMES + 1) + 1
) (
  input  logic               clk_i,
  input  logic               rst_ni,
  input  logic [TIME_W-1:0]  now_i,
  // Configuration (docs: hw/link/README.md).
  input  logic [CntW-1:0]    cfg_replay_frames_i,
  input  logic [CrW-1:0]     cfg_credit_frames_i,
  input  logic [15:0]        cfg_ack_coalesce_i,
  input  logic [TIME_W-1:0]  cfg_ack_timeout_i,
  input  logic [TIME_W-1:0]  cfg_replay_timeout_i,
  input  logic [7:0]         cfg_replay_limit_i,
  input  logic [TIME_W-1:0]  cfg_retrain_cycles_i,
  input  logic [NbW-1:0]     cfg_rate_int_i,
  input  logic [15:0]        cfg_rate_rem_i,
  input  logic [15:0]        cfg_rate_den_i,
  // Producer (link_tx).
  output logic [INDEX_W-1:0] src_index_o,
  output logic               src_replay_o,
  input  logic               src_valid_i,
  input  logic               src_ready_i,
  input  logic [PosW-1:0]    src_len_i,
  output logic               src_start_o,
  output logic [11:0]        src_seq_o,
  output logic [INDEX_W-1:0] rd_index_o,
  output logic [PosW-1:0]    rd_pos_o,
  input  logic [8*DATA_BYTES-1:0] rd_data_i,
  // Error injection.
  input  logic               inj_dup_i,
  input  logic               inj_drop_i,
  input  logic [8*DATA_BYTES-1:0] inj_flip_i,
  // The wire leaving the transmitter (after injection) ...
  output logic               txw_valid_o,
  output logic               txw_sof_o,
  output logic               txw_eof_o,
  output logic [NbW-1:0]     txw_nbytes_o,
  output logic [PosW-1:0]    txw_pos_o,
  output logic [8*DATA_BYTES-1:0] txw_data_o,
  // ... and arriving at the receiver.
  input  logic               rxw_valid_i,
  input  logic               rxw_sof_i,
  input  logic               rxw_eof_i,
  input  logic [NbW-1:0]     rxw_nbytes_i,
  input  logic [8*DATA_BYTES-1:0] rxw_data_i,
  // Consumer (link_rx).
  input  logic               drain_ready_i,
  output logic               pl_valid_o,
  output logic [PosW-1:0]    pl_pos_o,
  output logic [DATA_BYTES-1:0] pl_be_o,
  output logic [8*DATA_BYTES-1:0] pl_data_o,
  output logic               frame_end_o,
  output logic [1:0]         frame_result_o,
  output logic [11:0]        frame_seq_o,
  output logic [15:0]        frame_len_o,
  output logic               overflow_o,
  // Return path leaving the receiver ...
  output logic               rx_dllp_valid_o,
  output logic               rx_dllp_nak_o,
  output logic [11:0]        rx_dllp_seq_o,
  output logic               rx_credit_valid_o,
  output logic [CrW-1:0]     rx_credit_limit_o,
  // ... and arriving at the transmitter.
  input  logic               tx_dllp_valid_i,
  input  logic               tx_dllp_nak_i,
  input  logic [11:0]        tx_dllp_seq_i,
  input  logic               tx_credit_valid_i,
  input  logic [CrW-1:0]     tx_credit_limit_i,
  // Events and state.
  output logic               ev_replay_o,
  output logic               ev_timer_o,
  output logic               ev_retrain_o,
  output logic               failed_o,
  output logic [11:0]        oldest_seq_o,
  output logic               sending_o,
  output logic               want_o,
  output logic [INDEX_W-1:0] next_index_o,
  output logic               next_replay_o,
  output logic [TIME_W-1:0]  wire_free_o,
  output logic               timer_on_o,
  output logic [TIME_W-1:0]  timer_at_o,
  output logic [CntW-1:0]    unacked_o,
  output logic               ack_on_o,
  output logic [TIME_W-1:0]  ack_at_o,
  output logic [CrW-1:0]     buffered_o
);
  logic               tx_valid, tx_sof, tx_eof;
  logic [NbW-1:0]     tx_nbytes;
  logic [PosW-1:0]    tx_pos;
  logic [8*DATA_BYTES-1:0] tx_data;

  link_tx #(
    .DATA_BYTES   (DATA_BYTES),
    .FRAME_BYTES  (FRAME_BYTES),
    .REPLAY_FRAMES(REPLAY_FRAMES),
    .CREDIT_FRAMES(CREDIT_FRAMES),
    .TIME_W       (TIME_W),
    .INDEX_W      (INDEX_W)
  ) u_tx (
    .clk_i, .rst_ni, .now_i,
    .cfg_replay_frames_i, .cfg_credit_frames_i, .cfg_replay_timeout_i, .cfg_replay_limit_i,
    .cfg_retrain_cycles_i, .cfg_rate_int_i, .cfg_rate_rem_i, .cfg_rate_den_i,
    .src_index_o, .src_replay_o, .src_valid_i, .src_ready_i, .src_len_i, .src_start_o, .src_seq_o,
    .rd_index_o, .rd_pos_o, .rd_data_i, .inj_dup_i,
    .wire_valid_o (tx_valid),
    .wire_sof_o   (tx_sof),
    .wire_eof_o   (tx_eof),
    .wire_nbytes_o(tx_nbytes),
    .wire_pos_o   (tx_pos),
    .wire_data_o  (tx_data),
    .ack_valid_i   (tx_dllp_valid_i),
    .ack_nak_i     (tx_dllp_nak_i),
    .ack_seq_i     (tx_dllp_seq_i),
    .credit_valid_i(tx_credit_valid_i),
    .credit_limit_i(tx_credit_limit_i),
    .ev_replay_o, .ev_timer_o, .ev_retrain_o, .failed_o, .oldest_seq_o, .sending_o, .want_o,
    .next_index_o, .next_replay_o, .wire_free_o, .timer_on_o, .timer_at_o, .unacked_o
  );

  link_wire_fault #(
    .DATA_BYTES (DATA_BYTES),
    .FRAME_BYTES(FRAME_BYTES)
  ) u_fault (
    .valid_i   (tx_valid),
    .sof_i     (tx_sof),
    .eof_i     (tx_eof),
    .nbytes_i  (tx_nbytes),
    .pos_i     (tx_pos),
    .data_i    (tx_data),
    .inj_drop_i,
    .inj_flip_i,
    .valid_o   (txw_valid_o),
    .sof_o     (txw_sof_o),
    .eof_o     (txw_eof_o),
    .nbytes_o  (txw_nbytes_o),
    .pos_o     (txw_pos_o),
    .data_o    (txw_data_o)
  );

  link_rx #(
    .DATA_BYTES   (DATA_BYTES),
    .FRAME_BYTES  (FRAME_BYTES),
    .CREDIT_FRAMES(CREDIT_FRAMES),
    .TIME_W       (TIME_W)
  ) u_rx (
    .clk_i, .rst_ni, .now_i,
    .cfg_credit_frames_i, .cfg_ack_coalesce_i, .cfg_ack_timeout_i,
    .wire_valid_i (rxw_valid_i),
    .wire_sof_i   (rxw_sof_i),
    .wire_eof_i   (rxw_eof_i),
    .wire_nbytes_i(rxw_nbytes_i),
    .wire_data_i  (rxw_data_i),
    .drain_ready_i,
    .pl_valid_o, .pl_pos_o, .pl_be_o, .pl_data_o,
    .frame_end_o, .frame_result_o, .frame_seq_o, .frame_len_o, .overflow_o,
    .dllp_valid_o  (rx_dllp_valid_o),
    .dllp_nak_o    (rx_dllp_nak_o),
    .dllp_seq_o    (rx_dllp_seq_o),
    .credit_valid_o(rx_credit_valid_o),
    .credit_limit_o(rx_credit_limit_o),
    .ack_on_o, .ack_at_o, .buffered_o
  );
endmodule
