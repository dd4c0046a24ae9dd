`timescale 1ns / 1ps
// Bounded model check of sync_ctrl (hw/sync/README.md, "Formal checks"): yosys-smtbmc
// explores every strap setting (participants, ways in and out, latency_min) and every
// request / zone / group-release pattern of TILES tiles up to the depth the suite runs,
// and proves
//   - no early release: tile t is released for the k-th time only once every
//     participant has arrived k times (and only a participant that asked is released);
//   - release comes: once every participant has arrived for t's sync, t is released
//     within max(way in) + latency_min + way_out(t) + 1 cycles, not counting the cycles
//     a zone-2 gather waits for its group's release.
// The environment is what the platform gives the controller: a tile requests again only
// after it was released, the tiles of one sync ask for one zone, and the group releases a
// zone-2 sync only while gathered_o is high. Small TILES and DW keep the proof short; the
// logic is the same loop over tiles at any TILES.
module sync_formal #(
  parameter int unsigned TILES = 3,
  parameter int unsigned DW    = 2,
  parameter int unsigned CW    = 4   // per-tile arrival / release counters (wrap-free within the depth)
) (
  input logic             clk_i,
  input logic [TILES-1:0] arrive_i,
  input logic             zone2_i,   // the zone of this cycle's requests (1 = zone 2)
  input logic             group_release_i
);
  (* anyconst *) logic [TILES-1:0]    participate;
  (* anyconst *) logic [TILES*DW-1:0] way_in;
  (* anyconst *) logic [TILES*DW-1:0] way_out;
  (* anyconst *) logic [DW-1:0]       latency_min;

  // Reset in the first cycle, then run.
  logic rst_n = 1'b0;
  always_ff @(posedge clk_i) rst_n <= 1'b1;

  logic [TILES-1:0] release_o;
  logic             gathered, idle;

  sync_ctrl #(
    .TILES(TILES),
    .DW   (DW)
  ) dut (
    .clk_i,
    .rst_ni         (rst_n),
    .participate_i  (participate),
    .way_in_i       (way_in),
    .way_out_i      (way_out),
    .latency_min_i  (latency_min),
    .arrive_i,
    .zone2_i        ({TILES{zone2_i}}),
    .group_release_i,
    .release_o,
    .gathered_o     (gathered),
    .idle_o         (idle)
  );

  // The harness's record: per tile, arrivals and releases so far, whether it waits.
  logic [TILES*CW-1:0] arrived_q = '0, released_q = '0;
  logic [TILES-1:0]    pending_q = '0;
  logic                any_pending, pending_zone2_q = 1'b0;
  logic [DW-1:0]       max_way_in;

  always_comb begin
    max_way_in = '0;
    for (int unsigned t = 0; t < TILES; t++) begin
      if (participate[t] && way_in[DW*t +: DW] > max_way_in) max_way_in = way_in[DW*t +: DW];
    end
  end
  assign any_pending = |pending_q;

  // The environment.
  always_comb begin
    assume (latency_min != '0);
    if (rst_n) begin
      // A tile requests only when it is not waiting for a release, and not at all when it
      // takes no part (the controller ignores it anyway).
      assume ((arrive_i & (pending_q | ~participate)) == '0);
      // One sync, one zone.
      if (any_pending && arrive_i != '0) assume (zone2_i == pending_zone2_q);
      // The group answers a zone-2 gather only.
      if (group_release_i) assume (gathered);
    end
  end

  always_ff @(posedge clk_i) begin
    if (rst_n) begin
      for (int unsigned t = 0; t < TILES; t++) begin
        if (arrive_i[t]) arrived_q[CW*t +: CW] <= arrived_q[CW*t +: CW] + 1'b1;
        if (release_o[t]) released_q[CW*t +: CW] <= released_q[CW*t +: CW] + 1'b1;
      end
      pending_q <= (pending_q & ~release_o) | arrive_i;
      if (arrive_i != '0) pending_zone2_q <= zone2_i;
    end
  end

  // No early release: the k-th release of t needs the k-th arrival of every participant.
  logic [CW-1:0] round;   // t's release count after this release
  always_comb begin
    round = '0;
    if (rst_n) begin
      for (int unsigned t = 0; t < TILES; t++) begin
        if (release_o[t]) begin
          assert (participate[t] && pending_q[t]);
          round = released_q[CW*t +: CW] + 1'b1;
          for (int unsigned u = 0; u < TILES; u++) begin
            if (participate[u]) assert (arrived_q[CW*u +: CW] >= round);
          end
        end
      end
    end
  end

  // Release comes: cycles t has waited since every participant arrived for its sync.
  logic [TILES-1:0]   all_in;
  logic [TILES*5-1:0] waited_q = '0;
  always_comb begin
    for (int unsigned t = 0; t < TILES; t++) begin
      all_in[t] = pending_q[t];
      for (int unsigned u = 0; u < TILES; u++) begin
        if (participate[u] && arrived_q[CW*u +: CW] <= released_q[CW*t +: CW]) all_in[t] = 1'b0;
      end
    end
  end
  always_ff @(posedge clk_i) begin
    if (rst_n) begin
      for (int unsigned t = 0; t < TILES; t++) begin
        if (!all_in[t] || release_o[t]) waited_q[5*t +: 5] <= '0;
        else if (!(gathered && !group_release_i)) waited_q[5*t +: 5] <= waited_q[5*t +: 5] + 1'b1;
      end
    end
  end
  always_comb begin
    if (rst_n) begin
      for (int unsigned t = 0; t < TILES; t++) begin
        assert (32'(waited_q[5*t +: 5]) <= 32'(max_way_in) + 32'(latency_min) + 32'(way_out[DW*t +: DW]) + 1);
      end
    end
  end
endmodule
