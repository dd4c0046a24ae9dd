// PostingLog: every field of every kind of posting comes back as it went in, across the
// log's block boundaries, for multicasts, copies, and cycles too far apart for a record.
#include <gtest/gtest.h>

#include "iss/posting_log.h"

namespace ipusim::iss {
namespace {

using Kind = ExchangePost::Kind;

ExchangePost message(Kind kind, uint32_t i, std::vector<uint32_t> peers, uint64_t cycle) {
  ExchangePost p;
  p.kind = kind;
  p.addr = 0x40000 + 16 * i;
  p.len = 4 * (i % 100);
  p.peers = std::move(peers);
  p.pc = 0x1000 + 4 * i;
  p.cycle = cycle;
  return p;
}

void expect_same(const ExchangePost& a, const ExchangePost& b, size_t i) {
  EXPECT_EQ(a.kind, b.kind) << "posting " << i;
  EXPECT_EQ(a.addr, b.addr) << "posting " << i;
  EXPECT_EQ(a.len, b.len) << "posting " << i;
  EXPECT_EQ(a.peers, b.peers) << "posting " << i;
  EXPECT_EQ(a.pc, b.pc) << "posting " << i;
  EXPECT_EQ(a.cycle, b.cycle) << "posting " << i;
  EXPECT_EQ(a.stream, b.stream) << "posting " << i;
  EXPECT_EQ(a.smem_addr, b.smem_addr) << "posting " << i;
}

TEST(PostingLog, EveryPostingComesBackAcrossBlocks) {
  // 3000 postings fill the seven growing blocks (508) and ten of 256: sends to one tile,
  // multicasts, receives and both kinds of copy, with cycles rising.
  std::vector<ExchangePost> in;
  uint64_t cycle = 5'000'000'000;
  for (uint32_t i = 0; i < 3000; ++i) {
    cycle += 6 * (i % 7);
    switch (i % 5) {
      case 0: in.push_back(message(Kind::Send, i, {i % 1472}, cycle)); break;
      case 1: in.push_back(message(Kind::Send, i, {i % 64, 64 + i % 64, 200}, cycle)); break;
      case 2: in.push_back(message(Kind::Recv, i, {(i * 7) % 94208}, cycle)); break;
      case 3: {
        ExchangePost p = message(Kind::SmemRead, i, {}, cycle);
        p.smem_addr = 0x300000000ull + 4096 * i;
        in.push_back(p);
        break;
      }
      default: {
        ExchangePost p = message(Kind::StreamWrite, i, {}, cycle);
        p.stream = i % 64;
        in.push_back(p);
      }
    }
  }
  PostingLog log;
  for (const ExchangePost& p : in) log.add(p);
  ASSERT_EQ(log.size(), in.size());
  EXPECT_EQ(log.sends(), 1200u);
  EXPECT_EQ(log.send_peers(), 600u + 600u * 3);
  EXPECT_EQ(log.recvs(), 600u);
  const std::vector<ExchangePost> out = log.posts();
  ASSERT_EQ(out.size(), in.size());
  for (size_t i = 0; i < in.size(); ++i) expect_same(out[i], in[i], i);
  // The view the plan reads agrees with the copy.
  const PostingView v = log.view(1);
  EXPECT_EQ(std::vector<uint32_t>(v.peers.begin(), v.peers.end()), in[1].peers);
  EXPECT_EQ(v.addr, in[1].addr);
}

TEST(PostingLog, FarAndEarlierCyclesAreKeptWhole) {
  PostingLog log;
  const uint64_t first = 100;
  const std::vector<uint64_t> cycles{first, first + 1, first + (uint64_t{1} << 28), first + (uint64_t{1} << 40),
                                     first + (uint64_t{1} << 40) + 1, 7, first + 2};
  for (size_t i = 0; i < cycles.size(); ++i)
    log.add(message(Kind::Recv, uint32_t(i), {uint32_t(i)}, cycles[i]));
  for (size_t i = 0; i < cycles.size(); ++i) EXPECT_EQ(log.at(i).cycle, cycles[i]) << "posting " << i;
}

TEST(PostingLog, ClearEmptiesTheLogAndItsCounts) {
  PostingLog log;
  for (uint32_t i = 0; i < 600; ++i) log.add(message(Kind::Send, i, {1, 2}, i));
  log.clear();
  EXPECT_TRUE(log.empty());
  EXPECT_EQ(log.sends(), 0u);
  EXPECT_EQ(log.send_peers(), 0u);
  log.add(message(Kind::Recv, 9, {3}, 1234));
  ASSERT_EQ(log.size(), 1u);
  expect_same(log.at(0), message(Kind::Recv, 9, {3}, 1234), 0);
}

}  // namespace
}  // namespace ipusim::iss
