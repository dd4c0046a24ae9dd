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
// A cycle's inputs are sampled at the edge that ends it; release_o is high after the
// edge that ends the release cycle. TILES is the most tiles the controller serves: the
// integration ties the per-tile straps (participate, way in, way out) and latency_min
// like pin straps, so one netlist serves any tile count up to TILES and any latencies
// that fit DW bits (latency_min >= 1).
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

  logic [TILES-1:0] in_flight, reach, zone2, out_d;

  logic        start;
  logic        run_d, run_q;
  logic [DW:0] phase_d, phase_q;
  logic        phase_valid;
  logic [DW:0] phase;

  for (genvar t = 0; t < TILES; t++) begin : g_tile
    sync_tile_slice #(.DW(DW)) u_slice (
      .clk_i,
      .rst_ni,
      .participate_i (participate_i[t]),
      .way_in_i      (way_in_i[t*DW +: DW]),
      .way_out_i     (way_out_i[t*DW +: DW]),
      .arrive_i      (arrive_i[t]),
      .zone2_i       (zone2_i[t]),
      .start_i       (start),
      .phase_valid_i (phase_valid),
      .phase_i       (phase),
      .in_flight_o   (in_flight[t]),
      .reach_o       (reach[t]),
      .zone2_o       (zone2[t]),
      .out_d_o       (out_d[t]),
      .release_o     (release_o[t])
    );
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

  // The release phase: phase_q counts the cycles since the start (1 in the cycle after
  // it); a tile leaves when the count past latency_min equals its way out. It runs while
  // a tile is out; a start cannot come while it runs (a tile out is not at the
  // controller, so no gather).
  assign phase_valid = run_q && (phase_q >= {1'b0, latency_min_i});
  assign phase       = phase_q - {1'b0, latency_min_i};
  assign run_d       = |out_d;
  assign phase_d     = start ? {{DW{1'b0}}, 1'b1} : (run_q ? phase_q + 1'b1 : '0);

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      run_q   <= 1'b0;
      phase_q <= '0;
    end else begin
      run_q   <= run_d;
      phase_q <= phase_d;
    end
  end

  assign gathered_o = gather2;
  assign idle_o     = !(|in_flight) && !run_q && !gather1;

endmodule
