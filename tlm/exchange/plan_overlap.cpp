// Buffer rules within one tile and one phase (docs/exchange.md, "Buffers"):
// - two receives must not write the same bytes (the result would depend on which
//   message lands last);
// - a receive must not write bytes that one of the tile's own sends reads (what is sent
//   would depend on whether the receive landed first).
// Sends may overlap each other (reading the same bytes twice is harmless).
// O(p log p) per tile for p postings; at most one error per receive.
#include <algorithm>

#include <fmt/format.h>

#include "exchange/plan_internal.h"

namespace ipusim::exchange::detail {
namespace {

using iss::ExchangePost;

struct Span {
  uint64_t begin = 0, end = 0;  // [begin, end) in tile addresses
  uint32_t post = 0;
};

std::string describe_recv(const ExchangePost& p) {
  return fmt::format("{} bytes at {:#010x} from tile {} ({})", p.len, p.addr, p.peers[0],
                     pc_text(p.pc));
}

std::string describe_send(const ExchangePost& p) {
  std::string to = p.peers.empty() ? std::string("no tile") : fmt::format("tile {}", p.peers[0]);
  if (p.peers.size() > 1) to += fmt::format(" and {} more", p.peers.size() - 1);
  return fmt::format("{} bytes at {:#010x} to {} ({})", p.len, p.addr, to, pc_text(p.pc));
}

class TileChecker {
 public:
  TileChecker(const TileIndex& index, ErrorList& errors) : index_(index), errors_(errors) {}

  void check(uint32_t tile) {
    recvs_.clear();
    sends_.clear();
    for (uint32_t p = 0; p < index_.post_count(tile); ++p) {
      const ExchangePost& post = index_.post(tile, p);
      if (post.len == 0) continue;  // no bytes, no overlap
      const Span span{post.addr, uint64_t(post.addr) + post.len, p};
      if (post.kind == ExchangePost::Kind::Send) {
        sends_.push_back(span);
      } else if (post.peers.size() == 1) {  // malformed receives are reported elsewhere
        recvs_.push_back(span);
      }
    }
    if (recvs_.empty()) return;
    auto by_place = [](const Span& a, const Span& b) {
      return a.begin != b.begin ? a.begin < b.begin : a.post < b.post;
    };
    std::sort(recvs_.begin(), recvs_.end(), by_place);
    check_receives(tile);
    if (sends_.empty()) return;
    std::sort(sends_.begin(), sends_.end(), by_place);
    check_sends_against_receives(tile);
  }

 private:
  void check_receives(uint32_t tile) {
    const Span* reach = &recvs_[0];  // the receive reaching furthest so far
    for (size_t i = 1; i < recvs_.size(); ++i) {
      const Span& r = recvs_[i];
      if (r.begin < reach->end) {
        const auto [first, second] = std::minmax(reach->post, r.post);
        errors_.add(fmt::format("tile {} receives twice into the same bytes: {} and {}",
                                index_.global(tile), describe_recv(index_.post(tile, first)),
                                describe_recv(index_.post(tile, second))));
      }
      if (r.end > reach->end) reach = &r;
    }
  }

  void check_sends_against_receives(uint32_t tile) {
    // reach_[i]: among sends_[0..i], the one whose buffer ends last.
    reach_.resize(sends_.size());
    for (size_t i = 0; i < sends_.size(); ++i) {
      reach_[i] = i > 0 && sends_[reach_[i - 1]].end >= sends_[i].end ? reach_[i - 1] : i;
    }
    for (const Span& r : recvs_) {
      // Sends starting before the receive's end; one of them overlaps iff the furthest
      // reaching one ends after the receive's start.
      const size_t n = std::lower_bound(sends_.begin(), sends_.end(), r.end,
                                        [](const Span& s, uint64_t v) { return s.begin < v; }) -
                       sends_.begin();
      if (n == 0) continue;
      const Span& s = sends_[reach_[n - 1]];
      if (s.end <= r.begin) continue;
      errors_.add(fmt::format(
          "tile {} sends {} while it receives {} into overlapping bytes (what is sent would depend on order)",
          index_.global(tile), describe_send(index_.post(tile, s.post)),
          describe_recv(index_.post(tile, r.post))));
    }
  }

  const TileIndex& index_;
  ErrorList& errors_;
  std::vector<Span> recvs_, sends_;
  std::vector<size_t> reach_;
};

}  // namespace

void check_overlaps(const TileIndex& index, ErrorList& errors) {
  TileChecker checker(index, errors);
  for (uint32_t t = 0; t < index.size(); ++t) checker.check(t);
}

}  // namespace ipusim::exchange::detail
