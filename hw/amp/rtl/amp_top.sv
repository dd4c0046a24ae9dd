`timescale 1ns / 1ps
// The AMP datapath: one amp.mac per cycle through a five-stage pipeline with valid /
// ready handshakes on both sides. A transaction is the operands of one amp.mac (the type,
// W, the four inputs x and the ROWS accumulators of the bank it names); its result, the
// ROWS new accumulators, leaves LATENCY = 5 cycles after the input handshake when nothing
// stalls. Back-pressure (out_ready_i low) stalls only the stages that hold data: an empty
// stage keeps filling, so the pipeline never drops or duplicates a transaction.
// The accumulator banks and W live beside the datapath (docs: hw/amp/README.md).
module amp_top #(
  parameter int unsigned ROWS = 16
) (
  input  logic                 clk_i,
  input  logic                 rst_ni,
  // operands of one amp.mac
  input  logic                 in_valid_i,
  output logic                 in_ready_o,
  input  logic                 f16_i,   // 1: f16 W and x (low half of each 32-bit lane)
  input  logic [ROWS*128-1:0]  w_i,     // W[i][j] at [128*i + 32*j +: 32]
  input  logic [127:0]         x_i,     // x[j] at [32*j +: 32]
  input  logic [ROWS*32-1:0]   acc_i,   // acc[i] at [32*i +: 32]
  // the bank's new accumulators
  output logic                 out_valid_o,
  input  logic                 out_ready_i,
  output logic [ROWS*32-1:0]   acc_o
);
  localparam int unsigned Stages = 5;

  logic [Stages-1:0] valid_q;  // valid_q[k]: stage k + 1 holds a transaction
  logic [Stages-1:0] en;       // en[k]: stage k + 1 loads this cycle

  // A stage loads when it is empty or its content moves on.
  always_comb begin
    en[Stages-1] = !valid_q[Stages-1] || out_ready_i;
    for (int k = Stages - 2; k >= 0; k--) begin
      en[k] = !valid_q[k] || en[k+1];
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      valid_q <= '0;
    end else begin
      for (int k = 0; k < Stages; k++) begin
        if (en[k]) valid_q[k] <= k == 0 ? in_valid_i : valid_q[k-1];
      end
    end
  end

  assign in_ready_o  = en[0];
  assign out_valid_o = valid_q[Stages-1];

  amp_array #(
    .ROWS(ROWS)
  ) u_array (
    .clk_i,
    .f16_i,
    .w_i,
    .x_i,
    .acc_i,
    .en_i (en),
    .acc_o
  );

`ifndef SYNTHESIS
  // Verification only: not counted in line or toggle coverage (the cover points count).
  /* verilator coverage_off */
  // Checks (Verilator --assert; yosys defines SYNTHESIS and skips them): a failure stops
  // the run with it named (docs/cosim.md "Assertions and coverage"); the cover points
  // count with --coverage (hw/amp/README.md "Coverage"). The accumulator banks live
  // beside the datapath (the transactor reads and writes the bank an amp.mac names), so
  // a bank index never reaches these pins.
  import "DPI-C" context function void ipusim_rtl_assert_failed(input string check, input string message);

  // The handshakes: an offer (either side) stays, unchanged, until it is taken. The last
  // cycle's values are kept here rather than with $stable: Verilator 5.006 miscompiles
  // $stable / $past of a vector over 64 words (W).
  logic                in_wait_q, out_wait_q, f16_prev_q;
  logic [ROWS*128-1:0] w_prev_q;
  logic [127:0]        x_prev_q;
  logic [ROWS*32-1:0]  acc_prev_q, out_prev_q;
  always_ff @(posedge clk_i) begin
    in_wait_q  <= in_valid_i && !in_ready_o;
    out_wait_q <= out_valid_o && !out_ready_i;
    f16_prev_q <= f16_i;
    w_prev_q   <= w_i;
    x_prev_q   <= x_i;
    acc_prev_q <= acc_i;
    out_prev_q <= acc_o;
  end
  // One bit each: an assertion samples what it reads, and Verilator 5.006 also
  // miscompiles the sampled copy of a vector over 64 words (W).
  logic in_same /*verilator public_flat_rd*/, out_same /*verilator public_flat_rd*/;  // kept whole
  assign in_same  = f16_i == f16_prev_q && x_i == x_prev_q && w_i == w_prev_q && acc_i == acc_prev_q;
  assign out_same = acc_o == out_prev_q;
  a_in_held: assert property (@(posedge clk_i) disable iff (!rst_ni) in_wait_q |-> in_valid_i && in_same)
    else ipusim_rtl_assert_failed("a_in_held", "an amp.mac's operands were withdrawn or changed before the array took them");
  a_out_held: assert property (@(posedge clk_i) disable iff (!rst_ni)
                               out_wait_q |-> out_valid_o && out_same)
    else ipusim_rtl_assert_failed("a_out_held", "a result was withdrawn or changed before it was taken");
  // No transaction lost or made up: taken in = taken out + held in the stages.
  logic [31:0] taken_in_q, taken_out_q;
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      taken_in_q  <= '0;
      taken_out_q <= '0;
    end else begin
      if (in_valid_i && in_ready_o) taken_in_q <= taken_in_q + 32'd1;
      if (out_valid_o && out_ready_i) taken_out_q <= taken_out_q + 32'd1;
    end
  end
  a_conserved: assert property (@(posedge clk_i) disable iff (!rst_ni)
                                taken_in_q - taken_out_q == 32'($countones(valid_q)))
    else ipusim_rtl_assert_failed("a_conserved", $sformatf("%0d amp.macs in, %0d out, %0d in the stages", taken_in_q, taken_out_q, $countones(valid_q)));
  a_ready_when_empty: assert property (@(posedge clk_i) disable iff (!rst_ni) !valid_q[0] |-> in_ready_o)
    else ipusim_rtl_assert_failed("a_ready_when_empty", "the first stage is empty but the input is not ready");

  // Special values among the operands an amp.mac brings in (x, W, acc) and the results
  // it takes out: per type, a NaN, an infinity, a subnormal and a zero.
  function automatic logic [3:0] kind32(input logic [30:0] v);  // {nan, inf, subnormal, zero}; v: no sign
    return {v[30:23] == 8'hff && v[22:0] != '0, v[30:23] == 8'hff && v[22:0] == '0,
            v[30:23] == 8'h00 && v[22:0] != '0, v[30:23] == 8'h00 && v[22:0] == '0};
  endfunction
  function automatic logic [3:0] kind16(input logic [14:0] v);
    return {v[14:10] == 5'h1f && v[9:0] != '0, v[14:10] == 5'h1f && v[9:0] == '0,
            v[14:10] == 5'h00 && v[9:0] != '0, v[14:10] == 5'h00 && v[9:0] == '0};
  endfunction
  // Per lane (generate loops: Verilator 5.006 miscompiles these as loops in always_comb).
  logic [3:0]        x_nan, x_inf, x_sub, x_zero;
  logic [4*ROWS-1:0] w_nan, w_inf, w_sub, w_zero;
  logic [ROWS-1:0]   acc_nan, acc_inf, acc_sub, acc_zero, out_nan, out_inf, out_sub, out_zero;
  for (genvar j = 0; j < 4; j++) begin : g_x_kind
    assign {x_nan[j], x_inf[j], x_sub[j], x_zero[j]} = f16_i ? kind16(x_i[32*j +: 15]) : kind32(x_i[32*j +: 31]);
  end
  for (genvar k = 0; k < 4 * ROWS; k++) begin : g_w_kind
    assign {w_nan[k], w_inf[k], w_sub[k], w_zero[k]} = f16_i ? kind16(w_i[32*k +: 15]) : kind32(w_i[32*k +: 31]);
  end
  for (genvar i = 0; i < ROWS; i++) begin : g_acc_kind
    assign {acc_nan[i], acc_inf[i], acc_sub[i], acc_zero[i]} = kind32(acc_i[32*i +: 31]);
    assign {out_nan[i], out_inf[i], out_sub[i], out_zero[i]} = kind32(acc_o[32*i +: 31]);
  end
  logic [3:0] x_kind, w_kind, acc_kind, out_kind;  // {nan, inf, subnormal, zero}: any lane
  assign x_kind   = {|x_nan, |x_inf, |x_sub, |x_zero};
  assign w_kind   = {|w_nan, |w_inf, |w_sub, |w_zero};
  assign acc_kind = {|acc_nan, |acc_inf, |acc_sub, |acc_zero};
  assign out_kind = {|out_nan, |out_inf, |out_sub, |out_zero};
  logic in_fire, out_fire;
  assign in_fire  = in_valid_i && in_ready_o;
  assign out_fire = out_valid_o && out_ready_i;
  c_f16_x_nan: cover property (@(posedge clk_i) disable iff (!rst_ni) in_fire && f16_i && x_kind[3]);
  c_f16_x_inf: cover property (@(posedge clk_i) disable iff (!rst_ni) in_fire && f16_i && x_kind[2]);
  c_f16_x_subnormal: cover property (@(posedge clk_i) disable iff (!rst_ni) in_fire && f16_i && x_kind[1]);
  c_f16_x_zero: cover property (@(posedge clk_i) disable iff (!rst_ni) in_fire && f16_i && x_kind[0]);
  c_f16_w_nan: cover property (@(posedge clk_i) disable iff (!rst_ni) in_fire && f16_i && w_kind[3]);
  c_f16_w_inf: cover property (@(posedge clk_i) disable iff (!rst_ni) in_fire && f16_i && w_kind[2]);
  c_f16_w_subnormal: cover property (@(posedge clk_i) disable iff (!rst_ni) in_fire && f16_i && w_kind[1]);
  c_f16_w_zero: cover property (@(posedge clk_i) disable iff (!rst_ni) in_fire && f16_i && w_kind[0]);
  c_f32_x_nan: cover property (@(posedge clk_i) disable iff (!rst_ni) in_fire && !f16_i && x_kind[3]);
  c_f32_x_inf: cover property (@(posedge clk_i) disable iff (!rst_ni) in_fire && !f16_i && x_kind[2]);
  c_f32_x_subnormal: cover property (@(posedge clk_i) disable iff (!rst_ni) in_fire && !f16_i && x_kind[1]);
  c_f32_x_zero: cover property (@(posedge clk_i) disable iff (!rst_ni) in_fire && !f16_i && x_kind[0]);
  c_f32_w_nan: cover property (@(posedge clk_i) disable iff (!rst_ni) in_fire && !f16_i && w_kind[3]);
  c_f32_w_inf: cover property (@(posedge clk_i) disable iff (!rst_ni) in_fire && !f16_i && w_kind[2]);
  c_f32_w_subnormal: cover property (@(posedge clk_i) disable iff (!rst_ni) in_fire && !f16_i && w_kind[1]);
  c_f32_w_zero: cover property (@(posedge clk_i) disable iff (!rst_ni) in_fire && !f16_i && w_kind[0]);
  c_acc_nan: cover property (@(posedge clk_i) disable iff (!rst_ni) in_fire && acc_kind[3]);
  c_acc_inf: cover property (@(posedge clk_i) disable iff (!rst_ni) in_fire && acc_kind[2]);
  c_acc_subnormal: cover property (@(posedge clk_i) disable iff (!rst_ni) in_fire && acc_kind[1]);
  c_acc_zero: cover property (@(posedge clk_i) disable iff (!rst_ni) in_fire && acc_kind[0]);
  c_out_nan: cover property (@(posedge clk_i) disable iff (!rst_ni) out_fire && out_kind[3]);
  c_out_inf: cover property (@(posedge clk_i) disable iff (!rst_ni) out_fire && out_kind[2]);
  c_out_subnormal: cover property (@(posedge clk_i) disable iff (!rst_ni) out_fire && out_kind[1]);
  c_out_zero: cover property (@(posedge clk_i) disable iff (!rst_ni) out_fire && out_kind[0]);
  // The handshakes under pressure: a stalled result, a full pipeline, a refused offer.
  c_out_stall: cover property (@(posedge clk_i) disable iff (!rst_ni) out_valid_o && !out_ready_i);
  c_full: cover property (@(posedge clk_i) disable iff (!rst_ni) &valid_q);
  c_in_refused: cover property (@(posedge clk_i) disable iff (!rst_ni) in_valid_i && !in_ready_o);
  c_back_to_back: cover property (@(posedge clk_i) disable iff (!rst_ni) in_fire && out_fire);
  /* verilator coverage_on */
`endif
endmodule
