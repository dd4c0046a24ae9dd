// A console sink that reports itself full (ConsoleSink::line returns false): the core
// pauses (PauseReason::ConsoleFull) where a pause changes nothing simulated, and running
// on from each pause gives the same lines, in the same order, and the same cycles,
// instructions and stalls as a sink that never fills.
#include "iss_harness.h"

namespace {

using namespace isstest;
using namespace rvasm;

// Lines "ab" (cputc) and "xyz" (cwrite) in a loop of `n` rounds by the calling thread.
void print_loop(Asm& a, const std::string& tag, uint32_t n) {
  a.li(t1, n);
  a.label(tag + "_loop");
  a.addi(t0, zero, 'a');
  a.cputc(t0);
  a.addi(t0, zero, 'b');
  a.cputc(t0);
  a.addi(t0, zero, '\n');
  a.cputc(t0);
  a.li(a1, kData);
  a.addi(a2, zero, 4);
  a.cwrite(a3, a1, a2);  // "xyz\n"
  a.addi(t1, t1, -1);
  a.bne(t1, zero, tag + "_loop");
}

testelf::Image xyz_image() {
  testelf::Image img;
  img.data_addr = kData;
  const std::string text = "xyz\n";
  img.data.assign(text.begin(), text.end());
  return img;
}

struct Outcome {
  std::vector<ConsoleLine> lines;
  uint64_t cycle = 0, instret = 0;
  std::vector<uint64_t> stalls;
  uint32_t pauses = 0;
  bool immediate = true;  // every pause came right after the line that filled the sink
};

// Runs to the halt; a full sink is emptied (room for `room` more lines) at each pause.
Outcome run_with_room(const Asm& a, size_t room, TileParams params = test_params()) {
  Harness h(a, params, xyz_image());
  h.console.room = room;
  Outcome o;
  for (;;) {
    const StopInfo s = h.run();
    if (s.reason != StopReason::Paused) {
      EXPECT_EQ(s.reason, StopReason::Halted) << h.fault_message();
      break;
    }
    EXPECT_EQ(s.pause, PauseReason::ConsoleFull);
    o.immediate = o.immediate && h.console.lines.size() == h.console.room;
    ++o.pauses;
    h.console.room = h.console.lines.size() + room;
  }
  o.lines = h.console.lines;
  o.cycle = h.core.cycle();
  o.instret = h.core.instret();
  for (uint32_t t = 0; t <= params.workers; ++t) o.stalls.push_back(h.core.thread_stats(t).stall_cycles);
  return o;
}

void expect_same_run(const Outcome& full, const Outcome& free) {
  EXPECT_EQ(full.lines, free.lines);
  EXPECT_EQ(full.cycle, free.cycle);
  EXPECT_EQ(full.instret, free.instret);
  EXPECT_EQ(full.stalls, free.stalls);
}

TEST(IssConsoleFull, SupervisorAlonePausesAtTheFillingLine) {
  Asm a;
  print_loop(a, "sup", 200);
  a.halt(zero);
  const Outcome free = run_with_room(a, SIZE_MAX);
  const Outcome full = run_with_room(a, 7);
  EXPECT_EQ(free.pauses, 0u);
  EXPECT_EQ(free.lines.size(), 400u);
  EXPECT_EQ(full.pauses, 400u / 7);
  EXPECT_TRUE(full.immediate);  // no other thread: the quantum ends at the console instruction
  expect_same_run(full, free);
}

TEST(IssConsoleFull, WorkersPauseAtQuantumEndsWithTheSameInterleaving) {
  Asm a;
  a.la(t2, "worker");
  for (int w = 0; w < 3; ++w) a.run(zero, t2, zero);
  print_loop(a, "sup", 40);  // the supervisor prints while the workers run (stepping, guarded)
  a.join();
  a.halt(zero);
  a.label("worker");
  print_loop(a, "w", 60);
  a.wexit(zero);
  for (uint32_t quantum : {1u, 7u, 1024u}) {
    SCOPED_TRACE(quantum);
    const Outcome free = run_with_room(a, SIZE_MAX, test_params(quantum));
    const Outcome full = run_with_room(a, 5, test_params(quantum));
    EXPECT_EQ(free.lines.size(), 2u * (40 + 3 * 60));
    EXPECT_GT(full.pauses, 0u);
    expect_same_run(full, free);
  }
}

}  // namespace
