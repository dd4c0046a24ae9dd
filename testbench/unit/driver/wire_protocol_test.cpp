// wire_protocol.h: every message round-trips, every prefix of a frame asks for more,
// every invalid field is refused with a message naming it, board indices travel first in
// the payload of every request that addresses a board, and a peer of another major is
// told so (ERROR VERSION), not taken for garbage.
#include "wire_protocol.h"

#include <gtest/gtest.h>

#include <random>

namespace {

namespace wire = ipusim::wire;
using Status = wire::Decoded::Status;

std::vector<wire::Body> every_message() {
  return {wire::Hello{wire::kVersionMajor, 3, "client"},
          wire::HelloReply{wire::kVersionMajor, 0, 4, "server"},
          wire::Read32{0xFFC, 3},
          wire::Read32Reply{0xFFFFFFFF},
          wire::Write32{0x40, 4, 1},
          wire::Map{0x100000000, 0x200000, 0x1000, 2},
          wire::Unmap{0x100000000, wire::kMaxBoards - 1},
          wire::Interrupt{12345678901, 3},
          wire::Ok{},
          wire::Error{wire::ErrorCode::kNoBoard, "READ32: board 4, the system has 4 board(s)"},
          wire::Error{wire::ErrorCode::kIdle, "no request for 600000 ms and no run in progress"},
          wire::Bye{},
          wire::SetTrace{"/tmp/run.trace.json", 1},
          wire::Supersteps{3, 14, 2},
          wire::SuperstepsReply{40, {{16, 4, 0, 10, 250, 3000, 400, 500, 9000, 1024},
                                     {16, 0, 1, 250, 900, 7000, 0, 0, 12000, 0}}},
          wire::SetLinkFaults{"ber=1e-6,seed=7; 3:burst=1000:16", 2},
          wire::LinkStatsRequest{13, 1},
          wire::LinkStatsReply{76, {{5, 1, 2, 100, 6400, 3, 2, 1, 2, 0, 480}, {5, 2, 1, 0, 0, 0, 0, 0, 0, 0, 0}}},
          wire::SetConsole{wire::ConsoleRoute::kClient, 1},
          wire::ConsoleRead{2},
          wire::ConsoleLines{7, true, {{1, 3, 0, false, "hello"}, {1, 3, 2, true, "a long "}, {1, 3, 2, false, ""}}},
          wire::ConsolePending{0}};
}

// A reply is filled to the payload's limit and no further: the encoder drops the records
// that do not fit (the server sizes its replies so that none is dropped).
TEST(WireProtocol, ConsoleLinesFillAPayloadAndNoMore) {
  wire::ConsoleLines full{3, false, {}};
  for (uint32_t i = 0; i < 3; ++i) full.records.push_back({i, i + 1, i % 7, i == 0, std::string(wire::kMaxText, char('a' + i))});
  const auto frame = wire::encode({4, full});
  EXPECT_LE(frame.size(), wire::kHeaderBytes + wire::kMaxPayload);
  const auto d = wire::decode(frame);
  ASSERT_EQ(d.status, Status::kMessage) << d.error;
  const auto& got = std::get<wire::ConsoleLines>(d.message.body);
  ASSERT_EQ(got.records.size(), 1u) << "two 512-byte texts do not fit one payload";
  EXPECT_EQ(got.records[0], full.records[0]);
  EXPECT_EQ(got.dropped, 3u);
}

TEST(WireProtocol, LinkRecordsRoundTripExactly) {
  wire::LinkStatsReply full{76, {}};
  for (uint32_t i = 0; i < wire::kMaxLinkStatsPerReply; ++i)
    full.records.push_back({i, i + 1, i + 2, ~uint64_t{0} - i, 1, 2, 3, 4, 5, 6, uint64_t{1} << 40});
  const auto d = wire::decode(wire::encode({3, full}));
  ASSERT_EQ(d.status, Status::kMessage) << d.error;
  const auto& got = std::get<wire::LinkStatsReply>(d.message.body);
  EXPECT_EQ(got.total, 76u);
  EXPECT_EQ(got.records, full.records);
  EXPECT_EQ(wire::kMaxLinkStatsPerReply, 13u);
}

TEST(WireProtocol, SuperstepRecordsRoundTripExactly) {
  wire::SuperstepsReply full{1000, {}};
  for (uint32_t i = 0; i < wire::kMaxSuperstepsPerReply; ++i)
    full.records.push_back({i, i + 1, i + 2, ~uint64_t{0} - i, 1, 2, 3, 4, uint64_t{1} << 40, i});
  const auto d = wire::decode(wire::encode({3, full}));
  ASSERT_EQ(d.status, Status::kMessage) << d.error;
  const auto& got = std::get<wire::SuperstepsReply>(d.message.body);
  EXPECT_EQ(got.total, 1000u);
  EXPECT_EQ(got.records, full.records);
}

// A host record travels as its fields in declaration order, u32s then u64s, little-endian
// and unpadded: the layout of protocol 2 (hw/host_if/records.yaml generates the structs;
// these numbers are the protocol's, written out so that a change of the source that would
// change the bytes fails here).
TEST(WireProtocol, RecordsTravelAsTheirFieldsInOrder) {
  const auto le = [](const uint8_t* p, size_t n) {
    uint64_t v = 0;
    for (size_t i = 0; i < n; ++i) v |= uint64_t(p[i]) << (8 * i);
    return v;
  };
  const auto step = wire::encode({1, wire::SuperstepsReply{1, {{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}}}});
  ASSERT_EQ(step.size(), wire::kHeaderBytes + 8 + 3 * 4 + 7 * 8);
  const uint8_t* p = step.data() + wire::kHeaderBytes + 8;
  for (uint32_t i = 0; i < 3; ++i) EXPECT_EQ(le(p + 4 * i, 4), i + 1) << "u32 field " << i;
  for (uint32_t i = 0; i < 7; ++i) EXPECT_EQ(le(p + 12 + 8 * i, 8), i + 4) << "u64 field " << i;
  const auto link = wire::encode({1, wire::LinkStatsReply{1, {{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}}}});
  ASSERT_EQ(link.size(), wire::kHeaderBytes + 8 + 3 * 4 + 8 * 8);
  p = link.data() + wire::kHeaderBytes + 8;
  for (uint32_t i = 0; i < 3; ++i) EXPECT_EQ(le(p + 4 * i, 4), i + 1) << "u32 field " << i;
  for (uint32_t i = 0; i < 8; ++i) EXPECT_EQ(le(p + 12 + 8 * i, 8), i + 4) << "u64 field " << i;
  EXPECT_EQ(wire::kMaxSuperstepsPerReply, 14u);
}

TEST(WireProtocol, EveryMessageRoundTrips) {
  uint32_t seq = 1;
  for (const auto& body : every_message()) {
    const auto frame = wire::encode({seq, body});
    const auto d = wire::decode(frame);
    ASSERT_EQ(d.status, Status::kMessage) << wire::type_name(uint16_t(wire::type_of(body))) << ": " << d.error;
    EXPECT_EQ(d.consumed, frame.size());
    EXPECT_EQ(d.message.seq, seq);
    EXPECT_EQ(d.message.body.index(), body.index());
    EXPECT_EQ(wire::encode(d.message), frame);
    ++seq;
  }
}

// The board index is the payload's first field of every request that addresses a board
// (and of INTERRUPT), and decodes to the same board.
TEST(WireProtocol, BoardIndexTravelsFirstAndRoundTrips) {
  const uint32_t b = 0x1234;  // below kMaxBoards, every byte distinct from the other fields'
  const std::vector<wire::Body> addressed = {
      wire::Read32{0x44, b},  wire::Write32{0x40, 7, b}, wire::Map{0x100000000, 4096, 0, b}, wire::Unmap{0x100000000, b},
      wire::Interrupt{9, b},  wire::SetTrace{"t", b},    wire::Supersteps{1, 2, b},
      wire::SetLinkFaults{"none", b}, wire::LinkStatsRequest{4, b}, wire::SetConsole{wire::ConsoleRoute::kDrop, b},
      wire::ConsoleRead{b},   wire::ConsolePending{b}};
  for (const auto& body : addressed) {
    const auto frame = wire::encode({1, body});
    const char* name = wire::type_name(uint16_t(wire::type_of(body)));
    ASSERT_GE(frame.size(), 20u);
    EXPECT_EQ(frame[16] | frame[17] << 8 | frame[18] << 16 | frame[19] << 24, int(b)) << name;
    const auto d = wire::decode(frame);
    ASSERT_EQ(d.status, Status::kMessage) << name << ": " << d.error;
    std::visit(
        [&](const auto& m) {
          if constexpr (requires { m.board; }) {
            EXPECT_EQ(m.board, b) << name;
          }
        },
        d.message.body);
  }
  const auto reply = wire::decode(wire::encode({1, wire::HelloReply{wire::kVersionMajor, 0, 16, "pod"}}));
  ASSERT_EQ(reply.status, Status::kMessage);
  EXPECT_EQ(std::get<wire::HelloReply>(reply.message.body).boards, 16u);
}

TEST(WireProtocol, APeerOfAnotherMajorIsAVersionErrorNotMalformed) {
  // An old (major 1) peer's frame: its header's version.
  auto old = wire::encode({7, wire::Hello{wire::kVersionMajor, 0, "old"}});
  old[4] = 1;
  auto d = wire::decode(old);
  ASSERT_EQ(d.status, Status::kInvalid);
  EXPECT_EQ(d.code, wire::ErrorCode::kVersion);
  EXPECT_EQ(d.seq, 7u) << "the refusal answers the frame's seq";
  EXPECT_NE(d.error.find("frame version 1, this side speaks 2"), std::string::npos) << d.error;
  // A HELLO that asks for another major in its payload.
  d = wire::decode(wire::encode({8, wire::Hello{3, 0, "new"}}));
  ASSERT_EQ(d.status, Status::kInvalid);
  EXPECT_EQ(d.code, wire::ErrorCode::kVersion);
  EXPECT_NE(d.error.find("protocol major 3"), std::string::npos) << d.error;
  // Any other invalid field is MALFORMED.
  d = wire::decode(wire::encode({9, wire::Read32{0x1000}}));
  ASSERT_EQ(d.status, Status::kInvalid);
  EXPECT_EQ(d.code, wire::ErrorCode::kMalformed);
}

TEST(WireProtocol, EveryPrefixOfAFrameNeedsMore) {
  for (const auto& body : every_message()) {
    const auto frame = wire::encode({9, body});
    for (size_t n = 0; n < frame.size(); ++n) {
      const auto d = wire::decode(std::span(frame).first(n));
      EXPECT_EQ(d.status, Status::kNeedMore) << wire::type_name(uint16_t(wire::type_of(body))) << " prefix " << n;
    }
  }
}

TEST(WireProtocol, TwoFramesDecodeOneAtATime) {
  auto a = wire::encode({1, wire::Read32{4}});
  const auto b = wire::encode({2, wire::Bye{}});
  a.insert(a.end(), b.begin(), b.end());
  const auto d = wire::decode(a);
  ASSERT_EQ(d.status, Status::kMessage);
  EXPECT_EQ(d.consumed, a.size() - b.size());
}

struct BadCase {
  const char* name;
  std::vector<uint8_t> frame;
  const char* error_has;
};

std::vector<uint8_t> with(wire::Body body, size_t at, std::vector<uint8_t> bytes) {
  auto f = wire::encode({5, std::move(body)});
  std::copy(bytes.begin(), bytes.end(), f.begin() + long(at));
  return f;
}

std::vector<uint8_t> set_payload_len(std::vector<uint8_t> f, uint32_t n) {
  for (int i = 0; i < 4; ++i) f[12 + i] = uint8_t(n >> (8 * i));
  return f;
}

TEST(WireProtocol, InvalidFieldsAreRefusedAndNamed) {
  auto trailing = wire::encode({5, wire::Read32{4}});
  trailing.push_back(0);
  trailing = set_payload_len(trailing, uint32_t(trailing.size() - wire::kHeaderBytes));
  auto text_nul = wire::encode({5, wire::Hello{wire::kVersionMajor, 0, "ab"}});
  const uint32_t past = wire::kMaxBoards;  // a board index no system has
  text_nul.back() = 0;
  const BadCase cases[] = {
      {"magic", with(wire::Ok{}, 0, {'X'}), "magic"},
      {"frame version", with(wire::Ok{}, 4, {1, 0}), "frame version 1"},
      {"type 0", with(wire::Ok{}, 6, {0, 0}), "unknown message type 0"},
      {"superstep count", with(wire::SuperstepsReply{1, {}}, 16 + 4, {15, 0, 0, 0}), "count 15, at most 14"},
      {"superstep short", with(wire::SuperstepsReply{2, {{}}}, 16 + 4, {2, 0, 0, 0}), "ends inside"},
      {"payload too big", set_payload_len(wire::encode({5, wire::Ok{}}), 1025), "at most 1024"},
      {"trailing bytes", trailing, "after the last field"},
      {"short payload", set_payload_len(wire::encode({5, wire::Write32{0, 0}}), 4), "ends inside"},
      {"read beyond BAR0", wire::encode({5, wire::Read32{0x1000}}), "outside BAR0"},
      {"write beyond BAR0", wire::encode({5, wire::Write32{0xFFFFFFFC, 1}}), "outside BAR0"},
      {"map empty", wire::encode({5, wire::Map{0x1000, 0, 0}}), "bytes is 0"},
      {"map unaligned", wire::encode({5, wire::Map{0x1001, 4096, 0}}), "bus_addr not a multiple"},
      {"map huge", wire::encode({5, wire::Map{0x1000, uint64_t{1} << 40, 0}}), "above the limit"},
      {"map wraps", wire::encode({5, wire::Map{0xFFFFFFFFFFFFF000, 4096, 0}}), "highest bus address"},
      {"unmap unaligned", wire::encode({5, wire::Unmap{12}}), "not a multiple"},
      {"hello major", wire::encode({5, wire::Hello{1, 0, "x"}}), "protocol major 1"},
      {"hello reply major", wire::encode({5, wire::HelloReply{1, 0, 1, "x"}}), "protocol major 1"},
      {"hello reply no boards", wire::encode({5, wire::HelloReply{wire::kVersionMajor, 0, 0, "x"}}), "boards 0, not 1 .. 16384"},
      {"hello reply boards", wire::encode({5, wire::HelloReply{wire::kVersionMajor, 0, past + 1, "x"}}), "boards 16385"},
      {"read32 board", wire::encode({5, wire::Read32{0, past}}), "READ32: board 16384, a system has at most 16384"},
      {"write32 board", wire::encode({5, wire::Write32{0, 0, past}}), "WRITE32: board 16384"},
      {"map board", wire::encode({5, wire::Map{0x1000, 4096, 0, ~0u}}), "MAP: board 4294967295"},
      {"unmap board", wire::encode({5, wire::Unmap{0x1000, past}}), "UNMAP: board 16384"},
      {"interrupt board", wire::encode({5, wire::Interrupt{1, past}}), "INTERRUPT: board 16384"},
      {"set_trace board", wire::encode({5, wire::SetTrace{"", past}}), "SET_TRACE: board 16384"},
      {"supersteps board", wire::encode({5, wire::Supersteps{0, 0, past}}), "SUPERSTEPS: board 16384"},
      {"set_link_faults board", wire::encode({5, wire::SetLinkFaults{"none", past}}), "SET_LINK_FAULTS: board 16384"},
      {"link_stats board", wire::encode({5, wire::LinkStatsRequest{0, past}}), "LINK_STATS: board 16384"},
      {"link count", with(wire::LinkStatsReply{1, {}}, 16 + 4, {14, 0, 0, 0}), "count 14, at most 13"},
      {"link short", with(wire::LinkStatsReply{2, {{}}}, 16 + 4, {2, 0, 0, 0}), "ends inside"},
      {"type 22", with(wire::Ok{}, 6, {22, 0}), "unknown message type 22"},
      {"set_console board", wire::encode({5, wire::SetConsole{wire::ConsoleRoute::kClient, past}}), "SET_CONSOLE: board 16384"},
      {"console route", with(wire::SetConsole{}, 16 + 4, {3, 0, 0, 0}), "route 3, not 0 .. 2"},
      {"console_read board", wire::encode({5, wire::ConsoleRead{past}}), "CONSOLE_READ: board 16384"},
      {"console_pending board", wire::encode({5, wire::ConsolePending{past}}), "CONSOLE_PENDING: board 16384"},
      {"console more", with(wire::ConsoleLines{}, 16 + 8, {2, 0, 0, 0}), "more 2, not 0 or 1"},
      {"console count", with(wire::ConsoleLines{}, 16 + 12, {51, 0, 0, 0}), "more records than a payload holds"},
      {"console short", with(wire::ConsoleLines{0, false, {{}}}, 16 + 12, {2, 0, 0, 0}), "ends inside"},
      {"console flags", with(wire::ConsoleLines{0, false, {{}}}, 16 + 16 + 12, {2, 0, 0, 0}), "flags 2: only bit 0"},
      {"supersteps short", set_payload_len(wire::encode({5, wire::Supersteps{0, 0, 1}}), 8), "first: payload ends inside"},
      {"text reserved", with(wire::Hello{wire::kVersionMajor, 0, "x"}, 16 + 6, {1, 0}), "reserved"},
      {"text too long", with(wire::Hello{wire::kVersionMajor, 0, ""}, 16 + 4, {0xFF, 0xFF}), "at most 512"},
      {"text NUL", text_nul, "NUL"},
      {"error code", with(wire::Error{wire::ErrorCode::kBusy, ""}, 16, {99, 0, 0, 0}), "unknown code 99"},
      {"error code 10", with(wire::Error{wire::ErrorCode::kBusy, ""}, 16, {10, 0, 0, 0}), "unknown code 10"},
  };
  for (const auto& c : cases) {
    const auto d = wire::decode(c.frame);
    ASSERT_EQ(d.status, Status::kInvalid) << c.name;
    EXPECT_NE(d.error.find(c.error_has), std::string::npos) << c.name << ": " << d.error;
  }
}

TEST(WireProtocol, BadMagicIsSeenBeforeAWholeHeader) {
  const uint8_t http[] = {'G', 'E'};
  EXPECT_EQ(wire::decode(http).status, Status::kInvalid);
}

TEST(WireProtocol, RandomBytesNeverCrashAndNeverOverrun) {
  std::mt19937_64 rng(7);
  size_t accepted = 0;
  for (int i = 0; i < 200000; ++i) {
    std::vector<uint8_t> b(rng() % 64);
    for (auto& x : b) x = uint8_t(rng());
    if (i % 2 && b.size() >= 8) {  // plausible headers reach the payload checks
      const auto h = wire::encode({1, wire::Ok{}});
      std::copy(h.begin(), h.begin() + 6, b.begin());
      b[6] = uint8_t(1 + rng() % uint16_t(wire::kLastType)), b[7] = 0;
      if (b.size() >= 16) b[12] = uint8_t(b.size() - 16), b[13] = b[14] = b[15] = 0;
    }
    const auto d = wire::decode(b);
    if (d.status == Status::kMessage) {
      ++accepted;
      ASSERT_LE(d.consumed, b.size());
      ASSERT_EQ(wire::encode(d.message), std::vector<uint8_t>(b.begin(), b.begin() + long(d.consumed)));
    }
  }
  EXPECT_GT(accepted, 0u) << "the generator never produced a valid frame: the test checks nothing";
}

}  // namespace
