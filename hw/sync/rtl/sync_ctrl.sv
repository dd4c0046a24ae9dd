// yosys 0.23 does not parse timeunit / timeprecision; the timescale directive says the same.
`timescale 1ns / 1ps

// The sync controller of one IPU (docs/sync.md, hw/sync/README.md): gathers the sync
// requests of the participating tiles, each after its way in, and releases every tile
// latency_min cycles later plus its way out.
//
//   zone 1:  G = the cycle the last participant reaches the controller;
//            tile t is released at G + latency_min + way_out(t)
//   zone 2:  the same gather raises gathered_o (in cycle G, and after it until the group
//            answers); the system's group sync drives group_release_i in its base cycle
//            B; tile t is released at B + latency_min + way_out(t)
//
// Per tile: the way in is a down-counter loaded from the tile's way-in strap when its
// request comes; the way out compares the shared release phase with its way-out strap.
//
//   idle --arrive--> in (counts way_in - 1 .. 0) --> at --start--> out
//   out --phase == way_out--> release (one cycle), idle
//
// A tile is at the controller ("reach") from the cycle arrival + way_in on (the cycle of
// the request itself when way_in is 0). It may request again in the cycle it is released
// (a `sync` right after a `sync`); a release always comes at least one cycle after the
// start (latency_min >= 1), so no release depends on the gather it feeds.
//
// A cycle's inputs are sampled at the edge that ends it; release_o is high after the
// edge that ends the release cycle. TILES is the most tiles the controller serves: the
// integration ties the per-tile straps (participate, way in, way out) and latency_min
// like pin straps, so one netlist serves any tile count up to TILES and any latencies
// that fit DW bits. The per-tile logic is written as loops over flat vectors (yosys 0.23 has no packed
// arrays of vectors), not as
// TILES instances of a slice module: Verilator keeps a loop of 1472 iterations a loop,
// where 1472 inlined instances made 35 MB of C++ per model.
module sync_ctrl #(
  parameter int unsigned TILES = 16,  // tiles served at most
  parameter int unsigned DW    = 8    // width of the delay straps (cycles up to 2^DW - 1)
) (
  input  logic                clk_i,
  input  logic                rst_ni,
  // Straps (static during a sync).
  input  logic [TILES-1:0]    participate_i,
  input  logic [TILES*DW-1:0] way_in_i,      // tile t: bits [t*DW +: DW]
  input  logic [TILES*DW-1:0] way_out_i,
  input  logic [DW-1:0]       latency_min_i, // >= 1
  // Per-tile sync requests (one-cycle pulses) and their zone (1 = zone 2).
  input  logic [TILES-1:0]    arrive_i,
  input  logic [TILES-1:0]    zone2_i,
  // Zone 2: the group sync's release, in its base cycle.
  input  logic                group_release_i,
  // Per-tile releases: high after the edge that ends the tile's release cycle.
  output logic [TILES-1:0]    release_o,
  // Zone 2: every participant reached the controller; waits for group_release_i.
  output logic                gathered_o,
  // Nothing counts: the state holds until the next request or group release, so the
  // clock may stop.
  output logic                idle_o
);

  // Per tile: the state one-hot over three vectors (none set: idle), so that all but the
  // counters and the compares are word-wide vector operations.
  logic [TILES-1:0]    in_d, in_q;        // counting its way in
  logic [TILES-1:0]    at_d, at_q;        // at the controller, waiting for the gather
  logic [TILES-1:0]    out_d, out_q;      // on its way out
  logic [DW*TILES-1:0] count_d, count_q;  // tile t: [DW*t +: DW], the way in left - 1
  logic [TILES-1:0]    zone2_d, zone2_q;  // the zone of the tile's request
  logic [TILES-1:0]    release_d, release_q;
  logic [TILES-1:0]    count_zero, way_in_zero, way_out_now, request, reach;
  // Shared.
  logic        start;
  logic        run_d, run_q;
  logic [DW:0] phase_d, phase_q;
  logic        phase_valid;
  logic [DW:0] phase;

  // The per-tile compares.
  always_comb begin
    for (int unsigned t = 0; t < TILES; t++) begin
      count_zero[t]  = (count_q[DW*t +: DW] == '0);
      way_in_zero[t] = (way_in_i[DW*t +: DW] == '0);
      way_out_now[t] = (phase == {1'b0, way_out_i[DW*t +: DW]});
    end
  end

  // What each tile does this cycle: released, requesting (from idle, or in the cycle of
  // its release), at the controller.
  assign release_d = out_q & way_out_now & {TILES{phase_valid}};
  assign request   = participate_i & arrive_i & (~(in_q | at_q | out_q) | release_d);
  assign reach     = at_q | (in_q & count_zero) | (request & way_in_zero);
  assign zone2_d   = (request & zone2_i) | (~request & zone2_q);

  // The gather: every participant is at the controller, all at one zone.
  logic all_reach, any_reach, any_zone1, any_zone2, gather1, gather2;
  assign all_reach = &(reach | ~participate_i);
  assign any_reach = |(reach & participate_i);
  assign any_zone1 = |(reach & participate_i & ~zone2_d);
  assign any_zone2 = |(reach & participate_i & zone2_d);
  assign gather1   = all_reach && any_reach && !any_zone2;
  assign gather2   = all_reach && any_reach && !any_zone1;
  assign start     = gather1 || (gather2 && group_release_i);

  // Each tile's next state.
  assign in_d  = (in_q & ~count_zero) | (request & ~way_in_zero);
  assign at_d  = reach & {TILES{!start}};
  assign out_d = (out_q & ~release_d) | (reach & {TILES{start}});

  // The way-in counters: loaded by a request, down while counting.
  always_comb begin
    for (int unsigned t = 0; t < TILES; t++) begin
      if (request[t] && !way_in_zero[t]) count_d[DW*t +: DW] = way_in_i[DW*t +: DW] - 1'b1;
      else if (in_q[t] && !count_zero[t]) count_d[DW*t +: DW] = count_q[DW*t +: DW] - 1'b1;
      else count_d[DW*t +: DW] = count_q[DW*t +: DW];
    end
  end

  // The release phase: phase_q counts the cycles since the start (1 in the cycle after
  // it); a tile leaves when the count past latency_min equals its way out. It runs while
  // a tile is out; no start comes while it runs (a tile out is not at the controller).
  assign phase_valid = run_q && (phase_q >= {1'b0, latency_min_i});
  assign phase       = phase_q - {1'b0, latency_min_i};
  assign run_d       = |out_d;
  assign phase_d     = start ? {{DW{1'b0}}, 1'b1} : (run_q ? phase_q + 1'b1 : '0);

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      in_q      <= '0;
      at_q      <= '0;
      out_q     <= '0;
      count_q   <= '0;
      zone2_q   <= '0;
      release_q <= '0;
      run_q     <= 1'b0;
      phase_q   <= '0;
    end else begin
      in_q      <= in_d;
      at_q      <= at_d;
      out_q     <= out_d;
      count_q   <= count_d;
      zone2_q   <= zone2_d;
      release_q <= release_d;
      run_q     <= run_d;
      phase_q   <= phase_d;
    end
  end

  assign release_o  = release_q;
  assign gathered_o = gather2;
  assign idle_o     = !(|in_q) && !run_q && !gather1;

`ifndef SYNTHESIS
  // Verification only: not counted in line or toggle coverage (the cover points count).
  /* verilator coverage_off */
  // Checks (Verilator --assert; yosys defines SYNTHESIS and skips them). A failure calls
  // the platform through DPI: the run stops with it named (docs/cosim.md "Assertions and
  // coverage"). Cover points count with --coverage (hw/sync/README.md "Coverage").
  import "DPI-C" context function void ipusim_rtl_assert_failed(input string check, input string message);

  // The per-tile conditions, each reduced to one bit outside the assertions and kept
  // whole (public_flat_rd): an assertion samples what it reads, and Verilator 5.006
  // miscompiles the sampled copy of a wide vector (TILES = 1472).
  logic arrive_member /*verilator public_flat_rd*/, arrive_once /*verilator public_flat_rd*/;
  logic state_onehot /*verilator public_flat_rd*/, release_out /*verilator public_flat_rd*/;
  logic release_once /*verilator public_flat_rd*/, release_member /*verilator public_flat_rd*/;
  logic gather_holds /*verilator public_flat_rd*/, all_arrived /*verilator public_flat_rd*/;
  logic one_zone /*verilator public_flat_rd*/;
  assign arrive_member  = (arrive_i & ~participate_i) == '0;
  assign arrive_once    = (arrive_i & participate_i & (in_q | at_q | out_q) & ~release_d) == '0;
  assign state_onehot   = ((in_q & at_q) | (in_q & out_q) | (at_q & out_q)) == '0;
  assign release_out    = (release_d & ~out_q) == '0;
  assign release_once   = (release_d & out_d) == '0;
  assign release_member = (release_q & ~participate_i) == '0;
  assign gather_holds   = at_d == reach;
  assign all_arrived    = all_reach && any_reach;
  assign one_zone       = !(any_zone1 && any_zone2);

  // Inputs: the strap the release arithmetic needs, requests only from members that wait
  // for nothing (a second request of a tile in flight would be lost).
  a_latency_min: assert property (@(posedge clk_i) disable iff (!rst_ni) latency_min_i != '0)
    else ipusim_rtl_assert_failed("a_latency_min", "latency_min_i is 0 (it must be at least 1)");
  a_arrive_member: assert property (@(posedge clk_i) disable iff (!rst_ni) arrive_member)
    else ipusim_rtl_assert_failed("a_arrive_member", "a request from a tile that does not participate");
  a_arrive_once: assert property (@(posedge clk_i) disable iff (!rst_ni) arrive_once)
    else ipusim_rtl_assert_failed("a_arrive_once", "a tile requests again before its release");
  // State: each tile in at most one of in / at / out.
  a_state_onehot: assert property (@(posedge clk_i) disable iff (!rst_ni) state_onehot)
    else ipusim_rtl_assert_failed("a_state_onehot", "a tile is in two states at once");
  // A zone releases only once every member reached the controller, all at one zone, and
  // every member of it goes out.
  a_start_all: assert property (@(posedge clk_i) disable iff (!rst_ni) start |-> all_arrived)
    else ipusim_rtl_assert_failed("a_start_all", "a sync started before every participant arrived");
  a_start_one_zone: assert property (@(posedge clk_i) disable iff (!rst_ni) start |-> one_zone)
    else ipusim_rtl_assert_failed("a_start_one_zone", "a sync started with tiles at both zones");
  a_start_idle_phase: assert property (@(posedge clk_i) disable iff (!rst_ni) start |-> !run_q)
    else ipusim_rtl_assert_failed("a_start_idle_phase", "a sync started while the last one's releases run");
  // Releases: only tiles on their way out, each once (it leaves out with its release),
  // only members; the release phase never wraps (every way out fits it).
  a_release_out: assert property (@(posedge clk_i) disable iff (!rst_ni) release_out)
    else ipusim_rtl_assert_failed("a_release_out", "a release of a tile that was not on its way out");
  a_release_once: assert property (@(posedge clk_i) disable iff (!rst_ni) release_once)
    else ipusim_rtl_assert_failed("a_release_once", "a released tile stays on its way out");
  a_release_member: assert property (@(posedge clk_i) disable iff (!rst_ni) release_member)
    else ipusim_rtl_assert_failed("a_release_member", "a release of a tile that does not participate");
  a_phase_bounded: assert property (@(posedge clk_i) disable iff (!rst_ni) run_q |-> phase_q != '1)
    else ipusim_rtl_assert_failed("a_phase_bounded", "the release phase wrapped with tiles still out");
  a_gather_no_start2: assert property (@(posedge clk_i) disable iff (!rst_ni) gather2 && !group_release_i |-> gather_holds)
    else ipusim_rtl_assert_failed("a_gather_no_start2", "a zone-2 gather moved without the group's release");

  // The zone of the last sync started (verification only): a zone-1 sync after a zone-2
  // one and the reverse are the mixed-zone cases the lane sees.
  logic last_zone2_q, started_q;
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      last_zone2_q <= 1'b0;
      started_q    <= 1'b0;
    end else if (start) begin
      last_zone2_q <= !gather1;
      started_q    <= 1'b1;
    end
  end
  c_zone1: cover property (@(posedge clk_i) disable iff (!rst_ni) start && gather1);
  c_zone2: cover property (@(posedge clk_i) disable iff (!rst_ni) start && !gather1);
  c_zone2_after_zone1: cover property (@(posedge clk_i) disable iff (!rst_ni) start && !gather1 && started_q && !last_zone2_q);
  c_zone1_after_zone2: cover property (@(posedge clk_i) disable iff (!rst_ni) start && gather1 && started_q && last_zone2_q);
  c_group_waits: cover property (@(posedge clk_i) disable iff (!rst_ni) gather2 && !group_release_i);
  c_group_same_cycle: cover property (@(posedge clk_i) disable iff (!rst_ni) gather2 && group_release_i && !$past(gather2));
  logic request_at_release /*verilator public_flat_rd*/, in_while_out /*verilator public_flat_rd*/;
  logic way_in_zero_request /*verilator public_flat_rd*/;
  assign request_at_release  = |(request & release_d);
  assign in_while_out        = |in_q && |out_q;
  assign way_in_zero_request = |(request & way_in_zero);
  c_request_at_release: cover property (@(posedge clk_i) disable iff (!rst_ni) request_at_release);
  c_in_while_out: cover property (@(posedge clk_i) disable iff (!rst_ni) in_while_out);
  c_way_in_zero: cover property (@(posedge clk_i) disable iff (!rst_ni) way_in_zero_request);
  /* verilator coverage_on */
`endif

endmodule
