// The ISS's AMP seam with the RTL datapath attached (TileCore::set_amp_datapath with a
// cosim::amp::RtlAmp): a program of amp.ldw / amp.mac into two banks / amp.st on random
// operands rich in special values, run on a TileCore with the ISS's own arithmetic and
// again with every amp.mac on the Verilated array: the same stored accumulators, registers,
// cycles and instructions, for f16 and f32, for R = 16 (one transaction), 8 / 2 (rows
// padded), 24 (two transactions of 16 rows), and on the stepping loop; and the array ran
// 6 cycles per 16-row transaction.
#include <cstring>
#include <memory>
#include <vector>

#include "amp_operands.h"
#include "cosim/amp/rtl_amp.h"
#include "iss_harness.h"

namespace {

using namespace isstest;
using namespace rvasm;
using ipusim::cosim::amp::RtlAmp;
using ipusim::cosim::amp::RtlAmpConfig;
using ipusim::cosim::amp_test::OperandSource;

constexpr uint32_t kW = 0x50000, kX = 0x58000, kOut = 0x5c000;  // inside the 64 KiB of .bss
constexpr uint32_t kSteps = 48;

// K steps of amp.ldw W_k; amp.mac x_k into bank k % 2; then amp.st of both banks.
Asm program(uint32_t type, uint32_t w_step_bytes, uint32_t out_step_bytes) {
  Asm a;
  a.li(s0, kW);
  a.li(s1, kX);
  a.li(s2, kOut);
  a.li(s3, kSteps / 2);
  a.amp_clr(type);
  a.label("loop");
  a.amp_ldw(type, s0);
  a.amp_mac(type, s1, s1, 0);
  a.addi(s0, s0, static_cast<int32_t>(w_step_bytes));
  a.amp_ldw(type, s0);
  a.amp_mac(type, s1, s1, 1);
  a.addi(s0, s0, static_cast<int32_t>(w_step_bytes));
  a.addi(s3, s3, -1);
  a.bne(s3, zero, "loop");
  a.amp_st(type, s2, 0);
  a.addi(s2, s2, static_cast<int32_t>(out_step_bytes));
  a.amp_st(type, s2, 1);
  a.halt(zero);
  return a;
}

struct Outcome {
  std::vector<uint32_t> out;
  uint64_t cycle = 0, instret = 0;
  uint32_t s1 = 0;
  uint64_t rtl_cycles = 0;
};

Outcome run(uint32_t type, uint32_t f16_macs, uint32_t f32_macs, uint32_t quantum, uint32_t seed, bool rtl) {
  const bool f16 = type == IPU_AMP_F16;
  const uint32_t rows = (f16 ? f16_macs : f32_macs) / 4;
  const uint32_t bytes = f16 ? 2 : 4;
  TileParams p = test_params(quantum);
  p.amp_f16_macs = f16_macs;
  p.amp_f32_macs = f32_macs;
  testelf::Image img;
  img.data_addr = 0x50000;
  img.bss_bytes = 0x10000;
  Harness h(program(type, rows * 4 * bytes, rows * 4), p, img);
  OperandSource source(seed);
  std::vector<uint8_t> w, x;
  for (uint32_t k = 0; k < kSteps; ++k) {
    const auto m = source.next(f16, rows);
    w.insert(w.end(), m.w.begin(), m.w.end());
    if (k % 2 == 0) x.insert(x.end(), m.x.begin(), m.x.end());
  }
  EXPECT_TRUE(h.core.write(kW, w));
  EXPECT_TRUE(h.core.write(kX, x));
  std::unique_ptr<RtlAmp> amp;
  if (rtl) {
    amp = std::make_unique<RtlAmp>(RtlAmpConfig{"tile3.amp", 100'000'000, nullptr});
    h.core.set_amp_datapath(amp.get());
  }
  h.run_ok();
  Outcome o;
  for (uint32_t i = 0; i < 2 * rows; ++i) o.out.push_back(h.mem32(kOut + 4 * i));
  o.cycle = h.core.cycle();
  o.instret = h.core.instret();
  o.s1 = h.x(s1);
  if (amp) o.rtl_cycles = amp->cycles();
  return o;
}

void check(uint32_t type, uint32_t f16_macs, uint32_t f32_macs, uint32_t quantum, uint32_t seed) {
  SCOPED_TRACE(::testing::Message() << "type " << type << " macs " << f16_macs << "/" << f32_macs << " quantum "
                                    << quantum);
  const Outcome iss = run(type, f16_macs, f32_macs, quantum, seed, false);
  const Outcome rtl = run(type, f16_macs, f32_macs, quantum, seed, true);
  EXPECT_EQ(rtl.out, iss.out);
  EXPECT_EQ(rtl.cycle, iss.cycle);
  EXPECT_EQ(rtl.instret, iss.instret);
  EXPECT_EQ(rtl.s1, iss.s1);
  const uint32_t rows = (type == IPU_AMP_F16 ? f16_macs : f32_macs) / 4;
  const uint64_t transactions = kSteps * ((rows + 15) / 16);
  // One transaction: 6 cycles (latency 5, read at the sixth edge); each further 16-row
  // transaction of the same amp.mac follows one cycle behind.
  EXPECT_EQ(rtl.rtl_cycles, kSteps * (6 + (rows + 15) / 16 - 1)) << transactions << " transactions";
}

TEST(AmpSeam, F16OnTheRtlArrayEqualsTheIss) {
  check(IPU_AMP_F16, 64, 16, 1024, 11);  // R16 = 16: the array's rows
  check(IPU_AMP_F16, 32, 8, 1024, 12);   // GC2: R16 = 8
  check(IPU_AMP_F16, 96, 16, 1024, 13);  // R16 = 24: two transactions per amp.mac
  check(IPU_AMP_F16, 64, 16, 1, 14);     // the stepping loop
}

TEST(AmpSeam, F32OnTheRtlArrayEqualsTheIss) {
  check(IPU_AMP_F32, 64, 16, 1024, 21);  // R32 = 4
  check(IPU_AMP_F32, 32, 8, 1024, 22);   // GC2: R32 = 2
  check(IPU_AMP_F32, 64, 96, 1024, 23);  // R32 = 24
  check(IPU_AMP_F32, 64, 16, 1, 24);
}

}  // namespace
