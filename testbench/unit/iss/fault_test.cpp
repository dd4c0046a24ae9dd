// Every fault of docs/xipu.md stops the tile with a message naming tile, IPU, thread, pc,
// the instruction word and its disassembly, and the reason.
#include "iss_harness.h"

namespace {

using namespace isstest;
using namespace rvasm;

struct FaultCase {
  const char* name;
  void (*emit)(Asm&);  // the faulting instruction must be labelled "bad"
  const char* kind;
  const char* detail;  // substring
  const char* disasm;
  uint32_t thread = 0;
};

void in_worker(Asm& a, void (*body)(Asm&)) {
  a.la(t0, "worker");
  a.run(zero, t0, zero);
  a.join();
  a.halt(zero);
  a.label("worker");
  body(a);
}

const FaultCase kFaults[] = {
    {"illegal", [](Asm& a) { a.label("bad"); a.word(0xffffffff); }, "illegal instruction", "undefined encoding",
     ".word 0xffffffff"},
    {"misaligned load", [](Asm& a) { a.li(a1, 0x50000); a.label("bad"); a.lw(a0, 2, a1); }, "misaligned access",
     "load of 4 bytes at 0x00050002", "lw a0, 2(a1)"},
    {"misaligned lh", [](Asm& a) { a.li(a1, 0x50001); a.label("bad"); a.lh(a0, 0, a1); }, "misaligned access",
     "load of 2 bytes at 0x00050001", "lh a0, 0(a1)"},
    {"misaligned store", [](Asm& a) { a.li(a1, 0x50000); a.label("bad"); a.sw(a0, 1, a1); }, "misaligned access",
     "store of 4 bytes at 0x00050001", "sw a0, 1(a1)"},
    {"misaligned sh", [](Asm& a) { a.li(a1, 0x50003); a.label("bad"); a.sh(a0, 0, a1); }, "misaligned access",
     "store of 2 bytes at 0x00050003", "sh a0, 0(a1)"},
    {"null load", [](Asm& a) { a.label("bad"); a.lw(a0, 0, zero); }, "access fault",
     "load of 4 bytes at 0x00000000 outside SRAM [0x00040000, 0x00080000)", "lw a0, 0(zero)"},
    {"load past sram", [](Asm& a) { a.li(a1, 0x80000); a.label("bad"); a.lbu(a0, 0, a1); }, "access fault",
     "load of 1 bytes at 0x00080000 outside SRAM", "lbu a0, 0(a1)"},
    {"load straddling end", [](Asm& a) { a.li(a1, 0x7fffe); a.label("bad"); a.lhu(a0, 1, a1); }, "misaligned access",
     "load of 2 bytes at 0x0007ffff", "lhu a0, 1(a1)"},
    {"store past sram", [](Asm& a) { a.li(a1, 0x80000); a.label("bad"); a.sb(a0, 0, a1); }, "access fault",
     "store of 1 bytes at 0x00080000 outside SRAM", "sb a0, 0(a1)"},
    {"store below sram", [](Asm& a) { a.label("bad"); a.sw(a0, 16, zero); }, "access fault",
     "store of 4 bytes at 0x00000010 outside SRAM", "sw a0, 16(zero)"},
    {"store into code", [](Asm& a) { a.li(a1, 0x40000); a.label("bad"); a.sw(a0, 4, a1); }, "access fault",
     "store of 4 bytes at 0x00040004 into code [0x00040000, 0x", "sw a0, 4(a1)"},
    {"byte store into code", [](Asm& a) { a.li(a1, 0x40000); a.label("bad"); a.sb(a0, 3, a1); }, "access fault",
     "into code", "sb a0, 3(a1)"},
    {"jalr outside code", [](Asm& a) { a.li(a1, 0x50000); a.label("bad"); a.jalr(ra, a1, 0); }, "access fault",
     "jump to 0x00050000 outside code [0x00040000, 0x", "jalr ra, 0(a1)"},
    {"jalr misaligned", [](Asm& a) { a.la(a1, "bad"); a.label("bad"); a.jalr(ra, a1, 2); }, "misaligned access",
     "jump to 0x", "jalr ra, 2(a1)"},
    {"branch outside code", [](Asm& a) { a.label("bad"); a.word(b_type(-64, zero, zero, 0)); }, "access fault",
     "outside code", "beq zero, zero, 0x"},
    {"jal outside code", [](Asm& a) { a.label("bad"); a.word(j_type(0x10000, ra)); }, "access fault",
     "outside code", "jal ra, 0x"},
    {"ecall", [](Asm& a) { a.label("bad"); a.ecall(); }, "ecall", "no OS", "ecall"},
    {"ebreak", [](Asm& a) { a.label("bad"); a.ebreak(); }, "ebreak", "", "ebreak"},
    {"wexit on supervisor", [](Asm& a) { a.label("bad"); a.wexit(zero); }, "illegal instruction", "worker-only",
     "wexit zero"},
    {"sync zone", [](Asm& a) { a.addi(a0, zero, 3); a.label("bad"); a.sync(a0); }, "illegal instruction",
     "sync zone 3", "sync a0"},
    {"cwrite outside sram", [](Asm& a) { a.li(a1, 0x7fff0); a.addi(a2, zero, 32); a.label("bad"); a.cwrite(a0, a1, a2); },
     "access fault", "cwrite of 32 bytes at 0x0007fff0 outside SRAM", "cwrite a0, a1, a2"},
    {"run entry outside code", [](Asm& a) { a.li(a1, 0x50000); a.label("bad"); a.run(a0, a1, zero); }, "access fault",
     "worker entry 0x00050000", "run a0, a1, zero"},
    {"join on worker", [](Asm& a) { in_worker(a, [](Asm& w) { w.label("bad"); w.join(); }); }, "illegal instruction",
     "supervisor-only", "join", 1},
    {"halt on worker", [](Asm& a) { in_worker(a, [](Asm& w) { w.label("bad"); w.halt(zero); }); },
     "illegal instruction", "supervisor-only", "halt zero", 1},
    {"sync on worker", [](Asm& a) { in_worker(a, [](Asm& w) { w.label("bad"); w.sync(zero); }); },
     "illegal instruction", "supervisor-only", "sync zero", 1},
    {"worker load", [](Asm& a) { in_worker(a, [](Asm& w) { w.label("bad"); w.lw(a0, 1, sp); }); },
     "misaligned access", "load of 4 bytes at 0x00000001", "lw a0, 1(sp)", 1},
    {"fall off code", [](Asm& a) { a.addi(a0, zero, 1); a.label("bad"); }, "access fault", "fetch at 0x", ".word", 0},
};

TEST(IssFaults, EveryFaultNamesWhereAndWhat) {
  for (const FaultCase& c : kFaults) {
    SCOPED_TRACE(c.name);
    for (uint32_t q : {1u, 1000u}) {
      Asm a;
      c.emit(a);
      if (std::string(c.name) != "fall off code") a.halt(zero);
      Harness h(a, test_params(q));
      h.run();
      ASSERT_EQ(h.stop.reason, StopReason::Fault);
      const Fault& f = *h.stop.fault;
      EXPECT_EQ(f.code, ipusim::ProblemCode::TileFault);
      EXPECT_EQ(f.ipu, 1u);
      EXPECT_EQ(f.tile, 3u);
      EXPECT_EQ(f.kind, c.kind);
      EXPECT_NE(f.detail.find(c.detail), std::string::npos) << f.detail;
      EXPECT_EQ(f.thread, c.thread);
      EXPECT_EQ(f.pc, a.addr("bad"));
      EXPECT_EQ(f.disasm.rfind(c.disasm, 0), 0u) << f.disasm;
      const std::string msg = h.fault_message();
      char where[80];
      std::snprintf(where, sizeof where, "tile 3 (ipu 1) thread %u pc 0x%08x: %s", c.thread, a.addr("bad"), c.kind);
      EXPECT_EQ(msg.rfind(where, 0), 0u) << msg;
      EXPECT_NE(msg.find("[" + f.disasm + " = 0x"), std::string::npos) << msg;
      // A stopped tile stays stopped.
      EXPECT_EQ(h.core.run().reason, StopReason::Fault);
    }
  }
}

// The supervisor cannot even issue while six workers run, so a seventh `run` comes from
// a worker.
TEST(IssFaults, WorkerStartWhileSixRun) {
  Asm a;
  a.la(t0, "worker");
  for (int i = 0; i < 6; ++i) a.run(zero, t0, zero);
  a.join();
  a.halt(zero);
  a.label("worker");
  a.csrr(t1, 0xcc2);
  a.addi(t2, zero, 6);
  a.bne(t1, t2, "spinner");
  a.label("bad");
  a.run(zero, t0, zero);  // worker 6: the other five still spin
  a.wexit(zero);
  a.label("spinner");
  a.li(t1, 1000);
  a.label("spin");
  a.addi(t1, t1, -1);
  a.bne(t1, zero, "spin");
  a.wexit(zero);
  for (uint32_t q : {1u, 1000u}) {
    Harness h(a, test_params(q));
    h.run();
    ASSERT_EQ(h.stop.reason, StopReason::Fault);
    EXPECT_EQ(h.stop.fault->kind, "worker start");
    EXPECT_EQ(h.stop.fault->thread, 6u);
    EXPECT_EQ(h.stop.fault->pc, a.addr("bad"));
    EXPECT_NE(h.fault_message().find("run while all 6 workers run"), std::string::npos) << h.fault_message();
  }
}

// A worker's run is also checked; so is a worker's fault while the supervisor waits.
TEST(IssFaults, FaultInWorkerWhileSupervisorJoins) {
  Asm a;
  a.la(t0, "worker");
  a.run(zero, t0, zero);
  a.run(zero, t0, zero);
  a.join();
  a.halt(zero);
  a.label("worker");
  a.csrr(t1, 0xcc2);
  a.addi(t2, zero, 2);
  a.bne(t1, t2, "ok");
  a.li(t3, 200);
  a.label("spin");
  a.addi(t3, t3, -1);
  a.bne(t3, zero, "spin");
  a.label("bad");
  a.ecall();
  a.label("ok");
  a.wexit(zero);
  Harness h(a);
  h.run();
  ASSERT_EQ(h.stop.reason, StopReason::Fault);
  EXPECT_EQ(h.stop.fault->thread, 2u);
  EXPECT_EQ(h.stop.fault->pc, a.addr("bad"));
}

}  // namespace
