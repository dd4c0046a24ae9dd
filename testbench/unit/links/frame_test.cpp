// Wire format, CRC-32 known vectors and 12-bit sequence arithmetic.
#include <gtest/gtest.h>

#include <string_view>

#include "links/crc.h"
#include "links/frame.h"
#include "links/link_config.h"

namespace ipusim::links {
namespace {

std::span<const uint8_t> bytes_of(std::string_view s) {
  return {reinterpret_cast<const uint8_t*>(s.data()), s.size()};
}

TEST(LinkCrc, KnownVectors) {
  EXPECT_EQ(crc32_of(bytes_of("")), 0x00000000u);
  EXPECT_EQ(crc32_of(bytes_of("123456789")), 0xCBF43926u);
  EXPECT_EQ(crc32_of(bytes_of("The quick brown fox jumps over the lazy dog")), 0x414FA339u);
  EXPECT_EQ(crc32_of(bytes_of("a")), 0xE8B7BE43u);
}

TEST(LinkFrame, EncodesHeaderPayloadAndCrc) {
  const std::vector<uint8_t> payload = {'1', '2', '3', '4', '5'};
  const auto wire = encode_frame(0xABC, payload);
  ASSERT_EQ(wire.size(), payload.size() + kFrameOverheadBytes);
  EXPECT_EQ(wire[0], 0x0A);
  EXPECT_EQ(wire[1], 0xBC);
  EXPECT_EQ(wire[2], 5);
  EXPECT_EQ(wire[3], 0);
  const uint32_t crc = crc32_of(std::span<const uint8_t>(wire.data(), 9));
  EXPECT_EQ(wire[9] | wire[10] << 8 | wire[11] << 16 | static_cast<uint32_t>(wire[12]) << 24, crc);
  const auto d = decode_frame(wire);
  ASSERT_TRUE(d.ok);
  EXPECT_EQ(d.seq, 0xABC);
  EXPECT_TRUE(std::equal(d.payload.begin(), d.payload.end(), payload.begin(), payload.end()));
}

TEST(LinkFrame, EveryBitFlipIsDetected) {
  std::vector<uint8_t> payload(64);
  for (size_t i = 0; i < payload.size(); ++i) payload[i] = static_cast<uint8_t>(i * 7);
  const auto wire = encode_frame(4095, payload);
  for (size_t bit = 0; bit < wire.size() * 8; ++bit) {
    auto bad = wire;
    bad[bit / 8] ^= static_cast<uint8_t>(1u << (bit % 8));
    EXPECT_FALSE(decode_frame(bad).ok) << "bit " << bit;
  }
  auto truncated = wire;
  truncated.pop_back();
  EXPECT_FALSE(decode_frame(truncated).ok);
}

TEST(LinkFrame, SequenceNumbersWrapAt4096) {
  EXPECT_EQ(seq_add(4095, 1), 0);
  EXPECT_EQ(seq_add(4000, 200), 104);
  EXPECT_EQ(seq_distance(4095, 0), 1u);
  EXPECT_EQ(seq_distance(10, 5), 4091u);  // behind
  EXPECT_EQ(seq_distance(4090, 10), 16u);
}

TEST(LinkConfig, FrameCyclesRoundUpAndTakeFractionalRates) {
  LinkLayerConfig c;
  EXPECT_EQ(c.frame_cycles(256), 17u);     // 264 / 16 = 16.5
  EXPECT_EQ(c.frame_cycles(248), 16u);     // exactly 256 / 16
  c.bytes_per_cycle = 16e9 / 1.325e9;      // 12.075...
  EXPECT_EQ(c.frame_cycles(256), 22u);     // 264 / 12.075 = 21.86
  c.bytes_per_cycle = 264.0 / 3.0;
  EXPECT_EQ(c.frame_cycles(256), 3u);
}

TEST(LinkConfig, ValidateNamesTheField) {
  EXPECT_EQ(LinkLayerConfig{}.validate(), "");
  auto bad = [](auto change) {
    LinkLayerConfig c;
    change(c);
    return c.validate();
  };
  EXPECT_EQ(bad([](auto& c) { c.frame_bytes = 0; }).rfind("frame_bytes:", 0), 0u);
  EXPECT_EQ(bad([](auto& c) { c.replay_buffer_frames = 2049; }).rfind("replay_buffer_frames:", 0), 0u);
  EXPECT_EQ(bad([](auto& c) { c.credit_frames = 0; }).rfind("credit_frames:", 0), 0u);
  EXPECT_EQ(bad([](auto& c) { c.ack_coalesce_frames = 0; }).rfind("ack_coalesce_frames:", 0), 0u);
  EXPECT_EQ(bad([](auto& c) { c.ack_timeout_cycles = 0; }).rfind("ack_timeout_cycles:", 0), 0u);
  EXPECT_EQ(bad([](auto& c) { c.replay_limit = 0; }).rfind("replay_limit:", 0), 0u);
  EXPECT_EQ(bad([](auto& c) { c.bytes_per_cycle = 0; }).rfind("bytes_per_cycle:", 0), 0u);
  EXPECT_EQ(bad([](auto& c) { c.latency_cycles = 0; }).rfind("latency_cycles:", 0), 0u);
  EXPECT_EQ(bad([](auto& c) { c.replay_timeout_cycles = 700; }),
            "replay_timeout_cycles: 700 is shorter than an ACK's round trip; use 0 (automatic) or at "
            "least 786 (2 * latency_cycles + ack_timeout_cycles + one frame time + 1)");
  EXPECT_EQ(bad([](auto& c) { c.replay_timeout_cycles = 786; }), "");
  EXPECT_EQ(LinkLayerConfig{}.effective_replay_timeout(), 2 * 256 + 256 + 2 * 17 + 32u);
  // A phase counts 32-bit cycles (the link RTL's counter): latency and frame time at most 2^24.
  EXPECT_EQ(bad([](auto& c) { c.latency_cycles = (1u << 24) + 1; }), "latency_cycles: 16777217 is more than 16777216 (2^24)");
  EXPECT_EQ(bad([](auto& c) { c.latency_cycles = 1u << 24; }), "");
  EXPECT_EQ(bad([](auto& c) { c.bytes_per_cycle = 1e-300; }).rfind("bytes_per_cycle: 1e-300 takes more than 16777216", 0),
            0u);
}

// A chip's figures: the latency rounded to whole cycles (saturating, for validate() to
// refuse), the rate per cycle; a rate of almost nothing gives a frame time that saturates.
TEST(LinkConfig, ForRatesGivesTheChipsFiguresInCycles) {
  const LinkLayerConfig c = LinkLayerConfig::for_rates(16e9, 250, 1.325e9);
  EXPECT_EQ(c.latency_cycles, 331u);  // 250 ns x 1.325 GHz = 331.25
  EXPECT_DOUBLE_EQ(c.bytes_per_cycle, 16e9 / 1.325e9);
  EXPECT_EQ(LinkLayerConfig::for_rates(16e9, 0, 1e9).latency_cycles, 0u);
  EXPECT_EQ(LinkLayerConfig::for_rates(16e9, 250, 1).latency_cycles, 0u);
  EXPECT_EQ(LinkLayerConfig::for_rates(16e9, 1e9, 1e11).latency_cycles, 0xffffffffu);
  EXPECT_EQ(LinkLayerConfig::for_rates(1e-300, 250, 1e9).frame_cycles(256), UINT64_MAX);
  EXPECT_NE(LinkLayerConfig::for_rates(16e9, 0, 1e9).validate(), "");
}

}  // namespace
}  // namespace ipusim::links
