// The exchange fabric module on its own: postings arrive through its TLM target socket
// from a stand-in for the tiles, the data moves between real Tile memories through the
// fabric's memory socket, and each poster gets its done cycle (or every error). Each case
// elaborates, so each runs in its own process.
#include <gtest/gtest.h>

#include <atomic>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <tlm_utils/multi_passthrough_initiator_socket.h>

#include "exchange/exchange_fabric.h"
#include "test_system.h"
#include "tile/tile.h"
#include "tile/tile_engine.h"
#include "common/payload.h"

namespace ipusim {
namespace {

using exchange::ExchangeMessage;
using iss::ExchangePost;

constexpr uint32_t kTiles = 4;
constexpr uint32_t kBuf = iss::kSramBase + 0x9000;  // buffers live here in every tile

iss::ExchangePost send(uint32_t addr, uint32_t len, std::vector<uint32_t> to, uint32_t pc = 0x40100) {
  iss::ExchangePost p;
  p.kind = ExchangePost::Kind::Send;
  p.addr = addr;
  p.len = len;
  p.peers = std::move(to);
  p.pc = pc;
  return p;
}

iss::ExchangePost recv(uint32_t addr, uint32_t len, uint32_t from, uint32_t pc = 0x40200) {
  iss::ExchangePost p;
  p.kind = ExchangePost::Kind::Recv;
  p.addr = addr;
  p.len = len;
  p.peers = {from};
  p.pc = pc;
  return p;
}

// Stands in for the tiles' exchange sockets: posts or closes for every tile at time 0,
// and records the answers.
struct Posters : sc_core::sc_module {
  tlm_utils::multi_passthrough_initiator_socket<Posters> socket{"socket"};
  struct Side {
    bool post = false;
    uint64_t cycle = 0;
    std::vector<ExchangePost> posts;
    ExchangeMessage msg;
    tlm::tlm_generic_payload trans;
    bool answered = false;
    bool ok = false;
    sc_core::sc_time answered_at;
    std::vector<Problem> errors;
  };
  std::vector<Side> sides{kTiles};

  explicit Posters(sc_core::sc_module_name name) : sc_module(name) {
    socket.register_nb_transport_bw(this, &Posters::bw);
    SC_HAS_PROCESS(Posters);
    SC_THREAD(run);
  }
  void run() {
    for (uint32_t t = 0; t < kTiles; ++t) {
      Side& s = sides[t];
      s.msg.kind = s.post ? ExchangeMessage::Kind::Post : ExchangeMessage::Kind::Close;
      s.msg.tile = t;
      s.msg.cycle = s.cycle;
      s.msg.posts = &s.posts;
      attach_message(s.trans, s.msg);
      tlm::tlm_phase phase = tlm::BEGIN_REQ;
      sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
      const tlm::tlm_sync_enum r = socket[int(t)]->nb_transport_fw(s.trans, phase, delay);
      EXPECT_EQ(r, s.post ? tlm::TLM_UPDATED : tlm::TLM_COMPLETED) << "tile " << t;
    }
  }
  tlm::tlm_sync_enum bw(int id, tlm::tlm_generic_payload& trans, tlm::tlm_phase& phase, sc_core::sc_time& delay) {
    Side& s = sides.at(size_t(id));
    EXPECT_EQ(phase, tlm::BEGIN_RESP);
    EXPECT_FALSE(s.answered);
    s.answered = true;
    s.ok = trans.is_response_ok();
    s.answered_at = sc_core::sc_time_stamp() + delay;
    if (!s.ok && s.msg.problems) s.errors = *s.msg.problems;
    return tlm::TLM_COMPLETED;
  }
};

std::vector<uint8_t> pattern(uint32_t len, uint8_t first) {
  std::vector<uint8_t> bytes(len);
  for (uint32_t i = 0; i < len; ++i) bytes[i] = uint8_t(first + i);
  return bytes;
}

// A fabric for IPU `ipu` of kTiles tiles, wired to kTiles loaded Tile memories.
// The tiles are booted (their memory is the fabric's target) but never started: nothing
// they would tell a listener can happen.
struct NoListener : tile::TileListener {
  void console_line(const tile::Tile&, uint64_t, uint32_t, std::string_view) override {}
  void tile_stopped(const tile::Tile&) override {}
  void superstep_closed(const tile::Tile&, const tile::SuperstepRecord&) override {}
};

struct Bench {
  config::SystemConfig system = test::small_system(kTiles);
  std::vector<std::unique_ptr<tile::Tile>> tiles;
  std::unique_ptr<exchange::ExchangeFabric> fabric;
  Posters posters{"posters"};
  tile::TileEngine engine{"engine", 1};
  NoListener listener;

  explicit Bench(uint32_t ipu = 0) {
    test::Asm a;
    a.halt(test::zero);
    const auto program = test::program(a);
    fabric = std::make_unique<exchange::ExchangeFabric>("exchange",
                                                        exchange::ExchangeFabricConfig::from(system.board.chip, ipu, 2));
    for (uint32_t t = 0; t < kTiles; ++t) {
      iss::TileIdentity id;
      id.tile = t;
      id.ipu = ipu;
      id.ipus = 2;
      tiles.push_back(std::make_unique<tile::Tile>(("tile" + std::to_string(t)).c_str(),
                                                   tile::TileModuleConfig::from(system.board.chip, id)));
      tiles.back()->load(program, engine, listener);
      fabric->memory_socket.bind(tiles.back()->mem_socket);
      posters.socket.bind(fabric->tile_socket);
      fabric->set_participant(t);
    }
  }
  void fill(uint32_t t, uint32_t addr, uint32_t len, uint8_t first) {
    ASSERT_TRUE(tiles[t]->core()->write(addr, pattern(len, first)));
  }
  std::vector<uint8_t> read(uint32_t t, uint32_t addr, uint32_t len) {
    std::vector<uint8_t> bytes(len);
    EXPECT_TRUE(tiles[t]->core()->read(addr, bytes));
    return bytes;
  }
};

TEST(ExchangeFabric, MovesTheDataAndAnswersEachPosterWithThePlannedCycle) {
  Bench b;
  b.fill(0, kBuf, 16, 0x10);
  b.fill(3, kBuf, 8, 0x80);
  for (uint32_t t = 0; t < kTiles; ++t) b.fill(t, kBuf + 0x100, 16, 0xee);  // receive buffers
  auto& s = b.posters.sides;
  s[0].post = true;
  s[0].cycle = 100;
  s[0].posts = {send(kBuf, 16, {1, 2}), recv(kBuf + 0x100, 8, 3)};  // multicast, and a receive
  s[1].post = true;
  s[1].cycle = 120;
  s[1].posts = {recv(kBuf + 0x100, 16, 0)};
  s[2].post = true;
  s[2].cycle = 90;
  s[2].posts = {recv(kBuf + 0x100, 16, 0)};
  s[3].post = true;
  s[3].cycle = 95;
  s[3].posts = {send(kBuf, 8, {0})};
  sc_core::sc_start();

  // What the plan says, independently.
  std::vector<exchange::TilePostings> in;
  for (uint32_t t = 0; t < kTiles; ++t) in.push_back({t, s[t].cycle, &s[t].posts});
  const exchange::ExchangePlan plan = exchange::plan_exchange(in, b.fabric->config().timing);
  ASSERT_TRUE(plan.errors.empty());
  const TileClock clock(b.system.board.chip.clock_hz);
  for (uint32_t t = 0; t < kTiles; ++t) {
    EXPECT_TRUE(s[t].answered) << t;
    EXPECT_TRUE(s[t].ok) << t;
    EXPECT_EQ(s[t].msg.done_cycle, plan.tiles[t].done_cycle) << t;
    EXPECT_EQ(s[t].msg.bytes_out, plan.tiles[t].bytes_out) << t;
    EXPECT_EQ(s[t].msg.bytes_in, plan.tiles[t].bytes_in) << t;
    EXPECT_EQ(s[t].answered_at, clock.time_of(plan.tiles[t].done_cycle)) << t;
  }
  EXPECT_GT(s[1].msg.done_cycle, 120u + 16 / 4) << "starts when tile 1 reaches xwait, plus latency";
  EXPECT_EQ(s[0].msg.bytes_out, 16u) << "a multicast leaves once";
  EXPECT_EQ(s[0].msg.bytes_in, 8u);

  const std::vector<uint8_t> sent0 = b.read(0, kBuf, 16);
  EXPECT_EQ(b.read(1, kBuf + 0x100, 16), sent0);
  EXPECT_EQ(b.read(2, kBuf + 0x100, 16), sent0);
  EXPECT_EQ(b.read(0, kBuf + 0x100, 8), b.read(3, kBuf, 8));
  EXPECT_EQ(b.read(0, kBuf + 0x108, 8), pattern(8, 0xee + 8)) << "beyond the 8 bytes received";
  EXPECT_EQ(b.read(3, kBuf + 0x100, 16), pattern(16, 0xee)) << "tile 3 received nothing";
  EXPECT_EQ(b.fabric->exchanges(), 1u);
  EXPECT_EQ(b.fabric->messages(), 3u);
  EXPECT_EQ(b.fabric->bytes(), 16u + 16 + 8);
}

TEST(ExchangeFabric, AnInvalidExchangeDeliversNothingAndNamesBothTiles) {
  Bench b;
  b.fill(0, kBuf, 16, 0x10);
  b.fill(3, kBuf, 8, 0x80);
  for (uint32_t t = 0; t < kTiles; ++t) b.fill(t, kBuf + 0x100, 16, 0xee);
  auto& s = b.posters.sides;
  s[0].post = true;
  s[0].posts = {send(kBuf, 16, {1}, 0x40010)};  // tile 1 closes its phase: no receive
  s[0].cycle = 10;
  s[1].post = false;
  s[1].cycle = 70;  // the last to get there
  s[2].cycle = 50;
  s[3].cycle = 30;
  s[2].post = true;
  s[2].posts = {recv(kBuf + 0x100, 8, 3)};      // a valid pair ...
  s[3].post = true;
  s[3].posts = {send(kBuf, 8, {2})};            // ... that must not be delivered either
  sc_core::sc_start();
  for (uint32_t t : {0u, 2u, 3u}) {
    EXPECT_TRUE(s[t].answered) << t;
    EXPECT_FALSE(s[t].ok) << t;
    ASSERT_EQ(s[t].errors.size(), 1u) << t;
    EXPECT_EQ(s[t].errors[0].detail,
              "tile 0 sends 16 bytes to tile 1 (pc 0x00040010) but tile 1 posts no receive from tile 0");
    EXPECT_EQ(s[t].errors[0].cycle, 70u) << "the problem is as of the last arrival";
  }
  EXPECT_FALSE(s[1].answered) << "a closed phase gets no answer";
  for (uint32_t t : {0u, 2u, 3u}) EXPECT_EQ(s[t].msg.done_cycle, 70u) << "failed as of the last arrival";
  for (uint32_t t = 0; t < kTiles; ++t)
    EXPECT_EQ(b.read(t, kBuf + 0x100, 16), pattern(16, 0xee)) << "tile " << t << " receive buffer";
  EXPECT_EQ(b.fabric->failed_exchanges(), 1u);
  EXPECT_EQ(b.fabric->messages(), 0u);
}

// `n` host threads taking parts in turn (null for one: the caller's thread).
const exchange::PlanThreads* host_threads(unsigned n) {
  static std::vector<std::unique_ptr<exchange::PlanThreads>> made;
  if (n <= 1) return nullptr;
  made.push_back(std::make_unique<exchange::PlanThreads>([n](size_t count, const std::function<void(size_t)>& body) {
    std::atomic<size_t> next{0};
    std::vector<std::thread> pool;
    for (unsigned k = 0; k < n; ++k)
      pool.emplace_back([&] {
        for (size_t i; (i = next++) < count;) body(i);
      });
    for (std::thread& t : pool) t.join();
  }));
  return made.back().get();
}

// A delivery a tile refuses (a receive buffer in code: the ISS never posts one, this
// stand-in does) fails the phase before anything is copied: every receive buffer keeps
// its bytes whatever the host threads, though the phase's deliveries span two parts
// (exchange_delivery.h) and the refused one is in the second.
class RefusedDelivery : public ::testing::TestWithParam<unsigned> {};

TEST_P(RefusedDelivery, CopiesNothingOnAnyThreadCount) {
  constexpr uint32_t kPerTile = 3000, kLen = 4, kRecvBuf = kBuf + 0x1000;
  static_assert(3 * kPerTile > 2 * exchange::kDeliveriesPerPart, "two parts");
  Bench b;
  b.fabric->set_plan_threads(host_threads(GetParam()));
  b.fill(0, kBuf, 256 * kLen, 0x10);
  for (uint32_t t = 1; t < kTiles; ++t) b.fill(t, kRecvBuf, kPerTile * kLen, uint8_t(0x40 * t));
  auto& s = b.posters.sides;
  for (uint32_t t = 0; t < kTiles; ++t) {
    s[t].post = true;
    s[t].cycle = 10;
  }
  for (uint32_t t = 1; t < kTiles; ++t)
    for (uint32_t k = 0; k < kPerTile; ++k) {
      s[0].posts.push_back(send(kBuf + kLen * (k % 256), kLen, {t}));
      const bool refused = t == kTiles - 1 && k == kPerTile - 1;
      s[t].posts.push_back(recv(refused ? iss::kSramBase : kRecvBuf + kLen * k, kLen, 0));
    }
  sc_core::sc_start();
  ASSERT_TRUE(s[0].answered);
  EXPECT_FALSE(s[0].ok);
  ASSERT_EQ(s[0].errors.size(), 1u);
  EXPECT_EQ(s[0].errors[0].kind, "tile access failed");
  EXPECT_NE(s[0].errors[0].detail.find("to tile 3 at 0x00040000 failed"), std::string::npos) << s[0].errors[0].detail;
  for (uint32_t t = 1; t < kTiles; ++t)
    EXPECT_EQ(b.read(t, kRecvBuf, kPerTile * kLen), pattern(kPerTile * kLen, uint8_t(0x40 * t))) << "tile " << t;
  EXPECT_EQ(b.fabric->messages(), 0u);
  EXPECT_EQ(b.fabric->failed_exchanges(), 1u);
}

INSTANTIATE_TEST_SUITE_P(HostThreads, RefusedDelivery, ::testing::Values(1u, 2u, 3u));

// The same phase without the refused receive: every message arrives, on any thread count.
class DirectDelivery : public ::testing::TestWithParam<unsigned> {};

TEST_P(DirectDelivery, MovesEveryMessageOnAnyThreadCount) {
  constexpr uint32_t kPerTile = 3000, kLen = 4, kRecvBuf = kBuf + 0x1000;
  Bench b;
  b.fabric->set_plan_threads(host_threads(GetParam()));
  b.fill(0, kBuf, 256 * kLen, 0x10);
  auto& s = b.posters.sides;
  for (uint32_t t = 0; t < kTiles; ++t) s[t].post = true;
  for (uint32_t t = 1; t < kTiles; ++t)
    for (uint32_t k = 0; k < kPerTile; ++k) {
      s[0].posts.push_back(send(kBuf + kLen * ((k + t) % 256), kLen, {t}));
      s[t].posts.push_back(recv(kRecvBuf + kLen * k, kLen, 0));
    }
  sc_core::sc_start();
  ASSERT_TRUE(s[0].answered);
  EXPECT_TRUE(s[0].ok);
  for (uint32_t t = 1; t < kTiles; ++t)
    for (uint32_t k = 0; k < kPerTile; k += 997)
      EXPECT_EQ(b.read(t, kRecvBuf + kLen * k, kLen), b.read(0, kBuf + kLen * ((k + t) % 256), kLen)) << t << " " << k;
  EXPECT_EQ(b.fabric->messages(), 3u * kPerTile);
  EXPECT_EQ(b.fabric->bytes(), 3u * kPerTile * kLen);
}

INSTANTIATE_TEST_SUITE_P(HostThreads, DirectDelivery, ::testing::Values(1u, 2u, 3u));

// A phase opened by a zone-1 sync stays on its IPU (the message says zone 1 by default).
TEST(ExchangeFabric, MessagesToAnotherIpuNeedAZoneTwoSync) {
  Bench b(/*ipu=*/1);  // global tiles 4..7
  auto& s = b.posters.sides;
  s[0].post = true;
  s[0].posts = {send(kBuf, 8, {5, 2}, 0x40020)};  // 2 is tile 2 of IPU 0
  s[1].post = true;
  s[1].posts = {recv(kBuf + 0x100, 8, 4)};
  sc_core::sc_start();
  ASSERT_TRUE(s[0].answered);
  EXPECT_FALSE(s[0].ok);
  ASSERT_FALSE(s[0].errors.empty());
  EXPECT_EQ(s[0].errors[0].detail,
            "tile 4 (ipu 1) sends 8 bytes to tile 2 (ipu 0, pc 0x00040020) in an exchange phase after a zone-1 "
            "sync: an exchange between IPUs needs a zone-2 (group) sync before it");
  EXPECT_EQ(s[0].errors[0].kind, "between IPUs");
  EXPECT_EQ(s[0].errors[0].ipu, 1u);
  EXPECT_EQ(s[0].errors[0].tile, 0u);
  ASSERT_TRUE(s[0].errors[0].peer);
  EXPECT_EQ(s[0].errors[0].peer->ipu, 0u);
  EXPECT_EQ(s[0].errors[0].peer->tile, 2u);
  EXPECT_EQ(b.read(1, kBuf + 0x100, 8), std::vector<uint8_t>(8, 0));
}

TEST(ExchangeFabric, RefusesMalformedAndRepeatedMessages) {
  Bench b;
  auto& s = b.posters.sides;
  for (auto& side : s) side.post = false;  // all close: an empty phase, nothing happens
  sc_core::sc_start();
  EXPECT_EQ(b.fabric->exchanges(), 0u);
  // A second close of tile 0 in a new phase is fine; a message with the wrong tile is not.
  ExchangeMessage msg;
  msg.kind = ExchangeMessage::Kind::Close;
  msg.tile = 2;
  tlm::tlm_generic_payload trans;
  attach_message(trans, msg);
  tlm::tlm_phase phase = tlm::BEGIN_REQ;
  sc_core::sc_time delay;
  EXPECT_EQ(b.posters.socket[1]->nb_transport_fw(trans, phase, delay), tlm::TLM_COMPLETED);
  EXPECT_EQ(trans.get_response_status(), tlm::TLM_COMMAND_ERROR_RESPONSE);
  msg.tile = 1;
  msg.kind = ExchangeMessage::Kind::Post;
  msg.posts = nullptr;
  attach_message(trans, msg);
  EXPECT_EQ(b.posters.socket[1]->nb_transport_fw(trans, phase, delay), tlm::TLM_COMPLETED);
  EXPECT_EQ(trans.get_response_status(), tlm::TLM_COMMAND_ERROR_RESPONSE);
}

}  // namespace
}  // namespace ipusim
