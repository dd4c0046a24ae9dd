// `ipusim run` and `serve` under mpirun (docs/distributed.md): one rank gives the bytes,
// exit status and --json (host figures aside) of a run without mpirun, and shows the
// partition; several ranks are refused before any work with one named error, and every
// rank ends within seconds; a rank count the system or its `ranks` cannot take is refused
// by name. mpirun runs as root in CI and on two cores: --allow-run-as-root --oversubscribe.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "cli_run.h"

namespace {

using ipusim::test::CliResult;

const std::string kFirmware = IPUSIM_FIRMWARE_DIR;
const std::string kPod16 = "configs/test/tiny4_pod16.yaml";

CliResult ipusim(const std::string& args) { return ipusim::test::run_command(IPUSIM_BIN, "dist_mpirun_", args); }

// `mpirun -n RANKS ipusim ARGS`.
CliResult mpirun(int ranks, const std::string& args) {
  return ipusim::test::run_command(std::string(IPUSIM_MPIRUN) + " --allow-run-as-root --oversubscribe -n " +
                                       std::to_string(ranks) + " " + IPUSIM_BIN,
                                   "dist_mpirun_" + std::to_string(ranks) + "_", args);
}

nlohmann::json json_file(const std::string& path) {
  std::ifstream in(path);
  return nlohmann::json::parse(in);
}

// The --json summary without its host figures (which differ run by run) and the
// partition (a host arrangement, present only under a launcher).
nlohmann::json simulated_figures(nlohmann::json j) {
  for (const char* host : {"host_seconds", "mips", "elaboration_seconds", "jit_regions", "jit_code_bytes",
                           "jit_seconds", "jit_share", "iss_seconds", "kernel_share", "batch_seconds",
                           "serial_share", "host_threads", "batches", "exchange_plan_seconds",
                           "exchange_parallel_seconds", "host_components", "partition"})
    j.erase(host);
  return j;
}

size_t count(const std::string& text, const std::string& part) {
  size_t n = 0;
  for (size_t at = text.find(part); at != std::string::npos; at = text.find(part, at + 1)) ++n;
  return n;
}

struct Case {
  std::string config, elf;
};

class OneRank : public ::testing::TestWithParam<Case> {};

TEST_P(OneRank, IsTheRunWithoutMpirunAndShowsThePartition) {
  const Case& c = GetParam();
  // Named after the test and its case: the cases run side by side under ctest -j.
  const std::string json_plain = ipusim::test::temp_path("dist_plain_", "json");
  const std::string json_mpi = ipusim::test::temp_path("dist_mpi_", "json");
  const std::string run = "run --threads 1 --config " + c.config + " --elf " + kFirmware + "/" + c.elf;
  const CliResult plain = ipusim(run + " --json " + json_plain);
  const CliResult mpi = mpirun(1, run + " --json " + json_mpi);
  ASSERT_EQ(plain.status, 0) << plain.err;
  EXPECT_EQ(mpi.status, plain.status) << mpi.err;
  EXPECT_EQ(mpi.out, plain.out);
  EXPECT_NE(mpi.err.find("  partition over 1 rank (balanced by tiles)\n    rank 0: "), std::string::npos) << mpi.err;
  EXPECT_EQ(plain.err.find("partition over"), std::string::npos) << plain.err;
  const nlohmann::json a = json_file(json_plain), b = json_file(json_mpi);
  EXPECT_FALSE(a.contains("partition"));
  ASSERT_TRUE(b.contains("partition"));
  EXPECT_EQ(b.at("partition").at("ranks"), 1);
  EXPECT_EQ(b.at("partition").at("cut_links").size(), 0u);
  EXPECT_EQ(simulated_figures(a), simulated_figures(b));
}

INSTANTIATE_TEST_SUITE_P(Dist, OneRank,
                         ::testing::Values(Case{"configs/test/tiny4x2_smem.yaml", "hello.elf"},
                                           Case{"configs/test/tiny4_m2000.yaml", "ipu_allreduce.elf"},
                                           Case{kPod16, "ipu_allreduce.elf"}),
                         [](const auto& info) {
                           const std::string name = std::filesystem::path(info.param.config).stem().string();
                           return name + "_" + std::filesystem::path(info.param.elf).stem().string();
                         });

TEST(SeveralRanks, ARunIsRefusedBeforeAnyWorkOnceAndEveryRankEnds) {
  for (int ranks : {2, 4}) {
    const CliResult r = mpirun(ranks, "run --config " + kPod16 + " --elf " + kFirmware + "/hello.elf");
    EXPECT_EQ(r.status, 2) << r.err;
    EXPECT_EQ(r.out, "");
    const std::string message = "ipusim: error: rank 0 of " + std::to_string(ranks) + ": mpirun -n " +
                                std::to_string(ranks) + ": running tiny4_pod16 split over " + std::to_string(ranks) +
                                " ranks is refused: exchange and zone-2 syncs between IPUs of different ranks are "
                                "not exact in this build";
    EXPECT_EQ(count(r.err, message), 1u) << r.err;
    // Reported once: rank 0's abort ended the others within their grace.
    EXPECT_EQ(count(r.err, "ipusim: error:"), 1u) << r.err;
  }
}

TEST(SeveralRanks, MoreRanksThanBoardsAreRefusedByName) {
  const CliResult r = mpirun(2, "run --config configs/test/tiny4_m2000.yaml --elf " + kFirmware + "/hello.elf");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("ipusim: error: rank 0 of 2: mpirun -n: 2 ranks for tiny4_m2000's 1 board: a rank runs "
                       "whole boards, so at most 1 ranks"),
            std::string::npos)
      << r.err;
}

TEST(SeveralRanks, ARankCountOtherThanTheConfigsRanksIsAConfigError) {
  const std::string path = ::testing::TempDir() + "dist_mpirun_ranked.yaml";
  std::ofstream(path) << "kind: system\nname: ranked\nboard: "
                      << std::filesystem::absolute("configs/test/tiny4_m2000.yaml").string()
                      << "\nboards: 4\nranks: [[0], [1], [2, 3]]\n";
  const CliResult r = mpirun(2, "run --config " + path + " --elf " + kFirmware + "/hello.elf");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("ipusim: error: rank 0 of 2: " + path +
                       ":5: ranks: lists 3 ranks, but the job has 2 (mpirun -n 3, or change `ranks`)"),
            std::string::npos)
      << r.err;
}

TEST(SeveralRanks, ServeIsRefused) {
  const CliResult r = mpirun(2, "serve --config " + kPod16 + " --socket " + ::testing::TempDir() + "dist.sock");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("ipusim: error: rank 0 of 2: mpirun -n 2: ipusim serve over several ranks is refused"),
            std::string::npos)
      << r.err;
}

}  // namespace
