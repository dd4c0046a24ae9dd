// The translator against the interpreter (docs/iss.md "Translator (--iss jit)"): seeded
// random RV32IM(F) programs run on a tile with Core::interp and on one with Core::jit, and
// everything observable must be identical: every register of every thread, the data
// SRAM, instructions retired, cycles, stalls and the fault record (kind, pc, thread,
// detail). Six workers run the random code concurrently with small quanta and read each
// other's stores, so a quantum that ended one instruction early or late changes memory,
// registers and cycles; the supervisor then runs it alone (the 2^24 budget).
#include <array>
#include <cstdlib>
#include <cstdio>
#include <random>

#include "iss/core_state.h"
#include "iss/jit/lockstep.h"
#include "iss_harness.h"
#include "jit_outcome.h"
#include "random_rv32_ops.h"

namespace {

using namespace isstest;
using namespace rvasm;

constexpr uint32_t kCycle = 0xc00, kInstret = 0xc02, kFrm = 0x002;
constexpr uint32_t kAreaBytes = 256;                 // each thread's own data
constexpr uint32_t kShared = kData + 7 * kAreaBytes;  // read and written by every thread

// The registers the random code computes with: never s0 (the thread's area), s1 / s5 (loop
// counters), s4 (the shared area), s6 (the return address), sp, ra (calls), a0 (the
// worker's index).
const Reg kPool[] = {t0, t1, t2, a1, a2, a3, a4, a5, a6, a7, s2, s3, s7, s8, s9, s10, s11, t3, t4, t5, t6};

class Generator {
 public:
  Generator(uint32_t seed, bool allow_fault) : rng_(seed), allow_fault_(allow_fault) {}

  Asm program() {
    Asm a;
    // The supervisor: start six workers on the random code, join, run it itself, halt.
    a.la(t0, "body");
    for (uint32_t w = 1; w <= 6; ++w) {
      a.li(a2, w);
      a.run(zero, t0, a2);
    }
    a.join();
    a.li(a0, 0);
    a.jal(ra, "body");
    a.halt(zero);
    // The random code: a0 = the thread's index; returns to ra (supervisor) or wexits.
    a.label("body");
    a.addi(s6, ra, 0);
    a.li(s0, kData);
    a.slli(t0, a0, 8);
    a.add(s0, s0, t0);
    a.li(s4, kShared);
    for (Reg r : kPool)
      a.li(r, value());
    for (uint32_t f = 0; f < 8; ++f) a.fmv_w_x(f, kPool[f]);  // the f registers the code uses
    fault_at_ = allow_fault_ && chance(2) ? pick(0, 11) : ~0u;
    for (uint32_t c = 0; c < 12; ++c) chunk(a, c);
    a.beq(a0, zero, "ret");
    a.wexit(a1);
    a.label("ret");
    a.jalr(zero, s6, 0);
    // Leaf functions the random code calls.
    for (int f = 0; f < 2; ++f) {
      a.label("fn" + std::to_string(f));
      straight(a, 4, false);
      a.jalr(zero, ra, 0);
    }
    return a;
  }

 private:
  uint32_t pick(uint32_t lo, uint32_t hi) { return std::uniform_int_distribution<uint32_t>(lo, hi)(rng_); }
  // pick and straight as the shared loop shapes (random_rv32_ops.h) take them.
  auto picker() { return [this](uint32_t lo, uint32_t hi) { return pick(lo, hi); }; }
  auto straight_code(Asm& a, bool calls) { return [this, &a, calls](uint32_t n) { straight(a, n, calls); }; }
  bool chance(uint32_t in) { return pick(0, in - 1) == 0; }
  Reg reg() { return kPool[pick(0, std::size(kPool) - 1)]; }
  Reg src() { return chance(12) ? zero : reg(); }
  Reg dst() { return chance(20) ? zero : reg(); }
  uint32_t value() {
    static const uint32_t special[] = {0, 1, ~0u, 0x80000000u, 0x7fffffffu, 0x7fc00000u, 0x3f800000u, 0xff800001u};
    // Floats at the edges of the native conversions and compares: +-inf, 2^31 and its
    // neighbours, -2^31 (the nearest float to -2^31 - 1 too), 2^32 and below, +-0.5, 2.5
    // (a tie), the smallest subnormal, a quiet NaN with payload, 0x80000001 as an integer.
    static const uint32_t fp_edge[] = {0x7f800000u, 0xff800000u, 0x4f000000u, 0x4effffffu, 0x4f000001u,
                                       0xcf000000u, 0xcf000001u, 0xceffffffu, 0x4f800000u, 0x4f7fffffu,
                                       0x3f000000u, 0xbf000000u, 0x40200000u, 0x00000001u, 0x7fc12345u,
                                       0x80000001u, 0x01000001u};
    if (chance(3)) return special[pick(0, std::size(special) - 1)];
    if (chance(4)) return fp_edge[pick(0, std::size(fp_edge) - 1)];
    return static_cast<uint32_t>(rng_());
  }
  // Half the time, f register `f` set to a value() first (through an x register): the
  // conversions and compares then see the edge values directly.
  void maybe_set(Asm& a, uint32_t f) {
    if (!chance(2)) return;
    const Reg r = reg();
    a.li(r, value());
    a.fmv_w_x(f, r);
  }

  void alu(Asm& a) {
    const Reg d = dst(), x = src(), y = src();
    const int32_t imm = static_cast<int32_t>(pick(0, 4095)) - 2048;
    const uint32_t k = pick(0, kRandomAluOps);
    if (k < kRandomAluOps) random_alu_op(a, k, d, x, y, imm, picker());
    else a.li(d, value());
  }
  // A load or store inside the thread's area or the shared one, aligned.
  void memory(Asm& a) {
    const Reg base = chance(3) ? s4 : s0;
    const uint32_t size = 1u << pick(0, 2);
    const int32_t off = static_cast<int32_t>(pick(0, kAreaBytes / size - 1) * size);
    const Reg r = reg();
    const uint32_t k = pick(0, kRandomMemoryOps);
    if (k < kRandomMemoryOps) random_memory_op(a, k, r, off, base, [this] { return pick(0, 7); });
    else a.lw(r, off & ~3, base);
  }
  // Single precision: static RNE, dyn (frm as the last csrrwi set it), moves and sign
  // injection, comparisons, fmin / fmax, conversions in every mode; the fused ones where
  // the host has FMA are translated; static non-RNE arithmetic runs in the interpreter.
  void fp(Asm& a) {
    const uint32_t d = pick(0, 7), x = pick(0, 7), y = pick(0, 7), z = pick(0, 7);
    const uint32_t rm = chance(2) ? RNE : DYN;
    const uint32_t cvt_rm = std::array{RNE, RTZ, RDN, RUP, RMM, DYN, DYN, RTZ}[pick(0, 7)];
    const uint32_t k = pick(0, 20);
    if (k == 10 || k == 11 || k == 12 || (k >= 15 && k <= 17)) maybe_set(a, x);
    if (k == 10 || (k >= 15 && k <= 17)) maybe_set(a, y);
    switch (k) {
      case 0: a.fadd(d, x, y, rm); break;
      case 1: a.fsub(d, x, y, rm); break;
      case 2: a.fmul(d, x, y, rm); break;
      case 3: a.fdiv(d, x, y, rm); break;
      case 4: a.fsqrt(d, x, rm); break;
      case 5: a.fmadd(d, x, y, z, rm); break;
      case 6: a.fnmsub(d, x, y, z, rm); break;
      case 7: a.fsgnjn(d, x, y); break;
      case 8: a.fmv_w_x(d, src()); break;
      case 9: a.fmv_x_w(dst(), x); break;
      case 10: chance(2) ? a.fmin(d, x, y) : a.fmax(d, x, y); break;
      case 11: a.fcvt_w_s(dst(), x, cvt_rm); break;
      case 12: a.fcvt_wu_s(dst(), x, cvt_rm); break;
      case 13: a.fcvt_s_w(d, src(), cvt_rm); break;
      case 14: a.fcvt_s_wu(d, src(), cvt_rm); break;
      case 15: a.feq(dst(), x, y); break;
      case 16: a.flt(dst(), x, y); break;
      case 17: a.fle(dst(), x, y); break;
      case 18: a.csrrwi(zero, kFrm, chance(2) ? RNE : pick(0, 4)); break;  // the dyn ops' mode
      case 19: a.fclass(dst(), x); break;
      default: a.fmul(d, x, y, RTZ); break;  // the exact path (interpreter)
    }
  }
  void one(Asm& a, bool calls) {
    const uint32_t k = pick(0, 99);
    if (k < 50) alu(a);
    else if (k < 75) memory(a);
    else if (k < 90) fp(a);
    else if (k < 93) a.csrr(dst(), chance(2) ? kCycle : kInstret);
    else if (k < 96 && calls) a.jal(ra, "fn" + std::to_string(pick(0, 1)));
    else a.addi(zero, zero, 0);  // nop
  }
  void straight(Asm& a, uint32_t n, bool calls) {
    for (uint32_t i = 0; i < n; ++i) one(a, calls);
  }
  // One faulting instruction: misaligned or out-of-SRAM load, store into code, a jump out
  // of code, a dyn conversion with a reserved frm, an illegal word.
  void fault(Asm& a) {
    const Reg r = reg();
    switch (pick(0, 6)) {
      case 0: a.lw(r, 2, s0); break;
      case 1: a.lh(r, 1, s4); break;
      case 2: a.li(r, 0x7ff00000u); a.lbu(r, 0, r); break;
      case 3: a.li(r, 0x40000u); a.sw(r, 0, r); break;
      case 4: a.li(r, 0x10u); a.jalr(zero, r, 0); break;
      case 5: a.csrrwi(zero, kFrm, pick(5, 7)); a.fcvt_s_w(pick(0, 7), r); break;  // dyn: frm reserved
      default: a.word(0); break;
    }
  }
  void chunk(Asm& a, uint32_t c) {
    if (c == fault_at_) {
      straight(a, pick(0, 6), true);
      fault(a);
    }
    switch (pick(0, 4)) {
      case 0: straight(a, pick(1, 12), true); break;
      case 1:
        random_counted_loop(a, picker(), straight_code(a, true), [&](const std::string& to) { branch(a, to); }, true);
        break;
      case 2: random_nested_loops(a, picker(), straight_code(a, false)); break;
      case 3: {  // a zero-overhead loop (rpt) over straight ALU and memory code
        const uint32_t size = pick(1, 6);
        a.li(s1, pick(0, 9));
        a.rpt(s1, size);
        for (uint32_t i = 0; i < size; ++i) chance(3) ? memory(a) : alu(a);
        break;
      }
      default: {  // forward branches
        const std::string skip = a.fresh_label("fwd");
        straight(a, pick(0, 4), true);
        branch(a, skip);
        straight(a, pick(1, 6), true);
        a.label(skip);
      }
    }
  }
  void branch(Asm& a, const std::string& to) {
    const Reg x = src(), y = src();
    random_branch(a, pick(0, 5), x, y, to);
  }

  std::mt19937 rng_;
  bool allow_fault_;
  uint32_t fault_at_ = ~0u;
};

// A random program's run setting from its seed: the quantum, the hotness, co-issue.
struct Setting {
  uint32_t quantum, hot;
  bool co_issue;
};
Setting setting_of(uint32_t seed) {
  return {std::array{2u, 3u, 7u, 64u, 1024u}[seed % 5], seed % 3 == 0 ? 1 : 2 + seed % 4, seed % 4 != 0};
}

TEST(IssJitLockstep, RandomProgramsMatchTheInterpreter) {
  uint32_t faults = 0, programs = 0;
  uint64_t regions = 0, instructions = 0;
  for (uint32_t seed = 1; seed <= 2000; ++seed) {
    const Asm a = Generator(seed, true).program();
    const auto [quantum, hot, co_issue] = setting_of(seed);
    SCOPED_TRACE(testing::Message() << "seed " << seed << " quantum " << quantum << " hot " << hot);
    const Outcome i = run(a, quantum, TileParams::Core::interp, hot, co_issue);
    // Every other program: the translated code's calls out leave garbage in the cache
    // registers and their xmm mirrors (IPUSIM_JIT_CLOBBER_CALLS), as a callee may.
    if (seed % 2 == 0) setenv("IPUSIM_JIT_CLOBBER_CALLS", "1", 1);
    const Outcome j = run(a, quantum, TileParams::Core::jit, hot, co_issue);
    unsetenv("IPUSIM_JIT_CLOBBER_CALLS");
    expect_same(i, j);
    faults += i.stop.reason == StopReason::Fault;
    regions += j.regions;
    instructions += i.instret;
    ++programs;
    if (HasFailure()) break;
  }
  // The generator must reach both kinds of ending.
  EXPECT_GT(faults, 40u);
  EXPECT_LT(faults, programs - 40);
  // And the translator must have run a good part of it.
  EXPECT_GT(regions, 10u * programs);
  std::printf("%u programs, %u faulted, %llu instructions, %llu regions translated\n", programs, faults,
              static_cast<unsigned long long>(instructions), static_cast<unsigned long long>(regions));
}

// What a thread's quantum left: where it stopped, its count, its slot adjust, how it
// ended, the thread's clock and instret after it, and its registers and the data SRAM
// (hashed).
struct QuantumRecord {
  uint32_t thread = 0, pc = 0;
  uint64_t executed = 0;
  int64_t slot_adjust = 0;
  LoopExit exit = LoopExit::Budget;
  uint64_t clock = 0, instret = 0, regs = 0, data = 0;
  bool operator==(const QuantumRecord&) const = default;
};

uint64_t fnv(const void* p, size_t n) {
  uint64_t h = 1469598103934665603ull;
  for (size_t i = 0; i < n; ++i) h = (h ^ static_cast<const uint8_t*>(p)[i]) * 1099511628211ull;
  return h;
}

// Runs the program on a CoreState and records every quantum of every thread.
std::vector<QuantumRecord> quanta(const std::shared_ptr<const Program>& program, const TileParams& p, StopInfo& stop) {
  Sram sram(p.sram_bytes);
  load_image(sram, *program);
  CaptureConsole console;
  CoreState cs(p, program, &console, sram);
  std::vector<QuantumRecord> log;
  cs.set_quantum_observer([&](const Thread& t, const Quantum& q) {
    QuantumRecord r;
    r.thread = t.id;
    r.pc = cs.code().pc_of(q.ip);
    r.executed = q.executed;
    r.slot_adjust = q.slot_adjust;
    r.exit = q.exit;
    r.clock = t.clock;
    r.instret = t.instret;
    r.regs = fnv(t.hart.regs, sizeof t.hart.regs);
    r.data = fnv(sram.data() + (kData - kSramBase), 4096);
    log.push_back(r);
  });
  stop = cs.run();
  return log;
}

// The same programs, compared after every quantum of every thread.
TEST(IssJitLockstep, EveryQuantumMatchesTheInterpreter) {
  uint64_t compared = 0;
  for (uint32_t seed = 5001; seed <= 6000; ++seed) {
    const auto program = make_program(Generator(seed, true).program());
    TileParams p = test_params(std::array{2u, 3u, 5u, 16u, 100u}[seed % 5]);
    p.co_issue = seed % 4 != 0;
    p.jit_hot_entries = 1 + seed % 3;
    SCOPED_TRACE(testing::Message() << "seed " << seed << " quantum " << p.thread_quantum);
    StopInfo si, sj;
    p.core = TileParams::Core::interp;
    const std::vector<QuantumRecord> i = quanta(program, p, si);
    p.core = TileParams::Core::jit;
    if (seed % 2 == 0) setenv("IPUSIM_JIT_CLOBBER_CALLS", "1", 1);  // as above
    const std::vector<QuantumRecord> j = quanta(program, p, sj);
    unsetenv("IPUSIM_JIT_CLOBBER_CALLS");
    for (size_t k = 0; k < std::min(i.size(), j.size()); ++k)
      ASSERT_EQ(i[k], j[k]) << "quantum " << k << " of thread " << i[k].thread << " (pc 0x" << std::hex << i[k].pc
                            << " / 0x" << j[k].pc << std::dec << ", executed " << i[k].executed << " / "
                            << j[k].executed << ")";
    ASSERT_EQ(i.size(), j.size());
    ASSERT_EQ(si.reason, sj.reason);
    if (si.fault) {
      EXPECT_EQ(si.fault->kind, sj.fault->kind);
      EXPECT_EQ(si.fault->pc, sj.fault->pc);
      EXPECT_EQ(si.fault->detail, sj.fault->detail);
    }
    compared += i.size();
  }
  EXPECT_GT(compared, 100000u);
  std::printf("%llu quanta compared\n", static_cast<unsigned long long>(compared));
}

// Core::lockstep (docs/iss.md "Lockstep"): the translator runs the tile and an
// interpreted shadow is compared with it at every taken control transfer and quantum end.
// The random programs (faulting ones too) must run without a divergence and end exactly
// as on the interpreter alone: the lockstep keeps a plain run's accounting.
// The translations check loads and stores against their tiles' limits as immediates, so
// tiles of one Program with other SRAM sizes must not share them: a loop storing and
// loading one word up to 300 KiB into SRAM runs on a 624 KiB tile, and faults on a 256 KiB
// tile at the same pc with the same registers as the interpreter, whichever runs first.
TEST(IssJitLockstep, TilesWithOtherSramSizesGetTheirOwnTranslations) {
  Asm a;
  a.li(s0, kData);
  a.li(s1, 300);  // KiB from the data to the last word touched
  a.label("loop");
  a.sw(s1, 0, s0);
  a.lw(s2, 0, s0);
  a.li(t0, 1024);
  a.add(s0, s0, t0);
  a.addi(s1, s1, -1);
  a.bne(s1, zero, "loop");
  a.halt(zero);
  const auto program = make_program(a);
  auto run_on = [&](uint32_t sram_kib, TileParams::Core core) {
    TileParams p = test_params();
    p.sram_bytes = sram_kib * 1024;
    p.core = core;
    p.jit_hot_entries = 1;
    CaptureConsole console;
    Sram sram(p.sram_bytes);
    load_image(sram, *program);
    TileCore tile(p, program, sram, &console);
    const StopInfo stop = tile.run();
    return std::pair{stop, tile.registers(0)};
  };
  for (const bool big_first : {true, false}) {
    SCOPED_TRACE(big_first ? "624 KiB tile first" : "256 KiB tile first");
    std::vector<uint32_t> order = big_first ? std::vector<uint32_t>{624, 256} : std::vector<uint32_t>{256, 624};
    for (const uint32_t kib : order) {
      SCOPED_TRACE(kib);
      const auto [interp_stop, interp_regs] = run_on(kib, TileParams::Core::interp);
      const auto [jit_stop, jit_regs] = run_on(kib, TileParams::Core::jit);
      ASSERT_EQ(interp_stop.reason, jit_stop.reason);
      ASSERT_EQ(interp_stop.fault != nullptr, kib == 256);
      ASSERT_EQ(jit_stop.fault != nullptr, kib == 256);
      if (kib == 256) {
        EXPECT_EQ(jit_stop.fault->kind, interp_stop.fault->kind);
        EXPECT_EQ(jit_stop.fault->pc, interp_stop.fault->pc);
      }
      EXPECT_EQ(jit_regs.pc, interp_regs.pc);
      for (unsigned r = 0; r < 32; ++r) EXPECT_EQ(jit_regs.x[r], interp_regs.x[r]) << "x" << r;
    }
  }
}

TEST(IssLockstepMode, RandomProgramsRunWithoutDivergence) {
  for (uint32_t seed = 7001; seed <= 7400; ++seed) {
    const Asm a = Generator(seed, true).program();
    const auto [quantum, hot, co_issue] = setting_of(seed);
    SCOPED_TRACE(testing::Message() << "seed " << seed << " quantum " << quantum << " hot " << hot);
    const Outcome i = run(a, quantum, TileParams::Core::interp, hot, co_issue);
    const Outcome l = run(a, quantum, TileParams::Core::lockstep, hot, co_issue);
    if (l.stop.fault) {
      ASSERT_NE(l.stop.fault->kind, "lockstep divergence") << ipusim::to_text(*l.stop.fault);
    }
    expect_same(i, l);
    if (HasFailure()) break;
  }
}

// A lockstep tile over a loaded SRAM, for the planted divergences.
struct LockstepTile {
  explicit LockstepTile(uint32_t seed, uint32_t quantum = 64)
      : program(make_program(Generator(seed, false).program())), params(make_params(quantum)), sram(params.sram_bytes) {
    load_image(sram, *program);
    core = std::make_unique<CoreState>(params, program, &console, sram);
  }
  static TileParams make_params(uint32_t quantum) {
    TileParams p = test_params(quantum);
    p.core = TileParams::Core::lockstep;
    p.jit_hot_entries = 1;
    return p;
  }
  std::shared_ptr<const Program> program;
  TileParams params;
  Sram sram;
  CaptureConsole console;
  std::unique_ptr<CoreState> core;
};

// A register of the real core changed after one step of thread 3: the run stops there
// with a fault record naming the tile, the thread, the step's first pc and the register
// with both engines' values.
TEST(IssLockstepMode, APlantedRegisterDivergenceNamesThreadPcAndRegister) {
  LockstepTile tile(42);
  ASSERT_NE(tile.core->lockstep(), nullptr);
  uint32_t steps = 0, planted_pc = 0, interp_value = 0;
  tile.core->lockstep()->set_tamper([&](Thread& t, uint32_t pc) {
    if (t.id != 3 || ++steps != 50) return;
    planted_pc = pc;
    interp_value = t.hart.regs[12];
    t.hart.regs[12] ^= 0x100;  // a2
  });
  const StopInfo s = tile.core->run();
  ASSERT_GE(steps, 50u);
  ASSERT_EQ(s.reason, StopReason::Fault);
  ASSERT_TRUE(s.fault);
  const Fault& f = *s.fault;
  EXPECT_EQ(f.kind, "lockstep divergence");
  EXPECT_EQ(f.code, ipusim::ProblemCode::TileFault);
  EXPECT_EQ(f.tile, 3u);
  EXPECT_EQ(f.ipu, 1u);
  EXPECT_EQ(f.thread, 3u);
  EXPECT_EQ(f.pc, planted_pc);
  char want[80];
  std::snprintf(want, sizeof want, "x12 (a2): interpreter 0x%08x, translator 0x%08x", interp_value, interp_value ^ 0x100);
  EXPECT_EQ(f.detail, want);
  EXPECT_FALSE(f.disasm.empty());
  std::printf("%s\n", ipusim::to_text(f).c_str());
}

// A store of the real core changed: found at the quantum's end as the first differing
// SRAM word.
TEST(IssLockstepMode, APlantedMemoryDivergenceNamesTheAddress) {
  LockstepTile tile(43);
  uint32_t steps = 0;
  const uint32_t addr = kData + 5 * kAreaBytes + 8;  // thread 5's area
  tile.core->lockstep()->set_tamper([&](Thread& t, uint32_t) {
    if (t.id == 5 && ++steps == 20) tile.sram.data()[addr - kSramBase + 1] ^= 0x5a;
  });
  const StopInfo s = tile.core->run();
  ASSERT_EQ(s.reason, StopReason::Fault);
  ASSERT_TRUE(s.fault);
  EXPECT_EQ(s.fault->kind, "lockstep divergence");
  EXPECT_EQ(s.fault->thread, 5u);
  char want[80];
  std::snprintf(want, sizeof want, "SRAM word at 0x%08x (the first that differs)", addr);
  EXPECT_NE(s.fault->detail.find(want), std::string::npos)
      << s.fault->detail;
  std::printf("%s\n", ipusim::to_text(*s.fault).c_str());
}

// What the host writes while the tile waits at a sync reaches the shadow: no divergence,
// and the program reads the host's value.
TEST(IssLockstepMode, HostWritesBetweenSuperstepsReachTheShadow) {
  Asm a;
  a.li(t0, 1);
  a.sync(t0);
  a.li(s0, kData);
  a.lw(a0, 0, s0);
  a.addi(a0, a0, 1);
  a.sw(a0, 4, s0);
  a.lw(a1, 4, s0);
  a.halt(zero);
  TileParams p = test_params(16);
  p.core = TileParams::Core::lockstep;
  Harness h(a, p);
  ASSERT_EQ(h.run().reason, StopReason::Sync);
  const uint8_t v[4] = {41, 0, 0, 0};
  ASSERT_TRUE(h.core.write(kData, v));
  h.core.release_sync(h.core.cycle() + 10);
  h.run_ok();
  EXPECT_EQ(h.x(11), 42u);
}

}  // namespace
