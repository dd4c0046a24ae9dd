// The generated codec writes the bytes protocol 2.2's hand-written one wrote: a sample of
// every message (wire_samples.h) against the frames that codec produced for it
// (wire_golden.hex, captured before the codec was generated), and each golden frame
// decodes to its sample. A change here is a change of the protocol: bump kVersionMajor.
#include <gtest/gtest.h>

#include <fstream>
#include <string>
#include <vector>

#include "wire_samples.h"

namespace {

namespace wire = ipusim::wire;

std::vector<std::vector<uint8_t>> golden_frames() {
  std::ifstream in(WIRE_GOLDEN_FILE);
  EXPECT_TRUE(in) << "cannot read " << WIRE_GOLDEN_FILE;
  std::vector<std::vector<uint8_t>> frames;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::vector<uint8_t> f;
    for (size_t i = 0; i + 1 < line.size(); i += 2) f.push_back(uint8_t(std::stoul(line.substr(i, 2), nullptr, 16)));
    frames.push_back(std::move(f));
  }
  return frames;
}

uint32_t seq_of(size_t k) { return uint32_t(k + 1) * 0x01010101u; }

TEST(WireGolden, EverySampleEncodesToProtocol22sBytes) {
  const auto samples = wire_samples::all();
  const auto golden = golden_frames();
  if (golden.size() < samples.size()) {
    // A sample of a new message: its frame is to be appended (after a review of its bytes).
    std::string lines;
    for (size_t k = golden.size(); k < samples.size(); ++k) {
      for (uint8_t b : wire::encode({seq_of(k), samples[k]})) lines += "0123456789abcdef"[b >> 4], lines += "0123456789abcdef"[b & 15];
      lines += "\n";
    }
    ADD_FAILURE() << "samples without a golden frame; their frames, to append to wire_golden.hex:\n" << lines;
  }
  ASSERT_EQ(golden.size(), samples.size()) << "one golden frame per sample";
  std::vector<bool> seen(size_t(wire::kLastType) + 1);
  for (size_t k = 0; k < samples.size(); ++k) {
    const char* name = wire::type_name(uint16_t(wire::type_of(samples[k])));
    EXPECT_EQ(wire::encode({seq_of(k), samples[k]}), golden[k]) << "sample " << k << " (" << name << ")";
    seen[size_t(wire::type_of(samples[k]))] = true;
  }
  for (uint16_t t = 1; t <= uint16_t(wire::kLastType); ++t) EXPECT_TRUE(seen[t]) << wire::type_name(t) << " has no sample";
}

// Decoding a golden frame gives back the sample, up to what the encoder cut (a text or a
// list past its limit): re-encoding it gives the golden bytes again.
TEST(WireGolden, EveryGoldenFrameDecodesAndReencodes) {
  const auto samples = wire_samples::all();
  const auto golden = golden_frames();
  ASSERT_EQ(golden.size(), samples.size());
  for (size_t k = 0; k < golden.size(); ++k) {
    const auto d = wire::decode(golden[k]);
    ASSERT_EQ(d.status, wire::Decoded::Status::kMessage) << "sample " << k << ": " << d.error;
    EXPECT_EQ(d.consumed, golden[k].size()) << "sample " << k;
    EXPECT_EQ(d.message.seq, seq_of(k));
    EXPECT_EQ(d.message.body.index(), samples[k].index()) << "sample " << k;
    EXPECT_EQ(wire::encode(d.message), golden[k]) << "sample " << k;
  }
}

// Samples that the encoder does not cut decode to themselves.
TEST(WireGolden, UncutSamplesRoundTripExactly) {
  const auto samples = wire_samples::all();
  const auto golden = golden_frames();
  ASSERT_EQ(golden.size(), samples.size());
  size_t exact = 0;
  for (size_t k = 0; k < golden.size(); ++k) {
    const auto d = wire::decode(golden[k]);
    ASSERT_EQ(d.status, wire::Decoded::Status::kMessage);
    if (d.message.body == samples[k]) ++exact;
  }
  // Cut: the 600-byte name, the 513-byte items, the 700-byte error text, the 20 supersteps,
  // the 15 links and the three console replies past a payload.
  EXPECT_EQ(exact, samples.size() - 8) << "all but the eight samples past a limit decode exactly";
}

}  // namespace
