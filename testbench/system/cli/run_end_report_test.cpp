// `ipusim run`'s rendering of how a run ended (tools/ipusim/run_stop.h): for each kind of
// RunEnd, the stderr lines, the exit status, the stop reason and the --json keys, from a
// RunResult made here (no system runs). The end-to-end tests (ipusim_run_test,
// ipusim_budget_test, error_json_test) check the same through the binary.
#include "run_stop.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <string>

namespace ipusim::cli {
namespace {

// What `render` wrote to a FILE.
template <class F>
std::string captured(F&& render) {
  std::FILE* f = std::tmpfile();
  render(f);
  std::string out(size_t(std::ftell(f)), '\0');
  std::rewind(f);
  out.resize(std::fread(out.data(), 1, out.size(), f));
  std::fclose(f);
  return out;
}

Problem problem(ProblemCode code, std::string kind, std::string detail) {
  Problem p;
  p.code = code;
  p.kind = std::move(kind);
  p.detail = std::move(detail);
  return p;
}

platform::RunResult ended(RunEndKind kind, std::vector<Problem> problems = {}) {
  platform::RunResult r;
  r.end = RunEnd{.kind = kind, .problems = std::move(problems)};
  return r;
}

platform::TileResult halted_tile(uint32_t tile, int32_t code) {
  platform::TileResult t;
  t.tile = tile;
  t.state = tile::TileState::Halted;
  t.exit_code = code;
  return t;
}

struct Rendered {
  int status = 0;
  std::string err;
};

Rendered render(const platform::RunResult& r, StopReason reason = StopReason::None, double timeout = 0) {
  Rendered out;
  out.err = captured([&](std::FILE* f) { out.status = report_end(r, reason, timeout, f); });
  return out;
}

TEST(RunEndReport, FaultPrintsItsLineAndRegistersAndExits3) {
  Problem f = problem(ProblemCode::TileFault, "misaligned access", "load of 4 bytes at 0x00000002");
  f.registers = ThreadRegisters{};
  const platform::RunResult r = ended(RunEndKind::Fault, {f});
  const Rendered out = render(r);
  EXPECT_EQ(out.status, kFaultStatus);
  EXPECT_EQ(out.err, "ipusim: fault: " + to_text(f) + "\n" + registers_text(*f.registers));
}

// A model stopped the run (an RTL block's failed check: Platform::gave_up): an error of
// ipusim's input, not the firmware's fault; its MODEL problem is the JSON's "error".
TEST(RunEndReport, AModelErrorPrintsItsLineAndExits2) {
  const Problem m = problem(ProblemCode::Model, "RTL assertion",
                            "RTL assertion a_arrive_once failed in sync ipu0.sync (sync_ctrl) at cycle 2: twice");
  const platform::RunResult r = ended(RunEndKind::Aborted, {m});
  const Rendered out = render(r);
  EXPECT_EQ(out.status, kModelErrorStatus);
  EXPECT_EQ(out.status, 2);
  EXPECT_EQ(out.err, "ipusim: error: " + to_text(m) + "\n");
  nlohmann::ordered_json j;
  add_end_json(j, r, StopReason::None, StopOptions{});
  EXPECT_EQ(j["error"]["code"], "MODEL") << j.dump();
  EXPECT_TRUE(j["fault"].is_null());
  // A host's abort never reaches `ipusim run`: still a logic error there.
  const platform::RunResult aborted = ended(RunEndKind::Aborted, {problem(ProblemCode::State, "", "aborted")});
  EXPECT_THROW(render(aborted), std::logic_error);
}

TEST(RunEndReport, ExchangeErrorPrintsEveryProblemAndExits3) {
  const Problem a = problem(ProblemCode::Exchange, "send without receive", "tile 0 sends");
  const Problem b = problem(ProblemCode::Exchange, "length mismatch", "tile 1 receives");
  const Rendered out = render(ended(RunEndKind::ExchangeError, {a, b}));
  EXPECT_EQ(out.status, kFaultStatus);
  EXPECT_EQ(out.err, "ipusim: exchange error: " + to_text(a) + "\nipusim: exchange error: " + to_text(b) + "\n");
}

TEST(RunEndReport, DeadlockPrintsAFaultLineAndExits3) {
  const Problem d = problem(ProblemCode::Deadlock, "never finished", "tiles wait");
  const Rendered out = render(ended(RunEndKind::Deadlock, {d}));
  EXPECT_EQ(out.status, kFaultStatus);
  EXPECT_EQ(out.err, "ipusim: fault: " + to_text(d) + "\n");
}

TEST(RunEndReport, HaltedExitsWithTheTilesStatusAndPrintsNothing) {
  platform::RunResult r = ended(RunEndKind::Halted);
  r.tiles = {halted_tile(0, 0), halted_tile(1, 300), halted_tile(2, 7)};
  const Rendered out = render(r);
  EXPECT_EQ(out.status, 255);  // the lowest-numbered non-zero code, clamped
  EXPECT_EQ(out.err, "");
  EXPECT_EQ(stop_reason(r, false), StopReason::None);
  r.console_error = "No space left on device";
  EXPECT_EQ(render(r).status, kConsoleErrorStatus);
}

TEST(RunEndReport, BudgetNamesTheBudgetAndTheTilesStillRunning) {
  platform::RunResult r = ended(RunEndKind::Budget, {problem(ProblemCode::Budget, "cycle budget", "1000 cycles")});
  r.end.running = {{.ipu = 0, .tile = 3, .thread = 1, .pc = 0x40010, .cycle = 1000, .function = "spin"}};
  const StopReason reason = stop_reason(r, false);
  EXPECT_EQ(reason, StopReason::Budget);
  EXPECT_EQ(stop_reason_text(reason, r), "cycle budget");
  const Rendered out = render(r, reason);
  EXPECT_EQ(out.status, kBudgetStatus);
  EXPECT_EQ(out.err, "ipusim: budget: " + to_text(r.end.problems[0]) +
                         "\nipusim: still running: ipu 0 tile 3 thread 1 pc 0x00040010 in spin, cycle 1000\n");
}

TEST(RunEndReport, InterruptedIsATimeoutOrACtrlC) {
  const platform::RunResult r = ended(RunEndKind::Interrupted, {problem(ProblemCode::Interrupted, "", "stopped")});
  const std::string text = to_text(r.end.problems[0]);
  EXPECT_EQ(stop_reason(r, true), StopReason::Timeout);
  EXPECT_EQ(stop_reason_text(StopReason::Timeout, r), "timeout");
  const Rendered timeout = render(r, StopReason::Timeout, 2.5);
  EXPECT_EQ(timeout.status, kTimeoutStatus);
  EXPECT_EQ(timeout.err, "ipusim: timeout: --timeout 2.5 s expired: " + text + "\n");
  EXPECT_EQ(stop_reason(r, false), StopReason::Interrupt);
  EXPECT_EQ(stop_reason_text(StopReason::Interrupt, r), "interrupt");
  const Rendered ctrl_c = render(r, StopReason::Interrupt);
  EXPECT_EQ(ctrl_c.status, kInterruptStatus);
  EXPECT_EQ(ctrl_c.err, "ipusim: interrupted: " + text + "\n");
}

TEST(RunEndReport, AConsoleErrorWinsOverTheStopThatEndedTheSameRun) {
  platform::RunResult r = ended(RunEndKind::Interrupted, {problem(ProblemCode::Interrupted, "", "stopped")});
  r.console_error = "Broken pipe";
  EXPECT_EQ(stop_reason(r, true), StopReason::ConsoleError);
  EXPECT_EQ(stop_reason_text(StopReason::ConsoleError, r), "console error");
  const Rendered out = render(r, StopReason::ConsoleError);
  EXPECT_EQ(out.status, kConsoleErrorStatus);
  EXPECT_EQ(out.err, "");  // its line is the caller's, after the end's
}

TEST(RunEndReport, AHostsEndsAreNoRunWithoutAHost) {
  for (RunEndKind k : {RunEndKind::Aborted, RunEndKind::Paused, RunEndKind::StreamWait})
    EXPECT_THROW(render(ended(k)), std::logic_error) << kind_name(k);
}

TEST(RunEndJson, EachKindFillsItsKeysAndNullsTheOthers) {
  const Problem f = problem(ProblemCode::TileFault, "illegal instruction", "f");
  const Problem d = problem(ProblemCode::Deadlock, "never finished", "d");
  const Problem x = problem(ProblemCode::Exchange, "length mismatch", "x");
  const Problem b = problem(ProblemCode::Budget, "instruction budget", "b");
  const auto json_of = [](const platform::RunResult& r, StopReason reason = StopReason::None) {
    nlohmann::ordered_json j;
    add_end_json(j, r, reason, StopOptions{.max_instructions = 5});
    return j;
  };
  {
    const auto j = json_of(ended(RunEndKind::Fault, {f}));
    EXPECT_EQ(j["fault"], to_text(f));
    EXPECT_TRUE(j["deadlock"].is_null());
    EXPECT_EQ(j["exchange_errors"], nlohmann::ordered_json::array());
    EXPECT_EQ(j["error"]["code"], "TILE_FAULT");
    EXPECT_TRUE(j["stop_reason"].is_null());
  }
  {
    const auto j = json_of(ended(RunEndKind::Deadlock, {d}));
    EXPECT_TRUE(j["fault"].is_null());
    EXPECT_EQ(j["deadlock"], to_text(d));
    EXPECT_EQ(j["error"]["code"], "DEADLOCK");
  }
  {
    const auto j = json_of(ended(RunEndKind::ExchangeError, {x, x}));
    EXPECT_EQ(j["exchange_errors"].size(), 2u);
    EXPECT_EQ(j["exchange_errors"][1], to_text(x));
    EXPECT_EQ(j["error"]["code"], "EXCHANGE");
  }
  {
    platform::RunResult r = ended(RunEndKind::Budget, {b});
    r.end.running = {{.ipu = 1, .tile = 2, .pc = 0x40000, .cycle = 9, .function = ""}};
    const auto j = json_of(r, StopReason::Budget);
    EXPECT_TRUE(j["fault"].is_null());
    EXPECT_EQ(j["error"]["code"], "BUDGET");
    EXPECT_EQ(j["stop_reason"], "instruction budget");
    EXPECT_EQ(j["limits"]["max_instructions"], 5u);
    ASSERT_EQ(j["running"].size(), 1u);
    EXPECT_EQ(j["running"][0]["tile"], 2u);
    EXPECT_TRUE(j["running"][0]["function"].is_null());
  }
  {
    const auto j = json_of(ended(RunEndKind::Halted));
    EXPECT_TRUE(j["fault"].is_null());
    EXPECT_TRUE(j["deadlock"].is_null());
    EXPECT_TRUE(j["error"].is_null());
    EXPECT_EQ(j["running"], nlohmann::ordered_json::array());
    // The keys in the order `ipusim run --json` has always written them.
    std::vector<std::string> keys;
    for (const auto& [k, v] : j.items()) keys.push_back(k);
    EXPECT_EQ(keys, (std::vector<std::string>{"fault", "deadlock", "exchange_errors", "error", "stop_reason", "limits",
                                              "running"}));
  }
}

}  // namespace
}  // namespace ipusim::cli
