// `ipusim run` stopping a run that never ends (docs/platform.md "Run budgets and
// interrupts"): --max-cycles and --timeout on a full GC200 with one tile in an endless
// loop name that tile, its thread, pc and function; a whole chip looping is summarised;
// --max-instructions is exact on every thread count; Ctrl-C still writes the JSON and the
// trace; a bad --timeout is a usage error.
#include <gtest/gtest.h>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>

#include <nlohmann/json.hpp>

#include "child_run.h"
#include "cli_run.h"

namespace ipusim {
namespace {

using Clock = std::chrono::steady_clock;
const std::string kBin = IPUSIM_BIN;
const std::string kGc200 = "configs/gc200.yaml";
const std::string kEndless = std::string(IPUSIM_FIRMWARE_DIR) + "/system/endless.elf";          // tile 3 loops
const std::string kEndlessAll = std::string(IPUSIM_FIRMWARE_DIR) + "/system/endless_all.elf";  // every tile

std::string temp_path(const std::string& name) { return test::temp_path("ipusim_budget_", name); }

struct Timed {
  test::CliResult r;
  double seconds = 0;
};

Timed run(const std::string& args) {
  const auto t0 = Clock::now();
  Timed t{test::run_cli(kBin, "ipusim_budget_", args), 0};
  t.seconds = std::chrono::duration<double>(Clock::now() - t0).count();
  return t;
}

nlohmann::json json_file(const std::string& path) {
  std::ifstream in(path);
  nlohmann::json j;
  if (in) in >> j;
  return j;
}

size_t count_lines(const std::string& s) { return size_t(std::count(s.begin(), s.end(), '\n')); }

// The one looping tile, as the JSON's `running` and the stderr line name it.
void expect_names_tile_3(const test::CliResult& r, const nlohmann::json& j) {
  ASSERT_EQ(j["running"].size(), 1u) << r.err;
  const auto& t = j["running"][0];
  EXPECT_EQ(t["ipu"], 0);
  EXPECT_EQ(t["tile"], 3);
  EXPECT_EQ(t["thread"], 0);
  EXPECT_EQ(t["function"], "spin_forever");
  EXPECT_EQ(j["error"]["tile"], 3);
  EXPECT_EQ(j["error"]["pc"], t["pc"]);
  EXPECT_NE(r.err.find("ipusim: still running: ipu 0 tile 3 thread 0 pc 0x"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(" in spin_forever"), std::string::npos) << r.err;
}

TEST(IpusimBudget, MaxCyclesStopsAnEndlessLoopOnGc200) {
  const std::string json = temp_path("run.json");
  const Timed t = run("--config " + kGc200 + " --elf " + kEndless + " --max-cycles 30000000 --threads 2 --json " + json);
  EXPECT_EQ(t.r.status, 4) << t.r.err;
  EXPECT_LT(t.seconds, 60.0);
  EXPECT_NE(t.r.err.find("ipusim: budget: the run used up its budget of 30000000 cycles with 1 tile(s) still running"),
            std::string::npos)
      << t.r.err;
  const nlohmann::json j = json_file(json);
  EXPECT_EQ(j["stop_reason"], "cycle budget");
  EXPECT_EQ(j["limits"]["max_cycles"], 30000000);
  EXPECT_EQ(j["error"]["code"], "BUDGET");
  EXPECT_EQ(j["error"]["cycle"], 30000000);
  EXPECT_EQ(j["tile_cycles"], 30000000);  // the run ends at the budget, not before, not after
  EXPECT_EQ(j["tile_summary"]["states"]["halted"], 1471);
  expect_names_tile_3(t.r, j);
}

TEST(IpusimBudget, TimeoutStopsAnEndlessLoopOnGc200) {
  const std::string json = temp_path("run.json");
  const Timed t = run("--config " + kGc200 + " --elf " + kEndless + " --timeout 2 --threads 2 --json " + json);
  EXPECT_EQ(t.r.status, 124) << t.r.err;
  EXPECT_GE(t.seconds, 2.0);
  EXPECT_LT(t.seconds, 30.0);
  EXPECT_NE(t.r.err.find("ipusim: timeout: --timeout 2 s expired: the run was interrupted"), std::string::npos) << t.r.err;
  const nlohmann::json j = json_file(json);
  EXPECT_EQ(j["stop_reason"], "timeout");
  EXPECT_EQ(j["error"]["code"], "INTERRUPTED");
  EXPECT_EQ(j["tile_summary"]["states"]["halted"], 1471);
  expect_names_tile_3(t.r, j);
}

// Every tile of a GC200 looping: stderr summarises (one line per place), the JSON lists all.
TEST(IpusimBudget, AWholeChipLoopingIsSummarised) {
  const std::string json = temp_path("run.json");
  const Timed t = run("--config " + kGc200 + " --elf " + kEndlessAll + " --max-cycles 60000 --threads 2 --quiet --json " + json);
  EXPECT_EQ(t.r.status, 4) << t.r.err;
  EXPECT_NE(t.r.err.find("ipusim: still running: 1472 tiles at 1 place(s):"), std::string::npos) << t.r.err;
  EXPECT_NE(t.r.err.find("1472 tile(s) at pc 0x"), std::string::npos) << t.r.err;
  EXPECT_NE(t.r.err.find(" in spin_forever (the first: ipu 0 tile 0 thread 0)"), std::string::npos) << t.r.err;
  EXPECT_LT(count_lines(t.r.err), 10u) << t.r.err;
  const nlohmann::json j = json_file(json);
  ASSERT_EQ(j["running"].size(), 1472u);
  EXPECT_EQ(j["running"][1471]["tile"], 1471);
  EXPECT_EQ(j["running"][1471]["function"], "spin_forever");
}

// The budget is a point in simulated time: the same stop, bytes and cycles on 1 and 2
// host threads (uneven work per tile, exchanges: batches of different shapes).
TEST(IpusimBudget, MaxInstructionsIsExactOnEveryThreadCount) {
  nlohmann::json runs[2];
  for (int threads : {1, 2}) {
    const std::string json = temp_path("t" + std::to_string(threads) + ".json");
    const Timed t = run("--config configs/test/tiny16.yaml --elf " + std::string(IPUSIM_FIRMWARE_DIR) +
                        "/system/uneven_xchg.elf --max-instructions 1000000 --quiet --threads " + std::to_string(threads) +
                        " --json " + json);
    EXPECT_EQ(t.r.status, 4) << t.r.err;
    runs[threads - 1] = json_file(json);
  }
  const nlohmann::json& a = runs[0];
  const nlohmann::json& b = runs[1];
  EXPECT_EQ(a["stop_reason"], "instruction budget");
  EXPECT_GE(a["instructions"].get<uint64_t>(), 1000000u);
  EXPECT_LT(a["instructions"].get<uint64_t>(), 2113369u) << "the whole program's count: the budget did not stop it";
  for (const char* key : {"instructions", "tile_cycles", "per_tile", "supersteps", "running", "error", "exchange_bytes"})
    EXPECT_EQ(a[key], b[key]) << key;
}

// Without reaching it a budget changes nothing.
TEST(IpusimBudget, AnUnusedBudgetChangesNothing) {
  const std::string elf = std::string(IPUSIM_FIRMWARE_DIR) + "/hello.elf";
  const std::string plain = temp_path("plain.json"), budget = temp_path("budget.json");
  const Timed a = run("--config configs/test/tiny4.yaml --elf " + elf + " --quiet --json " + plain);
  const Timed b = run("--config configs/test/tiny4.yaml --elf " + elf +
                      " --quiet --max-cycles 100000000 --max-instructions 100000000 --timeout 60 --json " + budget);
  EXPECT_EQ(a.r.status, 0);
  EXPECT_EQ(b.r.status, 0) << b.r.err;
  EXPECT_EQ(a.r.out, b.r.out);
  const nlohmann::json ja = json_file(plain), jb = json_file(budget);
  EXPECT_EQ(jb["stop_reason"], nullptr);
  EXPECT_EQ(jb["error"], nullptr);
  for (const char* key : {"instructions", "tile_cycles", "per_tile", "supersteps"}) EXPECT_EQ(ja[key], jb[key]) << key;
}

TEST(IpusimBudget, BadValuesAreUsageErrors) {
  const Timed t = run("--config configs/test/tiny4.yaml --elf " + kEndless + " --timeout=-1");
  EXPECT_EQ(t.r.status, 2);
  EXPECT_NE(t.r.err.find("--timeout '-1': not a positive number of seconds"), std::string::npos) << t.r.err;
  const Timed z = run("--config configs/test/tiny4.yaml --elf " + kEndless + " --max-cycles 0");
  EXPECT_EQ(z.r.status, 2);
  EXPECT_NE(z.r.err.find("--max-cycles"), std::string::npos) << z.r.err;
}

// Found by the hostile user (issue 37): --max-cycles 18446744073709551611 spun for
// ever at cycle 0 (the cores' room before the limit wrapped) and 2^60 stopped at once as
// "budget used up" with the console lost (SystemC time wrapped). A budget past the last
// cycle simulated time can reach is no limit: hello runs to its end and prints.
TEST(IpusimBudget, BudgetsNearTwoTo64AreNoLimit) {
  const std::string hello = std::string(IPUSIM_FIRMWARE_DIR) + "/hello.elf";
  for (const std::string option : {"--max-cycles", "--max-instructions"})
    for (const char* n : {"18446744073709551611", "1152921504606846976", "18446744073709551615"}) {
      const Timed t = run("--config configs/test/tiny4.yaml --elf " + hello + " " + option + " " + n);
      EXPECT_EQ(t.r.status, 0) << option << " " << n << ": " << t.r.err;
      EXPECT_EQ(count_lines(t.r.out), 4u) << option << " " << n << ": " << t.r.out;
      EXPECT_LT(t.seconds, 60) << option << " " << n;
    }
}

// CLI11 read "-5" into a uint64_t as 2^64 - 5 (a budget of about 2^64, silently) and an
// empty --timeout or --max-memory as "not given": each is an error naming the option.
TEST(IpusimBudget, NegativeEmptyAndOverflowingValuesAreErrorsNamingTheOption) {
  const std::string base = "--config configs/test/tiny4.yaml --elf " + kEndless;
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"--max-cycles=-5", "ipusim: error: --max-cycles '-5': negative"},
      {"--max-instructions=-1", "ipusim: error: --max-instructions '-1': negative"},
      {"--max-cycles ''", "ipusim: error: --max-cycles '': empty"},
      {"--max-cycles 18446744073709551616", "ipusim: error: --max-cycles '18446744073709551616': more than 2^64 - 1"},
      {"--max-instructions 1e6", "ipusim: error: --max-instructions '1e6': not a whole number"},
      {"--max-instructions 0", "ipusim: error: --max-instructions '0': must be at least 1"},
      {"--timeout ''", "ipusim: error: --timeout '': not a positive number of seconds"},
      {"--max-memory ''", "ipusim: error: --max-memory '': not a size"},
  };
  for (const auto& [args, says] : cases) {
    const Timed t = run(base + " " + args);
    EXPECT_EQ(t.r.status, 2) << args << ": " << t.r.err;
    EXPECT_EQ(t.r.err.rfind(says, 0), 0u) << args << ": " << t.r.err;
  }
}

// Ctrl-C: the run ends where it is, exit 130, and the JSON and the trace are written.
TEST(IpusimBudget, SigintStillWritesTheJsonAndTheTrace) {
  const std::string json = temp_path("run.json"), trace = temp_path("trace.json"), err = temp_path("stderr");
  proc::Command command = proc::Command::program(
      {kBin, "run", "--config", kGc200, "--elf", kEndless, "--threads", "2", "--json", json, "--trace", trace});
  command.out = proc::Stream::null();
  command.err = proc::Stream::file(err);
  proc::Child child(command);
  ASSERT_TRUE(child.started());
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));  // elaborated, tile 3 looping
  ASSERT_TRUE(child.send_signal(SIGINT));
  ASSERT_TRUE(child.ended_within(30)) << "ipusim run did not end within 30 s of SIGINT";
  const int status = child.wait().wait_status;
  const std::string text = test::read_file(err);
  ASSERT_TRUE(WIFEXITED(status)) << "wait status " << status << ": " << text;
  EXPECT_EQ(WEXITSTATUS(status), 130) << text;
  EXPECT_NE(text.find("ipusim: interrupted: the run was interrupted"), std::string::npos) << text;
  const nlohmann::json j = json_file(json);
  EXPECT_EQ(j["stop_reason"], "interrupt");
  EXPECT_EQ(j["exit_code"], 130);
  ASSERT_EQ(j["running"].size(), 1u);
  EXPECT_EQ(j["running"][0]["tile"], 3);
  const nlohmann::json tr = json_file(trace);
  EXPECT_TRUE(tr.contains("traceEvents")) << "no trace written";
}

// Found by cli_fuzz_test: a system of 16384 IPUs (4096 boards) took minutes to
// elaborate, printing nothing, whatever --timeout said (its clock started after
// elaboration). --timeout bounds the elaboration too: a named timeout, exit 124, at once.
TEST(RunBudget, TimeoutBoundsTheElaborationOfAnOversizedSystem) {
  const std::string system = temp_path("huge.yaml");
  std::ofstream(system) << "kind: system\nname: huge\nboard: " << std::filesystem::current_path().string()
                        << "/configs/test/tiny4_m2000.yaml\nboards: 4096\n";
  const test::ChildOutcome r = test::run_child(
      {kBin, "run", "--config", system, "--elf", std::string(IPUSIM_FIRMWARE_DIR) + "/hello.elf", "--timeout", "0.5"},
      temp_path("huge.stderr"), 60);
  ASSERT_EQ(r.end, test::ChildOutcome::End::kExited) << "still elaborating after 60 s: " << r.err;
  EXPECT_EQ(r.code, 124) << r.err;
  EXPECT_NE(r.err.find("ipusim: timeout: the system of 16384 IPUs x 4 tiles (" + system +
                       ") was still being elaborated after --timeout 0.5 s; nothing ran"),
            std::string::npos)
      << r.err;
  EXPECT_LT(r.seconds, 20) << "the deadline did not end the elaboration";
}

}  // namespace
}  // namespace ipusim
