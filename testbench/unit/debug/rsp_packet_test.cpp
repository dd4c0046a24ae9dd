// The Remote Serial Protocol's byte level (tlm/debug/rsp_packet.h): checksums, framing,
// escapes, runs, the incremental parser, hex.
#include "debug/rsp_packet.h"

#include <gtest/gtest.h>

namespace ipusim::debug::rsp {
namespace {

std::vector<Event> parse(std::string_view bytes) {
  Parser p;
  std::vector<Event> out;
  p.feed(bytes, out);
  return out;
}

TEST(RspPacket, ChecksumIsTheByteSumModulo256) {
  EXPECT_EQ(checksum(""), 0);
  EXPECT_EQ(checksum("OK"), 0x9a);
  EXPECT_EQ(checksum("qSupported"), 0x37);
  EXPECT_EQ(checksum(std::string(3, '\xff')), 0xfd);
}

TEST(RspPacket, FrameAddsDollarHashAndChecksum) {
  EXPECT_EQ(frame("OK"), "$OK#9a");
  EXPECT_EQ(frame(""), "$#00");
  EXPECT_EQ(frame("g"), "$g#67");
}

TEST(RspPacket, EscapesTheFourReservedBytes) {
  EXPECT_EQ(escape("a$b#c}d*e"), "a}\x04" "b}\x03" "c}]d}\x0a" "e");
  // The checksum covers the escaped bytes.
  std::string f = frame("}");
  EXPECT_EQ(f, "$}]#da");
  auto back = decode(escape(std::string("\x00$#}*\xff", 6)));
  ASSERT_TRUE(back);
  EXPECT_EQ(*back, std::string("\x00$#}*\xff", 6));
}

TEST(RspPacket, DecodeExpandsRunsOfTheByteBefore) {
  // '0' then " " (32 - 29 = 3 more): four zeros.
  EXPECT_EQ(decode("0* "), "0000");
  EXPECT_EQ(decode("x*#"), std::string(1 + 6, 'x'));
  // A run repeats the decoded byte, even an escaped one.
  EXPECT_EQ(decode("}]* "), "}}}}");
  EXPECT_FALSE(decode("*5"));    // nothing before the run
  EXPECT_FALSE(decode("a*"));    // no count
  EXPECT_FALSE(decode("a*\x1f")); // count below 3
  EXPECT_FALSE(decode("ab}"));   // ends inside an escape
}

TEST(RspPacket, ParserReportsPacketsAcksAndInterrupts) {
  auto events = parse("+$OK#9a-\x03$g#67");
  ASSERT_EQ(events.size(), 5u);
  EXPECT_EQ(events[0].kind, Event::Kind::Ack);
  EXPECT_EQ(events[1].kind, Event::Kind::Packet);
  EXPECT_EQ(events[1].payload, "OK");
  EXPECT_EQ(events[2].kind, Event::Kind::Nack);
  EXPECT_EQ(events[3].kind, Event::Kind::Interrupt);
  EXPECT_EQ(events[4].payload, "g");
}

TEST(RspPacket, ParserTakesBytesInAnySplit) {
  std::string stream = frame("m40000,4") + frame("X40000,2:" + std::string("}#", 2));
  Parser p;
  std::vector<Event> out;
  for (char c : stream) p.feed(std::string_view(&c, 1), out);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].payload, "m40000,4");
  EXPECT_EQ(out[1].payload, "X40000,2:}#");
}

TEST(RspPacket, ParserRejectsABadChecksum) {
  auto events = parse("$OK#00$OK#zz$OK#9A");
  ASSERT_EQ(events.size(), 3u);
  EXPECT_EQ(events[0].kind, Event::Kind::BadPacket);
  EXPECT_EQ(events[1].kind, Event::Kind::BadPacket);
  // Upper-case checksum digits are fine.
  EXPECT_EQ(events[2].kind, Event::Kind::Packet);
}

TEST(RspPacket, ParserIgnoresNoiseAndAn0x03InsideAPacket) {
  auto events = parse("garbage" + frame(std::string("a\x03z", 3)));
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].kind, Event::Kind::Packet);
  EXPECT_EQ(events[0].payload, std::string("a\x03z", 3));
}

TEST(RspPacket, ParserDropsAnOverlongPacket) {
  std::string big = "$" + std::string(Parser::kMaxPacket + 10, 'a') + "#00";
  auto events = parse(big + frame("OK"));
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[0].kind, Event::Kind::BadPacket);
  EXPECT_EQ(events[1].payload, "OK");
}

TEST(RspPacket, HexHelpers) {
  EXPECT_EQ(to_hex(std::string_view("OK\n")), "4f4b0a");
  auto bytes = from_hex("00ff7A");
  ASSERT_TRUE(bytes);
  EXPECT_EQ(*bytes, (std::vector<uint8_t>{0x00, 0xff, 0x7a}));
  EXPECT_FALSE(from_hex("abc"));
  EXPECT_FALSE(from_hex("zz"));
  EXPECT_EQ(le32_hex(0x12345678), "78563412");
  EXPECT_EQ(parse_le32_hex("78563412"), 0x12345678u);
  EXPECT_FALSE(parse_le32_hex("785634"));
  EXPECT_EQ(parse_hex("4001c"), 0x4001cu);
  EXPECT_EQ(parse_hex("0000000000000000040010"), 0x40010u);
  EXPECT_FALSE(parse_hex(""));
  EXPECT_FALSE(parse_hex("-1"));
  EXPECT_FALSE(parse_hex("10000000000000000"));
  EXPECT_EQ(hex(0), "0");
  EXPECT_EQ(hex(0x3a), "3a");
}

}  // namespace
}  // namespace ipusim::debug::rsp
