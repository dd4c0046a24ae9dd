// Buffer rules within one tile and one phase (docs/exchange.md, "Buffers"):
// - two receives must not write the same bytes (the result would depend on which
//   message lands last);
// - a receive must not write bytes that one of the tile's own sends reads (what is sent
//   would depend on whether the receive landed first).
// Sends may overlap each other (reading the same bytes twice is harmless).
// O(p) per tile for p postings when they are posted in address order (the usual case)
// or in a few ascending or descending runs of it (O(p log runs)), O(p log p) otherwise;
// at most one error per receive.
#include <algorithm>

#include <fmt/format.h>

#include "exchange/plan_internal.h"

namespace ipusim::exchange::detail {
namespace {

using iss::PostingView;

struct Span {
  uint64_t begin = 0, end = 0;  // [begin, end) in tile addresses
  uint32_t post = 0;
};

std::string describe_recv(const PostingView& p) {
  return fmt::format("{} bytes at {:#010x} from tile {} ({})", p.len, p.addr, p.peers[0],
                     pc_text(p.pc));
}

std::string describe_send(const PostingView& p) {
  std::string to = p.peers.empty() ? std::string("no tile") : fmt::format("tile {}", p.peers[0]);
  if (p.peers.size() > 1) to += fmt::format(" and {} more", p.peers.size() - 1);
  return fmt::format("{} bytes at {:#010x} to {} ({})", p.len, p.addr, to, pc_text(p.pc));
}

class TileChecker {
 public:
  TileChecker(const TileIndex& index, ErrorList& errors) : index_(index), errors_(errors) {}

  // `sends` / `recvs`: the tile's sends and receive legs (ranges of Postings).
  void check(uint32_t tile, const SendInfo* sends, const SendInfo* sends_end, const RecvLeg* recvs,
             const RecvLeg* recvs_end) {
    recvs_.clear();
    sends_.clear();
    for (const RecvLeg* r = recvs; r != recvs_end; ++r)
      if (r->len > 0) recvs_.push_back({r->addr, uint64_t(r->addr) + r->len, r->post});
    if (recvs_.empty()) return;
    for (const SendInfo* s = sends; s != sends_end; ++s)
      if (s->len > 0) sends_.push_back({s->addr, uint64_t(s->addr) + s->len, s->post});
    sort_by_place(recvs_);
    check_receives(tile);
    if (sends_.empty()) return;
    sort_by_place(sends_);
    check_sends_against_receives(tile);
  }

 private:
  // In (address, posting order). Buffers are usually posted in address order, or in a
  // few runs of it, ascending or descending (an all-to-all posts its receives from
  // me - 1, me - 2, ...: two descending runs). So the spans are cut into such runs (a
  // descending one reversed: its addresses differ, so posting order does not matter in
  // it) and merged pairwise: O(p log runs). Many runs: sorted through 8-byte keys
  // (address, position), which sort several times faster than the spans themselves.
  void sort_by_place(std::vector<Span>& spans) {
    auto by_place = [](const Span& a, const Span& b) {
      return a.begin != b.begin ? a.begin < b.begin : a.post < b.post;
    };
    if (spans.size() < 2 || std::is_sorted(spans.begin(), spans.end(), by_place)) return;
    if (merge_runs(spans, by_place)) return;
    keys_.resize(spans.size());
    for (size_t i = 0; i < spans.size(); ++i) keys_[i] = spans[i].begin << 32 | i;  // spans are in posting order
    std::sort(keys_.begin(), keys_.end());
    sorted_.resize(spans.size());
    for (size_t i = 0; i < spans.size(); ++i) sorted_[i] = spans[uint32_t(keys_[i])];
    spans.swap(sorted_);
  }

  // Sorts `spans` by merging its monotone runs if there are at most kMaxRuns; false
  // (spans unchanged) if there are more.
  template <typename Less>
  bool merge_runs(std::vector<Span>& spans, Less less) {
    constexpr size_t kMaxRuns = 16;
    run_begin_.clear();
    for (size_t i = 0; i < spans.size();) {
      if (run_begin_.size() == kMaxRuns) return false;
      run_begin_.push_back(i);
      size_t j = i + 1;
      if (j < spans.size() && spans[j].begin < spans[i].begin) {  // strictly descending
        while (j + 1 < spans.size() && spans[j + 1].begin < spans[j].begin) ++j;
        ++j;
      } else {
        while (j < spans.size() && !less(spans[j], spans[j - 1])) ++j;
      }
      i = j;
    }
    run_begin_.push_back(spans.size());
    for (size_t r = 0; r + 1 < run_begin_.size(); ++r) {
      auto first = spans.begin() + run_begin_[r], last = spans.begin() + run_begin_[r + 1];
      if (last - first > 1 && first[1].begin < first[0].begin) std::reverse(first, last);
    }
    // Pairwise merges, earlier run first on ties (posting order), until one run is left.
    sorted_.resize(spans.size());
    while (run_begin_.size() > 2) {
      merged_.clear();
      for (size_t r = 0; r + 1 < run_begin_.size(); r += 2) {
        merged_.push_back(run_begin_[r]);
        const size_t mid = run_begin_[r + 1];
        const size_t end = r + 2 < run_begin_.size() ? run_begin_[r + 2] : mid;
        std::merge(spans.begin() + run_begin_[r], spans.begin() + mid, spans.begin() + mid, spans.begin() + end,
                   sorted_.begin() + run_begin_[r], less);
      }
      merged_.push_back(spans.size());
      spans.swap(sorted_);
      run_begin_.swap(merged_);
    }
    return true;
  }

  void check_receives(uint32_t tile) {
    const Span* reach = &recvs_[0];  // the receive reaching furthest so far
    for (size_t i = 1; i < recvs_.size(); ++i) {
      const Span& r = recvs_[i];
      if (r.begin < reach->end) {
        const auto [first, second] = std::minmax(reach->post, r.post);
        errors_.add("overlapping receives", index_.global(tile), index_.post(tile, first).pc, kNoTile, kNoTile,
                    fmt::format("tile {} receives twice into the same bytes: {} and {}",
                                index_.global(tile), describe_recv(index_.post(tile, first)),
                                describe_recv(index_.post(tile, second))));
      }
      if (r.end > reach->end) reach = &r;
    }
  }

  void check_sends_against_receives(uint32_t tile) {
    // The bytes the sends read, as disjoint runs in address order; receives (in address
    // order too) are checked against them with one forward sweep.
    runs_.clear();
    for (const Span& s : sends_) {
      if (!runs_.empty() && s.begin <= runs_.back().end) {
        runs_.back().end = std::max(runs_.back().end, s.end);
      } else {
        runs_.push_back(s);
      }
    }
    reach_.clear();
    size_t k = 0;
    for (const Span& r : recvs_) {
      while (k < runs_.size() && runs_[k].end <= r.begin) ++k;
      if (k == runs_.size()) break;
      if (runs_[k].begin >= r.end) continue;
      const Span& s = overlapping_send(r);
      errors_.add("send overlaps receive", index_.global(tile), index_.post(tile, s.post).pc, kNoTile, kNoTile,
                  fmt::format(
          "tile {} sends {} while it receives {} into overlapping bytes (what is sent would depend on order)",
          index_.global(tile), describe_send(index_.post(tile, s.post)),
          describe_recv(index_.post(tile, r.post))));
    }
  }

  // A send overlapping receive `r` (one is known to): among the sends starting before
  // r ends, the one reaching furthest.
  const Span& overlapping_send(const Span& r) {
    if (reach_.empty()) {  // reach_[i]: among sends_[0..i], the one ending last
      reach_.resize(sends_.size());
      for (size_t i = 0; i < sends_.size(); ++i) {
        reach_[i] = i > 0 && sends_[reach_[i - 1]].end >= sends_[i].end ? reach_[i - 1] : i;
      }
    }
    const size_t n = std::lower_bound(sends_.begin(), sends_.end(), r.end,
                                      [](const Span& s, uint64_t v) { return s.begin < v; }) -
                     sends_.begin();
    return sends_[reach_[n - 1]];
  }

  const TileIndex& index_;
  ErrorList& errors_;
  std::vector<Span> recvs_, sends_, runs_, sorted_;
  std::vector<uint64_t> keys_;
  std::vector<size_t> run_begin_, merged_;
  std::vector<size_t> reach_;
};

}  // namespace

void check_overlaps(const TileIndex& index, const Postings& postings, const Chunks& chunks, ErrorList& errors) {
  std::vector<ChunkErrors> part(chunks.size());
  chunks.run([&](size_t c) {
    ErrorList list(part[c].problems, errors.tiles_per_ipu());
    TileChecker checker(index, list);
    const SendInfo* s = postings.sends.data();
    const RecvLeg* r = postings.recvs.data();
    for (uint32_t t = chunks.begin(c); t < chunks.end(c); ++t) {
      checker.check(t, s + postings.send_begin[t], s + postings.send_begin[t + 1], r + postings.recv_begin[t],
                    r + postings.recv_begin[t + 1]);
    }
    part[c].dropped = list.dropped();
  });
  for (ChunkErrors& e : part) errors.take(e.problems, e.dropped);
}

}  // namespace ipusim::exchange::detail
