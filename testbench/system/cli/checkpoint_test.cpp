// `ipusim run --checkpoint-at / --restore` (docs/checkpoints.md): a run checkpointed at a
// sync and restored (all-reduce, Jacobi, the AMP GEMM) gives what the uninterrupted run gives (console, cycles, the --json
// figures but the host's), also onto the other ISS engine and another host thread count;
// taking the checkpoint changes nothing of the run that takes it; a damaged checkpoint,
// another ELF or config, and an option that would change the results are refused, named.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <string>

#include <nlohmann/json.hpp>

#include "cli_run.h"

namespace ipusim {
namespace {

const std::string kBin = IPUSIM_BIN;
const std::string kFirmware = IPUSIM_FIRMWARE_DIR;
const std::string kTiny16 = "configs/test/tiny16.yaml";

std::string temp_path(const std::string& name) { return test::temp_path("ckpt_", name); }

struct RunOutput {
  test::CliResult cli;
  nlohmann::json json;
};

RunOutput ipusim_run(const std::string& args, const std::string& json_name) {
  const std::string json = temp_path(json_name);
  std::filesystem::remove(json);
  RunOutput r;
  r.cli = test::run_cli(kBin, "ckpt_" + json_name, args + " --console raw --json " + json);
  if (std::filesystem::exists(json)) r.json = nlohmann::json::parse(test::read_file(json));
  return r;
}

// The --json figures that are the host's (time, threads, engine, batches), not the run's.
nlohmann::json simulated_figures(nlohmann::json j) {
  for (const char* key : {"host_seconds", "mips", "elaboration_seconds", "iss_core", "iss_core_source", "itrace_tiles",
                          "jit_regions", "jit_code_bytes", "jit_seconds", "jit_share", "iss_seconds", "kernel_share",
                          "batch_seconds", "serial_share", "host_threads", "batches", "exchange_plan_seconds",
                          "exchange_parallel_seconds", "host_components"})
    j.erase(key);
  return j;
}

bool ends_with(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

struct Case {
  const char* kernel;
  uint32_t superstep;
};

void PrintTo(const Case& c, std::ostream* os) { *os << c.kernel << " at superstep " << c.superstep; }

class CheckpointRestore : public ::testing::TestWithParam<Case> {};

TEST_P(CheckpointRestore, RestoredOntoInterpAndTwoThreadsEqualsTheUninterruptedRun) {
  const Case c = GetParam();
  const std::string run = "--config " + kTiny16 + " --elf " + kFirmware + "/" + c.kernel + ".elf";
  const std::string dir = temp_path("dir");
  std::filesystem::remove_all(dir);

  const RunOutput whole = ipusim_run(run + " --iss jit --threads 1", "whole.json");
  ASSERT_EQ(whole.cli.status, 0) << whole.cli.err;
  const RunOutput taking = ipusim_run(run + " --iss jit --threads 1 --checkpoint-at superstep:" + std::to_string(c.superstep) +
                                    " --checkpoint-dir " + dir,
                                "taking.json");
  ASSERT_EQ(taking.cli.status, 0) << taking.cli.err;
  EXPECT_NE(taking.cli.err.find("ipusim: checkpoint at superstep " + std::to_string(c.superstep) + "\n"),
            std::string::npos)
      << taking.cli.err;
  // Taking a checkpoint changes nothing of the run.
  EXPECT_EQ(taking.cli.out, whole.cli.out);
  EXPECT_EQ(simulated_figures(taking.json), simulated_figures(whole.json));

  const RunOutput restored = ipusim_run("--restore " + dir + " --iss interp --threads 2", "restored.json");
  ASSERT_EQ(restored.cli.status, 0) << restored.cli.err;
  EXPECT_EQ(restored.json["iss_core"], "interp");
  EXPECT_EQ(restored.json["host_threads"], 2);
  // The lines printed after the checkpoint, and every figure of the whole run.
  EXPECT_TRUE(ends_with(whole.cli.out, restored.cli.out)) << restored.cli.out;
  EXPECT_FALSE(restored.cli.out.empty());
  EXPECT_EQ(simulated_figures(restored.json), simulated_figures(whole.json));
  EXPECT_GT(whole.json["tile_cycles"].get<uint64_t>(), 0u);
  EXPECT_EQ(restored.json["tile_cycles"], whole.json["tile_cycles"]);
  EXPECT_EQ(restored.json["supersteps"], whole.json["supersteps"]);
  EXPECT_EQ(restored.json["per_tile"], whole.json["per_tile"]);
  // The effective config beside the JSON is the uninterrupted run's, byte for byte.
  EXPECT_EQ(test::read_file(temp_path("restored.json") + ".config.yaml"),
            test::read_file(temp_path("whole.json") + ".config.yaml"));
  std::filesystem::remove_all(dir);
}

INSTANTIATE_TEST_SUITE_P(Tiny16, CheckpointRestore,
                         ::testing::Values(Case{"allreduce", 2}, Case{"jacobi", 20}, Case{"gemm_small", 4}),
                         [](const auto& info) { return std::string(info.param.kernel); });

TEST(CheckpointEvery, EachCheckpointIsInItsOwnDirectoryAndRestoresToTheSameEndAlsoOnLockstep) {
  const std::string run = "--config " + kTiny16 + " --elf " + kFirmware + "/jacobi.elf";
  const std::string dir = temp_path("dir");
  std::filesystem::remove_all(dir);
  const RunOutput taking = ipusim_run(run + " --threads 1 --checkpoint-at every:16 --checkpoint-dir " + dir, "taking.json");
  ASSERT_EQ(taking.cli.status, 0) << taking.cli.err;
  for (const char* n : {"superstep-16", "superstep-32", "superstep-48"})
    EXPECT_TRUE(std::filesystem::exists(std::filesystem::path(dir) / n / "state.ipuckpt")) << n;
  EXPECT_FALSE(std::filesystem::exists(std::filesystem::path(dir) / "superstep-64"));
  const RunOutput restored = ipusim_run("--restore " + dir + "/superstep-32 --threads 2", "restored.json");
  ASSERT_EQ(restored.cli.status, 0) << restored.cli.err;
  EXPECT_TRUE(ends_with(taking.cli.out, restored.cli.out));
  EXPECT_EQ(simulated_figures(restored.json), simulated_figures(taking.json));
  // Onto the translator checked against the interpreter: no divergence, the same end.
  const RunOutput lockstep = ipusim_run("--restore " + dir + "/superstep-48 --iss lockstep --threads 1", "lockstep.json");
  ASSERT_EQ(lockstep.cli.status, 0) << lockstep.cli.err;
  EXPECT_TRUE(ends_with(taking.cli.out, lockstep.cli.out));
  EXPECT_EQ(simulated_figures(lockstep.json), simulated_figures(taking.json));
  std::filesystem::remove_all(dir);
}

// A system of four IPUs whose links inject faults: the link layer's state (each fault
// injector's generators and counts, the statistics, when each link direction is free),
// the group's sync and the joint exchange phases carry over the checkpoint, taken
// between the ring's phases, onto the interpreter on 2 host threads and onto lockstep.
TEST(CheckpointLinks, AnM2000AllReduceWithLinkFaultsRestoresOntoInterpAndLockstep) {
  const std::string faults = " --link-faults 'ber=2e-4,drop=0.02,ack_drop=0.05,seed=11'";
  const std::string run = "--config configs/test/tiny4_m2000.yaml --elf " + kFirmware + "/ipu_allreduce.elf" + faults;
  const std::string dir = temp_path("dir");
  std::filesystem::remove_all(dir);
  const RunOutput whole = ipusim_run(run + " --iss jit --threads 1", "whole.json");
  ASSERT_EQ(whole.cli.status, 0) << whole.cli.err;
  // The faults did something on both sides of the checkpoint.
  uint64_t crc_errors = 0, replays = 0, exchange_after = 0;
  for (const auto& l : whole.json["links"]) {
    crc_errors += l["crc_errors"].get<uint64_t>();
    replays += l["replays"].get<uint64_t>();
  }
  EXPECT_GT(crc_errors, 0u);
  EXPECT_GT(replays, 0u);
  const RunOutput taking =
      ipusim_run(run + " --iss jit --threads 1 --checkpoint-at superstep:5 --checkpoint-dir " + dir, "taking.json");
  ASSERT_EQ(taking.cli.status, 0) << taking.cli.err;
  EXPECT_EQ(taking.cli.out, whole.cli.out);
  EXPECT_EQ(simulated_figures(taking.json), simulated_figures(whole.json));
  for (size_t s = 5; s < whole.json["supersteps"].size(); ++s)
    for (const auto& ipu : whole.json["supersteps"][s]["ipus"]) exchange_after += ipu["exchange_cycles"].get<uint64_t>();
  EXPECT_GT(exchange_after, 0u) << "no exchange after the checkpoint";

  for (const char* engine : {"--iss interp --threads 2", "--iss lockstep --threads 1"}) {
    const RunOutput restored = ipusim_run("--restore " + dir + " " + engine, "restored.json");
    ASSERT_EQ(restored.cli.status, 0) << engine << ": " << restored.cli.err;
    EXPECT_FALSE(restored.cli.out.empty()) << engine;
    EXPECT_TRUE(ends_with(whole.cli.out, restored.cli.out)) << engine << ": " << restored.cli.out;
    EXPECT_EQ(restored.json["links"], whole.json["links"]) << engine;
    EXPECT_EQ(restored.json["tile_cycles"], whole.json["tile_cycles"]) << engine;
    EXPECT_EQ(simulated_figures(restored.json), simulated_figures(whole.json)) << engine;
  }
  std::filesystem::remove_all(dir);
}

// --checkpoint-at cycle:C: the first sync at or after cycle C. The checkpoint is the
// one superstep:N takes for that sync, byte for byte; a later C gives a later sync, and
// the restored run ends as the uninterrupted one.
TEST(CheckpointAtCycle, TheFirstSyncAtOrAfterTheCycleIsTheSuperstepCheckpointOfThatSync) {
  const std::string run = "--config " + kTiny16 + " --elf " + kFirmware + "/jacobi.elf --threads 1";
  const RunOutput whole = ipusim_run(run, "whole.json");
  ASSERT_EQ(whole.cli.status, 0) << whole.cli.err;
  const uint64_t cycles = whole.json["tile_cycles"].get<uint64_t>();
  uint64_t last = 0;
  for (const double share : {0.3, 0.6}) {
    const uint64_t cycle = uint64_t(double(cycles) * share);
    const std::string dir = temp_path("cycle_dir"), same = temp_path("superstep_dir");
    std::filesystem::remove_all(dir);
    std::filesystem::remove_all(same);
    const RunOutput taking =
        ipusim_run(run + " --checkpoint-at cycle:" + std::to_string(cycle) + " --checkpoint-dir " + dir, "taking.json");
    ASSERT_EQ(taking.cli.status, 0) << taking.cli.err;
    EXPECT_EQ(taking.cli.out, whole.cli.out);
    const std::string said = "ipusim: checkpoint at superstep ";
    const size_t at = taking.cli.err.find(said);
    ASSERT_NE(at, std::string::npos) << taking.cli.err;
    const uint64_t superstep = std::stoull(taking.cli.err.substr(at + said.size()));
    EXPECT_NE(taking.cli.err.find("(the first sync at or after cycle " + std::to_string(cycle) + ")"),
              std::string::npos)
        << taking.cli.err;
    EXPECT_GT(superstep, last);
    last = superstep;
    // The sync is at or after C and the one before it is not: superstep N-1 (0-based
    // row N-2) was released before C, and every tile's arrival at sync N is no earlier.
    const auto& rows = whole.json["supersteps"];
    ASSERT_GT(rows.size(), superstep);
    EXPECT_GE(rows[superstep - 1]["ipus"][0]["end_cycle"].get<uint64_t>(), cycle);
    const test::CliResult by_superstep = test::run_cli(
        kBin, "ckpt_by_superstep", run + " --quiet --checkpoint-at superstep:" + std::to_string(superstep) +
                                       " --checkpoint-dir " + same);
    ASSERT_EQ(by_superstep.status, 0) << by_superstep.err;
    EXPECT_EQ(test::read_file(dir + "/state.ipuckpt"), test::read_file(same + "/state.ipuckpt")) << superstep;
    const RunOutput restored = ipusim_run("--restore " + dir + " --iss interp --threads 2", "restored.json");
    ASSERT_EQ(restored.cli.status, 0) << restored.cli.err;
    EXPECT_TRUE(ends_with(whole.cli.out, restored.cli.out));
    EXPECT_EQ(simulated_figures(restored.json), simulated_figures(whole.json));
    std::filesystem::remove_all(dir);
    std::filesystem::remove_all(same);
  }
}

// A cycle budget's end is pending in simulated time while the run waits at the
// checkpoint's sync: the run pauses there all the same (it does not run on to the
// budget), and with a budget that cuts the run short the restore ends where it does.
TEST(CheckpointBudget, APendingCycleBudgetLetsTheRunPauseAtTheCheckpoint) {
  const std::string run = "--config " + kTiny16 + " --elf " + kFirmware + "/jacobi.elf --threads 1";
  const RunOutput whole = ipusim_run(run, "whole.json");
  ASSERT_EQ(whole.cli.status, 0) << whole.cli.err;
  const uint64_t cycles = whole.json["tile_cycles"].get<uint64_t>();
  for (const uint64_t budget : {cycles + 1000, cycles * 2 / 3}) {
    const std::string limited = run + " --max-cycles " + std::to_string(budget);
    const std::string dir = temp_path("dir");
    std::filesystem::remove_all(dir);
    const RunOutput uninterrupted = ipusim_run(limited, "limited.json");
    const RunOutput taking = ipusim_run(limited + " --checkpoint-at superstep:20 --checkpoint-dir " + dir, "taking.json");
    EXPECT_EQ(taking.cli.status, uninterrupted.cli.status) << taking.cli.err;
    EXPECT_NE(taking.cli.err.find("ipusim: checkpoint at superstep 20\n"), std::string::npos) << taking.cli.err;
    EXPECT_EQ(simulated_figures(taking.json), simulated_figures(uninterrupted.json)) << budget;
    const RunOutput restored =
        ipusim_run("--restore " + dir + " --iss interp --threads 2 --max-cycles " + std::to_string(budget), "restored.json");
    EXPECT_EQ(restored.cli.status, uninterrupted.cli.status) << restored.cli.err;
    EXPECT_TRUE(ends_with(uninterrupted.cli.out, restored.cli.out)) << budget;
    EXPECT_EQ(simulated_figures(restored.json), simulated_figures(uninterrupted.json)) << budget;
    std::filesystem::remove_all(dir);
  }
}

// IPUs that halt one after another (ipu_halt_early: IPU i halts after 2 + 3i
// supersteps): at superstep 6 the tiles of IPUs 0 and 1 have halted, each with its exit
// code and halt cycle, and the sync controllers count them as departed; restored onto
// the interpreter on 2 host threads, the run ends as the uninterrupted one does.
TEST(CheckpointHalted, TilesThatHaltedBeforeTheCheckpointStayHaltedWithTheirExitCodes) {
  const std::string run = "--config configs/test/tiny4_m2000.yaml --elf " + kFirmware + "/system/ipu_halt_early.elf";
  const std::string dir = temp_path("dir");
  std::filesystem::remove_all(dir);
  const RunOutput whole = ipusim_run(run + " --iss jit --threads 1", "whole.json");
  ASSERT_NE(whole.json, nlohmann::json()) << whole.cli.err;
  EXPECT_EQ(whole.json["supersteps"].size(), 12u);  // IPU 3: 11 syncs, then its halt
  const RunOutput taking =
      ipusim_run(run + " --iss jit --threads 1 --checkpoint-at superstep:6 --checkpoint-dir " + dir, "taking.json");
  EXPECT_EQ(taking.cli.status, whole.cli.status) << taking.cli.err;
  EXPECT_NE(taking.cli.err.find("ipusim: checkpoint at superstep 6\n"), std::string::npos) << taking.cli.err;
  EXPECT_EQ(taking.cli.out, whole.cli.out);
  EXPECT_EQ(simulated_figures(taking.json), simulated_figures(whole.json));

  const RunOutput restored = ipusim_run("--restore " + dir + " --iss interp --threads 2", "restored.json");
  EXPECT_EQ(restored.cli.status, whole.cli.status) << restored.cli.err;
  EXPECT_FALSE(restored.cli.out.empty());
  EXPECT_TRUE(ends_with(whole.cli.out, restored.cli.out)) << restored.cli.out;
  EXPECT_EQ(restored.cli.out.find("ipu 1 "), std::string::npos) << "IPU 1 had halted: " << restored.cli.out;
  EXPECT_EQ(simulated_figures(restored.json), simulated_figures(whole.json));
  // Each IPU's tiles halted with its own code, at their own cycles.
  std::set<int32_t> codes;
  std::set<uint64_t> cycles;
  for (const auto& t : restored.json["per_tile"]) {
    codes.insert(t["exit_code"].get<int32_t>());
    cycles.insert(t["cycles"].get<uint64_t>());
  }
  EXPECT_EQ(codes, (std::set<int32_t>{0, 1, 2, 3}));
  EXPECT_GT(cycles.size(), 4u);
  std::filesystem::remove_all(dir);
}

// Past the accounts' window of 4096 superstep rows: the rows that left it (the --json
// spool) are in the checkpoint's `rows` section, so the restored run's --json has every
// superstep from 0, as the uninterrupted run's.
TEST(CheckpointLongRun, ACheckpointPastTheSuperstepWindowRestoresEveryRow) {
  // About 5100 supersteps of four tiles syncing for ever, ended by an instruction budget.
  const std::string budget = " --max-instructions 31000";
  const std::string run =
      "--config configs/test/tiny4.yaml --elf " + kFirmware + "/device_api/endless_sync.elf" + budget;
  const std::string dir = temp_path("dir");
  std::filesystem::remove_all(dir);
  const RunOutput whole = ipusim_run(run + " --iss jit --threads 1", "whole.json");
  ASSERT_EQ(whole.cli.status, 4) << whole.cli.err;
  ASSERT_GT(whole.json["supersteps"].size(), 4600u);
  const RunOutput taking =
      ipusim_run(run + " --iss jit --threads 1 --checkpoint-at superstep:4500 --checkpoint-dir " + dir, "taking.json");
  ASSERT_EQ(taking.cli.status, 4) << taking.cli.err;
  EXPECT_EQ(simulated_figures(taking.json), simulated_figures(whole.json));
  // Without --json the rows that left the window went nowhere but the checkpoint.
  const std::string quiet_dir = temp_path("quiet_dir");
  std::filesystem::remove_all(quiet_dir);
  const test::CliResult quiet = test::run_cli(kBin, "ckpt_quiet", run + " --quiet --checkpoint-at superstep:4500 "
                                                                       "--checkpoint-dir " + quiet_dir);
  ASSERT_EQ(quiet.status, 4) << quiet.err;
  for (const std::string& from : {dir, quiet_dir}) {
    const RunOutput restored =
        ipusim_run("--restore " + from + " --iss interp --threads 2" + budget, "restored.json");
    ASSERT_EQ(restored.cli.status, 4) << restored.cli.err;
    EXPECT_EQ(restored.json["supersteps"].size(), whole.json["supersteps"].size()) << from;
    EXPECT_EQ(simulated_figures(restored.json), simulated_figures(whole.json)) << from;
  }
  std::filesystem::remove_all(dir);
  std::filesystem::remove_all(quiet_dir);
}

// Streaming memory and host streams: the gateway's pages and each stream FIFO's bytes
// and positions are in the checkpoint's `streaming` section. smem_rw on tiny4 x 2 checks
// every word it reads back of what its neighbour wrote a superstep before (at superstep
// 4 the second round's writes are in streaming memory, its reads to come); stream_fill
// fills a device-to-host FIFO nobody drains until it overflows in superstep 9, so a
// restore without the FIFO's bytes would run longer.
struct StreamingCase {
  const char* elf;
  uint32_t superstep;
  int status;
};

void PrintTo(const StreamingCase& c, std::ostream* os) { *os << c.elf << " at superstep " << c.superstep; }

class CheckpointStreaming : public ::testing::TestWithParam<StreamingCase> {};

TEST_P(CheckpointStreaming, RestoredOntoInterpAndTwoThreadsEqualsTheUninterruptedRun) {
  const StreamingCase c = GetParam();
  const std::string run = "--config configs/test/tiny4x2_smem.yaml --elf " + kFirmware + "/streaming/" + c.elf + ".elf";
  const std::string dir = temp_path("dir");
  std::filesystem::remove_all(dir);
  const RunOutput whole = ipusim_run(run + " --iss jit --threads 1", "whole.json");
  ASSERT_EQ(whole.cli.status, c.status) << whole.cli.err;
  EXPECT_GT(whole.json["streaming_copies"].get<uint64_t>(), 0u);
  const RunOutput taking = ipusim_run(run + " --iss jit --threads 1 --checkpoint-at superstep:" +
                                          std::to_string(c.superstep) + " --checkpoint-dir " + dir,
                                      "taking.json");
  ASSERT_EQ(taking.cli.status, c.status) << taking.cli.err;
  EXPECT_EQ(taking.cli.out, whole.cli.out);
  EXPECT_EQ(simulated_figures(taking.json), simulated_figures(whole.json));
  const RunOutput restored = ipusim_run("--restore " + dir + " --iss interp --threads 2", "restored.json");
  EXPECT_EQ(restored.cli.status, c.status) << restored.cli.err;
  EXPECT_TRUE(ends_with(whole.cli.out, restored.cli.out)) << restored.cli.out;
  EXPECT_EQ(restored.cli.out.find("wrong words"), std::string::npos) << restored.cli.out;
  EXPECT_EQ(simulated_figures(restored.json), simulated_figures(whole.json));
  std::filesystem::remove_all(dir);
}

INSTANTIATE_TEST_SUITE_P(Tiny4x2Smem, CheckpointStreaming,
                         ::testing::Values(StreamingCase{"smem_rw", 4, 0}, StreamingCase{"stream_fill", 5, 3}),
                         [](const auto& info) { return std::string(info.param.elf); });

// A checkpoint holds architectural state only: taken with every block on TLM it restores
// onto the blocks' RTL, and the reverse; the RTL blocks start from the state the TLM had
// (docs/checkpoints.md "Onto other blocks").
class CheckpointRtl : public ::testing::Test {
 protected:
  const std::string run_ = "--config configs/test/tiny4_m2000.yaml --elf " + kFirmware +
                           "/ipu_allreduce.elf --link-faults 'ber=2e-4,drop=0.02,ack_drop=0.05,seed=11'";
  void TearDown() override { std::filesystem::remove_all(temp_path("dir")); }
};

TEST_F(CheckpointRtl, TakenOnTlmRestoredOntoSyncLinkAmpRtlEqualsTheUninterruptedRtlRun) {
  const std::string dir = temp_path("dir");
  std::filesystem::remove_all(dir);
  const RunOutput tlm = ipusim_run(run_ + " --threads 1", "tlm.json");
  ASSERT_EQ(tlm.cli.status, 0) << tlm.cli.err;
  const RunOutput rtl = ipusim_run(run_ + " --threads 1 --rtl sync,link,amp", "rtl.json");
  ASSERT_EQ(rtl.cli.status, 0) << rtl.cli.err;
  const RunOutput taking =
      ipusim_run(run_ + " --threads 1 --checkpoint-at superstep:5 --checkpoint-dir " + dir, "taking.json");
  ASSERT_EQ(taking.cli.status, 0) << taking.cli.err;
  const RunOutput restored = ipusim_run("--restore " + dir + " --rtl sync,link,amp --threads 2", "restored.json");
  ASSERT_EQ(restored.cli.status, 0) << restored.cli.err;
  EXPECT_EQ(restored.json["rtl"], "sync,link,amp");
  EXPECT_FALSE(restored.cli.out.empty());
  EXPECT_TRUE(ends_with(rtl.cli.out, restored.cli.out)) << restored.cli.out;
  EXPECT_EQ(simulated_figures(restored.json), simulated_figures(rtl.json));
  EXPECT_EQ(test::read_file(temp_path("restored.json") + ".config.yaml"),
            test::read_file(temp_path("rtl.json") + ".config.yaml"));
  nlohmann::json tlm_figures = simulated_figures(tlm.json), restored_figures = simulated_figures(restored.json);
  tlm_figures.erase("rtl");
  restored_figures.erase("rtl");
  tlm_figures.erase("config");
  restored_figures.erase("config");
  EXPECT_EQ(restored_figures, tlm_figures);
}

TEST_F(CheckpointRtl, TakenOnRtlRestoredOntoTlmEqualsTheUninterruptedTlmRun) {
  const std::string dir = temp_path("dir");
  std::filesystem::remove_all(dir);
  const RunOutput tlm = ipusim_run(run_ + " --threads 1", "tlm.json");
  ASSERT_EQ(tlm.cli.status, 0) << tlm.cli.err;
  const RunOutput taking = ipusim_run(
      run_ + " --threads 1 --rtl sync,link,amp --checkpoint-at superstep:5 --checkpoint-dir " + dir, "taking.json");
  ASSERT_EQ(taking.cli.status, 0) << taking.cli.err;
  // The config given again is the checkpoint's but for the RTL selection: accepted.
  const RunOutput restored =
      ipusim_run("--restore " + dir + " --config configs/test/tiny4_m2000.yaml --rtl none --iss interp", "restored.json");
  ASSERT_EQ(restored.cli.status, 0) << restored.cli.err;
  EXPECT_EQ(restored.json["rtl"], "none");
  EXPECT_TRUE(ends_with(tlm.cli.out, restored.cli.out)) << restored.cli.out;
  EXPECT_EQ(simulated_figures(restored.json), simulated_figures(tlm.json));
  EXPECT_EQ(test::read_file(temp_path("restored.json") + ".config.yaml"),
            test::read_file(temp_path("tlm.json") + ".config.yaml"));
}

// One checkpoint of allreduce, then each kind of refusal on it (or a damaged copy).
class CheckpointRefusal : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = temp_path("dir");
    std::filesystem::remove_all(dir_);
    const test::CliResult r = test::run_cli(kBin, "ckpt_take", "--config " + kTiny16 + " --elf " + kFirmware +
                                                                   "/allreduce.elf --quiet --checkpoint-at superstep:2 "
                                                                   "--checkpoint-dir " + dir_);
    ASSERT_EQ(r.status, 0) << r.err;
    state_ = dir_ + "/state.ipuckpt";
    ASSERT_TRUE(std::filesystem::exists(state_));
    // Only the file itself: the temporary name was renamed over.
    EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir_), std::filesystem::directory_iterator{}), 1);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  test::CliResult restore(const std::string& more = "") {
    return test::run_cli(kBin, "ckpt_restore", "--restore " + dir_ + " --quiet " + more);
  }
  std::string dir_, state_;
};

TEST_F(CheckpointRefusal, ATruncatedCheckpointIsRefusedAsTruncated) {
  std::filesystem::resize_file(state_, std::filesystem::file_size(state_) / 2);
  const test::CliResult r = restore();
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("ipusim: error: "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(": truncated: "), std::string::npos) << r.err;
}

TEST_F(CheckpointRefusal, AFlippedByteIsRefusedAsCorrupt) {
  const auto size = std::filesystem::file_size(state_);
  for (const double where : {0.03, 0.5, 0.9}) {
    std::fstream f(state_, std::ios::in | std::ios::out | std::ios::binary);
    const std::streamoff at = std::streamoff(double(size) * where);
    f.seekg(at);
    char b = 0;
    f.read(&b, 1);
    b = char(b ^ 0x10);
    f.seekp(at);
    f.write(&b, 1);
    f.close();
    const test::CliResult r = restore();
    EXPECT_EQ(r.status, 2) << where;
    EXPECT_NE(r.err.find(": corrupt: "), std::string::npos) << where << ": " << r.err;
    // Back as it was: each flip is refused on its own.
    std::fstream g(state_, std::ios::in | std::ios::out | std::ios::binary);
    b = char(b ^ 0x10);
    g.seekp(at);
    g.write(&b, 1);
  }
  EXPECT_EQ(restore().status, 0);
}

TEST_F(CheckpointRefusal, AnotherElfIsRefusedNamingTheElf) {
  const test::CliResult same = restore("--elf " + kFirmware + "/allreduce.elf");
  EXPECT_EQ(same.status, 0) << same.err;
  const test::CliResult r = restore("--elf " + kFirmware + "/jacobi.elf");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("--elf '" + kFirmware + "/jacobi.elf' differs from the ELF of the checkpoint"),
            std::string::npos)
      << r.err;
}

TEST_F(CheckpointRefusal, AnotherConfigIsRefusedNamingTheConfig) {
  const test::CliResult same = restore("--config " + kTiny16);
  EXPECT_EQ(same.status, 0) << same.err;
  const test::CliResult r = restore("--config configs/test/tiny4.yaml");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("--config 'configs/test/tiny4.yaml' differs from the config of the checkpoint"),
            std::string::npos)
      << r.err;
}

TEST_F(CheckpointRefusal, OptionsThatWouldChangeTheResultsAreRefusedByName) {
  const test::CliResult r = restore("--tiles 0-3 --link-faults ber=1e-6");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("--tiles (the checkpoint's tiles run), --link-faults (faults change the run) would change the "
                       "results"),
            std::string::npos)
      << r.err;
  const test::CliResult missing = test::run_cli(kBin, "ckpt_missing", "--restore " + dir_ + "/nothing --quiet");
  EXPECT_EQ(missing.status, 2);
  EXPECT_NE(missing.err.find("holds no checkpoint"), std::string::npos) << missing.err;
}

}  // namespace
}  // namespace ipusim
