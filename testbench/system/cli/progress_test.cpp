// `ipusim run`'s progress line: forced with --progress (stderr is a file here, as in a
// pipe or a CI log), absent by default and with --no-progress, and never a change to the
// results.
#include <gtest/gtest.h>

#include <string>

#include <nlohmann/json.hpp>

#include "cli_run.h"

namespace ipusim {
namespace {

const std::string kBin = IPUSIM_BIN;
const std::string kRun = "--config configs/test/tiny4.yaml --elf " + std::string(IPUSIM_FIRMWARE_DIR) + "/vecadd.elf";

// Longer than the second a terminal's line waits for (1.4 s on this 2-core machine, one
// thread): shorter, the absent line below would prove nothing about pipes.
const std::string kLongRun =
    "--config configs/gc200.yaml --threads 1 --elf " + std::string(IPUSIM_FIRMWARE_DIR) + "/system/spin10k.elf";

std::string temp_path(const std::string& name) { return test::temp_path("progress_", name); }
test::CliResult ipusim_run(const std::string& args) { return test::run_cli(kBin, "progress_", args); }

TEST(Progress, ForcedLineIsRewrittenInPlaceAndClearedAndChangesNothing) {
  const std::string with = temp_path("with.json"), without = temp_path("without.json");
  const auto r = ipusim_run(kRun + " --progress --quiet --json " + with);
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.err.rfind("\ripusim: ", 0), 0u) << r.err;
  EXPECT_NE(r.err.find(" supersteps, "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(" us simulated, "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(" MIPS, "), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find('\n'), std::string::npos) << "one line, rewritten: " << r.err;
  EXPECT_EQ(r.err.back(), '\r') << "cleared at the end";
  const auto plain = ipusim_run(kRun + " --quiet --json " + without);
  ASSERT_EQ(plain.status, 0) << plain.err;
  const auto a = nlohmann::json::parse(test::read_file(with));
  const auto b = nlohmann::json::parse(test::read_file(without));
  EXPECT_EQ(a["tile_cycles"], b["tile_cycles"]);
  EXPECT_EQ(a["per_tile"], b["per_tile"]);
  EXPECT_EQ(a["supersteps"], b["supersteps"]);
}

TEST(Progress, NoLineInAPipeByDefaultOrWithNoProgress) {
  const auto r = ipusim_run(kLongRun);
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.err.find('\r'), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find(" us simulated, "), std::string::npos) << r.err;
  const auto off = ipusim_run(kLongRun + " --no-progress --quiet");
  ASSERT_EQ(off.status, 0) << off.err;
  EXPECT_EQ(off.err, "");
}

}  // namespace
}  // namespace ipusim
