// The partition of a system over ranks (dist/partition.h): balanced by tiles, contiguous,
// whole boards, the links it cuts with their latency; the config's `ranks` override and
// every error it can give (FILE:LINE: KEY), and rank counts refused by name.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "../config/temp_config.h"
#include "config/config_loader.h"
#include "config/config_writer.h"
#include "dist/partition.h"

namespace ipusim::dist {
namespace {

using config::test::file_with;
using config::test::what_of;

config::SystemConfig load(const std::string& path) { return config::load_system(path); }

// A system of `boards` tiny4_m2000 boards in a ladder, with `extra` lines (a `ranks` key).
std::string system_file(uint32_t boards, const std::vector<std::string>& extra, const std::string& tag = "") {
  std::vector<std::string> lines = {
      "kind: system", "name: tiny_ladder",
      "board: " + std::filesystem::absolute("configs/test/tiny4_m2000.yaml").string(),
      "boards: " + std::to_string(boards), "topology: ladder"};
  lines.insert(lines.end(), extra.begin(), extra.end());
  // Named after the test, '/' of a parameterised one's name made '_' (file_with would not).
  std::string test = ::testing::UnitTest::GetInstance()->current_test_info()->name();
  for (char& c : test)
    if (c == '/') c = '_';
  std::string text;
  for (const std::string& l : lines) text += l + "\n";
  const std::string path = ::testing::TempDir() + "dist_partition_" + test + tag + ".yaml";
  std::ofstream(path) << text;
  return path;
}

TEST(Partition, OneRankHoldsEverythingAndCutsNothing) {
  const auto system = load("configs/test/tiny4_pod16.yaml");
  const Partition p = partition_system(system, 1, "--ranks");
  ASSERT_EQ(p.size(), 1u);
  EXPECT_EQ(p.ranks[0].boards, (std::vector<uint32_t>{0, 1, 2, 3}));
  EXPECT_EQ(p.ranks[0].ipus.size(), 16u);
  EXPECT_EQ(p.ranks[0].tiles, 64u);
  EXPECT_TRUE(p.cut_links.empty());
  EXPECT_EQ(p.lookahead_cycles(), 0u);
  EXPECT_FALSE(p.from_config);
}

TEST(Partition, BalancedByTilesContiguousLargerFirst) {
  // Every board count up to 16 over every rank count: each board on one rank, runs of
  // consecutive boards, tiles per rank differing by at most one board's, the larger first.
  for (uint32_t boards = 1; boards <= 16; ++boards) {
    const auto system = load(system_file(boards, {}, std::to_string(boards)));
    const uint64_t board_tiles = uint64_t(system.board.ipus) * system.board.chip.tiles;
    for (uint32_t ranks = 1; ranks <= boards; ++ranks) {
      const Partition p = partition_system(system, ranks, "--ranks");
      ASSERT_EQ(p.size(), ranks);
      std::vector<uint32_t> all;
      uint64_t most = 0, least = UINT64_MAX, sum = 0;
      for (uint32_t r = 0; r < ranks; ++r) {
        const RankShare& s = p.ranks[r];
        ASSERT_FALSE(s.boards.empty()) << boards << " boards, rank " << r << " of " << ranks;
        EXPECT_EQ(s.boards.back() - s.boards.front() + 1, s.boards.size()) << "not contiguous";
        EXPECT_EQ(s.tiles, s.boards.size() * board_tiles);
        EXPECT_EQ(s.ipus.size(), s.boards.size() * system.board.ipus);
        if (r > 0) {
          EXPECT_LE(s.tiles, p.ranks[r - 1].tiles) << "the larger runs come first";
        }
        most = std::max(most, s.tiles);
        least = std::min(least, s.tiles);
        sum += s.tiles;
        all.insert(all.end(), s.boards.begin(), s.boards.end());
        for (uint32_t b : s.boards) EXPECT_EQ(p.rank_of_board[b], r);
      }
      EXPECT_LE(most - least, board_tiles) << boards << " boards over " << ranks;
      EXPECT_EQ(sum, system.total_tiles());
      std::vector<uint32_t> expected(boards);
      for (uint32_t b = 0; b < boards; ++b) expected[b] = b;
      EXPECT_EQ(all, expected);
      // Deterministic: the same again.
      EXPECT_EQ(partition_system(system, ranks, "--ranks").rank_of_board, p.rank_of_board);
    }
  }
}

TEST(Partition, CutLinksAreExactlyTheLinksBetweenRanksWithTheirLatency) {
  const auto system = load("configs/test/tiny4_pod16.yaml");
  const Partition p = partition_system(system, 2, "--ranks");
  EXPECT_EQ(p.ranks[0].boards, (std::vector<uint32_t>{0, 1}));
  EXPECT_EQ(p.ranks[1].boards, (std::vector<uint32_t>{2, 3}));
  size_t crossing = 0;
  for (uint32_t l = 0; l < system.links().size(); ++l) {
    const auto& w = system.links()[l];
    if ((w.ipu_a < 8) != (w.ipu_b < 8)) ++crossing;
  }
  ASSERT_GT(crossing, 0u);
  ASSERT_EQ(p.cut_links.size(), crossing);
  // 250 ns at the tiny chip's clock, rounded as the link model rounds it.
  const uint64_t latency = uint64_t(std::llround(system.board.chip.ipu_links.latency_ns * 1e-9 *
                                                 system.board.chip.clock_hz));
  for (const CutLink& c : p.cut_links) {
    EXPECT_EQ(system.links()[c.link], c.wire);
    EXPECT_NE(c.rank_a, c.rank_b);
    EXPECT_EQ(c.rank_a, c.wire.ipu_a / 8);
    EXPECT_EQ(c.rank_b, c.wire.ipu_b / 8);
    EXPECT_EQ(c.latency_cycles, latency);
  }
  EXPECT_EQ(p.lookahead_cycles(), latency);
}

TEST(Partition, RankCountsOutsideOneToBoardsAreRefusedByName) {
  const auto system = load("configs/test/tiny4_pod16.yaml");
  try {
    partition_system(system, 0, "--ranks");
    ADD_FAILURE() << "0 ranks";
  } catch (const PartitionError& e) {
    EXPECT_EQ(std::string(e.what()), "--ranks: 0 ranks: a system runs on at least 1 rank");
  }
  try {
    partition_system(system, 5, "mpirun -n");
    ADD_FAILURE() << "5 ranks for 4 boards";
  } catch (const PartitionError& e) {
    EXPECT_EQ(std::string(e.what()),
              "mpirun -n: 5 ranks for tiny4_pod16's 4 boards: a rank runs whole boards, so at most 4 ranks");
  }
  // A board file is one board: one rank.
  EXPECT_THROW(partition_system(load("configs/test/tiny4_m2000.yaml"), 2, "--ranks"), PartitionError);
}

TEST(PartitionOverride, TheConfigsRanksAreUsed) {
  const std::string path = system_file(4, {"ranks: [[3], [0, 2], [1]]"});
  const auto system = load(path);
  const config::RanksConfig& chosen = system.ranks;
  ASSERT_EQ(chosen.boards, (std::vector<std::vector<uint32_t>>{{3}, {0, 2}, {1}}));
  EXPECT_EQ(chosen.file, path);
  EXPECT_EQ(chosen.line, 6);
  const Partition p = partition_system(system, 3, "--ranks");
  EXPECT_TRUE(p.from_config);
  EXPECT_EQ(p.rank_of_board, (std::vector<uint32_t>{1, 2, 1, 0}));
  EXPECT_EQ(p.ranks[1].ipus, (std::vector<uint32_t>{0, 1, 2, 3, 8, 9, 10, 11}));
  // Lists are kept in ascending board order whatever the file's order.
  EXPECT_EQ(load(system_file(4, {"ranks: [[3, 1], [2, 0]]"}, "unsorted")).ranks.boards,
            (std::vector<std::vector<uint32_t>>{{1, 3}, {0, 2}}));
  // A file without the key, a board file: none given.
  EXPECT_FALSE(load("configs/test/tiny4_pod16.yaml").ranks.given());
  EXPECT_FALSE(load("configs/test/tiny4_m2000.yaml").ranks.given());
}

// `ranks` is a member of SystemConfig: a run's effective config (`FILE.config.yaml`, a
// checkpoint's) carries it, and loading that gives the same partition; an error found at
// the run names the effective file and its line.
TEST(PartitionOverride, TheEffectiveConfigCarriesTheRanks) {
  const auto system = load(system_file(4, {"ranks: [[3], [0, 2], [1]]"}));
  const std::string yaml = config::to_yaml(system);
  EXPECT_NE(yaml.find("ranks: [[3], [0, 2], [1]]"), std::string::npos) << yaml;
  const std::string effective = file_with("dist_partition_effective_", {yaml});
  const auto reloaded = load(effective);
  EXPECT_EQ(reloaded.ranks, system.ranks);
  EXPECT_EQ(reloaded.ranks.boards, system.ranks.boards);
  EXPECT_EQ(reloaded.ranks.file, effective);
  EXPECT_EQ(partition_system(reloaded, 3, "mpirun -n").rank_of_board, (std::vector<uint32_t>{1, 2, 1, 0}));
  try {
    partition_system(reloaded, 2, "mpirun -n");
    ADD_FAILURE() << "2 ranks for a list of 3";
  } catch (const config::ConfigError& e) {
    EXPECT_EQ(std::string(e.what()).rfind(effective + ":", 0), 0u) << e.what();
    EXPECT_NE(std::string(e.what()).find(": ranks: lists 3 ranks, but the job has 2"), std::string::npos) << e.what();
  }
  // Without the key the effective config has none, and a partition is balanced.
  const auto plain = load("configs/test/tiny4_pod16.yaml");
  EXPECT_EQ(config::to_yaml(plain).find("ranks:"), std::string::npos);
}

TEST(PartitionOverride, ARankCountOtherThanTheListsIsAConfigError) {
  const std::string path = system_file(4, {"ranks: [[0, 1], [2, 3]]"});
  const auto system = load(path);
  try {
    partition_system(system, 3, "mpirun -n");
    ADD_FAILURE() << "3 ranks for a list of 2";
  } catch (const config::ConfigError& e) {
    EXPECT_EQ(std::string(e.what()),
              path + ":6: ranks: lists 2 ranks, but the job has 3 (mpirun -n 2, or change `ranks`)");
  }
}

struct BadRanks {
  std::string ranks;     // the `ranks` lines
  int line;
  std::string key, problem;
};

class BadRanksOverride : public ::testing::TestWithParam<BadRanks> {};

TEST_P(BadRanksOverride, NameFileLineAndKey) {
  const BadRanks& b = GetParam();
  const std::string path = system_file(4, {b.ranks});
  EXPECT_EQ(what_of(path), path + ":" + std::to_string(b.line) + ": " + b.key + ": " + b.problem);
}

INSTANTIATE_TEST_SUITE_P(
    Dist, BadRanksOverride,
    ::testing::Values(
        BadRanks{"ranks: [[0, 1], [2, 7]]", 6, "ranks[1][1]",
                 "board 7 does not exist (the system has boards 0 to 3)"},
        BadRanks{"ranks: [[0, 1], [1, 2, 3]]", 6, "ranks[1][0]",
                 "board 1 is on rank 0 and on rank 1: a board runs on exactly one rank"},
        BadRanks{"ranks: [[0, 0], [1, 2, 3]]", 6, "ranks[0][1]",
                 "board 0 is on rank 0 twice: a board runs on exactly one rank"},
        BadRanks{"ranks: [[0, 1, 2, 3], []]", 6, "ranks[1]", "rank 1 has no boards"},
        BadRanks{"ranks: [[0, 1], [2]]", 6, "ranks", "board 3 is on no rank: every board runs on exactly one rank"},
        BadRanks{"ranks: [[0, 1], [x]]", 6, "ranks[1][0]", "expected a board index (a whole number)"},
        BadRanks{"ranks: [0, 1]", 6, "ranks[0]", "expected a list of board indices, e.g. [0, 1]"},
        BadRanks{"ranks: 2", 6, "ranks",
                 "expected a list of ranks, each a list of board indices, e.g. ranks: [[0, 1], [2, 3]]"}));

TEST(PartitionOverride, OnlyASystemFileHasRanks) {
  const std::string path = file_with("dist_partition_", {"kind: board", "name: b", "chip: " +
      std::filesystem::absolute("configs/test/tiny4.yaml").string(), "ipus: 1", "ranks: [[0]]"});
  EXPECT_NE(what_of(path).find(path + ":5: ranks: unknown key"), std::string::npos) << what_of(path);
}

TEST(IndexRuns, ConsecutiveIndicesBecomeRanges) {
  EXPECT_EQ(index_runs({}), "");
  EXPECT_EQ(index_runs({4}), "4");
  EXPECT_EQ(index_runs({0, 1, 2, 3}), "0-3");
  EXPECT_EQ(index_runs({0, 2, 5, 6, 7}), "0, 2, 5-7");
}

}  // namespace
}  // namespace ipusim::dist
