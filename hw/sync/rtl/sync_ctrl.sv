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
//   Idle --arrive--> In (counts way_in - 1 .. 0) --> At --start--> Out
//   Out --phase == way_out--> release (one cycle), Idle
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

  localparam logic [1:0] Idle = 2'd0;
  localparam logic [1:0] In   = 2'd1;
  localparam logic [1:0] At   = 2'd2;
  localparam logic [1:0] Out  = 2'd3;

  // Per tile.
  logic [2*TILES-1:0]       state_d, state_q;   // tile t: [2*t +: 2]
  logic [DW*TILES-1:0]      count_d, count_q;   // tile t: [DW*t +: DW]
  logic [TILES-1:0]         zone2_d, zone2_q;   // the zone of the tile's request
  logic [TILES-1:0]         release_d, release_q;
  logic [TILES-1:0]         request, reach, zone2, in_flight, out_d;
  // Shared.
  logic        start;
  logic        run_d, run_q;
  logic [DW:0] phase_d, phase_q;
  logic        phase_valid;
  logic [DW:0] phase;

  // What each tile says this cycle: released, requesting, at the controller.
  always_comb begin
    for (int unsigned t = 0; t < TILES; t++) begin
      release_d[t] = (state_q[2*t +: 2] == Out) && phase_valid &&
                     (phase == {1'b0, way_out_i[DW*t +: DW]});
      request[t]   = participate_i[t] && arrive_i[t] && (state_q[2*t +: 2] == Idle || release_d[t]);
      reach[t]     = (state_q[2*t +: 2] == At) || (state_q[2*t +: 2] == In && count_q[DW*t +: DW] == '0) ||
                     (request[t] && way_in_i[DW*t +: DW] == '0);
      zone2[t]     = request[t] ? zone2_i[t] : zone2_q[t];
      in_flight[t] = (state_q[2*t +: 2] == In);
    end
  end

  // The gather: every participant is at the controller, all at one zone.
  logic all_reach, any_reach, any_zone1, any_zone2, gather1, gather2;
  assign all_reach = &(reach | ~participate_i);
  assign any_reach = |(reach & participate_i);
  assign any_zone1 = |(reach & participate_i & ~zone2);
  assign any_zone2 = |(reach & participate_i & zone2);
  assign gather1   = all_reach && any_reach && !any_zone2;
  assign gather2   = all_reach && any_reach && !any_zone1;
  assign start     = gather1 || (gather2 && group_release_i);

  // Each tile's next state.
  always_comb begin
    for (int unsigned t = 0; t < TILES; t++) begin
      state_d[2*t +: 2] = state_q[2*t +: 2];
      count_d[DW*t +: DW] = count_q[DW*t +: DW];
      zone2_d[t] = zone2[t];
      unique case (state_q[2*t +: 2])
        In: begin
          if (count_q[DW*t +: DW] == '0) state_d[2*t +: 2] = start ? Out : At;
          else count_d[DW*t +: DW] = count_q[DW*t +: DW] - 1'b1;
        end
        At:  if (start) state_d[2*t +: 2] = Out;
        Out: if (release_d[t]) state_d[2*t +: 2] = Idle;
        default: ;
      endcase
      if (request[t]) begin
        if (way_in_i[DW*t +: DW] == '0) begin
          state_d[2*t +: 2] = start ? Out : At;
        end else begin
          state_d[2*t +: 2] = In;
          count_d[DW*t +: DW] = way_in_i[DW*t +: DW] - 1'b1;
        end
      end
      out_d[t] = (state_d[2*t +: 2] == Out);
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
      state_q   <= '0;
      count_q   <= '0;
      zone2_q   <= '0;
      release_q <= '0;
      run_q     <= 1'b0;
      phase_q   <= '0;
    end else begin
      state_q   <= state_d;
      count_q   <= count_d;
      zone2_q   <= zone2_d;
      release_q <= release_d;
      run_q     <= run_d;
      phase_q   <= phase_d;
    end
  end

  assign release_o  = release_q;
  assign gathered_o = gather2;
  assign idle_o     = !(|in_flight) && !run_q && !gather1;

endmodule
