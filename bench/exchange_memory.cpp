// exchange_memory: what one exchange message costs in host memory while its phase is
// planned, and how long the plan takes. An all-to-all phase over the tiles of one IPU
// (as the on-chip reduce-scatter of allreduce / ipu_allreduce: every tile sends `len`
// bytes to every other tile in rotated order and receives from each into its own slot)
// is posted into the tiles' posting storage as the ISS does it, then planned with
// plan_exchange(). Prints one JSON line:
//   posting_bytes_per_message   heap held by the tiles' postings (a message is one send
//                               posting on its sender and one receive on its receiver)
//   plan_peak_bytes_per_message the most heap plan_exchange() held on top of its input
//                               (the first plan: later ones reuse its storage)
//   plan_output_bytes_per_message  what the returned plan keeps (the deliveries; each plan
//                               is made into the deliveries of the one before, as a
//                               fabric does)
//   plan_kept_bytes_per_message what the thread keeps for its next plan (PlanStorage)
//   plan_peak_rss_bytes_per_message the growth of the resident set during the plan (the
//                               kernel's VmHWM, reset first): reserved memory the plan
//                               never touches counts above, not here
//   plan_cpu_seconds            the fastest of --reps plans (CPU time)
// Heap bytes are the allocator's (alloc_meter.h): usable size plus chunk header.
//
//   exchange_memory [--tiles 1472] [--len 128] [--reps 3]
#include <algorithm>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "alloc_meter.h"
#include "exchange/exchange_plan.h"
#include "iss/posting_log.h"

namespace {

using ipusim::bench::AllocMeter;
using ipusim::iss::ExchangePost;

// The tiles' postings, stored the way a TileCore stores them while it waits at `xwait`.
struct Tiles {
  std::vector<ipusim::iss::PostingLog> posts;

  void post(uint32_t tile, ExchangePost::Kind kind, uint32_t addr, uint32_t len, uint32_t peer, uint32_t pc) {
    posts[tile].add_message(kind, addr, len, std::span<const uint32_t>(&peer, 1), pc, 0);
  }
  std::vector<ipusim::exchange::TilePostings> input() const {
    std::vector<ipusim::exchange::TilePostings> in;
    for (uint32_t t = 0; t < posts.size(); ++t) in.push_back({t, 0, nullptr, &posts[t]});
    return in;
  }
};

// Tile s sends its buffer to s+1, s+2, ... and receives from s-1, s-2, ... into slots laid
// end to end, one loop of posting instructions each (so two pcs per tile).
void post_all_to_all(Tiles& tiles, uint32_t n, uint32_t len) {
  constexpr uint32_t kBase = 0x40000, kSendPc = 0x40100, kRecvPc = 0x40200;
  tiles.posts.resize(n);
  for (uint32_t s = 0; s < n; ++s) {
    for (uint32_t k = 1; k < n; ++k) tiles.post(s, ExchangePost::Kind::Send, kBase, len, (s + k) % n, kSendPc);
    for (uint32_t k = 1; k < n; ++k)
      tiles.post(s, ExchangePost::Kind::Recv, kBase + len * k, len, (s + n - k) % n, kRecvPc);
  }
}

double cpu_seconds() { return double(std::clock()) / CLOCKS_PER_SEC; }

// A "VmRSS:" or "VmHWM:" figure of /proc/self/status, bytes.
size_t status_bytes(const std::string& key) {
  std::ifstream in("/proc/self/status");
  std::string word;
  while (in >> word)
    if (word == key) {
      size_t kib = 0;
      in >> kib;
      return kib * 1024;
    }
  return 0;
}

// Sets the peak resident set (VmHWM) back to the current one (Linux 4.0 and later).
void reset_rss_peak() { std::ofstream("/proc/self/clear_refs") << "5"; }

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"exchange_memory: host bytes per exchange message of an all-to-all phase, and its plan time"};
  uint32_t n = 1472, len = 128, reps = 3;
  app.add_option("--tiles", n, "tiles of the IPU (GC200: 1472)")->check(CLI::Range(2u, 1u << 16));
  app.add_option("--len", len, "bytes per message (a multiple of 4)");
  app.add_option("--reps", reps, "plans timed; the fastest is reported")->check(CLI::PositiveNumber);
  CLI11_PARSE(app, argc, argv);
  const double messages = double(n) * (n - 1);

  const size_t empty = AllocMeter::current();
  Tiles tiles;
  post_all_to_all(tiles, n, len);
  const size_t posted = AllocMeter::current();
  const std::vector<ipusim::exchange::TilePostings> in = tiles.input();

  ipusim::exchange::ExchangeTiming timing;
  timing.tiles_per_ipu = n;
  double best = 0;
  size_t plan_peak = 0, plan_output = 0, plan_rss = 0, plan_kept = 0;
  const size_t first_before = AllocMeter::current();
  std::vector<ipusim::exchange::Delivery> kept;  // as a fabric does: each plan into the last one's deliveries
  for (uint32_t r = 0; r < reps; ++r) {
    const size_t before = AllocMeter::current();
    AllocMeter::reset_peak();
    reset_rss_peak();
    const size_t rss_before = status_bytes("VmRSS:");
    const double begin = cpu_seconds();
    ipusim::exchange::ExchangePlan plan = plan_exchange(in, timing, nullptr, std::move(kept));
    const double took = cpu_seconds() - begin;
    if (r == 0) plan_rss = status_bytes("VmHWM:") - rss_before;
    if (!plan.errors.empty() || plan.deliveries.size() != size_t(messages)) {
      std::fprintf(stderr, "exchange_memory: the plan is wrong (%zu errors, %zu deliveries)\n", plan.errors.size(),
                   plan.deliveries.size());
      return 1;
    }
    if (r == 0 || took < best) best = took;
    plan_peak = std::max(plan_peak, AllocMeter::peak() - before);
    plan_output = plan.deliveries.capacity() * sizeof(ipusim::exchange::Delivery);
    plan_kept = AllocMeter::current() - first_before - plan_output;
    kept = std::move(plan.deliveries);
    kept.clear();
  }

  const nlohmann::json out{{"bench", "exchange_memory"},
                           {"tiles", n},
                           {"len", len},
                           {"messages", uint64_t(messages)},
                           {"posting_bytes_per_message", double(posted - empty) / messages},
                           {"plan_peak_bytes_per_message", double(plan_peak) / messages},
                           {"plan_kept_bytes_per_message", double(plan_kept) / messages},
                           {"plan_output_bytes_per_message", double(plan_output) / messages},
                           {"plan_peak_rss_bytes_per_message", double(plan_rss) / messages},
                           {"plan_cpu_seconds", best}};
  std::printf("%s\n", out.dump().c_str());
  return 0;
}
