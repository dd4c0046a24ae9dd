// `ipusim info --ranks R` (docs/distributed.md "The partition"): the partition as text and
// as --json's `partition`, the cut links with their latency, and the rank counts and
// `ranks` overrides refused by name.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "cli_run.h"

namespace {

using ipusim::test::CliResult;

CliResult ipusim(const std::string& args) { return ipusim::test::run_command(IPUSIM_BIN, "dist_info_", args); }

// The text from the partition's heading to the end.
std::string partition_block(const std::string& out) {
  const size_t at = out.find("partition over ");
  return at == std::string::npos ? "" : out.substr(at);
}

TEST(InfoRanks, Pod16OverTwoRanksAsText) {
  const CliResult r = ipusim("info --config configs/test/tiny4_pod16.yaml --ranks 2");
  ASSERT_EQ(r.status, 0) << r.err;
  const std::string block = partition_block(r.out);
  EXPECT_EQ(block.rfind("partition over 2 ranks (balanced by tiles)\n"
                        "  rank 0: boards 0-1, IPUs 0-7, 32 tiles\n"
                        "  rank 1: boards 2-3, IPUs 8-15, 32 tiles\n"
                        "  cut IPU-Links: 4, lookahead 25 cycles (250 ns)\n",
                        0),
            0u)
      << block;
  // One line per cut link, each between an IPU of boards 0-1 and one of boards 2-3.
  size_t lines = 0;
  for (size_t at = block.find("    link "); at != std::string::npos; at = block.find("    link ", at + 1)) ++lines;
  EXPECT_EQ(lines, 4u) << block;
  EXPECT_NE(block.find("(rank 0) - IPU "), std::string::npos) << block;
  EXPECT_NE(block.find("(rank 1), latency 25 cycles\n"), std::string::npos) << block;
}

TEST(InfoRanks, JsonPartitionMatchesTheLinks) {
  const CliResult r = ipusim("info --config configs/test/tiny4_pod16.yaml --ranks 3 --json");
  ASSERT_EQ(r.status, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  const auto& p = j.at("partition");
  EXPECT_EQ(p.at("ranks"), 3);
  EXPECT_EQ(p.at("source"), "balanced");
  ASSERT_EQ(p.at("per_rank").size(), 3u);
  EXPECT_EQ(p.at("per_rank")[0].at("boards"), nlohmann::json::parse("[0, 1]"));
  EXPECT_EQ(p.at("per_rank")[1].at("boards"), nlohmann::json::parse("[2]"));
  EXPECT_EQ(p.at("per_rank")[2].at("boards"), nlohmann::json::parse("[3]"));
  EXPECT_EQ(p.at("per_rank")[2].at("ipus"), nlohmann::json::parse("[12, 13, 14, 15]"));
  EXPECT_EQ(p.at("per_rank")[2].at("tiles"), 16);
  // Every link of the system whose ends are on different ranks, and only those.
  auto rank_of = [](uint32_t ipu) { return ipu < 8 ? 0u : ipu < 12 ? 1u : 2u; };
  size_t expected = 0;
  for (size_t l = 0; l < j.at("links").size(); ++l) {
    const auto& w = j.at("links")[l];
    if (rank_of(w.at("ipu_a")) != rank_of(w.at("ipu_b"))) ++expected;
  }
  ASSERT_GT(expected, 0u);
  ASSERT_EQ(p.at("cut_links").size(), expected);
  for (const auto& c : p.at("cut_links")) {
    const auto& w = j.at("links")[c.at("link").get<size_t>()];
    for (const char* key : {"ipu_a", "port_a", "ipu_b", "port_b"}) EXPECT_EQ(c.at(key), w.at(key)) << key;
    EXPECT_EQ(c.at("rank_a"), rank_of(c.at("ipu_a")));
    EXPECT_EQ(c.at("rank_b"), rank_of(c.at("ipu_b")));
    EXPECT_EQ(c.at("latency_cycles"), 25);
  }
  EXPECT_EQ(p.at("lookahead_cycles"), 25);
  // Without --ranks, no partition.
  const CliResult plain = ipusim("info --config configs/test/tiny4_pod16.yaml --json");
  EXPECT_FALSE(nlohmann::json::parse(plain.out).contains("partition"));
}

TEST(InfoRanks, OneRankCutsNothing) {
  const CliResult r = ipusim("info --config configs/test/tiny4_m2000.yaml --ranks 1");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(partition_block(r.out),
            "partition over 1 rank (balanced by tiles)\n"
            "  rank 0: board 0, IPUs 0-3, 16 tiles\n"
            "  cut IPU-Links: none\n");
}

TEST(InfoRanks, RankCountsOutsideOneToBoardsAreRefusedByName) {
  for (const auto& [arg, message] : std::initializer_list<std::pair<std::string, std::string>>{
           {"0", "ipusim: error: --ranks: 0 ranks: a system runs on at least 1 rank\n"},
           {"-3", "ipusim: error: --ranks: -3 ranks: a system runs on at least 1 rank\n"},
           {"5", "ipusim: error: --ranks: 5 ranks for tiny4_pod16's 4 boards: a rank runs whole boards, so at "
                 "most 4 ranks\n"}}) {
    const CliResult r = ipusim("info --config configs/test/tiny4_pod16.yaml --ranks " + arg);
    EXPECT_EQ(r.status, 2) << arg;
    EXPECT_EQ(r.err, message) << arg;
    EXPECT_EQ(r.out, "") << arg;
  }
}

TEST(InfoRanks, TheConfigsRanksAndItsMismatch) {
  const std::string path = ::testing::TempDir() + "dist_info_ranked.yaml";
  std::ofstream(path) << "kind: system\nname: ranked\nboard: "
                      << std::filesystem::absolute("configs/test/tiny4_m2000.yaml").string()
                      << "\nboards: 4\nranks: [[0, 3], [1, 2]]\n";
  const CliResult r = ipusim("info --config " + path + " --ranks 2");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(partition_block(r.out).rfind("partition over 2 ranks (the config's `ranks`)\n"
                                         "  rank 0: boards 0, 3, IPUs 0-3, 12-15, 32 tiles\n"
                                         "  rank 1: boards 1-2, IPUs 4-11, 32 tiles\n",
                                         0),
            0u)
      << r.out;
  const CliResult bad = ipusim("info --config " + path + " --ranks 3");
  EXPECT_EQ(bad.status, 2);
  EXPECT_EQ(bad.err, "ipusim: error: " + path + ":5: ranks: lists 2 ranks, but the job has 3 (mpirun -n 2, or change "
                     "`ranks`)\n");
}

}  // namespace
