// yosys 0.23 does not parse timeunit / timeprecision; the timescale directive says the same.
`timescale 1ns / 1ps

// One tile's slice of the sync controller: the tile's way in (a down-counter loaded from
// the tile's way-in strap when its request comes), its wait for the gather, and its way
// out (the shared release phase compared with the tile's way-out strap).
//
//   Idle --arrive_i--> In (counts way_in - 1 .. 0) --> At --start_i--> Out
//   Out --phase == way_out--> release_o for one cycle, Idle
//
// reach_o says the request is at the controller in this cycle: from the cycle
// arrival + way_in on (the cycle of the request itself when way_in is 0). A tile may
// request again in the cycle it is released (a `sync` right after a `sync`); a release
// always comes at least one cycle after the start (latency_min >= 1), so the release
// does not depend on the gather it feeds.
module sync_tile_slice #(
  parameter int unsigned DW = 8   // width of the way-in / way-out straps
) (
  input  logic          clk_i,
  input  logic          rst_ni,
  // Straps (static during a sync).
  input  logic          participate_i,
  input  logic [DW-1:0] way_in_i,
  input  logic [DW-1:0] way_out_i,
  // The tile's sync request: a one-cycle pulse, with its zone (1 = zone 2, 0 = zone 1).
  input  logic          arrive_i,
  input  logic          zone2_i,
  // From the shared part: the release phase starts in this cycle (every tile at the
  // controller goes out), and the phase's cycles past latency_min (valid when
  // phase_valid_i).
  input  logic          start_i,
  input  logic          phase_valid_i,
  input  logic [DW:0]   phase_i,
  // To the shared part.
  output logic          in_flight_o,  // counting its way in
  output logic          reach_o,      // at the controller in this cycle
  output logic          zone2_o,      // the zone of the request that reached it
  output logic          out_d_o,      // on its way out after this edge
  // The release: high for the one cycle after the edge that releases the tile.
  output logic          release_o
);

  localparam logic [1:0] Idle = 2'd0;
  localparam logic [1:0] In   = 2'd1;
  localparam logic [1:0] At   = 2'd2;
  localparam logic [1:0] Out  = 2'd3;

  logic [1:0]    state_d, state_q;
  logic [DW-1:0] count_d, count_q;
  logic          zone2_d, zone2_q;
  logic          release_d, release_q;
  logic          request;

  assign release_d = (state_q == Out) && phase_valid_i && (phase_i == {1'b0, way_out_i});
  assign request   = participate_i && arrive_i && (state_q == Idle || release_d);
  assign reach_o   = (state_q == At) || (state_q == In && count_q == '0) ||
                     (request && way_in_i == '0);
  assign zone2_o   = request ? zone2_i : zone2_q;

  always_comb begin
    state_d = state_q;
    count_d = count_q;
    zone2_d = zone2_q;
    unique case (state_q)
      In: begin
        if (count_q == '0) state_d = At;
        else count_d = count_q - 1'b1;
      end
      At:  if (start_i) state_d = Out;
      Out: if (release_d) state_d = Idle;
      default: ;
    endcase
    if (request) begin
      zone2_d = zone2_i;
      if (way_in_i == '0) begin
        state_d = start_i ? Out : At;
      end else begin
        state_d = In;
        count_d = way_in_i - 1'b1;
      end
    end
    if (state_q == In && count_q == '0 && start_i) state_d = Out;
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      state_q   <= Idle;
      count_q   <= '0;
      zone2_q   <= 1'b0;
      release_q <= 1'b0;
    end else begin
      state_q   <= state_d;
      count_q   <= count_d;
      zone2_q   <= zone2_d;
      release_q <= release_d;
    end
  end

  assign in_flight_o = (state_q == In);
  assign out_d_o     = (state_d == Out);
  assign release_o   = release_q;

endmodule
