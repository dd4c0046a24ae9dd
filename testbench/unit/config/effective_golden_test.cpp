// The config schema changed how the loader, the writer and `ipusim info --json` are
// written, not what they give: for every file under configs/ (recursively), the effective
// config this build writes (`ipusim info --yaml`) equals, byte for byte, the one the build
// before the schema wrote (golden/, produced by that build's ipusim), and `info --json`
// gives the same values (compared as JSON, without the host-memory estimates, which
// follow the models' own sizes rather than the config). Every config has its golden
// files and every golden file its config.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "cli_run.h"

namespace {

namespace fs = std::filesystem;

const fs::path kGolden = "testbench/unit/config/golden";

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// configs/... relative to the project root (the test's working directory), sorted.
std::vector<std::string> config_files() {
  std::vector<std::string> files;
  for (const auto& e : fs::recursive_directory_iterator("configs"))
    if (e.is_regular_file() && e.path().extension() == ".yaml") files.push_back(e.path().generic_string());
  std::sort(files.begin(), files.end());
  return files;
}

// What the memory estimate adds to info --json: not a config figure (golden/README.md).
nlohmann::json without_estimates(nlohmann::json j) {
  for (const char* key : {"memory_estimate_bytes", "memory_estimate_upper_bytes", "address_space_estimate_bytes"})
    j["derived"].erase(key);
  return j;
}

ipusim::test::CliResult ipusim(const std::string& args) {
  return ipusim::test::run_command(IPUSIM_BIN, "ipusim_golden_", args);
}

TEST(EffectiveConfigGolden, EveryConfigHasItsGoldenFiles) {
  const std::vector<std::string> configs = config_files();
  ASSERT_GE(configs.size(), 16u);  // 8 reference files and 8 test chips / boards / systems
  std::set<std::string> expected;
  for (const std::string& c : configs) {
    expected.insert((kGolden / (c + ".effective.yaml")).generic_string());
    expected.insert((kGolden / (c + ".info.json")).generic_string());
  }
  std::set<std::string> found;
  for (const auto& e : fs::recursive_directory_iterator(kGolden))
    if (e.is_regular_file() && e.path().filename() != "README.md") found.insert(e.path().generic_string());
  EXPECT_EQ(found, expected);
}

TEST(EffectiveConfigGolden, YamlIsByteForByteTheBaselines) {
  for (const std::string& config : config_files()) {
    SCOPED_TRACE(config);
    const auto r = ipusim("info --config " + config + " --yaml");
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.out, read_file(kGolden / (config + ".effective.yaml")));
  }
}

TEST(EffectiveConfigGolden, InfoJsonHasTheBaselinesValues) {
  for (const std::string& config : config_files()) {
    SCOPED_TRACE(config);
    const auto r = ipusim("info --config " + config + " --json");
    ASSERT_EQ(r.status, 0) << r.err;
    const nlohmann::json now = without_estimates(nlohmann::json::parse(r.out));
    const nlohmann::json before = nlohmann::json::parse(read_file(kGolden / (config + ".info.json")));
    EXPECT_EQ(now, before) << nlohmann::json::diff(before, now).dump(1);
  }
}

}  // namespace
