// The translator's hoisted bounds checks (docs/iss.md "Hoisted checks"): loops whose
// loads and stores walk pointers through the tile's SRAM, up and down, by strides that
// are and are not powers of two, from starts in range, at the SRAM's ends, in the code,
// below the SRAM, misaligned and near 2^32, under small quanta. The translator must give
// exactly what the interpreter gives: the fault at the same iteration with the same
// registers, the same SRAM, the same cycles.
#include <array>
#include <cstdio>
#include <random>

#include "iss_harness.h"
#include "jit_outcome.h"
#include "random_rv32_ops.h"

namespace {

using namespace isstest;
using namespace rvasm;

const uint32_t kSramBytes = test_params().sram_bytes;
constexpr uint32_t kInstret = 0xc02;

class StrideGenerator {
 public:
  explicit StrideGenerator(uint32_t seed) : rng_(seed) {}

  Asm program() {
    Asm a;
    a.li(s2, 0);
    for (uint32_t l = 0; l < 3; ++l) loop(a);
    a.halt(zero);
    return a;
  }

 private:
  uint32_t pick(uint32_t lo, uint32_t hi) { return std::uniform_int_distribution<uint32_t>(lo, hi)(rng_); }
  bool chance(uint32_t in) { return pick(0, in - 1) == 0; }

  // Where a pointer starts: mostly the data area; else next to an edge of the SRAM, in the
  // code (loads read it, stores fault), below the SRAM, misaligned, or near 2^32.
  uint32_t start() {
    switch (pick(0, 19)) {
      case 0: case 1: return kSramBase + kSramBytes - 4 * pick(1, 96);
      case 2: return kSramBase + 4 * pick(0, 64);
      case 3: return kSramBase - 4 * pick(1, 16);
      case 4: return kData + 4 * pick(0, 1000) + pick(1, 3);
      case 5: return 0u - 4 * pick(1, 64);
      default: return kData + 4 * pick(0, 1000);
    }
  }
  // Multiples of every access size mostly (their checks hoist); now and then a stride that
  // misaligns the wider accesses from the second iteration on.
  int32_t stride() {
    static const int32_t aligned[] = {4, -4, 8, -8, 12, -12, 256, -256, 0, 16, -20, 4, -4, 28};
    static const int32_t odd[] = {1, -1, 2, -2, 6, 3};
    if (chance(6)) return odd[pick(0, std::size(odd) - 1)];
    return aligned[pick(0, std::size(aligned) - 1)];
  }
  // One loop: up to three pointers (t0..t2) stepping by their strides, one to three
  // accesses of each kind through them (the values in a1..a5, summed into s2), sometimes
  // a CSR read or an F op in the body (calls out from the fast body), a counted back edge.
  void loop(Asm& a) {
    const Reg ptrs[] = {t0, t1, t2};
    const Reg vals[] = {a1, a2, a3, a4, a5};
    const uint32_t n_ptrs = pick(1, 3);
    int32_t steps[3];
    for (uint32_t p = 0; p < n_ptrs; ++p) {
      a.li(ptrs[p], start());
      steps[p] = stride();
    }
    for (Reg v : vals) a.li(v, static_cast<uint32_t>(rng_()));
    a.li(s1, pick(1, 200));
    const std::string top = a.fresh_label("loop");
    a.label(top);
    // A pointer's step split in two (before and after the accesses) now and then.
    int32_t early[3] = {};
    for (uint32_t p = 0; p < n_ptrs; ++p)
      if (chance(3)) {
        early[p] = steps[p] / 2;
        if (early[p] != 0) a.addi(ptrs[p], ptrs[p], early[p]);
      }
    const uint32_t accesses = pick(1, 3);
    for (uint32_t k = 0; k < accesses; ++k) {
      const Reg base = ptrs[pick(0, n_ptrs - 1)];
      const Reg v = vals[pick(0, 4)];
      const auto off = static_cast<int32_t>(pick(0, 128)) - 64;
      random_memory_op(a, pick(0, kRandomMemoryOps - 1), v, off, base, [this] { return pick(0, 3); });
      if (chance(2)) a.add(s2, s2, v);
    }
    if (chance(8)) a.csrr(a6, kInstret);
    if (chance(8)) a.fmadd(4, 0, 1, 2);
    for (uint32_t p = 0; p < n_ptrs; ++p)
      if (steps[p] - early[p] != 0) a.addi(ptrs[p], ptrs[p], steps[p] - early[p]);
    a.addi(s1, s1, -1);
    a.bne(s1, zero, top);
  }

  std::mt19937 rng_;
};

TEST(IssJitHoist, StridingLoopsMatchTheInterpreter) {
  uint32_t faults = 0, programs = 0;
  uint64_t hoisted = 0;
  for (uint32_t seed = 1; seed <= 1500; ++seed) {
    const Asm a = StrideGenerator(seed).program();
    const uint32_t quantum = std::array{2u, 3u, 7u, 64u, 1024u, 1u << 24}[seed % 6];
    const uint32_t hot = 1 + seed % 2;
    const bool co_issue = seed % 4 != 0;
    SCOPED_TRACE(testing::Message() << "seed " << seed << " quantum " << quantum << " hot " << hot);
    const Outcome i = run(a, quantum, TileParams::Core::interp, hot, co_issue, kSramBase, kSramBytes);
    const Outcome j = run(a, quantum, TileParams::Core::jit, hot, co_issue, kSramBase, kSramBytes);
    expect_same(i, j);
    faults += i.stop.reason == StopReason::Fault;
    hoisted += j.hoisted_loops;
    ++programs;
    if (HasFailure()) break;
  }
  // Both endings, and many loops run with their checks hoisted.
  EXPECT_GT(faults, programs / 10);
  EXPECT_LT(faults, programs - programs / 10);
  EXPECT_GT(hoisted, uint64_t{programs});
  std::printf("%u programs, %u faulted, %llu loops with hoisted checks\n", programs, faults,
              static_cast<unsigned long long>(hoisted));
}

// A word loop running off the SRAM's end: the translator hoists its checks, and the load
// past the end faults at the same iteration as on the interpreter, with the pointer at the
// first address past the SRAM.
TEST(IssJitHoist, ALoopRunningOffTheSramFaultsAtTheSameIteration) {
  Asm a;
  a.li(t0, kSramBase + kSramBytes - 4 * 40);
  a.li(s1, 1000);
  a.li(s2, 0);
  a.label("top");
  a.label("bad");
  a.lw(a1, 0, t0);
  a.add(s2, s2, a1);
  a.addi(t0, t0, 4);
  a.addi(s1, s1, -1);
  a.bne(s1, zero, "top");
  a.halt(zero);
  for (const uint32_t quantum : {3u, 1024u}) {
    SCOPED_TRACE(quantum);
    const Outcome i = run(a, quantum, TileParams::Core::interp, 1, true, kSramBase, kSramBytes);
    const Outcome j = run(a, quantum, TileParams::Core::jit, 1, true, kSramBase, kSramBytes);
    expect_same(i, j);
    EXPECT_EQ(j.hoisted_loops, 1u);
    ASSERT_EQ(j.stop.reason, StopReason::Fault);
    EXPECT_EQ(j.stop.fault->pc, a.addr("bad"));
    EXPECT_EQ(j.regs[0].x[t0], kSramBase + kSramBytes);
    EXPECT_EQ(j.regs[0].x[s1], 1000u - 40);
  }
}

}  // namespace
