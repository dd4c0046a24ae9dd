// The limit of a cgroup (v2) is what it leaves beside its working set (docs/platform.md,
// "Memory estimate"): page cache a container's build left behind does not count, and
// memory.high counts when it is lower than memory.max. Read from a fake cgroup tree.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "config/config_loader.h"
#include "platform/memory_estimate.h"

namespace ipusim::platform {
namespace {

constexpr uint64_t kMiB = uint64_t{1} << 20;

// A fresh cgroup2 root under the test's scratch folder.
std::string fake_root(const std::string& name) {
  const std::filesystem::path root = std::filesystem::path(::testing::TempDir()) / ("cgroup_" + name);
  std::filesystem::remove_all(root);
  std::filesystem::create_directories(root / "ci.slice" / "job.scope");
  return root.string();
}

void write(const std::string& path, const std::string& text) { std::ofstream(path) << text; }

// A level with `max`, `current` and `inactive_file` (bytes), memory.high "max".
void level(const std::string& dir, const std::string& max, uint64_t current, uint64_t inactive_file) {
  write(dir + "/memory.max", max + "\n");
  write(dir + "/memory.high", "max\n");
  write(dir + "/memory.current", std::to_string(current) + "\n");
  write(dir + "/memory.stat", "anon 1000\nfile 2000\nactive_file 300\ninactive_file " + std::to_string(inactive_file) +
                                  "\nslab 12\n");
}

TEST(CgroupRoom, PageCacheThatCanBeReclaimedDoesNotCount) {
  const std::string root = fake_root("cache");
  // 2 GiB allowed, 1.9 GiB in use of which 1.8 GiB is inactive page cache (a build).
  level(root + "/ci.slice/job.scope", std::to_string(2048 * kMiB), 1946 * kMiB, 1843 * kMiB);
  const auto room = cgroup_room(root, "/ci.slice/job.scope");
  ASSERT_TRUE(room.has_value());
  EXPECT_EQ(room->bytes, 2048 * kMiB - (1946 - 1843) * kMiB);
  EXPECT_FALSE(room->address_space);
  EXPECT_NE(room->source.find("memory.max less the working set (memory.current - inactive_file) of cgroup " + root +
                              "/ci.slice/job.scope"),
            std::string::npos)
      << room->source;
}

TEST(CgroupRoom, TheLowestLevelAndMemoryHighCount) {
  const std::string root = fake_root("levels");
  level(root + "/ci.slice/job.scope", "max", 100 * kMiB, 0);
  level(root + "/ci.slice", std::to_string(4096 * kMiB), 1000 * kMiB, 200 * kMiB);
  write(root + "/ci.slice/memory.high", std::to_string(1024 * kMiB) + "\n");  // lower than max
  const auto room = cgroup_room(root, "/ci.slice/job.scope");
  ASSERT_TRUE(room.has_value());
  EXPECT_EQ(room->bytes, 1024 * kMiB - 800 * kMiB);
  EXPECT_EQ(room->source.rfind("memory.high less", 0), 0u) << room->source;
  EXPECT_NE(room->source.find("of cgroup " + root + "/ci.slice"), std::string::npos) << room->source;
}

TEST(CgroupRoom, AWorkingSetAboveTheLimitLeavesNoRoom) {
  const std::string root = fake_root("over");
  level(root + "/ci.slice/job.scope", std::to_string(100 * kMiB), 150 * kMiB, 10 * kMiB);
  const auto room = cgroup_room(root, "/ci.slice/job.scope");
  ASSERT_TRUE(room.has_value());
  EXPECT_EQ(room->bytes, 0u);
}

TEST(CgroupRoom, NoLimitAtAnyLevelIsNone) {
  const std::string root = fake_root("none");
  level(root + "/ci.slice/job.scope", "max", 100 * kMiB, 0);
  EXPECT_FALSE(cgroup_room(root, "/ci.slice/job.scope").has_value());
  EXPECT_FALSE(cgroup_room(root, "").has_value());
}

// A run maps the SRAM of the tiles it loads, a host interface (no loaded count) of every
// tile; each host thread past the first adds its stack and malloc arena.
TEST(MemoryEstimate, AddressSpaceCountsTheSramOfLoadedTilesAndTheHostThreads) {
  const config::SystemConfig gc200 = config::load_system("configs/gc200.yaml");
  const uint64_t sram = gc200.board.chip.tile.sram_bytes;
  const MemoryEstimate every = estimate_memory(gc200);
  const MemoryEstimate one = estimate_memory(gc200, kShortProgram, 1);
  EXPECT_EQ(every.address_bytes - one.address_bytes, (gc200.total_tiles() - 1) * sram);
  EXPECT_EQ(estimate_memory(gc200, kShortProgram, std::nullopt, 3).address_bytes - every.address_bytes, 2 * 136 * kMiB);
  EXPECT_EQ(estimate_memory(gc200, kShortProgram, std::nullopt, 3).resident_bytes, every.resident_bytes);
}

// --iss lockstep: each loaded tile's shadow maps a second SRAM and holds a second image.
TEST(MemoryEstimate, LockstepCountsAShadowSramPerLoadedTile) {
  config::SystemConfig gc200 = config::load_system("configs/gc200.yaml");
  const uint64_t sram = gc200.board.chip.tile.sram_bytes;
  const MemoryEstimate plain = estimate_memory(gc200, kShortProgram, 10);
  gc200.board.chip.tile.iss = IssCore::lockstep;
  const MemoryEstimate lockstep = estimate_memory(gc200, kShortProgram, 10);
  EXPECT_EQ(lockstep.address_bytes - plain.address_bytes, 10 * sram);
  EXPECT_EQ(lockstep.resident_bytes - plain.resident_bytes, 10 * kShortProgram.image_bytes);
}

// Sizes in messages keep a decimal where whole MiB would hide the difference ("13 MiB
// more than the 13 MiB allowed").
TEST(MemoryText, OneDecimalBelowAHundredMiB) {
  EXPECT_EQ(memory_text(13 * kMiB + 196 * 1024), "13.2 MiB");
  EXPECT_EQ(memory_text(13 * kMiB), "13.0 MiB");
  EXPECT_EQ(memory_text(640 * kMiB), "640 MiB");
  EXPECT_EQ(memory_text(uint64_t{3} << 29), "1.5 GiB");
  EXPECT_EQ(memory_text(12 * 1024), "12 KiB");
  EXPECT_EQ(memory_text(100), "100 B");
}

}  // namespace
}  // namespace ipusim::platform
