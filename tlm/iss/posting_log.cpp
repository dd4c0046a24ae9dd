#include "iss/posting_log.h"

#include <algorithm>
#include <stdexcept>

namespace ipusim::iss {

void PostingLog::clear() {
  // The first block stays: most phases post a few messages on most tiles.
  if (blocks_.size() > 1) blocks_.resize(1);
  size_ = 0;
  // Multicasts and copies are rare: their arrays may go entirely.
  std::vector<uint32_t>().swap(peers_);
  std::vector<Copy>().swap(copies_);
  far_cycles_.clear();
  sends_ = send_peers_ = recvs_ = 0;
}

void PostingLog::add_record(Kind kind, uint32_t addr, uint32_t len, uint32_t pc, uint64_t cycle, uint32_t ref,
                            bool indexed) {
  if (size_ == 0) first_cycle_ = cycle;
  // The ISS posts in issue order, so a cycle is rarely far from the first; one that is
  // (or that comes before it: postings from elsewhere) is kept whole.
  uint64_t after = cycle - first_cycle_;
  if (after >= kFarCycle) {
    far_cycles_.emplace_back(uint32_t(size_), cycle);
    after = kFarCycle;
  }
  const uint32_t meta = uint32_t(kind) | (indexed ? kIndexed : 0) | uint32_t(after) << kCycleShift;
  const auto [b, offset] = place(size_);
  if (b == blocks_.size()) blocks_.push_back(std::make_unique_for_overwrite<Record[]>(block_size(b)));
  blocks_[b][offset] = Record{addr, len, pc, ref, meta};
  ++size_;
}

void PostingLog::add_message(Kind kind, uint32_t addr, uint32_t len, std::span<const uint32_t> peers, uint32_t pc,
                             uint64_t cycle) {
  if (kind == Kind::Send) {
    ++sends_;
    send_peers_ += peers.size();
  } else {
    ++recvs_;
  }
  if (peers.size() == 1) {
    add_record(kind, addr, len, pc, cycle, peers[0], false);
    return;
  }
  // None or several: the count, then the tiles.
  add_record(kind, addr, len, pc, cycle, uint32_t(peers_.size()), true);
  peers_.push_back(uint32_t(peers.size()));
  peers_.insert(peers_.end(), peers.begin(), peers.end());
}

void PostingLog::add_copy(Kind kind, uint32_t addr, uint32_t len, uint32_t pc, uint64_t cycle, uint32_t stream,
                          uint64_t smem_addr) {
  add_record(kind, addr, len, pc, cycle, uint32_t(copies_.size()), true);
  copies_.push_back(Copy{stream, smem_addr});
}

void PostingLog::add(const ExchangePost& p) {
  if (p.is_message())
    add_message(p.kind, p.addr, p.len, p.peers, p.pc, p.cycle);
  else
    add_copy(p.kind, p.addr, p.len, p.pc, p.cycle, p.stream, p.smem_addr);
}

uint64_t PostingLog::cycle_of(size_t i) const {
  const uint32_t after = record(i).meta >> kCycleShift;
  if (after != kFarCycle) return first_cycle_ + after;
  const auto it = std::lower_bound(far_cycles_.begin(), far_cycles_.end(), std::make_pair(uint32_t(i), uint64_t{0}));
  if (it == far_cycles_.end() || it->first != i) throw std::logic_error("posting log: a far cycle is missing");
  return it->second;
}

ExchangePost PostingLog::at(size_t i) const {
  const PostingView v = view(i);
  ExchangePost p;
  p.kind = v.kind;
  p.addr = v.addr;
  p.len = v.len;
  p.peers.assign(v.peers.begin(), v.peers.end());
  p.pc = v.pc;
  p.cycle = cycle_of(i);
  if (!v.is_message()) {
    const Copy& c = copies_[record(i).ref];
    p.stream = c.stream;
    p.smem_addr = c.smem_addr;
  }
  return p;
}

std::vector<ExchangePost> PostingLog::posts() const {
  std::vector<ExchangePost> out;
  out.reserve(size());
  for (size_t i = 0; i < size(); ++i) out.push_back(at(i));
  return out;
}

}  // namespace ipusim::iss
