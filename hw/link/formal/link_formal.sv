`timescale 1ns / 1ps
// Bounded model check of link_top (hw/link/README.md, "Formal checks"): yosys-smtbmc
// explores every configuration the straps allow, every producer / consumer pacing and
// every fault the injector can make within the bound, and proves that the link layer
// delivers every frame exactly once and in order:
//   - the frames the receiver accepts are frames 0, 1, 2, ... of the phase, each once,
//     each with its own length and payload bytes;
//   - the transmitter lets a frame go from its replay buffer (acknowledged) only once the
//     receiver has accepted it, so a frame not yet delivered is always still replayable;
//   - nothing is accepted that was not sent.
// The faults are those of the co-simulation transactor's injector (tlm/cosim/link/
// rtl_link_direction.h): a transmission is dropped whole or not (both copies of a
// duplicated one), is duplicated or not, and each copy is corrupted or not; ACKs and NAKs
// on the return path may be lost. The CRC is abstracted (crc32_abstract.sv says why): a
// corrupted copy is one with a reserved header bit set, which the receiver rejects as it
// rejects a CRC error.
// The wire and the return path are one register each (a latency of one cycle; the
// transactor's longer delay lines are not in the problem).
module link_formal #(
  parameter int unsigned FRAME_BYTES = 116   // at least 116: hw/link/README.md "Formal checks"
) (
  input logic        clk_i,
  // Producer and consumer pacing.
  input logic        src_valid_i,
  input logic        src_ready_i,
  input logic        drain_ready_i,
  // The injector's choices.
  input logic        inj_dup_i,
  input logic        inj_drop_i,     // taken when a transmission starts, held for all its beats
  input logic [31:0] inj_flip_i,     // corruption: reserved header bits of a copy's first beat
  input logic        ack_drop_i      // the DLLP arriving this cycle is lost
);
  localparam int unsigned DB    = 4;   // beat bytes
  localparam int unsigned TW    = 6;   // cycle counter: the depth stays far below 64
  localparam int unsigned IW    = 12;  // frame index (the sequence number is its low 12 bits)
  localparam int unsigned NbW   = $clog2(DB + 1);
  localparam int unsigned PosW  = $clog2(FRAME_BYTES + 8 + DB + 1);
  localparam int unsigned CntW  = $clog2(2 + 1);
  localparam int unsigned CrW   = $clog2(2 + 1) + 1;

  // Configuration: any values within the straps, fixed for the run.
  (* anyconst *) logic [CntW-1:0] replay_frames;
  (* anyconst *) logic [CrW-1:0]  credit_frames;
  (* anyconst *) logic [1:0]      ack_coalesce;
  (* anyconst *) logic [2:0]      ack_timeout;
  (* anyconst *) logic [3:0]      replay_timeout;
  (* anyconst *) logic [1:0]      replay_limit;
  (* anyconst *) logic [1:0]      retrain_cycles;
  // Payload lengths of frames (index mod 4) and a payload key: frame k's payload byte at
  // wire offset o is key ^ {k[3:0], o[3:0]}, so a frame delivered for another, or with a
  // byte from another, shows.
  (* anyconst *) logic [11:0]     lens;
  (* anyconst *) logic [7:0]      key;

  logic rst_n = 1'b0;
  always_ff @(posedge clk_i) rst_n <= 1'b1;
  logic [TW-1:0] now_q = '0;
  always_ff @(posedge clk_i) if (rst_n) now_q <= now_q + 1'b1;

  // link_top's outputs.
  logic [IW-1:0]     src_index, rd_index, next_index;
  logic              src_replay, src_start;
  logic [11:0]       src_seq, oldest_seq, frame_seq, rx_dllp_seq;
  logic [PosW-1:0]   rd_pos, txw_pos, pl_pos;
  logic              txw_valid, txw_sof, txw_eof;
  logic [NbW-1:0]    txw_nbytes;
  logic [8*DB-1:0]   txw_data, pl_data, rd_data;
  logic              pl_valid, frame_end, overflow;
  logic [DB-1:0]     pl_be;
  logic [1:0]        frame_result;
  logic [15:0]       frame_len;
  logic              rx_dllp_valid, rx_dllp_nak, rx_credit_valid;
  logic [CrW-1:0]    rx_credit_limit, buffered;
  logic              ev_replay, ev_timer, ev_retrain, failed, sending, want, next_replay, timer_on, ack_on;
  logic [TW-1:0]     wire_free, timer_at, ack_at;
  logic [CntW-1:0]   unacked;
  // The wire and the return path: one register each.
  logic              rxw_valid_q = 1'b0, rxw_sof_q = 1'b0, rxw_eof_q = 1'b0;
  logic [NbW-1:0]    rxw_nbytes_q = '0;
  logic [8*DB-1:0]   rxw_data_q = '0;
  logic              dllp_valid_q = 1'b0, dllp_nak_q = 1'b0, credit_valid_q = 1'b0;
  logic [11:0]       dllp_seq_q = '0;
  logic [CrW-1:0]    credit_limit_q = '0;
  // The injector's drop decision for the transmission on the wire.
  logic              drop_q = 1'b0, drop;
  logic [PosW-1:0]   src_len;

  assign drop    = src_start ? inj_drop_i : drop_q;
  assign src_len = PosW'(lens[3*src_index[1:0] +: 3]);
  always_comb begin
    for (int unsigned j = 0; j < DB; j++) begin
      rd_data[8*j +: 8] = key ^ {rd_index[3:0], 4'(rd_pos + PosW'(j))};
    end
  end

  link_top #(
    .DATA_BYTES   (DB),
    .FRAME_BYTES  (FRAME_BYTES),
    .REPLAY_FRAMES(2),
    .CREDIT_FRAMES(2),
    .TIME_W       (TW),
    .INDEX_W      (IW)
  ) dut (
    .clk_i,
    .rst_ni              (rst_n),
    .now_i               (now_q),
    .cfg_replay_frames_i (replay_frames),
    .cfg_credit_frames_i (credit_frames),
    .cfg_ack_coalesce_i  (16'(ack_coalesce)),
    .cfg_ack_timeout_i   (TW'(ack_timeout)),
    .cfg_replay_timeout_i(TW'(replay_timeout)),
    .cfg_replay_limit_i  (8'(replay_limit)),
    .cfg_retrain_cycles_i(TW'(retrain_cycles)),
    .cfg_rate_int_i      (NbW'(DB)),
    .cfg_rate_rem_i      (16'd0),
    .cfg_rate_den_i      (16'd1),
    .src_index_o         (src_index),
    .src_replay_o        (src_replay),
    .src_valid_i,
    .src_ready_i,
    .src_len_i           (src_len),
    .src_start_o         (src_start),
    .src_seq_o           (src_seq),
    .rd_index_o          (rd_index),
    .rd_pos_o            (rd_pos),
    .rd_data_i           (rd_data),
    .inj_dup_i,
    .inj_drop_i          (drop),
    .inj_flip_i,
    .txw_valid_o         (txw_valid),
    .txw_sof_o           (txw_sof),
    .txw_eof_o           (txw_eof),
    .txw_nbytes_o        (txw_nbytes),
    .txw_pos_o           (txw_pos),
    .txw_data_o          (txw_data),
    .rxw_valid_i         (rxw_valid_q),
    .rxw_sof_i           (rxw_sof_q),
    .rxw_eof_i           (rxw_eof_q),
    .rxw_nbytes_i        (rxw_nbytes_q),
    .rxw_data_i          (rxw_data_q),
    .drain_ready_i,
    .pl_valid_o          (pl_valid),
    .pl_pos_o            (pl_pos),
    .pl_be_o             (pl_be),
    .pl_data_o           (pl_data),
    .frame_end_o         (frame_end),
    .frame_result_o      (frame_result),
    .frame_seq_o         (frame_seq),
    .frame_len_o         (frame_len),
    .overflow_o          (overflow),
    .rx_dllp_valid_o     (rx_dllp_valid),
    .rx_dllp_nak_o       (rx_dllp_nak),
    .rx_dllp_seq_o       (rx_dllp_seq),
    .rx_credit_valid_o   (rx_credit_valid),
    .rx_credit_limit_o   (rx_credit_limit),
    .tx_dllp_valid_i     (dllp_valid_q && !ack_drop_i),
    .tx_dllp_nak_i       (dllp_nak_q),
    .tx_dllp_seq_i       (dllp_seq_q),
    .tx_credit_valid_i   (credit_valid_q),
    .tx_credit_limit_i   (credit_limit_q),
    .ev_replay_o         (ev_replay),
    .ev_timer_o          (ev_timer),
    .ev_retrain_o        (ev_retrain),
    .failed_o            (failed),
    .oldest_seq_o        (oldest_seq),
    .sending_o           (sending),
    .want_o              (want),
    .next_index_o        (next_index),
    .next_replay_o       (next_replay),
    .wire_free_o         (wire_free),
    .timer_on_o          (timer_on),
    .timer_at_o          (timer_at),
    .unacked_o           (unacked),
    .ack_on_o            (ack_on),
    .ack_at_o            (ack_at),
    .buffered_o          (buffered)
  );

  always_ff @(posedge clk_i) begin
    if (src_start) drop_q <= inj_drop_i;
    rxw_valid_q    <= txw_valid;
    rxw_sof_q      <= txw_sof;
    rxw_eof_q      <= txw_eof;
    rxw_nbytes_q   <= txw_nbytes;
    rxw_data_q     <= txw_data;
    dllp_valid_q   <= rx_dllp_valid;
    dllp_nak_q     <= rx_dllp_nak;
    dllp_seq_q     <= rx_dllp_seq;
    credit_valid_q <= rx_credit_valid;
    credit_limit_q <= rx_credit_limit;
  end

  // The environment: the straps' ranges (the transactor's configs are larger; the logic
  // is the same), and the injector's corruption.
  always_comb begin
    assume (replay_frames != '0 && replay_frames <= CntW'(2));
    assume (credit_frames != '0 && credit_frames <= CrW'(2));
    assume (ack_coalesce != '0);
    assume (replay_timeout != '0);
    for (int unsigned k = 0; k < 4; k++) assume (lens[3*k +: 3] <= 3'd4);
    assume ((inj_flip_i & ~32'h0000_00F0) == '0);
    if (!txw_sof) assume (inj_flip_i == '0);
  end

  // The harness's record: frames sent new, frames accepted, and the frame arriving.
  logic [5:0] sent_q = '0, delivered_q = '0;
  logic       bad_q = 1'b0, bad;
  logic [3:0] bytes_q = '0, bytes;
  logic [5:0] released;   // frames the transmitter has let go of (acknowledged)
  logic       new_frame;

  always_comb begin
    bad   = rxw_sof_q ? 1'b0 : bad_q;
    bytes = rxw_sof_q ? '0 : bytes_q;
    for (int unsigned j = 0; j < DB; j++) begin
      if (pl_be[j]) begin
        bytes = bytes + 4'd1;
        if (pl_data[8*j +: 8] != (key ^ {delivered_q[3:0], 4'(pl_pos + PosW'(j))})) bad = 1'b1;
      end
    end
  end
  assign released = sent_q - 6'(unacked);
  // A frame starting is new when it is the next index (src_replay_o already reads 0 for
  // the last frame of a replay).
  assign new_frame = src_start && src_index == IW'(sent_q);

  always_ff @(posedge clk_i) begin
    if (rst_n) begin
      if (new_frame) sent_q <= sent_q + 1'b1;
      if (frame_end && frame_result == 2'd0) delivered_q <= delivered_q + 1'b1;
      if (pl_valid) begin
        bad_q   <= bad;
        bytes_q <= bytes;
      end
    end
  end

  always_comb begin
    if (rst_n) begin
      // Accepted: the next frame of the phase, whole and uncorrupted.
      if (frame_end && frame_result == 2'd0) begin
        assert (frame_seq == 12'(delivered_q));
        assert (delivered_q < sent_q);
        assert (!bad);
        assert (bytes == 4'(lens[3*delivered_q[1:0] +: 3]));
      end
      // Nothing leaves the replay buffer before it is delivered.
      assert (released <= delivered_q);
      assert (delivered_q <= sent_q);
    end
  end
endmodule
