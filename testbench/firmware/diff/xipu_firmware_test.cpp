// Runs each self-checking Xipu extension program of testbench/firmware/xipu through
// `ipusim run`: the program prints "<name>: 0 failures" and exits with status 0 when every
// check passed (each failure prints its own FAIL line, shown on a mismatch).
#include <gtest/gtest.h>

#include "fwtest_env.h"

namespace ipusim::fwtest {
namespace {

// rpt_sum prints a line per check (ok / WRONG) instead: xipu_test.cpp runs it.
std::vector<std::string> programs() {
  std::vector<std::string> names = sources_in(fs::path(XIPU_SOURCE_DIR));
  std::erase(names, "rpt_sum");
  return names;
}

class XipuFirmware : public testing::TestWithParam<std::string> {};

TEST_P(XipuFirmware, PassesItsOwnChecks) {
  const std::string& name = GetParam();
  const fs::path dir = scratch_dir("xipu", name);
  const ProcessResult run = run_ipusim(env().firmware_dir / "xipu" / (name + ".elf"), dir);
  SCOPED_TRACE("ipusim stdout:\n" + run.out + "\nipusim stderr:\n" + run.err);
  EXPECT_EQ(run.exit_status, 0);
  EXPECT_NE(run.out.find(name + ": 0 failures"), std::string::npos);
  EXPECT_EQ(run.out.find("FAIL"), std::string::npos);
}

INSTANTIATE_TEST_SUITE_P(Programs, XipuFirmware, testing::ValuesIn(programs()),
                         [](const testing::TestParamInfo<std::string>& info) { return info.param; });

TEST(XipuFirmwareSetup, ThereArePrograms) { EXPECT_FALSE(programs().empty()); }

}  // namespace
}  // namespace ipusim::fwtest
