// Compiled with the ISS's AMP float flags (CMakeLists.txt): amp_math.h's vector code must
// be one IEEE operation per product and per sum, as in tlm/iss/amp.cpp.
#include "amp_reference.h"

#include <cstring>
#include <memory>

#include "iss/amp_math.h"

namespace ipusim::cosim::amp_test {

std::vector<uint32_t> iss_mac(const MacOperands& m) {
  auto s = std::make_unique<iss::AmpState>();
  s->rows16 = s->rows32 = m.rows;
  if (m.f16)
    iss::amp::ldw_f16(*s, m.w.data());
  else
    iss::amp::ldw_f32(*s, m.w.data());
  std::memcpy(s->acc[0], m.acc.data(), m.rows * 4);
  const auto x = m.f16 ? iss::amp::load_inputs<true>(m.x.data()) : iss::amp::load_inputs<false>(m.x.data());
  iss::amp::multiply_accumulate(*s, 0, x);
  std::vector<uint32_t> out(m.rows);
  iss::amp::store_accumulators(*s, 0, reinterpret_cast<uint8_t*>(out.data()), m.rows);
  return out;
}

}  // namespace ipusim::cosim::amp_test
