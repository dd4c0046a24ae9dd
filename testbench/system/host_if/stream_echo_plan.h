// What the stream_echo firmware (firmware/stream_echo.c) does, for the tests that feed it:
// 16 tiles, 6 rounds of 16 KiB each from host stream kIn, every word w -> w * 3 + tile,
// to host stream kOut.
#pragma once

#include <cstddef>
#include <cstdint>
#include <random>
#include <vector>

namespace stream_echo {

constexpr uint32_t kTiles = 16, kRounds = 6, kChunk = 16384, kIn = 3, kOut = 7;
constexpr size_t kWords = size_t(kTiles) * kRounds * kChunk / 4;

// kWords random words from `seed`.
inline std::vector<uint32_t> input(unsigned seed) {
  std::vector<uint32_t> in(kWords);
  std::mt19937 rng(seed);
  for (auto& w : in) w = rng();
  return in;
}

// What the firmware writes back for `in`.
inline std::vector<uint32_t> expected(const std::vector<uint32_t>& in) {
  std::vector<uint32_t> out(in.size());
  for (size_t i = 0; i < in.size(); ++i) out[i] = in[i] * 3u + uint32_t(i / (kChunk / 4) % kTiles);
  return out;
}

}  // namespace stream_echo
