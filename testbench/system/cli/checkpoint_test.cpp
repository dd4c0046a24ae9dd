// `ipusim run --checkpoint-at / --restore` (docs/checkpoints.md): a run checkpointed at a
// sync and restored (all-reduce, Jacobi, the AMP GEMM) gives what the uninterrupted run gives (console, cycles, the --json
// figures but the host's), also onto the other ISS engine and another host thread count;
// taking the checkpoint changes nothing of the run that takes it; a damaged checkpoint,
// another ELF or config, and an option that would change the results are refused, named.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
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
