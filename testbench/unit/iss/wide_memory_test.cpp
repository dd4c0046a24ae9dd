// The wide loads and stores (docs/xipu.md "Wide loads and stores"): the data each moves,
// the post-increments, every fault (and that a faulting instruction changes nothing), the
// load-before-store order of the pairs, the issue-slot costs under several memory path
// widths, the same results for every thread quantum, the trace record and the debug
// probe's access info, and a randomized run against a byte-array model of the SRAM.
#include <fmt/format.h>

#include <algorithm>
#include <random>

#include "iss_harness.h"

namespace {

using namespace isstest;
using namespace rvasm;

constexpr uint32_t kCycle = 0xc00;

// The Xipu encoders (ipu/xipu_isa.h) as Asm calls; f registers by number.
void ld64(Asm& a, uint32_t fd, Reg rs1) { a.word(ipu_encode_ld64(fd, rs1)); }
void ld128(Asm& a, uint32_t fd, Reg rs1) { a.word(ipu_encode_ld128(fd, rs1)); }
void ld64_pi(Asm& a, uint32_t fd, Reg rs1) { a.word(ipu_encode_ld64_pi(fd, rs1)); }
void ld128_pi(Asm& a, uint32_t fd, Reg rs1) { a.word(ipu_encode_ld128_pi(fd, rs1)); }
void st64(Asm& a, uint32_t fs, Reg rs1) { a.word(ipu_encode_st64(fs, rs1)); }
void st128(Asm& a, uint32_t fs, Reg rs1) { a.word(ipu_encode_st128(fs, rs1)); }
void st64_pi(Asm& a, uint32_t fs, Reg rs1) { a.word(ipu_encode_st64_pi(fs, rs1)); }
void st128_pi(Asm& a, uint32_t fs, Reg rs1) { a.word(ipu_encode_st128_pi(fs, rs1)); }
void ld128st64_pi(Asm& a, uint32_t fd, Reg rs1, Reg rs2, uint32_t fs) {
  a.word(ipu_encode_ld128st64_pi(fd, rs1, rs2, fs));
}
void ld64st64_pi(Asm& a, uint32_t fd, Reg rs1, Reg rs2, uint32_t fs) { a.word(ipu_encode_ld64st64_pi(fd, rs1, rs2, fs)); }

// The words 0x11110000 + i at kData + 4 * i, i = 0..15; f[i] = 0xf0000000 + i.
void fill(Asm& a) {
  a.li(s0, kData);
  for (uint32_t i = 0; i < 16; ++i) {
    a.li(t0, 0x11110000u + i);
    a.sw(t0, static_cast<int32_t>(4 * i), s0);
  }
  for (uint32_t i = 0; i < 32; ++i) {
    a.li(t0, 0xf0000000u + i);
    a.fmv_w_x(i, t0);
  }
}

TEST(IssWideMemory, LoadsMoveTheWordsInOrder) {
  Asm a;
  fill(a);
  a.li(a0, kData + 8);
  ld64(a, 2, a0);           // f2, f3 = words 2, 3
  a.li(a1, kData + 16);
  ld128(a, 8, a1);          // f8..f11 = words 4..7
  a.li(a2, kData + 32);
  ld64_pi(a, 12, a2);       // f12, f13 = words 8, 9; a2 += 8
  a.li(a3, kData + 48);
  ld128_pi(a, 16, a3);      // f16..f19 = words 12..15; a3 += 16
  a.halt(zero);
  Harness h(a);
  h.run_ok();
  EXPECT_EQ(h.f(2), 0x11110002u);
  EXPECT_EQ(h.f(3), 0x11110003u);
  EXPECT_EQ(h.f(4), 0xf0000004u);  // untouched neighbours
  for (uint32_t i = 0; i < 4; ++i) EXPECT_EQ(h.f(8 + i), 0x11110004u + i);
  EXPECT_EQ(h.f(12), 0x11110008u);
  EXPECT_EQ(h.f(13), 0x11110009u);
  EXPECT_EQ(h.f(14), 0xf000000eu);
  for (uint32_t i = 0; i < 4; ++i) EXPECT_EQ(h.f(16 + i), 0x1111000cu + i);
  EXPECT_EQ(h.x(a0), kData + 8);   // no increment without .pi
  EXPECT_EQ(h.x(a1), kData + 16);
  EXPECT_EQ(h.x(a2), kData + 40);
  EXPECT_EQ(h.x(a3), kData + 64);
}

TEST(IssWideMemory, StoresWriteTheRegistersInOrder) {
  Asm a;
  fill(a);
  a.li(a0, kData + 0x100);
  st64(a, 2, a0);        // f2, f3
  a.li(a1, kData + 0x110);
  st128(a, 8, a1);       // f8..f11
  a.li(a2, kData + 0x120);
  st64_pi(a, 12, a2);    // f12, f13; a2 += 8
  st64_pi(a, 14, a2);    // f14, f15; a2 += 8
  st128_pi(a, 16, a2);   // f16..f19 at 0x130; a2 += 16
  a.halt(zero);
  Harness h(a);
  h.run_ok();
  EXPECT_EQ(h.mem32(kData + 0x100), 0xf0000002u);
  EXPECT_EQ(h.mem32(kData + 0x104), 0xf0000003u);
  EXPECT_EQ(h.mem32(kData + 0x108), 0u);  // nothing past the access
  for (uint32_t i = 0; i < 4; ++i) EXPECT_EQ(h.mem32(kData + 0x110 + 4 * i), 0xf0000008u + i);
  for (uint32_t i = 0; i < 8; ++i) EXPECT_EQ(h.mem32(kData + 0x120 + 4 * i), 0xf000000cu + i);
  EXPECT_EQ(h.mem32(kData + 0x140), 0u);
  EXPECT_EQ(h.x(a0), kData + 0x100);
  EXPECT_EQ(h.x(a1), kData + 0x110);
  EXPECT_EQ(h.x(a2), kData + 0x140);
}

TEST(IssWideMemory, LoadAndStorePairsMoveBothAndIncrementBoth) {
  Asm a;
  fill(a);
  a.li(a0, kData);           // load from words 0..
  a.li(a1, kData + 0x200);   // store to 0x200..
  ld128st64_pi(a, 4, a0, a1, 20);   // f4..f7 = words 0..3; [0x200] = f20, f21
  ld64st64_pi(a, 8, a0, a1, 22);    // f8, f9 = words 4, 5; [0x208] = f22, f23
  a.halt(zero);
  Harness h(a);
  h.run_ok();
  for (uint32_t i = 0; i < 4; ++i) EXPECT_EQ(h.f(4 + i), 0x11110000u + i);
  EXPECT_EQ(h.f(8), 0x11110004u);
  EXPECT_EQ(h.f(9), 0x11110005u);
  EXPECT_EQ(h.f(10), 0xf000000au);
  EXPECT_EQ(h.mem32(kData + 0x200), 0xf0000014u);
  EXPECT_EQ(h.mem32(kData + 0x204), 0xf0000015u);
  EXPECT_EQ(h.mem32(kData + 0x208), 0xf0000016u);
  EXPECT_EQ(h.mem32(kData + 0x20c), 0xf0000017u);
  EXPECT_EQ(h.x(a0), kData + 24);
  EXPECT_EQ(h.x(a1), kData + 0x210);
}

// The load reads memory before the store writes it, and the store stores the registers
// as the instruction found them (fs may be among the registers the load writes).
TEST(IssWideMemory, PairsLoadBeforeTheyStore) {
  Asm a;
  fill(a);
  a.li(a0, kData);
  a.li(a1, kData + 8);              // the store lands inside the load's 16 bytes
  ld128st64_pi(a, 4, a0, a1, 6);    // fs = f6, f7: among the loaded f4..f7
  a.li(a2, kData + 0x40);
  a.li(a3, kData + 0x40);           // same address in two registers: allowed
  ld64st64_pi(a, 10, a2, a3, 10);   // loads the old words, stores the old f10, f11
  a.halt(zero);
  Harness h(a);
  h.run_ok();
  for (uint32_t i = 0; i < 4; ++i) EXPECT_EQ(h.f(4 + i), 0x11110000u + i) << i;  // memory before the store
  EXPECT_EQ(h.mem32(kData + 8), 0xf0000006u);   // f6, f7 before the load
  EXPECT_EQ(h.mem32(kData + 12), 0xf0000007u);
  EXPECT_EQ(h.f(10), 0u);  // kData + 0x40: past fill's words, still zero
  EXPECT_EQ(h.f(11), 0u);
  EXPECT_EQ(h.mem32(kData + 0x40), 0xf000000au);
  EXPECT_EQ(h.mem32(kData + 0x44), 0xf000000bu);
}

// Code placed high in SRAM: wide stores below it take the complete path and succeed, as sw's.
TEST(IssWideMemory, StoresBelowCodeAreAllowed) {
  Asm a(0x48000);
  for (uint32_t i = 0; i < 8; ++i) {
    a.li(t0, 0xa0000000u + i);
    a.fmv_w_x(i, t0);
  }
  a.li(s0, 0x40100);
  st128_pi(a, 0, s0);
  st64(a, 4, s0);
  a.li(s1, 0x40200);
  a.li(s2, 0x40300);
  ld128st64_pi(a, 8, s1, s2, 6);
  a.halt(zero);
  testelf::Image img;
  img.entry = 0x48000;
  Harness h(a, test_params(), img);
  h.run_ok();
  for (uint32_t i = 0; i < 6; ++i) EXPECT_EQ(h.mem32(0x40100 + 4 * i), 0xa0000000u + i);
  EXPECT_EQ(h.mem32(0x40300), 0xa0000006u);
  EXPECT_EQ(h.mem32(0x40304), 0xa0000007u);
  EXPECT_EQ(h.x(s0), 0x40110u);
  EXPECT_EQ(h.x(s1), 0x40210u);
  EXPECT_EQ(h.x(s2), 0x40308u);
}

// The store range starts at the end of code, only 4-aligned: alignment is still that of
// the address (here the code ends at 0x40014, 4 past a 16-byte boundary).
TEST(IssWideMemory, StoreAlignmentIsAbsoluteWhereverTheCodeEnds) {
  for (const bool wide16 : {false, true}) {
    SCOPED_TRACE(wide16 ? "st128" : "st64");
    Asm a;
    a.la(a0, "end");                    // two words
    a.addi(zero, zero, 0);
    a.label("bad");
    if (wide16) st128(a, 0, a0); else st64(a, 0, a0);
    a.halt(zero);
    a.label("end");
    ASSERT_EQ(a.addr("end"), 0x40014u);  // the 5 instructions above
    Harness h(a);
    h.run();
    ASSERT_EQ(h.stop.reason, StopReason::Fault);
    EXPECT_EQ(h.stop.fault->kind, "misaligned access");
    EXPECT_EQ(h.stop.fault->detail, wide16 ? "store of 16 bytes at 0x00040014" : "store of 8 bytes at 0x00040014");
    EXPECT_EQ(h.stop.fault->pc, a.addr("bad"));
  }
  // The first aligned address above the code takes the fast path and stores.
  Asm a;
  for (uint32_t i = 0; i < 4; ++i) {
    a.li(t0, 0xc0000000u + i);
    a.fmv_w_x(i, t0);
  }
  a.la(a0, "end");
  a.addi(a0, a0, 12);
  st128(a, 0, a0);
  a.halt(zero);
  a.label("end");
  ASSERT_EQ(a.addr("end") % 16, 4u);
  Harness h(a);
  h.run_ok();
  for (uint32_t i = 0; i < 4; ++i) EXPECT_EQ(h.mem32(a.addr("end") + 12 + 4 * i), 0xc0000000u + i);
}

struct WideFault {
  const char* name;
  void (*emit)(Asm&);  // the faulting instruction is labelled "bad"; a0, a1 hold its addresses
  const char* kind;
  const char* detail;  // the start of the fault's detail
  uint32_t a0 = 0, a1 = 0;  // as the case set them (0: not set): a faulting .pi leaves them
};

const WideFault kFaults[] = {
    {"misaligned ld64", [](Asm& a) { a.li(a0, kData + 4); a.label("bad"); ld64(a, 2, a0); }, "misaligned access",
     "load of 8 bytes at 0x00050004", kData + 4},
    {"misaligned ld128", [](Asm& a) { a.li(a0, kData + 8); a.label("bad"); ld128_pi(a, 4, a0); }, "misaligned access",
     "load of 16 bytes at 0x00050008", kData + 8},
    {"ld64 from x0", [](Asm& a) { a.label("bad"); ld64_pi(a, 2, zero); }, "access fault",
     "load of 8 bytes at 0x00000000 outside SRAM [0x00040000, 0x00080000)"},
    {"ld128 below SRAM", [](Asm& a) { a.li(a0, 0x3fff0); a.label("bad"); ld128(a, 4, a0); }, "access fault",
     "load of 16 bytes at 0x0003fff0 outside SRAM", 0x3fff0},
    {"ld128 past SRAM", [](Asm& a) { a.li(a0, 0x80000); a.label("bad"); ld128_pi(a, 4, a0); }, "access fault",
     "load of 16 bytes at 0x00080000 outside SRAM", 0x80000},
    {"misaligned st64", [](Asm& a) { a.li(a0, kData + 12); a.label("bad"); st64_pi(a, 2, a0); }, "misaligned access",
     "store of 8 bytes at 0x0005000c", kData + 12},
    {"misaligned st128", [](Asm& a) { a.li(a0, kData + 24); a.label("bad"); st128(a, 4, a0); }, "misaligned access",
     "store of 16 bytes at 0x00050018", kData + 24},
    {"st128 past SRAM", [](Asm& a) { a.li(a0, 0x80000); a.label("bad"); st128_pi(a, 4, a0); }, "access fault",
     "store of 16 bytes at 0x00080000 outside SRAM", 0x80000},
    {"st64 to x0", [](Asm& a) { a.label("bad"); st64(a, 2, zero); }, "access fault",
     "store of 8 bytes at 0x00000000 outside SRAM"},
    {"st128 into code", [](Asm& a) { a.li(a0, 0x40000); a.label("bad"); st128_pi(a, 4, a0); }, "access fault",
     "store of 16 bytes at 0x00040000 into code [0x00040000, 0x", 0x40000},
    {"pair: bad load", [](Asm& a) { a.li(a0, kData + 8); a.li(a1, kData + 0x100); a.label("bad"); ld128st64_pi(a, 4, a0, a1, 8); },
     "misaligned access", "load of 16 bytes at 0x00050008", kData + 8, kData + 0x100},
    {"pair: store into code", [](Asm& a) { a.li(a0, kData); a.li(a1, 0x40008); a.label("bad"); ld128st64_pi(a, 4, a0, a1, 8); },
     "access fault", "store of 8 bytes at 0x00040008 into code", kData, 0x40008},
    {"pair: misaligned store", [](Asm& a) { a.li(a0, kData); a.li(a1, kData + 0x104); a.label("bad"); ld64st64_pi(a, 4, a0, a1, 8); },
     "misaligned access", "store of 8 bytes at 0x00050104", kData, kData + 0x104},
    {"pair: load from x0", [](Asm& a) { a.li(a1, kData + 0x100); a.label("bad"); ld64st64_pi(a, 4, zero, a1, 8); },
     "access fault", "load of 8 bytes at 0x00000000 outside SRAM", 0, kData + 0x100},
    {"pair: same address register", [](Asm& a) { a.li(a0, kData); a.label("bad"); ld128st64_pi(a, 4, a0, a0, 8); },
     "illegal instruction", "ld128st64.pi with a0 as both the load and the store address", kData},
    {"pair: same register x0", [](Asm& a) { a.label("bad"); ld64st64_pi(a, 4, zero, zero, 8); },
     "illegal instruction", "ld64st64.pi with zero as both the load and the store address"},
};

// Every fault names the access, and the faulting instruction changed nothing: no f
// register, no address register, no memory.
TEST(IssWideMemory, EveryFaultIsReportedAndChangesNothing) {
  for (const WideFault& c : kFaults) {
    SCOPED_TRACE(c.name);
    Asm a;
    fill(a);
    c.emit(a);
    a.halt(zero);
    Harness h(a);
    h.run();
    ASSERT_EQ(h.stop.reason, StopReason::Fault);
    const Fault& f = *h.stop.fault;
    EXPECT_EQ(f.kind, c.kind);
    EXPECT_EQ(f.detail.substr(0, std::strlen(c.detail)), c.detail) << f.detail;
    EXPECT_EQ(f.pc, a.addr("bad"));
    EXPECT_EQ(f.thread, 0u);
    for (uint32_t i = 0; i < 32; ++i) EXPECT_EQ(h.f(i), 0xf0000000u + i) << "f" << i;
    EXPECT_EQ(h.x(a0), c.a0);
    EXPECT_EQ(h.x(a1), c.a1);
    for (uint32_t i = 0; i < 16; ++i) EXPECT_EQ(h.mem32(kData + 4 * i), 0x11110000u + i) << i;
    for (uint32_t off = 0x100; off < 0x110; off += 4) EXPECT_EQ(h.mem32(kData + off), 0u);
    EXPECT_EQ(h.mem32(0x40000), a.finish()[0]);
    EXPECT_EQ(h.mem32(0x40008), a.finish()[2]);
    // The fault's address is the access's, and the disassembly names the instruction.
    if (f.address) {
      EXPECT_NE(f.detail.find(fmt::format("0x{:08x}", *f.address)), std::string::npos);
    }
    EXPECT_EQ(f.disasm.find(".word"), std::string::npos) << f.disasm;
    EXPECT_TRUE(f.disasm.starts_with("ld") || f.disasm.starts_with("st")) << f.disasm;
  }
}

// The address register is not incremented by a faulting .pi: check the value itself.
TEST(IssWideMemory, FaultingPostIncrementLeavesTheAddress) {
  Asm a;
  a.li(a0, kData + 4);
  a.li(a1, kData + 0x100);
  a.label("bad");
  ld128st64_pi(a, 4, a1, a0, 8);  // the store is misaligned
  a.halt(zero);
  Harness h(a);
  h.run();
  ASSERT_EQ(h.stop.reason, StopReason::Fault);
  EXPECT_EQ(h.x(a0), kData + 4);
  EXPECT_EQ(h.x(a1), kData + 0x100);
  EXPECT_EQ(h.stop.fault->detail, "store of 8 bytes at 0x00050004");
  EXPECT_EQ(h.stop.fault->address, std::optional<uint64_t>(kData + 4));
}

// ---- Timing ----

struct Widths {
  uint32_t load, store;
};

uint32_t ceil_div(uint32_t a, uint32_t b) { return (a + b - 1) / b; }
uint32_t slots(uint32_t l, uint32_t s, Widths w) {
  return std::max({1u, ceil_div(l, w.load), ceil_div(s, w.store)});
}

// One of each wide op, then a cycle read: the slot count follows
// max(1, ceil(L / load B/cycle), ceil(S / store B/cycle)) for each.
TEST(IssWideMemory, SlotCostsFollowTheMemoryPathWidths) {
  Asm a;
  a.li(a0, kData);
  a.li(a1, kData + 0x100);
  a.csrr(s0, kCycle);
  ld64(a, 0, a0);
  ld128(a, 4, a0);
  ld128_pi(a, 4, a0);              // a0 = kData + 16
  ld64_pi(a, 0, a0);               // a0 = kData + 24
  st64(a, 0, a1);
  st128(a, 4, a1);
  st128_pi(a, 4, a1);              // a1 = kData + 0x110
  st64_pi(a, 0, a1);               // a1 = kData + 0x118
  ld64st64_pi(a, 8, a0, a1, 0);    // a0 = kData + 32, a1 = kData + 0x120
  ld128st64_pi(a, 8, a0, a1, 0);
  a.csrr(s1, kCycle);
  a.halt(zero);
  // Load and store bytes of each, in program order.
  const uint32_t kL[] = {8, 16, 16, 8, 0, 0, 0, 0, 8, 16};
  const uint32_t kS[] = {0, 0, 0, 0, 8, 16, 16, 8, 8, 8};
  for (const Widths w : {Widths{16, 8}, Widths{16, 16}, Widths{8, 8}, Widths{4, 4}, Widths{4, 64}, Widths{64, 32}}) {
    uint32_t total = 0;
    for (unsigned i = 0; i < 10; ++i) total += slots(kL[i], kS[i], w);
    for (uint32_t quantum : {1u, 1024u}) {
      SCOPED_TRACE(fmt::format("load {} B/cycle, store {} B/cycle, quantum {}", w.load, w.store, quantum));
      TileParams p = test_params(quantum);
      p.load_bytes_per_cycle = w.load;
      p.store_bytes_per_cycle = w.store;
      Harness h(a, p);
      h.run_ok();
      // The csrr takes one slot itself.
      EXPECT_EQ(h.x(s1) - h.x(s0), 6u * (1 + total));
      EXPECT_EQ(h.core.instret(), 2u * 2 + 1 + 10 + 1 + 1);  // two li of two words each
    }
  }
  // The defaults: 16 B/cycle loads, 8 B/cycle stores: st128 / st128.pi take 2 slots.
  Harness h(a);
  h.run_ok();
  EXPECT_EQ(h.x(s1) - h.x(s0), 6u * (1 + 10 + 2));
}

TEST(IssWideMemory, ZeroPathWidthIsRejected) {
  Asm a;
  a.halt(zero);
  TileParams p = test_params();
  p.store_bytes_per_cycle = 0;
  EXPECT_THROW(Harness(a, p), std::invalid_argument);
}

// Worker threads sharing the tile: every thread's wide ops cost their slots, and the
// results (registers, memory, cycles) are the same for thread quantum 1 and the default.
TEST(IssWideMemory, WorkersGiveTheSameResultsForEveryQuantum) {
  Asm a;
  // 512 words of a pattern at kData for the workers to move around.
  a.li(s0, kData);
  a.li(s1, 512);
  a.li(s2, 0x9e3779b9u);
  a.li(s3, 0);
  a.label("fill");
  a.add(s3, s3, s2);
  a.sw(s3, 0, s0);
  a.addi(s0, s0, 4);
  a.addi(s1, s1, -1);
  a.bne(s1, zero, "fill");
  a.la(t0, "worker");
  for (int i = 0; i < 3; ++i) a.run(zero, t0, zero);
  a.join();
  a.csrr(s0, kCycle);
  a.halt(zero);
  a.label("worker");
  a.csrr(t1, 0xcc2);  // thread: 1..
  for (int k = 0; k < 20; ++k) {
    // Each worker copies 16 bytes a step within its own 0x100-byte area.
    a.slli(t2, t1, 8);
    a.li(t3, kData);
    a.add(t3, t3, t2);
    a.addi(t4, t3, 0x80);
    ld128_pi(a, 0, t3);
    st128_pi(a, 0, t4);
    a.addi(t3, t3, -16);
    ld128st64_pi(a, 4, t3, t4, 0);
  }
  a.wexit(zero);
  std::vector<uint64_t> cycles;
  std::vector<uint32_t> words;
  for (uint32_t quantum : {1u, 3u, 1024u}) {
    Harness h(a, test_params(quantum));
    h.run_ok();
    cycles.push_back(h.core.cycle());
    for (uint32_t off = 0; off < 0x400; off += 4) words.push_back(h.mem32(kData + off));
  }
  EXPECT_EQ(cycles[0], cycles[1]);
  EXPECT_EQ(cycles[0], cycles[2]);
  // Worker w's area at kData + 256 w: its first 16 bytes copied to +0x80 by st128.pi, and
  // the same 8 again after them by ld128st64.pi (whose load reads the same 16 bytes).
  for (uint32_t w = 1; w <= 3; ++w) {
    const uint32_t area = 64 * w;  // in words
    for (uint32_t i = 0; i < 4; ++i) EXPECT_EQ(words[area + 32 + i], words[area + i]) << w << " " << i;
    EXPECT_EQ(words[area + 36], words[area]);
    EXPECT_EQ(words[area + 37], words[area + 1]);
    EXPECT_NE(words[area], 0u);
  }
  EXPECT_TRUE(std::equal(words.begin(), words.begin() + 256, words.begin() + 256));
  EXPECT_TRUE(std::equal(words.begin(), words.begin() + 256, words.begin() + 512));
}

// A cycle limit holds with wide ops taking two slots: no instruction issues at or past it.
TEST(IssWideMemory, CycleLimitCountsTheExtraSlots) {
  Asm a;
  a.li(a0, kData);         // cycles 0, 6
  st128(a, 0, a0);         // 12 (two slots at 8 B/cycle)
  st128(a, 0, a0);         // 24
  a.label("third");
  st128(a, 0, a0);         // 36
  a.halt(zero);
  for (uint32_t quantum : {1u, 1024u}) {
    SCOPED_TRACE(fmt::format("quantum {}", quantum));
    Harness h(a, test_params(quantum));
    RunBounds b;
    b.cycle_limit = 30;
    h.core.set_bounds(&b);
    const StopInfo s = h.run();
    ASSERT_EQ(s.reason, StopReason::Paused);
    EXPECT_EQ(s.pause, PauseReason::CycleLimit);
    EXPECT_EQ(s.pause_pc, a.addr("third"));
    EXPECT_EQ(s.pause_cycle, 36u);
    EXPECT_EQ(h.core.instret(), 4u);
    b.cycle_limit = RunBounds::kNone;
    h.run_ok();
    EXPECT_EQ(h.core.cycle(), 54u);  // halt issues at 48
  }
}

// ---- Trace and probe ----

TEST(IssWideMemory, TraceRecordsEveryRegisterAndByte) {
  Asm a;
  fill(a);
  a.li(a0, kData);
  a.li(a1, kData + 0x100);
  a.label("ld");
  ld128_pi(a, 4, a0);
  a.label("st");
  st128(a, 8, a1);
  a.label("after");
  a.addi(zero, zero, 0);
  a.label("pair");
  ld128st64_pi(a, 12, a0, a1, 14);  // fs among fd's: the old f14, f15 are stored
  a.label("spi");
  st64_pi(a, 2, a1);
  a.halt(zero);
  Harness h(a);
  RecordingTrace trace;
  h.core.set_trace(&trace);
  h.run_ok();
  auto at = [&](const char* label) -> const RetiredInsn& {
    for (const RetiredInsn& r : trace.log)
      if (r.pc == a.addr(label)) return r;
    ADD_FAILURE() << "no record of " << label;
    return trace.log.front();
  };
  const RetiredInsn& ld = at("ld");
  EXPECT_EQ(ld.dest, RetiredInsn::Dest::F);
  EXPECT_EQ(ld.dest_reg, 4u);
  EXPECT_EQ(ld.dest_value, 0x11110000u);
  ASSERT_EQ(ld.more_count, 4u);
  for (unsigned i = 0; i < 3; ++i) {
    EXPECT_EQ(ld.more[i].kind, RetiredInsn::Dest::F);
    EXPECT_EQ(ld.more[i].reg, 5u + i);
    EXPECT_EQ(ld.more[i].value, 0x11110001u + i);
  }
  EXPECT_EQ(ld.more[3].kind, RetiredInsn::Dest::X);
  EXPECT_EQ(ld.more[3].reg, uint8_t{a0});
  EXPECT_EQ(ld.more[3].value, kData + 16);
  EXPECT_EQ(ld.mem_size, 16u);
  EXPECT_FALSE(ld.mem_store);
  EXPECT_EQ(ld.mem_addr, kData);

  const RetiredInsn& st = at("st");
  EXPECT_EQ(st.dest, RetiredInsn::Dest::None);
  EXPECT_EQ(st.mem_size, 16u);
  EXPECT_TRUE(st.mem_store);
  EXPECT_EQ(st.mem_addr, kData + 0x100);
  EXPECT_EQ(st.mem_value, 0xf0000008u);
  for (unsigned i = 0; i < 4; ++i) {
    uint32_t v;
    std::memcpy(&v, st.mem_data + 4 * i, 4);
    EXPECT_EQ(v, 0xf0000008u + i);
  }
  // st128 takes two slots at the default 8 B/cycle: the next instruction issues 12 later.
  EXPECT_EQ(at("after").cycle - st.cycle, 12u);
  EXPECT_EQ(st.cycle - ld.cycle, 6u);

  const RetiredInsn& pair = at("pair");
  EXPECT_EQ(pair.dest_reg, 12u);
  ASSERT_EQ(pair.more_count, 5u);
  EXPECT_EQ(pair.more[3].reg, uint8_t{a0});
  EXPECT_EQ(pair.more[3].value, kData + 32);
  EXPECT_EQ(pair.more[4].reg, uint8_t{a1});
  EXPECT_EQ(pair.more[4].value, kData + 0x108);
  EXPECT_EQ(pair.mem_addr, kData + 16);
  EXPECT_EQ(pair.mem_size, 16u);
  EXPECT_FALSE(pair.mem_store);
  EXPECT_EQ(pair.store2_size, 8u);
  EXPECT_EQ(pair.store2_addr, kData + 0x100);
  uint32_t stored[2];
  std::memcpy(stored, pair.store2_data, 8);
  EXPECT_EQ(stored[0], 0xf000000eu);
  EXPECT_EQ(stored[1], 0xf000000fu);

  const RetiredInsn& spi = at("spi");
  EXPECT_EQ(spi.dest, RetiredInsn::Dest::X);
  EXPECT_EQ(spi.dest_reg, uint8_t{a1});
  EXPECT_EQ(spi.dest_value, kData + 0x110);
  EXPECT_EQ(spi.more_count, 0u);
  EXPECT_EQ(spi.mem_addr, kData + 0x108);
  EXPECT_EQ(spi.mem_size, 8u);
}

class RecordingProbe : public DebugProbe {
 public:
  bool stop_before(const TileIdentity&, const Insn& insn) override {
    seen.push_back(insn);
    return false;
  }
  std::vector<Insn> seen;
};

// What a debugger's watchpoints see: a wide access's address and size, and both accesses
// of a load-and-store.
TEST(IssWideMemory, ProbeSeesWideAccesses) {
  Asm a;
  a.li(a0, kData + 0x20);
  a.li(a1, kData + 0x108);
  a.label("ld");
  ld128(a, 4, a0);
  a.label("st");
  st64_pi(a, 4, a1);
  a.label("pair");
  ld128st64_pi(a, 8, a0, a1, 4);
  a.halt(zero);
  Harness h(a);
  RecordingProbe probe;
  RunBounds b;
  b.probe = &probe;
  h.core.set_bounds(&b);
  h.run_ok();
  auto at = [&](const char* label) -> const DebugProbe::Insn& {
    for (const DebugProbe::Insn& i : probe.seen)
      if (i.pc == a.addr(label)) return i;
    ADD_FAILURE() << "not seen: " << label;
    return probe.seen.front();
  };
  EXPECT_TRUE(at("ld").load);
  EXPECT_FALSE(at("ld").store);
  EXPECT_EQ(at("ld").address, kData + 0x20);
  EXPECT_EQ(at("ld").size, 16u);
  EXPECT_TRUE(at("st").store);
  EXPECT_FALSE(at("st").load);
  EXPECT_EQ(at("st").address, kData + 0x108);
  EXPECT_EQ(at("st").size, 8u);
  EXPECT_EQ(at("st").store_address, kData + 0x108);
  EXPECT_EQ(at("st").store_size, 8u);
  const DebugProbe::Insn& pair = at("pair");
  EXPECT_TRUE(pair.load);
  EXPECT_TRUE(pair.store);
  EXPECT_EQ(pair.address, kData + 0x20);
  EXPECT_EQ(pair.size, 16u);
  EXPECT_EQ(pair.store_address, kData + 0x110);  // after st64.pi's increment
  EXPECT_EQ(pair.store_size, 8u);
}

// ---- Randomized: wide loads and stores against a byte-array model ----

// Random wide ops over a 4 KiB data area of random bytes, address registers a0 (loads)
// and a1 (stores) sometimes set afresh, else going on from their post-increments; the
// model moves the same bytes. Registers and memory must match for quantum 1 (the
// stepping loop) and the default (the fast loop).
TEST(IssWideMemory, RandomAccessesMatchAByteModel) {
  constexpr uint32_t kBytes = 4096;
  constexpr uint32_t kLoad[10] = {8, 16, 8, 16, 0, 0, 0, 0, 16, 8};  // per kind below
  constexpr uint32_t kStore[10] = {0, 0, 0, 0, 8, 16, 8, 16, 8, 8};
  std::mt19937 rng(15);
  for (int round = 0; round < 6; ++round) {
    SCOPED_TRACE(fmt::format("round {}", round));
    std::vector<uint8_t> mem(kBytes);  // kData .. kData + kBytes
    for (uint8_t& b : mem) b = static_cast<uint8_t>(rng());
    uint32_t f[32] = {};
    testelf::Image img;
    img.data = mem;
    img.data_addr = kData;
    Asm a;
    uint32_t ra0 = 0, ra1 = 0;
    // A fresh address register when asked, or when the old value cannot serve `size` bytes.
    auto ensure = [&](Reg r, uint32_t& value, uint32_t size) {
      if (size == 0) return;
      if (value == 0 || value % size != 0 || value + size > kData + kBytes || rng() % 4 == 0) {
        value = kData + (rng() % (kBytes / size)) * size;
        a.li(r, value);
      }
    };
    for (int k = 0; k < 400; ++k) {
      const unsigned kind = rng() % 10;
      const uint32_t l = kLoad[kind], s = kStore[kind];
      ensure(a0, ra0, l);
      ensure(a1, ra1, s);
      const uint32_t fd = l == 16 ? (rng() % 8) * 4 : (rng() % 16) * 2;
      const uint32_t fs = s == 16 ? (rng() % 8) * 4 : (rng() % 16) * 2;
      switch (kind) {
        case 0: ld64(a, fd, a0); break;
        case 1: ld128(a, fd, a0); break;
        case 2: ld64_pi(a, fd, a0); break;
        case 3: ld128_pi(a, fd, a0); break;
        case 4: st64(a, fs, a1); break;
        case 5: st128(a, fs, a1); break;
        case 6: st64_pi(a, fs, a1); break;
        case 7: st128_pi(a, fs, a1); break;
        case 8: ld128st64_pi(a, fd, a0, a1, fs); break;
        case 9: ld64st64_pi(a, fd, a0, a1, fs); break;
      }
      // The model: registers to store read first, then the load, then the store.
      uint8_t stored[16];
      if (s) std::memcpy(stored, &f[fs], s);
      if (l) std::memcpy(&f[fd], &mem[ra0 - kData], l);
      if (s) std::memcpy(&mem[ra1 - kData], stored, s);
      if (kind == 2 || kind == 3 || kind >= 8) ra0 += l;
      if (kind == 6 || kind == 7 || kind >= 8) ra1 += s;
    }
    a.halt(zero);
    for (uint32_t quantum : {1u, 1024u}) {
      SCOPED_TRACE(fmt::format("quantum {}", quantum));
      Harness h(a, test_params(quantum), img);
      h.run_ok();
      for (uint32_t i = 0; i < 32; ++i) ASSERT_EQ(h.f(i), f[i]) << "f" << i;
      EXPECT_EQ(h.x(a0), ra0);
      EXPECT_EQ(h.x(a1), ra1);
      for (uint32_t off = 0; off < kBytes; off += 4) {
        uint32_t want;
        std::memcpy(&want, &mem[off], 4);
        ASSERT_EQ(h.mem32(kData + off), want) << "at kData + " << off;
      }
    }
  }
}

}  // namespace
