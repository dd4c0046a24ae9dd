// The debugger's view of a platform (tlm/debug/platform_target.h) driven directly:
// breakpoints stop the whole system at one cycle, registers and memory read back, a
// step retires one instruction of its thread, watchpoints see stores before they
// happen, catches stop at syncs, and a debugged run ends as an undebugged one does.
// Each case elaborates, so each runs in its own process.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <sstream>
#include <string>

#include <unistd.h>

#include "debug/platform_target.h"
#include "platform/platform.h"
#include "child_process.h"
#include "test_system.h"

namespace ipusim {
namespace {

using debug::PlatformTarget;
using debug::StopEvent;
using debug::ThreadRef;
using namespace test;

constexpr uint32_t kResult = 0x4f000;  // SRAM above the code (64 KiB from 0x40000)

// Every tile: three workers each sum 1..(50 + 10 * tile) and store it at kResult + 4 *
// worker; the supervisor joins, syncs, prints the sum of its workers and halts with it.
Asm program_under_test() {
  Asm a;
  a.la(t0, "worker");
  a.csrr(s1, IPU_CSR_TILE);
  for (int w = 1; w <= 3; ++w) {
    a.li(a2, w);
    a.run(zero, t0, a2);
  }
  a.join();
  a.li(a0, 1);
  a.sync(a0);
  a.li(t2, kResult);
  a.lw(a3, 4, t2);
  a.lw(a4, 8, t2);
  a.add(a3, a3, a4);
  a.lw(a4, 12, t2);
  a.add(a3, a3, a4);
  a.print("sum ");
  a.print_hex(a3);
  a.newline();
  a.andi(a3, a3, 0x7f);
  a.halt(a3);
  a.label("worker");  // a0 = worker number
  a.csrr(t3, IPU_CSR_TILE);
  a.li(t1, 10);
  a.mul(t1, t1, t3);
  a.addi(t1, t1, 50);
  a.li(a1, 0);
  a.label("loop");
  a.add(a1, a1, t1);
  a.addi(t1, t1, -1);
  a.bne(t1, zero, "loop");
  a.label("store");
  a.slli(t4, a0, 2);
  a.li(t2, kResult);
  a.add(t2, t2, t4);
  a.sw(a1, 0, t2);
  a.wexit(zero);
  return a;
}

struct Fixture {
  Fixture() : platform(small_system(4), options()) { platform.load(program(a)); }
  static platform::PlatformOptions options() {
    platform::PlatformOptions o = quiet_options();
    o.console_out = nullptr;  // counted, not printed
    return o;
  }
  Asm a = program_under_test();
  platform::Platform platform;
};

std::string figures(const platform::RunResult& r) {
  std::ostringstream s;
  s << "FIGURES cycles " << r.tile_cycles << " instructions " << r.instructions << " lines " << r.console_lines;
  for (const platform::TileResult& t : r.tiles) s << " " << t.cycles << "/" << t.instructions;
  return s.str();
}

// The figures of the run without a debugger: this test binary's PlainRun case, run as a
// child (one elaboration per process).
std::string plain_figures() {
  char self[4096] = {};
  if (::readlink("/proc/self/exe", self, sizeof self - 1) <= 0) return "readlink failed";
  ipusim::proc::Command command = ipusim::proc::Command::program({self, "--gtest_filter=PlatformTarget.PlainRun"});
  command.err = ipusim::proc::Stream::null();
  const ipusim::proc::Outcome o = ipusim::proc::run(command);
  if (!o.started) return o.start_error;
  std::string out;
  std::istringstream lines(o.out);
  for (std::string line; std::getline(lines, line);)
    if (line.rfind("FIGURES", 0) == 0) out = line;
  return out;
}

// Not a check of its own: the reference the debugged runs compare with.
TEST(PlatformTarget, PlainRun) {
  Fixture f;
  const platform::RunResult r = f.platform.run();
  ASSERT_FALSE(r.end.problem());
  std::printf("%s\n", figures(r).c_str());
}

debug::Resume stepping(const ThreadRef& thread, bool others) {
  debug::Resume r;
  r.step = thread;
  r.others = others;
  return r;
}

uint32_t word_at(PlatformTarget& target, const ThreadRef& t, uint32_t address) {
  uint8_t b[4];
  EXPECT_TRUE(target.read_memory(t, address, b));
  uint32_t v;
  std::memcpy(&v, b, 4);
  return v;
}

TEST(PlatformTarget, BreakpointStopsTheSystemAtOneCycleAndTheRunEndsAsWithout) {
  Fixture f;
  platform::RunResult result;
  f.platform.set_run_driver([&] {
    PlatformTarget target(f.platform);
    EXPECT_EQ(target.threads().size(), 4u);  // the supervisors, before the run
    ASSERT_TRUE(target.insert_breakpoint(0, f.a.addr("store")));
    const StopEvent hit = target.resume({});
    ASSERT_EQ(hit.kind, StopEvent::Kind::Breakpoint);
    // Tile 0 has the shortest loops, its worker 1 the lowest number.
    EXPECT_EQ(hit.thread, (ThreadRef{0, 0, 1}));
    EXPECT_EQ(*target.read_register(hit.thread, debug::kRegPc), f.a.addr("store"));
    EXPECT_EQ(*target.read_register(hit.thread, 11), 1275u);  // a1 = 1 + ... + 50
    EXPECT_EQ(*target.read_register(hit.thread, debug::kRegCsr0 + IPU_CSR_THREAD), 1u);
    const uint64_t cycle = *target.read_register(hit.thread, debug::kRegCsr0 + IPU_CSR_CYCLE);
    // Every thread of every tile stands before that cycle: none has issued at or past it.
    for (const ThreadRef& t : target.threads())
      EXPECT_GE(*target.read_register(t, debug::kRegCsr0 + IPU_CSR_CYCLE), cycle) << t.tile << "." << t.slot;
    EXPECT_EQ(target.threads().size(), 16u);  // 4 supervisors + 12 workers
    EXPECT_EQ(target.name(ThreadRef{0, 2, 3}), "tile 2 w3");
    EXPECT_TRUE(target.remove_breakpoint(0, f.a.addr("store")));
    const StopEvent end = target.resume({});
    EXPECT_EQ(end.kind, StopEvent::Kind::Exited) << end.text;
    EXPECT_EQ(end.exit_code, (1275 * 3) & 0x7f);
  });
  result = f.platform.run();
  ASSERT_FALSE(result.end.problem());
  EXPECT_EQ(result.tiles.at(3).exit_code, (3 * ((80 * 81) / 2)) & 0x7f);
  EXPECT_EQ(figures(result), plain_figures());
}

TEST(PlatformTarget, StepRetiresOneInstructionOfItsThread) {
  Fixture f;
  platform::RunResult result;
  f.platform.set_run_driver([&] {
    PlatformTarget target(f.platform);
    ASSERT_TRUE(target.insert_breakpoint(0, f.a.addr("loop")));
    const StopEvent hit = target.resume({});
    ASSERT_EQ(hit.kind, StopEvent::Kind::Breakpoint);
    const ThreadRef w = hit.thread;
    EXPECT_EQ(*target.read_register(w, 11), 0u);  // a1, before the first add
    target.remove_breakpoint(0, f.a.addr("loop"));
    StopEvent s = target.resume(stepping(w, true));
    ASSERT_EQ(s.kind, StopEvent::Kind::Step);
    EXPECT_EQ(s.thread, w);
    EXPECT_EQ(*target.read_register(w, debug::kRegPc), f.a.addr("loop") + 4);
    EXPECT_EQ(*target.read_register(w, 11), 50u);  // a1 += t1 (50 on tile 0)
    // Only its tile runs: another tile's thread does not move.
    const ThreadRef other{0, 3, 0};
    const uint32_t other_pc = *target.read_register(other, debug::kRegPc);
    s = target.resume(stepping(w, false));
    ASSERT_EQ(s.kind, StopEvent::Kind::Step);
    EXPECT_EQ(*target.read_register(w, debug::kRegPc), f.a.addr("loop") + 8);
    EXPECT_EQ(*target.read_register(other, debug::kRegPc), other_pc);
    // A register written by the debugger is what the thread computes with.
    ASSERT_TRUE(target.write_register(w, 11, 100));
    s = target.resume(stepping(w, true));  // bne
    s = target.resume(stepping(w, true));  // add a1, a1, t1 (t1 = 49)
    EXPECT_EQ(*target.read_register(w, 11), 149u);
    ASSERT_TRUE(target.write_register(w, 11, 50));  // back to what it was: the run's figures stay
    EXPECT_EQ(target.resume({}).kind, StopEvent::Kind::Exited);
  });
  result = f.platform.run();
  ASSERT_FALSE(result.end.problem());
  EXPECT_EQ(figures(result), plain_figures());
}

TEST(PlatformTarget, WatchpointStopsBeforeTheStore) {
  Fixture f;
  platform::RunResult result;
  f.platform.set_run_driver([&] {
    PlatformTarget target(f.platform);
    ASSERT_TRUE(target.insert_watchpoint(0, debug::WatchKind::Write, kResult + 8, 4));
    const StopEvent hit = target.resume({});
    ASSERT_EQ(hit.kind, StopEvent::Kind::Watchpoint);
    EXPECT_EQ(hit.thread, (ThreadRef{0, 0, 2}));  // worker 2 of tile 0 stores at +8
    EXPECT_EQ(hit.address, kResult + 8);
    EXPECT_EQ(word_at(target, hit.thread, kResult + 8), 0u);  // not yet written
    target.remove_watchpoint(0, debug::WatchKind::Write, kResult + 8, 4);
    ASSERT_EQ(target.resume(stepping(hit.thread, false)).kind, StopEvent::Kind::Step);
    EXPECT_EQ(word_at(target, hit.thread, kResult + 8), 1275u);
    // Another tile's memory is its own: tile 3's worker 2 has not stored yet.
    EXPECT_EQ(word_at(target, ThreadRef{0, 3, 0}, kResult + 8), 0u);
    EXPECT_EQ(target.resume({}).kind, StopEvent::Kind::Exited);
  });
  result = f.platform.run();
  ASSERT_FALSE(result.end.problem());
  EXPECT_EQ(figures(result), plain_figures());
}

TEST(PlatformTarget, CatchStopsAtATilesSyncAndInterruptStopsAnywhere) {
  Fixture f;
  platform::RunResult result;
  f.platform.set_run_driver([&] {
    PlatformTarget target(f.platform);
    target.set_catches({debug::Catch{debug::Catch::Kind::Sync, 0u, 2u}});
    const StopEvent c = target.resume({});
    ASSERT_EQ(c.kind, StopEvent::Kind::Catch);
    EXPECT_EQ(c.thread, (ThreadRef{0, 2, 0}));
    EXPECT_NE(c.text.find("ipu 0 tile 2 reached a sync (zone 1)"), std::string::npos) << c.text;
    target.set_catches({});
    target.interrupt();
    EXPECT_EQ(target.resume({}).kind, StopEvent::Kind::Interrupt);
    const StopEvent end = target.resume({});
    EXPECT_EQ(end.kind, StopEvent::Kind::Exited);
    EXPECT_EQ(target.resume({}).kind, StopEvent::Kind::Exited);  // over: the same again
  });
  result = f.platform.run();
  ASSERT_FALSE(result.end.problem());
  EXPECT_EQ(figures(result), plain_figures());
}

// Every tile: f0..f3 = 1..4; st128 f0 at kResult; then ld128st64.pi loads those 16
// bytes into f4..f7 and stores f0, f1 at kResult + 0x40. No worker, no sync.
Asm wide_program() {
  Asm a;
  for (uint32_t i = 0; i < 4; ++i) {
    a.li(t0, i + 1);
    a.fmv_w_x(i, t0);
  }
  a.li(t2, kResult);
  a.addi(t3, t2, 0x40);
  a.label("st");
  a.word(ipu_encode_st128(0, t2));
  a.label("pair");
  a.word(ipu_encode_ld128st64_pi(4, t2, t3, 0));
  a.halt(zero);
  return a;
}

// A watchpoint on `address` (4 bytes, of `kind`) stops tile 0's supervisor before the
// instruction at `label` of wide_program(), with memory not yet written.
void expect_wide_watch_hit(debug::WatchKind kind, uint32_t address, const char* label) {
  const Asm a = wide_program();
  platform::Platform platform(small_system(4), Fixture::options());
  platform.load(program(a));
  platform.set_run_driver([&] {
    PlatformTarget target(platform);
    ASSERT_TRUE(target.insert_watchpoint(0, kind, address, 4));
    const StopEvent hit = target.resume({});
    ASSERT_EQ(hit.kind, StopEvent::Kind::Watchpoint);
    EXPECT_EQ(hit.thread, (ThreadRef{0, 0, 0}));
    EXPECT_EQ(hit.address, address);
    EXPECT_EQ(*target.read_register(hit.thread, debug::kRegPc), a.addr(label));
    target.remove_watchpoint(0, kind, address, 4);
    EXPECT_EQ(target.resume({}).kind, StopEvent::Kind::Exited);
  });
  const platform::RunResult result = platform.run();
  ASSERT_FALSE(result.end.problem());
}

// Any byte of a wide access is watched: the last 4 of a 16-byte store, and the load and
// the store of a load-and-store, each by its own kind.
TEST(PlatformTarget, WatchpointSeesTheLastBytesOfAWideStore) {
  expect_wide_watch_hit(debug::WatchKind::Write, kResult + 12, "st");
}
TEST(PlatformTarget, ReadWatchpointSeesTheLoadOfALoadAndStore) {
  expect_wide_watch_hit(debug::WatchKind::Read, kResult + 8, "pair");
}
TEST(PlatformTarget, WriteWatchpointSeesTheStoreOfALoadAndStore) {
  expect_wide_watch_hit(debug::WatchKind::Write, kResult + 0x44, "pair");
}

}  // namespace
}  // namespace ipusim
