// plan_exchange(): index the tiles, collect and match the postings, check the buffers,
// then time the exchange. Any error empties `deliveries` (the exchange is atomic: the
// platform delivers nothing) and leaves every tile's outcome at its start cycle.
#include "exchange/exchange_plan.h"

#include <algorithm>

#include <fmt/format.h>

#include "exchange/plan_internal.h"

namespace ipusim::exchange {

using namespace detail;

namespace {

bool check_timing(const ExchangeTiming& timing, ErrorList& errors) {
  bool ok = true;
  auto need = [&](bool good, const char* what) {
    if (!good) errors.add("bad timing", fmt::format("exchange timing: {}", what));
    ok = ok && good;
  };
  need(timing.in_bytes_per_cycle > 0, "in_bytes_per_cycle must be at least 1");
  need(timing.out_bytes_per_cycle > 0, "out_bytes_per_cycle must be at least 1");
  need(timing.tiles_per_ipu > 0, "tiles_per_ipu must be at least 1");
  need(timing.tiles_per_column > 0, "tiles_per_column must be at least 1");
  need(timing.latency_max_cycles >= timing.latency_min_cycles,
       "latency_max_cycles must be at least latency_min_cycles");
  return ok;
}

void fail(const std::vector<TilePostings>& tiles, ExchangePlan& plan, ErrorList& errors) {
  errors.finish();
  plan.deliveries.clear();
  plan.tiles.assign(tiles.size(), TileOutcome{});
  for (size_t i = 0; i < tiles.size(); ++i) plan.tiles[i].done_cycle = tiles[i].start_cycle;
}

// Messages between IPUs need an IPU-Link path between them.
void check_routes(const TileIndex& index, const Postings& postings, const Matches& matches,
                  const ExchangeTiming& timing, ErrorList& errors) {
  const links::Topology& topology = timing.links->topology();
  for (size_t i = 0; i < matches.deliveries.size(); ++i) {
    const Delivery& d = matches.deliveries[i];
    const uint32_t src = index.global(d.src_tile), dst = index.global(d.dst_tile);
    const uint32_t a = timing.ipu_of(src), b = timing.ipu_of(dst);
    if (a == b || (a < topology.ipus() && b < topology.ipus() && topology.hops(a, b) != links::Topology::kUnreachable))
      continue;
    const SendInfo& send = postings.sends[matches.send_pair[i] >> 1];
    const uint32_t pc = index.post(send.tile, send.post).pc;
    errors.add("no link path", src, pc, dst, kNoTile,
               fmt::format("tile {} (ipu {}) sends {} bytes to tile {} (ipu {}) ({}) but no IPU-Link path joins "
                           "IPU {} to IPU {}",
                           src, a, d.len, dst, b, pc_text(pc), a, b));
  }
}

}  // namespace

ExchangePlan plan_exchange(const std::vector<TilePostings>& tiles, const ExchangeTiming& timing,
                           const PlanThreads* threads, std::vector<Delivery> deliveries) {
  return plan_exchange_in_chunks(tiles, timing, threads, kTilesPerChunk, kMinPostingsForThreads,
                                 std::move(deliveries));
}

namespace detail {

namespace {

// The plan's steps over `storage`.
ExchangePlan plan_with(PlanStorage& storage, const std::vector<TilePostings>& tiles, const ExchangeTiming& timing,
                       const PlanThreads* threads, uint32_t tiles_per_chunk, size_t min_postings_for_threads,
                       std::vector<Delivery>& deliveries) {
  ExchangePlan plan;
  ErrorList errors(plan.errors, timing.tiles_per_ipu ? timing.tiles_per_ipu : 1);
  TileIndex& index = storage.index;
  if (!check_timing(timing, errors) || !index_tiles(tiles, index, errors)) {
    fail(tiles, plan, errors);
    return plan;
  }
  size_t postings_count = 0;
  for (uint32_t d = 0; d < index.size(); ++d) postings_count += index.post_count(d);
  const Chunks chunks(index.size(), tiles_per_chunk, postings_count >= min_postings_for_threads ? threads : nullptr);
  Postings& postings = storage.postings;
  collect_postings(index, timing, chunks, postings, errors);
  check_overlaps(index, postings, chunks, errors);
  Matches& matches = storage.matches;
  // The caller's storage: the plan's deliveries below (on failure this thread keeps it).
  matches.deliveries.swap(deliveries);
  match_postings(index, postings, chunks, storage.by_dst, matches, errors);
  if (!errors.any() && timing.links) check_routes(index, postings, matches, timing, errors);
  if (errors.any()) {
    fail(tiles, plan, errors);
    return plan;
  }

  time_exchange(index, postings, matches, timing, chunks, storage.timing, plan.link_ticks);
  const std::vector<TileOutcome>& outcome = storage.timing.outcome;
  plan.tiles.resize(tiles.size());
  for (uint32_t d = 0; d < index.size(); ++d) plan.tiles[index.input_pos[d]] = outcome[d];
  plan.deliveries.swap(matches.deliveries);
  return plan;
}

// This thread's storage, for one plan at a time: a plan made while it is held (from
// inside another plan's step) gets storage of its own.
struct ThreadStorage {
  PlanStorage storage;
  bool held = false;
};
thread_local ThreadStorage this_thread;

class HeldStorage {
 public:
  HeldStorage() : mine_(!this_thread.held) { this_thread.held = true; }
  ~HeldStorage() {
    if (mine_) this_thread.held = false;
  }
  HeldStorage(const HeldStorage&) = delete;
  HeldStorage& operator=(const HeldStorage&) = delete;
  PlanStorage& get() { return mine_ ? this_thread.storage : own_; }

 private:
  bool mine_;
  PlanStorage own_;
};

}  // namespace

ExchangePlan plan_exchange_in_chunks(const std::vector<TilePostings>& tiles, const ExchangeTiming& timing,
                                     const PlanThreads* threads, uint32_t tiles_per_chunk,
                                     size_t min_postings_for_threads, std::vector<Delivery> deliveries) {
  HeldStorage storage;
  return plan_with(storage.get(), tiles, timing, threads, tiles_per_chunk, min_postings_for_threads, deliveries);
}

}  // namespace detail
}  // namespace ipusim::exchange
