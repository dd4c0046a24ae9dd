// Streaming-memory and host-stream posting in the ISS (docs/xipu.md, custom-0 funct3 = 3
// and 4): encodings and disassembly, the postings' content in order next to messages,
// the state smaddr / hsid keep, and every posting fault. The harness tile is tile 3 of
// IPU 1 (global 19) with 256 KiB SRAM.
#include <gtest/gtest.h>

#include <cstring>

#include <ipu/hostif_regs.h>

#include "iss/decode.h"
#include "iss/disasm.h"
#include "iss_harness.h"

namespace {

using namespace isstest;
using namespace rvasm;
using Kind = ExchangePost::Kind;

uint32_t one(void (*emit)(Asm&)) {
  Asm a;
  emit(a);
  return a.finish()[0];
}

void open_phase(Harness& h) {
  ASSERT_EQ(h.run().reason, StopReason::Sync) << h.fault_message();
  h.core.release_sync(h.core.cycle());
}

TEST(IssCopyPost, Disassembly) {
  EXPECT_EQ(disassemble(one([](Asm& a) { a.smaddr(a0, a1); }), 0), "smaddr a0, a1");
  EXPECT_EQ(disassemble(one([](Asm& a) { a.smread(a2, a3); }), 0), "smread a2, a3");
  EXPECT_EQ(disassemble(one([](Asm& a) { a.smwrite(s0, s1); }), 0), "smwrite s0, s1");
  EXPECT_EQ(disassemble(one([](Asm& a) { a.hsid(t0); }), 0), "hsid t0");
  EXPECT_EQ(disassemble(one([](Asm& a) { a.hsread(a2, a3); }), 0), "hsread a2, a3");
  EXPECT_EQ(disassemble(one([](Asm& a) { a.hswrite(a2, a3); }), 0), "hswrite a2, a3");
  // Unused fields must be zero; undefined funct7 are no instructions.
  EXPECT_EQ(disassemble(xipu(3, 1, 5, 1, 2), 0), ".word 0x0220b28b");  // smread with rd
  EXPECT_EQ(disassemble(xipu(3, 3, 0, 1, 2), 0), ".word 0x0620b00b");  // funct7 3
  EXPECT_EQ(disassemble(xipu(4, 0, 0, 1, 2), 0), ".word 0x0020c00b");  // hsid with rs2
  EXPECT_EQ(disassemble(xipu(4, 3, 0, 1, 2), 0), ".word 0x0620c00b");  // funct7 3
  const DecodeLayout l{0x40000, 0x100, 0x40400};
  EXPECT_EQ(decode(one([](Asm& a) { a.smread(a2, a3); }), 0x40000, l).op, Op::smread);
  EXPECT_EQ(decode(one([](Asm& a) { a.hswrite(a2, a3); }), 0x40000, l).op, Op::hswrite);
  EXPECT_EQ(decode(xipu(3, 3, 0, 1, 2), 0x40000, l).op, Op::illegal);
  EXPECT_EQ(decode(xipu(4, 0, 0, 1, 2), 0x40000, l).op, Op::illegal);
  EXPECT_EQ(decode(xipu(6, 0, 0, 0, 0), 0x40000, l).op, Op::illegal);  // funct3 6: none
}

TEST(IssCopyPost, PostsInOrderWithMessages) {
  Asm a;
  a.li(a0, 0x1000);
  a.addi(a1, zero, 3);
  a.smaddr(a0, a1);        // 0x3_0000_1000, set in compute: allowed
  a.addi(t0, zero, 1);
  a.sync(t0);
  a.lui(s0, 0x50);
  a.li(a2, 4096);
  a.label("r");
  a.smread(s0, a2);        // 0x3_0000_1000 -> 0x50000
  a.addi(a0, zero, 4);
  a.addi(a1, zero, 1);
  a.xdst(a0, a1);
  a.send(s0, a2);          // a message in between
  a.li(a0, 0x2000);
  a.smaddr(a0, zero);
  a.label("w");
  a.smwrite(s0, a2);       // 0x50000 -> 0x2000
  a.addi(t1, zero, 63);
  a.hsid(t1);
  a.label("hr");
  a.hsread(s0, zero);      // zero length allowed
  a.label("hw");
  a.hswrite(s0, a2);
  a.xwait();
  a.halt(zero);
  Harness h(a);
  open_phase(h);
  ASSERT_EQ(h.run().reason, StopReason::Exchange) << h.fault_message();
  const std::vector<ExchangePost>& p = h.core.exchange_posts();
  ASSERT_EQ(p.size(), 5u);
  EXPECT_EQ(p[0].kind, Kind::SmemRead);
  EXPECT_EQ(p[0].addr, 0x50000u);
  EXPECT_EQ(p[0].len, 4096u);
  EXPECT_EQ(p[0].smem_addr, 0x300001000ull);
  EXPECT_EQ(p[0].pc, a.addr("r"));
  EXPECT_TRUE(p[0].peers.empty());
  EXPECT_FALSE(p[0].is_message());
  EXPECT_EQ(p[1].kind, Kind::Send);
  EXPECT_TRUE(p[1].is_message());
  EXPECT_EQ(p[2].kind, Kind::SmemWrite);
  EXPECT_EQ(p[2].smem_addr, 0x2000u);
  EXPECT_EQ(p[2].pc, a.addr("w"));
  EXPECT_EQ(p[3].kind, Kind::StreamRead);
  EXPECT_EQ(p[3].stream, 63u);
  EXPECT_EQ(p[3].len, 0u);
  EXPECT_EQ(p[3].pc, a.addr("hr"));
  EXPECT_EQ(p[4].kind, Kind::StreamWrite);
  EXPECT_EQ(p[4].stream, 63u);
  EXPECT_EQ(p[4].len, 4096u);
  EXPECT_GT(p[4].cycle, p[3].cycle);
  h.core.release_exchange(h.core.cycle() + 10);
  h.run_ok();
}

struct CopyFault {
  const char* name;
  bool in_phase;
  void (*emit)(Asm&);  // s0 = 0x50000, a2 = 8, smaddr = 0x40 (in phase), hsid 2 set before
  const char* kind;
  const char* detail;
  const char* disasm;
  uint32_t thread = 0;  // the faulting thread: the supervisor posts, a worker may not
};

const CopyFault kCopyFaults[] = {
    {"smread in compute", false, [](Asm& a) { a.label("bad"); a.smread(s0, a2); }, "send during compute",
     "smread of 8 bytes into 0x00050000 from streaming memory 0x0000000000000040 outside an exchange phase (this "
     "is tile 19",
     "smread s0, a2"},
    {"hswrite in compute", false, [](Asm& a) { a.label("bad"); a.hswrite(s0, a2); }, "send during compute",
     "hswrite of 8 bytes at 0x00050000 to host stream 2 outside an exchange phase", "hswrite s0, a2"},
    {"misaligned buffer", true, [](Asm& a) { a.addi(s0, s0, 2); a.label("bad"); a.smwrite(s0, a2); },
     "misaligned access",
     "smwrite of 8 bytes at 0x00050002 to streaming memory 0x0000000000000040: the buffer is not 4-byte aligned",
     "smwrite s0, a2"},
    {"misaligned streaming address", true,
     [](Asm& a) { a.addi(a0, zero, 0x42); a.smaddr(a0, zero); a.label("bad"); a.smread(s0, a2); },
     "misaligned access",
     "smread of 8 bytes into 0x00050000 from streaming memory 0x0000000000000042: the streaming-memory address is "
     "not 4-byte aligned",
     "smread s0, a2"},
    {"length not a multiple of 4", true, [](Asm& a) { a.addi(a2, zero, 6); a.label("bad"); a.hsread(s0, a2); },
     "exchange misuse", "hsread of 6 bytes into 0x00050000 from host stream 2: the length is not a multiple of 4",
     "hsread s0, a2"},
    {"length above XFER_MAX", true, [](Asm& a) { a.li(a2, 0x100004); a.label("bad"); a.smwrite(s0, a2); },
     "exchange misuse",
     "smwrite of 1048580 bytes at 0x00050000 to streaming memory 0x0000000000000040: the length exceeds "
     "IPU_XFER_MAX (1048576 bytes)",
     "smwrite s0, a2"},
    {"buffer past SRAM", true,
     [](Asm& a) { a.li(s0, 0x7fff0); a.addi(a2, zero, 32); a.label("bad"); a.hswrite(s0, a2); }, "access fault",
     "hswrite of 32 bytes at 0x0007fff0 to host stream 2: the buffer lies outside SRAM [0x00040000, 0x00080000)",
     "hswrite s0, a2"},
    {"read into code", true, [](Asm& a) { a.lui(s0, 0x40); a.label("bad"); a.smread(s0, a2); }, "access fault",
     "smread of 8 bytes into 0x00040000 from streaming memory 0x0000000000000040: the buffer overlaps code",
     "smread s0, a2"},
    {"bad stream id", true, [](Asm& a) { a.addi(t1, zero, 64); a.label("bad"); a.hsid(t1); }, "exchange misuse",
     "hsid 64: host stream ids are 0..63", "hsid t1"},
    {"worker smread", true,
     [](Asm& a) {
       a.la(t0, "worker"); a.run(zero, t0, zero); a.join(); a.halt(zero);
       a.label("worker"); a.label("bad"); a.smread(s0, a2);
     },
     "illegal instruction", "smread is supervisor-only (the supervisor drives the exchange)", "smread s0, a2", 1},
};

TEST(IssCopyPost, PostingFaults) {
  for (const CopyFault& c : kCopyFaults) {
    SCOPED_TRACE(c.name);
    Asm a;
    a.addi(a0, zero, 0x40);
    a.smaddr(a0, zero);
    a.addi(t1, zero, 2);
    a.hsid(t1);
    if (c.in_phase) {
      a.addi(t0, zero, 1);
      a.sync(t0);
    }
    a.lui(s0, 0x50);
    a.addi(a2, zero, 8);
    c.emit(a);
    a.halt(zero);
    Harness h(a);
    if (c.in_phase) open_phase(h);
    h.run();
    expect_fault_at_bad(h.stop, a, c.kind, c.detail, c.disasm, c.thread);
    EXPECT_TRUE(h.core.exchange_posts().empty());
  }
}

// Without smaddr / hsid a copy has nothing to name: exchange misuse.
TEST(IssCopyPost, NeedsAddressAndStream) {
  for (bool smem : {true, false}) {
    Asm a;
    a.addi(t0, zero, 1);
    a.sync(t0);
    a.lui(s0, 0x50);
    a.addi(a2, zero, 8);
    a.label("bad");
    if (smem)
      a.smread(s0, a2);
    else
      a.hsread(s0, a2);
    a.halt(zero);
    Harness h(a);
    open_phase(h);
    h.run();
    ASSERT_EQ(h.stop.reason, StopReason::Fault);
    EXPECT_EQ(h.stop.fault->kind, "exchange misuse");
    EXPECT_EQ(h.stop.fault->detail,
              smem ? "smread of 8 bytes into 0x00050000 from streaming memory: no streaming-memory address (smaddr "
                     "first)"
                   : "hsread of 8 bytes into 0x00050000 from a host stream: no stream selected (hsid first)");
  }
}

}  // namespace
