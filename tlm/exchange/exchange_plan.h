// The exchange fabric's behaviour as plain C++ (no SystemC): given every tile's postings
// of one exchange phase, match sends with receives, check them, and compute when each
// tile's part of the exchange completes. The TLM fabric module (exchange_fabric.h) wraps
// this; keeping it separate makes the rules unit-testable and reusable by the RTL
// equivalence tests. Rules and timing: docs/xipu.md (funct3 = 2) and docs/exchange.md.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "common/config.h"  // exchange_ticks_per_cycle
#include "common/problem.h"
#include "iss/posting_log.h"
#include "links/link_timing.h"

namespace ipusim::exchange {

struct ExchangeTiming {
  uint32_t tiles_per_ipu = 1;         // distance is measured within an IPU
  uint32_t in_bytes_per_cycle = 4;    // per tile
  uint32_t out_bytes_per_cycle = 4;   // per tile
  uint32_t latency_min_cycles = 8;    // neighbouring tiles
  uint32_t latency_max_cycles = 64;   // tiles furthest apart
  // Layout model for the distance (docs/exchange.md, "Distance"): an IPU's tiles stand in
  // columns of this many tiles, numbered column by column. A model assumption, not a
  // published figure; 64 divides the GC2 (1216) and GC200 / Bow (1472) tile counts.
  uint32_t tiles_per_column = 64;
  // Messages between IPUs cross the IPU-Links: this scheduler times them (their on-chip
  // legs at both ends take latency_max_cycles together; docs/exchange.md, "Between
  // IPUs"). Null: such a message takes latency_max_cycles, as between two far tiles.
  links::LinkScheduler* links = nullptr;

  // The IPU of a global tile id (tile / tiles_per_ipu; a 0 there counts as 1).
  uint32_t ipu_of(uint32_t tile) const { return tile / (tiles_per_ipu ? tiles_per_ipu : 1); }
  bool between_ipus(uint32_t a, uint32_t b) const { return ipu_of(a) != ipu_of(b); }
  // The unit every time of the plan is kept in (plan_timing.cpp), the config's figure.
  uint64_t ticks_per_cycle() const { return config::exchange_ticks_per_cycle(in_bytes_per_cycle, out_bytes_per_cycle); }
};

// One tile's side of an exchange phase: its postings as the ISS keeps them (`log`), or
// as ExchangePosts (`posts`, read only if there is no log); neither: it posted nothing.
struct TilePostings {
  uint32_t tile = 0;                  // global tile id
  uint64_t start_cycle = 0;           // the cycle the tile reached `xwait`
  const std::vector<iss::ExchangePost>* posts = nullptr;
  const iss::PostingLog* log = nullptr;

  iss::PostingsRef postings() const { return log ? iss::PostingsRef{log, nullptr} : iss::PostingsRef{nullptr, posts}; }
};

// One message to copy: `len` bytes from src_tile:src_addr to dst_tile:dst_addr.
struct Delivery {
  uint32_t src_tile = 0, src_addr = 0;
  uint32_t dst_tile = 0, dst_addr = 0;
  uint32_t len = 0;
};

struct TileOutcome {
  uint64_t done_cycle = 0;            // when the tile's sends and receives are all complete
  uint64_t bytes_out = 0;             // sent (a multicast counts once)
  uint64_t bytes_in = 0;              // received
};

struct ExchangePlan {
  // Empty when the exchange is valid. Otherwise one problem record per problem (code
  // Exchange), naming the tile first named (ipu, tile, the posting's pc) and the other
  // one as the peer, with a kind ("send without receive", "length mismatch", ...) and
  // the sentence as detail, e.g.
  // "tile 3 sends 64 bytes to tile 7 (pc 0x00040120) but tile 7 posts no receive from tile 3"
  // (tiles in sentences by global id; in the fields by ipu and index, tiles_per_ipu).
  std::vector<Problem> errors;
  // Empty on any error (the exchange is atomic). Ordered by destination tile id, then by
  // the destination's receive posting order.
  std::vector<Delivery> deliveries;
  std::vector<TileOutcome> tiles;     // same order as the input; on error done = start
  // Host figure: common/host_clock.h ticks spent in the links' schedule (timing.links).
  uint64_t link_ticks = 0;
};

// At most this many problems in ExchangePlan::errors; a last one (kind "more errors")
// counts the rest.
inline constexpr size_t kMaxPlanErrors = 100;

// Hops between two tiles of one IPU in the layout model (Manhattan distance between
// their (column, row) places); 0 for the same tile. Tiles of different IPUs: the largest
// distance of an IPU (the IPU-Link path is timed by the links model).
uint32_t tile_distance(const ExchangeTiming& timing, uint32_t a, uint32_t b);

// Largest tile_distance() between two tiles of one IPU.
uint32_t max_tile_distance(const ExchangeTiming& timing);

// Cycles for a message between two tiles of one IPU (latency only, no serialisation):
// latency_min_cycles for neighbours (and a tile to itself) up to latency_max_cycles for
// the farthest pair, linear in distance. Tiles of different IPUs: latency_max_cycles.
uint32_t latency_cycles(const ExchangeTiming& timing, uint32_t src_tile, uint32_t dst_tile);

// Host threads for a plan: run(count, body) calls body(i) once for every i in
// [0, count), on any threads in any order, and returns when every call has returned (the
// platform's is the tile engine's pool, tile::HostPool::run). The plan does not depend on
// it (docs/exchange.md, "Planning on several host threads").
using PlanThreads = std::function<void(size_t count, const std::function<void(size_t)>& body)>;

// Pure function of its inputs: the same postings give the same plan, whatever the order
// of `tiles` and whatever `threads` (null: the calling thread alone).
// `deliveries`: where the plan's deliveries are made (its contents are replaced, its
// capacity used). A caller that plans phase after phase gives back the previous plan's
// deliveries once it has delivered them: a large phase's deliveries are tens of
// megabytes, which a new array gets freshly mapped and faulted in page by page.
ExchangePlan plan_exchange(const std::vector<TilePostings>& tiles, const ExchangeTiming& timing,
                           const PlanThreads* threads = nullptr, std::vector<Delivery> deliveries = {});

}  // namespace ipusim::exchange
