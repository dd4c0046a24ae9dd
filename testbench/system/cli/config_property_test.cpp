// Validation once (docs/config.md, docs/platform.md "Tests"): seeded
// YAML-aware value mutations of every reference config (configs/*.yaml, configs/test/*.yaml)
// go to every consumer. Whatever `ipusim info` accepts, `ipusim run` and an in-process
// device (ipudrv::open("config:...")) must accept too and run hello.elf to its end; what
// info rejects must be rejected with FILE:LINE (the mutant's name and a line). A rule that
// only `run` or a device enforces is a mismatch this test lists, with the mutant kept to
// replay (build/test-tmp/config_property/).
//
// The reference systems are made small first (a chip's `tiles` at most 4, so a POD64 is
// 256 tiles), and a mutant whose system has more than 256 tiles is not run (counted as
// skipped): elaboration time grows with the tiles. IPUSIM_CONFIG_PROPERTY_MUTANTS=N runs N
// mutants per reference config (the suite runs 20); IPUSIM_CONFIG_PROPERTY_SEED=S changes
// the seed (default 1).
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <mutex>
#include <regex>
#include <string>
#include <vector>

#include "child_run.h"
#include "config/config_loader.h"
#include "mutation.h"

namespace ipusim {
namespace {

namespace fs = std::filesystem;

const std::string kBin = IPUSIM_BIN;
const std::string kProbe = CONFIG_DEVICE_PROBE;
const std::string kHello = std::string(IPUSIM_FIRMWARE_DIR) + "/hello.elf";
constexpr uint64_t kMaxTiles = 256;
constexpr double kDeadline = 90;

size_t env_count(const char* name, size_t fallback) {
  const char* v = std::getenv(name);
  return v && *v ? std::stoul(v) : fallback;
}

std::string read_text(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// A chip's top-level `tiles: N` as at most 4.
std::string small_system(const std::string& text) {
  static const std::regex tiles(R"(^tiles: *([0-9]+))", std::regex::multiline);
  std::smatch m;
  if (!std::regex_search(text, m, tiles) || std::stoull(m[1]) <= 4) return text;
  return m.prefix().str() + "tiles: 4" + m.suffix().str();
}

struct Tally {
  std::mutex m;
  size_t accepted = 0, rejected = 0, skipped = 0;
  std::vector<std::string> mismatches;
};

std::string outcome_text(const test::ChildOutcome& r) {
  switch (r.end) {
    case test::ChildOutcome::End::kHung: return "hung (killed after " + std::to_string(int(kDeadline)) + " s)";
    case test::ChildOutcome::End::kSignalled: return "signal " + std::to_string(r.signal);
    default: return "exit " + std::to_string(r.code) + ": " + r.err.substr(0, 400);
  }
}

void check_mutant(const std::string& path, Tally& t) {
  auto mismatch = [&](const std::string& why) {
    std::lock_guard lock(t.m);
    t.mismatches.push_back(path + ": " + why);
  };
  const test::ChildOutcome info = test::run_child({kBin, "info", "--config", path}, path + ".info.err", kDeadline);
  if (info.end != test::ChildOutcome::End::kExited) return mismatch("info " + outcome_text(info));
  if (info.code != 0) {
    // Located: the mutant's name, a colon and a line number (a referred-to file's own
    // error says "(referred to by MUTANT:LINE)").
    if (!std::regex_search(info.err, std::regex(std::regex_replace(path, std::regex(R"([.^$|()\[\]{}*+?\\])"), R"(\$&)") + ":[0-9]+")))
      return mismatch("info rejects it without FILE:LINE: " + info.err);
    std::lock_guard lock(t.m);
    ++t.rejected;
    return;
  }
  uint64_t tiles = 0;
  try {
    const config::SystemConfig sys = config::load_system(path);
    tiles = uint64_t(sys.boards) * sys.board.ipus * sys.board.chip.tiles;
  } catch (const std::exception& e) {
    return mismatch(std::string("info accepts it, the loader does not: ") + e.what());
  }
  if (tiles > kMaxTiles) {
    std::lock_guard lock(t.m);
    ++t.skipped;
    return;
  }
  const test::ChildOutcome run = test::run_child(
      {kBin, "run", "--config", path, "--elf", kHello, "--max-cycles", "2000000", "--timeout", "20"}, path + ".run.err",
      kDeadline);
  if (run.end != test::ChildOutcome::End::kExited || run.code != 0)
    return mismatch("info accepts it, run: " + outcome_text(run));
  const test::ChildOutcome dev = test::run_child({kProbe, path, kHello}, path + ".device.err", kDeadline);
  if (dev.end != test::ChildOutcome::End::kExited || dev.code != 0)
    return mismatch("info accepts it, an in-process device: " + outcome_text(dev));
  std::lock_guard lock(t.m);
  ++t.accepted;
}

TEST(ConfigProperty, WhatInfoAcceptsRunAndADeviceAcceptToo) {
  const size_t per_config = env_count("IPUSIM_CONFIG_PROPERTY_MUTANTS", 20);
  test::MutationRng rng(env_count("IPUSIM_CONFIG_PROPERTY_SEED", 1));
  const fs::path dir = fs::path(::testing::TempDir()) / "config_property";
  fs::remove_all(dir);
  fs::create_directories(dir);
  // Every reference config, in one folder so that the references between them resolve.
  std::vector<std::string> refs;
  for (const fs::path& from : {fs::path("configs"), fs::path("configs/test")})
    for (const auto& e : fs::directory_iterator(from))
      if (e.path().extension() == ".yaml") {
        refs.push_back(e.path().filename().string());
        std::ofstream(dir / e.path().filename()) << small_system(read_text(e.path()));
      }
  std::sort(refs.begin(), refs.end());
  ASSERT_GE(refs.size(), 16u);
  std::vector<std::string> mutants;
  for (const std::string& ref : refs) {
    const std::string text = read_text(dir / ref);
    for (size_t i = 0; i < per_config; ++i) {
      std::string m = text;
      const unsigned edits = 1 + static_cast<unsigned>(rng.below(2));
      for (unsigned k = 0; k < edits; ++k) m = test::mutate_yaml_once(m, rng, /*values_only=*/true);
      const std::string path = (dir / ("mutant" + std::to_string(i) + "_" + ref)).string();
      std::ofstream(path) << m;
      mutants.push_back(path);
    }
  }
  Tally t;
  const auto start = std::chrono::steady_clock::now();
  test::run_parallel(mutants.size(), 2, [&](size_t i) { check_mutant(mutants[i], t); });
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("config property: %zu mutants of %zu configs in %.0f s: %zu accepted by info, run and a device, "
              "%zu rejected with FILE:LINE, %zu accepted but larger than %llu tiles (not run), %zu mismatches\n",
              mutants.size(), refs.size(), seconds, t.accepted, t.rejected, t.skipped,
              static_cast<unsigned long long>(kMaxTiles), t.mismatches.size());
  std::string list;
  for (const auto& m : t.mismatches) list += m + "\n";
  EXPECT_TRUE(t.mismatches.empty()) << list;
  // Both sides of the property were exercised.
  EXPECT_GT(t.accepted, 0u);
  EXPECT_GT(t.rejected, 0u);
}

}  // namespace
}  // namespace ipusim
