// CSRs: Zicsr read / set / clear semantics, read-only and unknown CSRs, the Xipu identity
// and per-tile CSRs, and the counters (cycle of the reading instruction, instret before it).
#include "iss_harness.h"

#include <fmt/format.h>

#include "iss/isa_table.h"

namespace {

using namespace isstest;
using namespace rvasm;

TEST(IssCsr, XipuIdentity) {
  Asm a;
  const uint32_t csrs[] = {0xcc0, 0xcc1, 0xcc2, 0xcc3, 0xcc4, 0xcc5, 0xcc6, 0xcc7, 0xcc8};
  const Reg dst[] = {a0, a1, a2, a3, a4, a5, a6, a7, s2};
  for (int i = 0; i < 9; ++i) a.csrr(dst[i], csrs[i]);
  a.halt(zero);
  Harness h(a);
  h.run_ok();
  EXPECT_EQ(h.x(a0), 3u);    // tile
  EXPECT_EQ(h.x(a1), 1u);    // ipu
  EXPECT_EQ(h.x(a2), 0u);    // thread: supervisor
  EXPECT_EQ(h.x(a3), 16u);   // ntiles
  EXPECT_EQ(h.x(a4), 2u);    // nipus
  EXPECT_EQ(h.x(a5), 6u);    // nworkers
  EXPECT_EQ(h.x(a6), 0x40000u);
  EXPECT_EQ(h.x(a7), 256u * 1024);
  EXPECT_EQ(h.x(s2), 0u);    // superstep
}

TEST(IssCsr, ReadWriteSetClearSemantics) {
  Asm a;
  a.li(t0, 0x1234);
  a.csrrw(a0, 0x8c0, t0);     // old 0
  a.li(t1, 0x00f0);
  a.csrrs(a1, 0x8c0, t1);     // old 0x1234, new 0x12f4
  a.li(t2, 0x1004);
  a.csrrc(a2, 0x8c0, t2);     // old 0x12f4, new 0x02f0
  a.csrr(a3, 0x8c0);
  a.csrrwi(a4, 0x8c1, 17);
  a.csrrsi(a5, 0x8c1, 2);     // 17 | 2 = 19
  a.csrrci(a6, 0x8c1, 1);     // 19 & ~1 = 18
  a.csrr(a7, 0x8c1);
  a.csrrw(zero, 0x8c2, t0);
  a.csrr(s2, 0x8c2);
  a.csrrs(s3, 0xc00, zero);   // reading a read-only CSR with x0 is fine
  a.csrrsi(s4, 0xcc0, 0);     // and with a zero immediate
  a.halt(zero);
  Harness h(a);
  h.run_ok();
  EXPECT_EQ(h.x(a0), 0u);
  EXPECT_EQ(h.x(a1), 0x1234u);
  EXPECT_EQ(h.x(a2), 0x12f4u);
  EXPECT_EQ(h.x(a3), 0x02f0u);
  EXPECT_EQ(h.x(a4), 0u);
  EXPECT_EQ(h.x(a5), 17u);
  EXPECT_EQ(h.x(a6), 19u);
  EXPECT_EQ(h.x(a7), 18u);
  EXPECT_EQ(h.x(s2), 0x1234u);
  EXPECT_EQ(h.x(s4), 3u);
}

TEST(IssCsr, FloatingPointCsrsShareBits) {
  Asm a;
  a.csrrwi(zero, 0x001, 0x1f);   // fflags
  a.csrrwi(zero, 0x002, 3);      // frm
  a.csrr(a0, 0x003);             // fcsr = frm << 5 | fflags
  a.li(t0, 0xfff);
  a.csrrw(a1, 0x003, t0);        // writes mask to 8 bits
  a.csrr(a2, 0x001);
  a.csrr(a3, 0x002);
  a.csrrci(zero, 0x001, 0x3);
  a.csrr(a4, 0x003);
  a.halt(zero);
  Harness h(a);
  h.run_ok();
  EXPECT_EQ(h.x(a0), (3u << 5) | 0x1f);
  EXPECT_EQ(h.x(a1), (3u << 5) | 0x1f);
  EXPECT_EQ(h.x(a2), 0x1fu);
  EXPECT_EQ(h.x(a3), 7u);
  EXPECT_EQ(h.x(a4), (7u << 5) | 0x1c);
}

// cycle = issue cycle of the reading instruction (6 per instruction), instret = retired
// before it; the high halves are zero this early.
TEST(IssCsr, CountersAreExact) {
  Asm a;
  a.addi(t0, zero, 1);        // 0
  a.addi(t0, zero, 2);        // 1
  a.csrr(a0, 0xc00);          // 2: cycle 12
  a.csrr(a1, 0xc02);          // 3: instret 3
  a.csrr(a2, 0xc01);          // 4: time = cycle = 24
  a.csrr(a3, 0xc80);
  a.csrr(a4, 0xc82);
  a.li(t1, 500);
  a.label("loop");
  a.addi(t1, t1, -1);
  a.bne(t1, zero, "loop");    // 1000 instructions, crossing quanta
  a.csrr(a5, 0xc02);          // 9 before the loop + 1000 = 1009
  a.csrr(a6, 0xc00);          // 1010 * 6
  a.halt(zero);
  for (uint32_t quantum : {1u, 7u, 1024u}) {
    Harness h(a, test_params(quantum));
    h.run_ok();
    EXPECT_EQ(h.x(a0), 12u);
    EXPECT_EQ(h.x(a1), 3u);
    EXPECT_EQ(h.x(a2), 24u);
    EXPECT_EQ(h.x(a3), 0u);
    EXPECT_EQ(h.x(a4), 0u);
    EXPECT_EQ(h.x(a5), 1009u);
    EXPECT_EQ(h.x(a6), 1010u * 6);
    EXPECT_EQ(h.core.instret(), 1012u);
    EXPECT_EQ(h.core.cycle(), 1012u * 6);
  }
}

struct IllegalCsr {
  void (*emit)(Asm&);
  const char* detail;
};

TEST(IssCsr, IllegalAccessesFault) {
  const IllegalCsr cases[] = {
      {[](Asm& a) { a.csrw(0xc00, t0); }, "write to read-only CSR cycle"},
      {[](Asm& a) { a.csrrsi(zero, 0xcc0, 1); }, "write to read-only CSR tile"},
      {[](Asm& a) { a.csrrw(a0, 0xcc8, zero); }, "write to read-only CSR superstep"},
      {[](Asm& a) { a.csrr(a0, 0x300); }, "unknown CSR 0x300"},
      {[](Asm& a) { a.csrr(a0, 0xb00); }, "unknown CSR 0xb00"},
  };
  for (const IllegalCsr& c : cases) {
    Asm a;
    a.addi(t0, zero, 1);
    c.emit(a);
    a.halt(zero);
    Harness h(a);
    h.run();
    ASSERT_EQ(h.stop.reason, StopReason::Fault) << c.detail;
    EXPECT_EQ(h.stop.fault->kind, "illegal instruction");
    EXPECT_EQ(h.stop.fault->detail, c.detail);
    EXPECT_EQ(h.stop.fault->pc, 0x40004u);
  }
}

// The ISA source (hw/isa/xipu.yaml, via the generated table) is the authority on access:
// the CSR unit accepts a write to exactly the CSRs it marks writable, and knows no CSR
// it does not list.
TEST(IssCsr, WritableCsrsAreTheSourcesRwOnes) {
  for (uint32_t num = 0; num < 0x1000; ++num) {
    Asm a;
    a.csrrw(zero, num, zero);
    a.halt(zero);
    Harness h(a);
    h.run();
    const isa::Csr* c = isa::find_csr(num);
    if (c && c->writable) {
      EXPECT_EQ(h.stop.reason, StopReason::Halted) << c->name << ": " << h.fault_message();
      continue;
    }
    ASSERT_EQ(h.stop.reason, StopReason::Fault) << fmt::format("CSR 0x{:03x}", num);
    EXPECT_EQ(h.stop.fault->kind, "illegal instruction");
    EXPECT_EQ(h.stop.fault->detail, c ? fmt::format("write to read-only CSR {}", c->name)
                                      : fmt::format("unknown CSR 0x{:03x}", num));
  }
}

}  // namespace
