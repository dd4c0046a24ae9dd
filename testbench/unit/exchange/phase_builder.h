// Test helper: builds one exchange phase (every tile's postings) for plan_exchange().
// Postings get pcs 0x40000, 0x40004, ... in posting order per tile unless given, so
// error messages can be checked exactly.
#pragma once

#include <cstdint>
#include <map>
#include <vector>

#include "exchange/exchange_plan.h"

namespace ipusim::exchange::test {

// IPUs of one column of 4 tiles (distance = |a - b|, max 3), 4 B/cycle each way: latency
// 8, 36, 64 for 1, 2, 3 hops.
inline ExchangeTiming column_of_four() {
  ExchangeTiming t;
  t.tiles_per_ipu = 4;
  t.in_bytes_per_cycle = 4;
  t.out_bytes_per_cycle = 4;
  t.latency_min_cycles = 8;
  t.latency_max_cycles = 64;
  return t;
}

class Phase {
 public:
  // Tiles appear in the input in the order they are added (first posting or tile()).
  Phase& tile(uint32_t id, uint64_t start_cycle = 0) {
    entry(id).start = start_cycle;
    return *this;
  }
  Phase& send(uint32_t from, uint32_t addr, uint32_t len, std::vector<uint32_t> to, uint32_t pc = 0) {
    return post(from, iss::ExchangePost::Kind::Send, addr, len, std::move(to), pc);
  }
  Phase& recv(uint32_t on, uint32_t addr, uint32_t len, uint32_t from, uint32_t pc = 0) {
    return post(on, iss::ExchangePost::Kind::Recv, addr, len, {from}, pc);
  }
  Phase& post(uint32_t tile, iss::ExchangePost::Kind kind, uint32_t addr, uint32_t len,
              std::vector<uint32_t> peers, uint32_t pc = 0) {
    Entry& e = entry(tile);
    iss::ExchangePost p;
    p.kind = kind;
    p.addr = addr;
    p.len = len;
    p.peers = std::move(peers);
    p.pc = pc ? pc : 0x40000 + 4 * uint32_t(e.posts.size());
    e.posts.push_back(std::move(p));
    return *this;
  }
  void reserve(uint32_t tile, size_t posts) { entry(tile).posts.reserve(posts); }

  std::vector<TilePostings> input() const {
    std::vector<TilePostings> in;
    in.reserve(order_.size());
    for (uint32_t id : order_) {
      const Entry& e = tiles_.at(id);
      in.push_back({id, e.start, &e.posts});
    }
    return in;
  }
  ExchangePlan plan(const ExchangeTiming& timing) const { return plan_exchange(input(), timing); }

  // The outcome of tile `id` in a plan made from input().
  const TileOutcome& outcome(const ExchangePlan& plan, uint32_t id) const {
    for (size_t i = 0; i < order_.size(); ++i) {
      if (order_[i] == id) return plan.tiles.at(i);
    }
    throw std::out_of_range("no such tile in the phase");
  }

 private:
  struct Entry {
    uint64_t start = 0;
    std::vector<iss::ExchangePost> posts;
  };
  Entry& entry(uint32_t id) {
    auto [it, added] = tiles_.try_emplace(id);
    if (added) order_.push_back(id);
    return it->second;
  }
  std::map<uint32_t, Entry> tiles_;
  std::vector<uint32_t> order_;
};

// Every tile of `tiles` sends `len` bytes to every other tile and receives from each.
// Rotated order (tile s sends to s+1, s+2, ... mod n) keeps every receiver busy with one
// sender at a time; `naive` sends to 0, 1, 2, ... instead. Receive buffers are laid end
// to end from address `len` up; every send reads the buffer at 0.
inline Phase all_to_all(uint32_t tiles, uint32_t len, bool naive = false) {
  Phase phase;
  for (uint32_t t = 0; t < tiles; ++t) {
    phase.tile(t);
    phase.reserve(t, 2 * size_t(tiles - 1));
  }
  for (uint32_t s = 0; s < tiles; ++s) {
    for (uint32_t k = 1; k < tiles; ++k) {
      const uint32_t d = naive ? (k - 1 < s ? k - 1 : k) : (s + k) % tiles;
      phase.send(s, 0, len, {d});
    }
    for (uint32_t k = 1; k < tiles; ++k) {
      const uint32_t from = (s + tiles - k) % tiles;
      phase.recv(s, len * k, len, from);
    }
  }
  return phase;
}

}  // namespace ipusim::exchange::test
