// The plan's bookkeeping: dense tile ids (ascending global id), the capped error list and
// the chunks the plan's work is cut into.
#include <algorithm>
#include <numeric>

#include <fmt/format.h>

#include "exchange/plan_internal.h"

namespace ipusim::exchange::detail {

void ErrorList::add(std::string kind, uint32_t tile, uint32_t pc, uint32_t peer, uint32_t peer_pc, std::string detail) {
  if (out_.size() >= kMaxPlanErrors) {
    ++dropped_;
    return;
  }
  Problem p;
  p.code = ProblemCode::Exchange;
  p.kind = std::move(kind);
  if (tile != kNoTile) {
    p.ipu = tile / tiles_per_ipu_;
    p.tile = tile % tiles_per_ipu_;
    p.pc = pc;
  }
  if (peer != kNoTile) {
    p.peer.emplace();
    p.peer->ipu = peer / tiles_per_ipu_;
    p.peer->tile = peer % tiles_per_ipu_;
    p.peer->pc = peer_pc;
  }
  p.detail = std::move(detail);
  out_.push_back(std::move(p));
}

void ErrorList::take(std::vector<Problem>& problems, size_t dropped) {
  // A chunk kept its first kMaxPlanErrors problems, so the first kMaxPlanErrors of all the
  // chunks' problems in chunk order are among those kept: the same as one list.
  for (Problem& p : problems) {
    if (out_.size() >= kMaxPlanErrors) {
      ++dropped_;
    } else {
      out_.push_back(std::move(p));
    }
  }
  dropped_ += dropped;
}

Chunks::Chunks(uint32_t tiles, uint32_t tiles_per_chunk, const PlanThreads* threads) : threads_(threads) {
  const uint32_t per = std::max<uint32_t>(tiles_per_chunk, 1);
  const uint32_t count = std::clamp<uint32_t>((tiles + per - 1) / per, 1, kMaxChunks);
  begin_.resize(size_t(count) + 1);
  for (uint32_t c = 0; c <= count; ++c) begin_[c] = uint32_t(uint64_t(tiles) * c / count);
}

void Chunks::run(const std::function<void(size_t)>& body) const { run(size(), body); }

void Chunks::run(size_t count, const std::function<void(size_t)>& body) const {
  if (threads_ && *threads_ && count > 1) {
    (*threads_)(count, body);
    return;
  }
  for (size_t c = 0; c < count; ++c) body(c);
}

void ErrorList::finish() {
  if (dropped_ > 0) {  // past the cap: not counted by add()
    Problem p;
    p.code = ProblemCode::Exchange;
    p.kind = "more errors";
    p.detail = fmt::format("... and {} further exchange errors", dropped_);
    out_.push_back(std::move(p));
  }
  dropped_ = 0;
}

std::string pc_text(uint32_t pc) { return fmt::format("pc {:#010x}", pc); }

uint32_t TileIndex::find_sparse(uint32_t global) const {
  auto it = std::lower_bound(sorted_global.begin(), sorted_global.end(), global);
  return it != sorted_global.end() && *it == global ? uint32_t(it - sorted_global.begin()) : kNoTile;
}

bool index_tiles(const std::vector<TilePostings>& in, TileIndex& index, ErrorList& errors) {
  std::vector<uint32_t> order(in.size());
  std::iota(order.begin(), order.end(), 0u);
  std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
    return in[a].tile != in[b].tile ? in[a].tile < in[b].tile : a < b;
  });
  bool ok = true;
  for (size_t i = 1; i < order.size(); ++i) {
    if (in[order[i]].tile == in[order[i - 1]].tile) {
      errors.add("tile given twice", in[order[i]].tile, kNoTile, kNoTile, kNoTile,
                 fmt::format("tile {} is given twice to the exchange (inputs {} and {})", in[order[i]].tile,
                             order[i - 1], order[i]));
      ok = false;
    }
  }
  if (!ok) return false;

  index.tile.resize(in.size());
  index.postings.resize(in.size());
  index.input_pos = order;
  index.sorted_global.resize(in.size());
  for (size_t d = 0; d < order.size(); ++d) {
    index.tile[d] = &in[order[d]];
    index.postings[d] = in[order[d]].postings();
    index.sorted_global[d] = in[order[d]].tile;
  }
  // Global ids are normally a range: 0..total-1, or one IPU's ipu x tiles onwards. A
  // direct table over it then beats a binary search (which was a tenth of a POD16 run's
  // host time, every IPU past the sixth planning through it).
  const uint32_t min_id = in.empty() ? 0 : index.sorted_global.front();
  const uint64_t span = in.empty() ? 0 : uint64_t(index.sorted_global.back()) - min_id;
  index.by_global.clear();  // the index may be a previous plan's (PlanStorage)
  index.by_global_base = min_id;
  if (span < 4 * uint64_t(in.size()) + 4096) {
    index.by_global.assign(span + 1, kNoTile);
    for (size_t d = 0; d < order.size(); ++d) index.by_global[index.sorted_global[d] - min_id] = uint32_t(d);
  }
  return true;
}

}  // namespace ipusim::exchange::detail
