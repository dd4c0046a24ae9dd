// Runs each Xipu firmware test of testbench/firmware/xipu through `ipusim run`: each
// checks its own results and cycle counts, prints one line per check ending in "ok" or
// "WRONG", and exits 0 only when all are right.
#include <gtest/gtest.h>

#include <sstream>

#include "fwtest_env.h"

namespace ipusim::fwtest {
namespace {

class XipuFirmware : public testing::TestWithParam<std::string> {};

TEST_P(XipuFirmware, ChecksItselfAndExitsZero) {
  const std::string& name = GetParam();
  const fs::path elf = env().firmware_dir / "xipu" / (name + ".elf");
  ASSERT_TRUE(fs::exists(elf)) << elf;
  const ProcessResult run = run_ipusim(elf, scratch_dir("XipuFirmware", name));
  SCOPED_TRACE("ipusim stdout:\n" + run.out + "\nipusim stderr:\n" + run.err);
  ASSERT_TRUE(run.exited) << "ipusim " << run.describe();
  EXPECT_EQ(run.exit_status, 0);
  std::istringstream lines(run.out);
  int checks = 0;
  for (std::string line; std::getline(lines, line);) {
    if (line.find(name + " ") == std::string::npos) continue;
    ++checks;
    EXPECT_EQ(line.substr(line.size() - 2), "ok") << line;
  }
  EXPECT_GT(checks, 0) << "no check line";
}

INSTANTIATE_TEST_SUITE_P(Programs, XipuFirmware, testing::Values("rpt_sum"),
                         [](const testing::TestParamInfo<std::string>& info) { return info.param; });

}  // namespace
}  // namespace ipusim::fwtest
