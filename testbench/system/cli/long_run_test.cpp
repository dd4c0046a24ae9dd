// A run's memory is bounded by the system's size, not its length (docs/platform.md
// "Superstep figures"): four tiles syncing a million times keep `ipusim run`'s peak RSS
// within 50 MB of a ten-superstep run; `--json` of a run longer than the accounts' window
// has every superstep once, in order, continuous (the rows written as the run went and
// those held at its end join up); a `--json` or `--trace` that cannot be written is a
// named error and a non-zero exit.
#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "cli_run.h"

namespace ipusim {
namespace {

const std::string kBin = IPUSIM_BIN;
const std::string kTiny4 = "configs/test/tiny4.yaml";
const std::string kEndlessSync = std::string(IPUSIM_FIRMWARE_DIR) + "/device_api/endless_sync.elf";  // syncs for ever

std::string temp_path(const std::string& name) { return test::temp_path("ipusim_longrun_", name); }

test::CliResult run(const std::string& args) { return test::run_cli(kBin, "ipusim_longrun_", args); }

nlohmann::json json_file(const std::string& path) {
  std::ifstream in(path);
  nlohmann::json j;
  if (in) in >> j;
  return j;
}

// Cycles per superstep of endless_sync on `tiles` tiles, from a short run's JSON.
double cycles_per_superstep(const std::string& tiles) {
  const std::string json = temp_path("calibrate.json");
  const test::CliResult r = run("--config " + kTiny4 + " --elf " + kEndlessSync + " --tiles " + tiles +
                                " --max-cycles 20000 --quiet --json " + json);
  EXPECT_EQ(r.status, 4) << r.err;  // the cycle budget
  const nlohmann::json j = json_file(json);
  std::remove(json.c_str());
  const size_t steps = j["supersteps"].size();
  EXPECT_GT(steps, 20u);
  return steps ? 20000.0 / double(steps) : 1.0;
}

TEST(LongRun, MillionSuperstepsKeepPeakRssNearATenSuperstepRun) {
  const double period = cycles_per_superstep("0-3");
  auto run_for = [&](uint64_t supersteps) {
    const uint64_t cycles = uint64_t(period * double(supersteps)) + 1;
    return run("--config " + kTiny4 + " --elf " + kEndlessSync + " --max-cycles " + std::to_string(cycles) +
               " --threads 1 --quiet");
  };
  const test::CliResult small = run_for(10);
  ASSERT_EQ(small.status, 4) << small.err;
  const test::CliResult big = run_for(1'000'000);
  ASSERT_EQ(big.status, 4) << big.err;
  const long growth_kib = big.max_rss_kib - small.max_rss_kib;
  EXPECT_LT(growth_kib, 50 * 1024) << "peak RSS " << small.max_rss_kib / 1024 << " MiB for 10 supersteps, "
                                   << big.max_rss_kib / 1024 << " MiB for 1e6";
}

// 6000 supersteps of one tile: more than the window (4096 rows), so the first rows are
// written during the run and the rest at its end.
TEST(LongRun, JsonPastTheWindowHasEverySuperstepOnceInOrder) {
  const double period = cycles_per_superstep("0");
  const std::string json = temp_path("long.json");
  const test::CliResult r = run("--config " + kTiny4 + " --elf " + kEndlessSync + " --tiles 0 --max-cycles " +
                                std::to_string(uint64_t(period * 6000)) + " --quiet --json " + json);
  ASSERT_EQ(r.status, 4) << r.err;
  const nlohmann::json j = json_file(json);
  std::remove(json.c_str());
  ASSERT_TRUE(j.contains("supersteps")) << "the JSON did not parse";
  const auto& steps = j["supersteps"];
  ASSERT_GT(steps.size(), 5000u);
  EXPECT_EQ(j["per_tile"][0]["supersteps"], steps.size());
  uint64_t previous_end = 0;
  for (size_t k = 0; k < steps.size(); ++k) {
    ASSERT_EQ(steps[k]["superstep"], k);
    ASSERT_EQ(steps[k]["ipus"].size(), 1u) << k;
    const auto& ipu = steps[k]["ipus"][0];
    ASSERT_EQ(ipu["tiles"], 1) << k;
    ASSERT_EQ(ipu["per_tile"].size(), 1u) << k;
    ASSERT_EQ(ipu["per_tile"][0]["begin_cycle"], previous_end) << "superstep " << k << " does not follow on";
    previous_end = ipu["per_tile"][0]["end_cycle"];
  }
}

TEST(LongRun, JsonOnAFullDeviceIsANamedError) {
  const test::CliResult r = run("--config " + kTiny4 + " --elf " + kEndlessSync + " --max-cycles 2000 --quiet --json /dev/full");
  EXPECT_NE(r.status, 0);
  EXPECT_NE(r.err.find("--json '/dev/full': writing failed: No space left on device"), std::string::npos) << r.err;
}

TEST(LongRun, TraceOnAFullDeviceIsANamedError) {
  const test::CliResult r = run("--config " + kTiny4 + " --elf " + kEndlessSync + " --max-cycles 2000 --quiet --trace /dev/full");
  EXPECT_NE(r.status, 0);
  EXPECT_NE(r.err.find("--trace: writing '/dev/full' failed: No space left on device"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace ipusim
