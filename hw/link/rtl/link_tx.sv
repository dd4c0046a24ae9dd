// IPU-Link data link layer, transmitting half (docs/links.md "Link layer"; the reference
// model is tlm/links/transmitter.h stepped by tlm/links/link_direction.h).
//
// Sends frames `seq | len | payload | CRC-32` over the wire at cfg_rate_int_i +
// cfg_rate_rem_i / cfg_rate_den_i bytes per cycle, keeps every unacknowledged frame in a
// replay buffer of cfg_replay_frames_i (<= REPLAY_FRAMES) descriptors, replays go-back-N
// on a NAK or when the replay timer expires, retrains the wire after cfg_replay_limit_i
// replays without progress and spends one credit per new frame.
//
// The replay buffer holds descriptors, not bytes: frame k of the phase has sequence number
// k mod 4096 and its payload stays in the producer's buffer (the exchange's source, which
// a BSP exchange phase leaves untouched until it ends), so a descriptor is implied by the
// buffer's head and count and a replay re-reads the payload through rd_*. That keeps a
// 128-frame buffer of 256-byte frames out of flip-flops (docs: hw/link/README.md).
//
// Time is absolute (now_i, the phase's cycle): the timer and the wire's free cycle are
// deadlines, so the transactor may skip idle cycles without clocking them.
//
// Order within a cycle (as the model): the ACK / NAK and credit on the return path, then
// the replay timer, then the decision to start a frame. A frame starts in the cycle
// src_start_o is high and its first beat leaves in that same cycle.
`timescale 1ns / 1ps
module link_tx #(
  parameter int unsigned DATA_BYTES    = 16,   // wire beat width: at least ceil(bytes per cycle)
  parameter int unsigned FRAME_BYTES   = 256,  // largest payload of a frame
  parameter int unsigned REPLAY_FRAMES = 128,  // largest replay buffer (descriptors)
  parameter int unsigned CREDIT_FRAMES = 128,  // largest receive buffer advertised
  parameter int unsigned TIME_W        = 32,   // cycle counter width
  parameter int unsigned INDEX_W       = 32,   // frame index within a phase
  localparam int unsigned NbW  = $clog2(DATA_BYTES + 1),
  localparam int unsigned PosW = $clog2(FRAME_BYTES + 8 + DATA_BYTES + 1),
  localparam int unsigned CntW = $clog2(REPLAY_FRAMES + 1),
  localparam int unsigned CrW  = $clog2(CREDIT_FRAMES + 1) + 1
) (
  input  logic               clk_i,
  input  logic               rst_ni,
  input  logic [TIME_W-1:0]  now_i,
  // Configuration, constant during a phase.
  input  logic [CntW-1:0]    cfg_replay_frames_i,
  input  logic [CrW-1:0]     cfg_credit_frames_i,
  input  logic [TIME_W-1:0]  cfg_replay_timeout_i,
  input  logic [7:0]         cfg_replay_limit_i,
  input  logic [TIME_W-1:0]  cfg_retrain_cycles_i,
  input  logic [NbW-1:0]     cfg_rate_int_i,
  input  logic [15:0]        cfg_rate_rem_i,
  input  logic [15:0]        cfg_rate_den_i,
  // Producer: the frame the transmitter would send next, and whether it may go now.
  output logic [INDEX_W-1:0] src_index_o,
  output logic               src_replay_o,
  input  logic               src_valid_i,   // the frame exists (a new one: the phase has it)
  input  logic               src_ready_i,   // its pacing allows it to start this cycle
  input  logic [PosW-1:0]    src_len_i,     // its payload bytes (<= FRAME_BYTES)
  output logic               src_start_o,   // it starts this cycle
  output logic [11:0]        src_seq_o,     // with this sequence number
  // Payload read for the beat on the wire: bytes at wire offsets rd_pos_o .. + DATA_BYTES-1
  // of frame rd_index_o (wire offset 4 + k is payload byte k; the others are ignored).
  output logic [INDEX_W-1:0] rd_index_o,
  output logic [PosW-1:0]    rd_pos_o,
  input  logic [8*DATA_BYTES-1:0] rd_data_i,
  input  logic               inj_dup_i,     // error injection: this frame goes twice
  // Wire: one beat per cycle while a frame is out.
  output logic               wire_valid_o,
  output logic               wire_sof_o,
  output logic               wire_eof_o,
  output logic [NbW-1:0]     wire_nbytes_o,
  output logic [PosW-1:0]    wire_pos_o,
  output logic [8*DATA_BYTES-1:0] wire_data_o,
  // Return path from the receiver.
  input  logic               ack_valid_i,
  input  logic               ack_nak_i,
  input  logic [11:0]        ack_seq_i,
  input  logic               credit_valid_i,
  input  logic [CrW-1:0]     credit_limit_i,
  // Events of this cycle (for counters) and the link's state.
  output logic               ev_replay_o,   // a go-back-N replay began
  output logic               ev_timer_o,    // ... because the replay timer expired
  output logic               ev_retrain_o,  // ... after a retrain
  output logic               failed_o,      // retrained too often without progress (sticky)
  output logic [11:0]        oldest_seq_o,
  output logic               sending_o,     // a frame is on the wire (clock every cycle)
  output logic               want_o,        // would start next_index_o if paced and free
  output logic [INDEX_W-1:0] next_index_o,
  output logic               next_replay_o,
  output logic [TIME_W-1:0]  wire_free_o,   // no frame starts before this cycle
  output logic               timer_on_o,
  output logic [TIME_W-1:0]  timer_at_o,    // replay timer deadline when on
  output logic [CntW-1:0]    unacked_o
);
  // A link that retrains this often without an ACK making progress is down
  // (Transmitter::kMaxRetrainsWithoutProgress).
  localparam logic [4:0] MaxRetrains = 5'd16;

  // Replay buffer, credits and protocol state.
  logic [INDEX_W-1:0] next_index_q, next_index_d;   // frames sent new (seq = its low 12 bits)
  logic [CntW-1:0]    count_q, count_d;             // unacknowledged frames
  logic [CntW-1:0]    cursor_q, cursor_d;           // next buffer entry to replay
  logic               replaying_q, replaying_d;
  logic [CrW-1:0]     used_q, used_d;               // credits spent, modulo 2^CrW
  logic [CrW-1:0]     granted_q, granted_d;         // credits returned (limit - cfg), mod 2^CrW
  logic [7:0]         replay_cnt_q, replay_cnt_d;   // replays since progress
  logic [4:0]         retrains_q, retrains_d;       // retrains since progress
  logic               failed_q, failed_d;
  // Replay timer: off, pending (starts when the frame on the wire ends) or on.
  logic               timer_on_q, timer_on_d;
  logic               timer_pend_q, timer_pend_d;
  logic [TIME_W-1:0]  timer_at_q, timer_at_d;
  // Wire.
  logic [TIME_W-1:0]  wire_free_q, wire_free_d;     // valid while not sending
  logic [TIME_W-1:0]  owed_q, owed_d;               // retrain time owed after the frame
  logic               sending_q, sending_d;
  logic               second_q, second_d;           // sending the injected duplicate
  logic               fresh_q, fresh_d;             // the duplicate's first beat is next
  logic               dup_q, dup_d;
  logic [INDEX_W-1:0] frm_index_q, frm_index_d;
  logic [11:0]        frm_seq_q, frm_seq_d;
  logic [PosW-1:0]    frm_len_q, frm_len_d;
  logic [PosW-1:0]    pos_q, pos_d;                 // wire bytes of this pass already out
  logic [15:0]        rem_q, rem_d;                 // fractional byte accumulator
  logic [31:0]        crc_q, crc_d;

  logic [11:0]        oldest_seq;
  logic [11:0]        ack_dist;
  logic [CntW-1:0]    acked;
  logic               retrain, nak_replay, timer_replay;
  // Conditions of `if`s whose bodies change what they test, named so that a coverage
  // build counts their branches right: Verilator 5.006 evaluates an if's branch counters
  // apart from the if, on values later statements may have changed (hw/link/README.md
  // "Coverage"). One assignment each, before its if.
  logic               timer_due, replay_done, timer_idle, timer_start;
  logic               want, fire, first;
  logic [CrW-1:0]     grant_step;
  logic [INDEX_W-1:0] index;
  logic [CrW-1:0]     avail;
  logic [TIME_W-1:0]  wire_base;
  // Serialiser.
  logic [PosW-1:0]    pos, len, total, data_end, left;
  logic [16:0]        rem_sum;
  logic               carry;
  logic [NbW-1:0]     nbytes, take;
  logic               last;
  logic [11:0]        seq;
  logic [NbW-1:0]     crc_count;
  logic [31:0]        crc_in, crc_out, crc_fin;
  logic [8*DATA_BYTES-1:0] beat;
  logic [PosW-1:0]    bpos [DATA_BYTES];

  crc32 #(.BYTES(DATA_BYTES)) u_crc (
    .crc_i  (crc_in),
    .data_i (beat),
    .count_i(crc_count),
    .crc_o  (crc_out)
  );

  always_comb begin
    next_index_d = next_index_q;
    count_d      = count_q;
    cursor_d     = cursor_q;
    replaying_d  = replaying_q;
    used_d       = used_q;
    granted_d    = granted_q;
    replay_cnt_d = replay_cnt_q;
    retrains_d   = retrains_q;
    failed_d     = failed_q;
    timer_on_d   = timer_on_q;
    timer_pend_d = timer_pend_q;
    timer_at_d   = timer_at_q;
    wire_free_d  = wire_free_q;
    owed_d       = owed_q;
    sending_d    = sending_q;
    second_d     = second_q;
    fresh_d      = 1'b0;
    dup_d        = dup_q;
    frm_index_d  = frm_index_q;
    frm_seq_d    = frm_seq_q;
    frm_len_d    = frm_len_q;
    pos_d        = pos_q;
    rem_d        = rem_q;
    acked        = '0;
    grant_step   = '0;
    retrain      = 1'b0;
    replay_done  = 1'b0;
    timer_idle   = 1'b0;
    timer_start  = 1'b0;

    // 1. ACK or NAK: cumulative; a stale one (behind the buffer) acknowledges nothing.
    oldest_seq = next_index_q[11:0] - 12'(count_q);
    ack_dist   = ack_seq_i - oldest_seq;
    if (ack_valid_i && count_q != '0 && 32'(ack_dist) < 32'(count_q)) begin
      acked        = CntW'(ack_dist) + CntW'(1);
      count_d      = count_q - acked;
      cursor_d     = cursor_q > acked ? cursor_q - acked : '0;
      if (count_d == '0 || cursor_d >= count_d) replaying_d = 1'b0;
      replay_cnt_d = '0;
      retrains_d   = '0;
      // Progress restarts the timer, an empty buffer stops it.
      timer_pend_d = 1'b0;
      timer_on_d   = count_d != '0;
      timer_at_d   = now_i + cfg_replay_timeout_i;
    end
    // A NAK asks for a replay unless it found nothing left to acknowledge.
    nak_replay = ack_valid_i && ack_nak_i && count_d != '0;
    if (nak_replay) timer_on_d = 1'b0;
    // 2. Credit update: cumulative (credit_frames + frames drained); only a later one counts.
    if (credit_valid_i) begin
      grant_step = credit_limit_i - cfg_credit_frames_i - granted_q;
      if (grant_step != '0 && !grant_step[CrW-1]) granted_d = credit_limit_i - cfg_credit_frames_i;
    end
    // 3. Replay timer.
    timer_due    = timer_on_d && now_i >= timer_at_d;
    timer_replay = timer_due && count_d != '0;
    if (timer_due) timer_on_d = 1'b0;
    // Go-back-N from the oldest unacknowledged frame, retraining first when the replays
    // without progress have reached the limit.
    if (nak_replay || timer_replay) begin
      if (replay_cnt_d >= cfg_replay_limit_i) begin
        replay_cnt_d = '0;
        retrain      = 1'b1;
        retrains_d   = retrains_d + 5'd1;
        if (retrains_d > MaxRetrains) failed_d = 1'b1;
      end
      replay_cnt_d = replay_cnt_d + 8'd1;
      replaying_d  = 1'b1;
      cursor_d     = '0;
      timer_on_d   = 1'b0;  // held while replaying; restarts with the first replayed frame
      timer_pend_d = 1'b0;
    end
    ev_replay_o  = nak_replay || timer_replay;
    ev_timer_o   = timer_replay;
    ev_retrain_o = retrain;
    // Retraining takes the wire once the frame on it is out.
    wire_base = now_i > wire_free_q ? now_i : wire_free_q;
    if (retrain) begin
      if (sending_q) owed_d = owed_q + cfg_retrain_cycles_i;
      else wire_free_d = wire_base + cfg_retrain_cycles_i;
    end

    // 4. What to send: the next replay, else a new frame if the buffer has room and a
    // credit is left.
    avail = cfg_credit_frames_i + granted_d - used_q;
    want  = replaying_d || (count_d < cfg_replay_frames_i && avail != '0);
    index = replaying_d ? next_index_q - INDEX_W'(count_d) + INDEX_W'(cursor_d) : next_index_q;
    fire  = !sending_q && now_i >= wire_free_d && want && (replaying_d || src_valid_i) && src_ready_i
            && !failed_d;
    if (fire) begin
      if (replaying_d) begin
        cursor_d    = cursor_d + CntW'(1);
        replay_done = cursor_d == count_d;
        if (replay_done) replaying_d = 1'b0;
      end else begin
        next_index_d = next_index_q + INDEX_W'(1);
        count_d      = count_d + CntW'(1);
        used_d       = used_q + CrW'(1);
      end
      // The timer starts (if it is not running) when this frame's first copy is out.
      timer_idle = !timer_on_d && !timer_pend_d;
      if (timer_idle) timer_pend_d = 1'b1;
      sending_d   = 1'b1;
      second_d    = 1'b0;
      dup_d       = inj_dup_i;
      frm_index_d = index;
      frm_seq_d   = index[11:0];
      frm_len_d   = src_len_i;
    end

    // 5. Serialise one beat: by its k-th cycle a copy has put floor(k * rate) bytes out.
    // A copy's first beat may carry no byte (a wire slower than a byte per cycle), so
    // its start is a flag, not pos == 0.
    first    = fire || fresh_q;
    pos      = fire ? '0 : pos_q;
    len      = fire ? src_len_i : frm_len_q;
    seq      = fire ? index[11:0] : frm_seq_q;
    crc_in   = first ? 32'hFFFFFFFF : crc_q;
    rem_sum  = {1'b0, first ? 16'd0 : rem_q} + {1'b0, cfg_rate_rem_i};
    carry    = rem_sum >= {1'b0, cfg_rate_den_i};
    nbytes   = cfg_rate_int_i + NbW'(carry);
    total    = len + PosW'(8);
    data_end = len + PosW'(4);
    left     = total - pos;
    last     = PosW'(nbytes) >= left;
    take     = last ? NbW'(left) : nbytes;
    crc_count = pos >= data_end ? '0 : (data_end - pos < PosW'(take) ? NbW'(data_end - pos) : take);
    for (int unsigned j = 0; j < DATA_BYTES; j++) begin
      bpos[j] = pos + PosW'(j);
      if (bpos[j] == PosW'(0))      beat[8*j +: 8] = {4'b0, seq[11:8]};
      else if (bpos[j] == PosW'(1)) beat[8*j +: 8] = seq[7:0];
      else if (bpos[j] == PosW'(2)) beat[8*j +: 8] = len[7:0];
      else if (bpos[j] == PosW'(3)) beat[8*j +: 8] = 8'(len >> 8);
      else                          beat[8*j +: 8] = rd_data_i[8*j +: 8];
    end
    wire_valid_o  = fire || sending_q;
    wire_sof_o    = wire_valid_o && first;
    wire_eof_o    = wire_valid_o && last;
    wire_nbytes_o = wire_valid_o ? take : '0;
    wire_pos_o    = pos;

    if (wire_valid_o) begin
      pos_d = pos + PosW'(take);
      rem_d = carry ? 16'(rem_sum - {1'b0, cfg_rate_den_i}) : rem_sum[15:0];
      if (last) begin
        pos_d = '0;
        rem_d = '0;
        // The first copy is out: a pending timer starts now.
        timer_start = !second_q && timer_pend_d;
        if (timer_start) begin
          timer_pend_d = 1'b0;
          timer_on_d   = 1'b1;
          timer_at_d   = now_i + 1 + cfg_replay_timeout_i;
        end
        if (!second_q && (fire ? inj_dup_i : dup_q)) begin
          second_d = 1'b1;  // the injected copy follows and takes the wire as long
          fresh_d  = 1'b1;
        end else begin
          sending_d   = 1'b0;
          second_d    = 1'b0;
          wire_free_d = now_i + 1 + owed_d;
          owed_d      = '0;
        end
      end
    end
  end

  // The CRC bytes of the beat, from the register updated over the beat's data bytes.
  always_comb begin
    crc_fin = ~crc_out;
    crc_d   = wire_valid_o ? crc_out : crc_q;
    for (int unsigned j = 0; j < DATA_BYTES; j++) begin
      wire_data_o[8*j +: 8] = beat[8*j +: 8];
      if (bpos[j] == data_end)                 wire_data_o[8*j +: 8] = crc_fin[7:0];
      else if (bpos[j] == data_end + PosW'(1)) wire_data_o[8*j +: 8] = crc_fin[15:8];
      else if (bpos[j] == data_end + PosW'(2)) wire_data_o[8*j +: 8] = crc_fin[23:16];
      else if (bpos[j] == data_end + PosW'(3)) wire_data_o[8*j +: 8] = crc_fin[31:24];
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      next_index_q <= '0;
      count_q      <= '0;
      cursor_q     <= '0;
      replaying_q  <= 1'b0;
      used_q       <= '0;
      granted_q    <= '0;
      replay_cnt_q <= '0;
      retrains_q   <= '0;
      failed_q     <= 1'b0;
      timer_on_q   <= 1'b0;
      timer_pend_q <= 1'b0;
      timer_at_q   <= '0;
      wire_free_q  <= '0;
      owed_q       <= '0;
      sending_q    <= 1'b0;
      second_q     <= 1'b0;
      fresh_q      <= 1'b0;
      dup_q        <= 1'b0;
      frm_index_q  <= '0;
      frm_seq_q    <= '0;
      frm_len_q    <= '0;
      pos_q        <= '0;
      rem_q        <= '0;
      crc_q        <= '0;
    end else begin
      next_index_q <= next_index_d;
      count_q      <= count_d;
      cursor_q     <= cursor_d;
      replaying_q  <= replaying_d;
      used_q       <= used_d;
      granted_q    <= granted_d;
      replay_cnt_q <= replay_cnt_d;
      retrains_q   <= retrains_d;
      failed_q     <= failed_d;
      timer_on_q   <= timer_on_d;
      timer_pend_q <= timer_pend_d;
      timer_at_q   <= timer_at_d;
      wire_free_q  <= wire_free_d;
      owed_q       <= owed_d;
      sending_q    <= sending_d;
      second_q     <= second_d;
      fresh_q      <= fresh_d;
      dup_q        <= dup_d;
      frm_index_q  <= frm_index_d;
      frm_seq_q    <= frm_seq_d;
      frm_len_q    <= frm_len_d;
      pos_q        <= pos_d;
      rem_q        <= rem_d;
      crc_q        <= crc_d;
    end
  end

  assign src_index_o   = index;
  assign src_replay_o  = replaying_d;
  assign src_seq_o     = index[11:0];
  assign src_start_o   = fire;
  assign rd_index_o    = sending_q ? frm_index_q : index;
  assign rd_pos_o      = pos;
  assign want_o        = replaying_q || (count_q < cfg_replay_frames_i
                                         && cfg_credit_frames_i + granted_q - used_q != '0);
  assign failed_o      = failed_d;
  assign oldest_seq_o  = oldest_seq;
  assign sending_o     = sending_q;
  assign next_index_o  = replaying_q ? next_index_q - INDEX_W'(count_q) + INDEX_W'(cursor_q) : next_index_q;
  assign next_replay_o = replaying_q;
  assign wire_free_o   = wire_free_q;
  assign timer_on_o    = timer_on_q;
  assign timer_at_o    = timer_at_q;
  assign unacked_o     = count_q;

`ifndef SYNTHESIS
  // Verification only: not counted in line or toggle coverage (the cover points count).
  /* verilator coverage_off */
  // Checks (Verilator --assert; yosys defines SYNTHESIS and skips them): a failure stops
  // the run with it named (docs/cosim.md "Assertions and coverage"); the cover points
  // count with --coverage (hw/link/README.md "Coverage").
  import "DPI-C" context function void ipusim_rtl_assert_failed(input string check, input string message);

  // A frame starting is new when it takes the next index (replaying_d may already have
  // dropped with the last replayed frame); the index of the last one (verification only).
  logic               new_frame, replay_frame;
  logic [INDEX_W-1:0] last_new_q;
  logic               sent_new_q;
  assign new_frame    = fire && next_index_d != next_index_q;
  assign replay_frame = fire && next_index_d == next_index_q;
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      last_new_q <= '0;
      sent_new_q <= 1'b0;
    end else if (new_frame) begin
      last_new_q <= index;
      sent_new_q <= 1'b1;
    end
  end
  logic [CrW-1:0] in_flight_credits;
  assign in_flight_credits = used_q - granted_q;

  // Sequence numbers: a new frame's is the last new frame's plus one (mod 4096); a
  // replay resends a frame still in the buffer, from the oldest on. Each check is one
  // bit of this cycle's logic, kept whole (public_flat_rd), so the assertion samples it
  // as the cycle left it.
  logic seq_advances /*verilator public_flat_rd*/, replay_in_buffer /*verilator public_flat_rd*/;
  assign seq_advances     = !(new_frame && sent_new_q) || index == last_new_q + INDEX_W'(1);
  assign replay_in_buffer = !replay_frame
                            || ((next_index_q - index) != '0 && (next_index_q - index) <= INDEX_W'(count_d));
  a_seq_advances: assert property (@(posedge clk_i) disable iff (!rst_ni) seq_advances)
    else ipusim_rtl_assert_failed("a_seq_advances", "a new frame's sequence number is not the last one's plus 1");
  a_replay_in_buffer: assert property (@(posedge clk_i) disable iff (!rst_ni) replay_in_buffer)
    else ipusim_rtl_assert_failed("a_replay_in_buffer", "a replay of a frame that is not in the replay buffer");
  // The replay buffer and the credits: never beyond their sizes, never negative.
  a_buffer_bound: assert property (@(posedge clk_i) disable iff (!rst_ni) count_q <= cfg_replay_frames_i)
    else ipusim_rtl_assert_failed("a_buffer_bound", $sformatf("%0d frames unacknowledged, the buffer holds %0d", count_q, cfg_replay_frames_i));
  a_cursor_bound: assert property (@(posedge clk_i) disable iff (!rst_ni) replaying_q |-> cursor_q < count_q)
    else ipusim_rtl_assert_failed("a_cursor_bound", "the replay cursor is past the buffer");
  a_credit_bound: assert property (@(posedge clk_i) disable iff (!rst_ni) in_flight_credits <= cfg_credit_frames_i)
    else ipusim_rtl_assert_failed("a_credit_bound", $sformatf("credits spent minus returned is %0d (negative or above the %0d granted)", in_flight_credits, cfg_credit_frames_i));
  a_new_needs_credit: assert property (@(posedge clk_i) disable iff (!rst_ni) new_frame |-> avail != '0)
    else ipusim_rtl_assert_failed("a_new_needs_credit", "a new frame sent without a credit");
  // The wire: one frame at a time; a frame's payload fits the frame.
  a_one_frame: assert property (@(posedge clk_i) disable iff (!rst_ni) fire |-> !sending_q)
    else ipusim_rtl_assert_failed("a_one_frame", "a frame started while another is on the wire");
  a_len_bound: assert property (@(posedge clk_i) disable iff (!rst_ni) fire |-> src_len_i <= PosW'(FRAME_BYTES))
    else ipusim_rtl_assert_failed("a_len_bound", $sformatf("a frame of %0d payload bytes (at most %0d)", src_len_i, FRAME_BYTES));
  a_no_send_failed: assert property (@(posedge clk_i) disable iff (!rst_ni) failed_q |-> !fire)
    else ipusim_rtl_assert_failed("a_no_send_failed", "a frame sent on a failed link");

  c_replay_nak: cover property (@(posedge clk_i) disable iff (!rst_ni) nak_replay);
  c_replay_timer: cover property (@(posedge clk_i) disable iff (!rst_ni) timer_replay);
  c_retrain: cover property (@(posedge clk_i) disable iff (!rst_ni) retrain);
  c_retrain_mid_frame: cover property (@(posedge clk_i) disable iff (!rst_ni) retrain && sending_q);
  c_failed: cover property (@(posedge clk_i) disable iff (!rst_ni) failed_d && !failed_q);
  c_credit_stall: cover property (@(posedge clk_i) disable iff (!rst_ni)
                                  !sending_q && !replaying_d && count_d < cfg_replay_frames_i && avail == '0);
  c_buffer_full: cover property (@(posedge clk_i) disable iff (!rst_ni) !replaying_d && count_d == cfg_replay_frames_i);
  c_replayed_frame: cover property (@(posedge clk_i) disable iff (!rst_ni) replay_frame);
  c_duplicate_injected: cover property (@(posedge clk_i) disable iff (!rst_ni) fire && inj_dup_i);
  c_ack_partial: cover property (@(posedge clk_i) disable iff (!rst_ni) ack_valid_i && acked != '0 && count_d != '0);
  c_ack_stale: cover property (@(posedge clk_i) disable iff (!rst_ni) ack_valid_i && acked == '0);
  c_seq_wrap: cover property (@(posedge clk_i) disable iff (!rst_ni) new_frame && index[11:0] == 12'hFFF);
  /* verilator coverage_on */
`endif
endmodule
