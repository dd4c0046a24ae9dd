// The fault injector's random numbers: xoshiro256** seeded through splitmix64, and the
// draws derived from it by hand. std::uniform_*_distribution is implementation-defined,
// so a seed would give different faults with another standard library; these do not.
#pragma once

#include <array>
#include <cstdint>

namespace ipusim::links {

inline uint64_t splitmix64(uint64_t& state) {
  uint64_t z = (state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

class Prng {
 public:
  explicit Prng(uint64_t seed) {
    for (auto& s : s_) s = splitmix64(seed);
  }
  uint64_t next() {
    const uint64_t result = rotl(s_[1] * 5, 7) * 9;
    const uint64_t t = s_[1] << 17;
    s_[2] ^= s_[0];
    s_[3] ^= s_[1];
    s_[1] ^= s_[2];
    s_[0] ^= s_[3];
    s_[2] ^= t;
    s_[3] = rotl(s_[3], 45);
    return result;
  }
  // Uniform in (0, 1]: never 0, so log() of it is finite.
  double unit_open0() { return static_cast<double>((next() >> 11) + 1) * 0x1.0p-53; }
  // Uniform in [0, n), by 128-bit multiply (Lemire, without the rejection step: the bias
  // is below 2^-40 for the frame sizes drawn here, and the result stays bit-exact).
  uint64_t below(uint64_t n) {
    return static_cast<uint64_t>((static_cast<unsigned __int128>(next()) * n) >> 64);
  }
  bool chance(double p) { return static_cast<double>(next() >> 11) * 0x1.0p-53 < p; }

  // A checkpoint's view (docs/checkpoints.md): the generator goes on from a saved state.
  std::array<uint64_t, 4> state() const { return {s_[0], s_[1], s_[2], s_[3]}; }
  void set_state(const std::array<uint64_t, 4>& s) {
    for (int i = 0; i < 4; ++i) s_[i] = s[i];
  }

 private:
  static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  uint64_t s_[4];
};

}  // namespace ipusim::links
