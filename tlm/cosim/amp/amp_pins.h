// The pins of hw/amp's amp_top as one amp.mac's operands and result (a template over the
// Verilated class: Vamp_r16_vcd and Vamp_r16_fst have the same members). Plain C++, no
// SystemC: the transactor (amp_transactor.h) and the equivalence test both use it.
//
// Port layout (hw/amp/README.md): w_i holds W[i][j] in 32-bit lane 4i + j, x_i holds x[j]
// in lane j, acc_i / acc_o hold acc[i] in lane i; an f16 value sits in a lane's low half.
#pragma once

#include <cstdint>
#include <cstring>

namespace ipusim::cosim::amp {

template <class Model>
struct AmpPins {
  // The array's rows (amp_top's ROWS), from the width of acc_o (32 bits a row).
  static constexpr uint32_t kRows = sizeof(Model::acc_o) / 4;

  // Rows first .. first + n - 1 of an amp.mac's operands onto the input pins (n <= kRows;
  // the rows beyond n get zeros): W as amp.ldw read it (row-major, f16 or f32 bits), x as
  // amp.mac read it, acc the bank's f32 accumulators (bits).
  static void drive(Model& m, bool f16, uint32_t first, uint32_t n, const uint8_t* w, const uint8_t* x,
                    const uint32_t* acc) {
    m.f16_i = f16;
    const uint32_t bytes = f16 ? 2 : 4;
    for (uint32_t j = 0; j < 4; ++j) m.x_i[j] = lane(x + j * bytes, f16);
    for (uint32_t i = 0; i < kRows; ++i) {
      const bool used = i < n;
      for (uint32_t j = 0; j < 4; ++j)
        m.w_i[4 * i + j] = used ? lane(w + ((first + i) * 4 + j) * bytes, f16) : 0u;
      m.acc_i[i] = used ? acc[first + i] : 0u;
    }
  }

  // acc_o's rows 0 .. n-1 into acc[first ..].
  static void read(const Model& m, uint32_t first, uint32_t n, uint32_t* acc) {
    for (uint32_t i = 0; i < n; ++i) acc[first + i] = m.acc_o[i];
  }

 private:
  static uint32_t lane(const uint8_t* p, bool f16) {
    if (f16) {
      uint16_t h;
      std::memcpy(&h, p, 2);
      return h;
    }
    uint32_t f;
    std::memcpy(&f, p, 4);
    return f;
  }
};

}  // namespace ipusim::cosim::amp
