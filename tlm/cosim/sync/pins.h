// Bit access to a Verilated model's ports, whatever width Verilator gave them: an
// integer (up to 64 bits) or a VlWide (wider). The sync controller's per-tile ports are
// 16 bits on the test chip and 1472 on a GC200; one transactor serves both.
#pragma once

#include <bit>
#include <cstdint>
#include <type_traits>

// (A file that includes SystemC includes cosim/verilated_sc.h before this.)
#include <verilated.h>

namespace ipusim::cosim::pins {

template <class P>
constexpr uint32_t words() {
  return uint32_t(sizeof(P) / sizeof(EData));
}

template <class P>
inline void set_bit(P& port, uint32_t bit, bool value) {
  if constexpr (std::is_integral_v<P>) {
    const P mask = P(P(1) << bit);
    port = value ? P(port | mask) : P(port & P(~mask));
  } else {
    EData& word = port.at(bit / 32);
    const EData mask = EData(1) << (bit % 32);
    word = value ? (word | mask) : (word & ~mask);
  }
}

// `width` bits of `value` from bit `lsb` on.
template <class P>
inline void set_field(P& port, uint32_t lsb, uint32_t width, uint32_t value) {
  for (uint32_t i = 0; i < width; ++i) set_bit(port, lsb + i, (value >> i) & 1u);
}

template <class P>
inline void clear(P& port) {
  if constexpr (std::is_integral_v<P>) {
    port = 0;
  } else {
    for (uint32_t w = 0; w < words<P>(); ++w) port.at(w) = 0;
  }
}

// f(bit) for every set bit, lowest first.
template <class P, class F>
inline void for_each_set(const P& port, F&& f) {
  if constexpr (std::is_integral_v<P>) {
    uint64_t bits = uint64_t(port);
    while (bits) {
      f(uint32_t(std::countr_zero(bits)));
      bits &= bits - 1;
    }
  } else {
    for (uint32_t w = 0; w < words<P>(); ++w) {
      EData bits = port.at(w);
      while (bits) {
        f(w * 32 + uint32_t(std::countr_zero(bits)));
        bits &= bits - 1;
      }
    }
  }
}

}  // namespace ipusim::cosim::pins
