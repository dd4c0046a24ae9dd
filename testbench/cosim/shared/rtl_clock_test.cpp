// The platform's one time resolution: SystemC's (1 ps, the default the platform keeps)
// must equal each RTL block's timeprecision.
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

#include "cosim/rtl_clock.h"
#include "cosim/verilated_sc.h"

namespace ipusim::cosim {
namespace {

std::string refusal(int exponent) {
  try {
    check_time_resolution(exponent, "sync");
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  return "(accepted)";
}

TEST(RtlClock, OnePicosecondMatchesThePlatform) {
  EXPECT_EQ(refusal(-12), "(accepted)");
}

TEST(RtlClock, AnyOtherPrecisionIsRefusedNamingBoth) {
  EXPECT_EQ(refusal(-9), "RTL sync: its timeprecision is 1 ns but the platform's SystemC time resolution is 1 ps: "
                         "the platform needs one resolution (docs/cosim.md \"Time\")");
  EXPECT_NE(refusal(-11).find("its timeprecision is 10 ps"), std::string::npos) << refusal(-11);
  EXPECT_NE(refusal(-13).find("its timeprecision is 100 fs"), std::string::npos) << refusal(-13);
  EXPECT_NE(refusal(0).find("its timeprecision is 1 s"), std::string::npos) << refusal(0);
}

TEST(RtlClock, AVerilatedContextIsCheckedByItsPrecision) {
  VerilatedContext ctx;
  ctx.timeprecision(-12);
  EXPECT_NO_THROW(check_time_resolution(ctx, "amp"));
  ctx.timeunit(-9);
  ctx.timeprecision(-9);
  EXPECT_THROW(check_time_resolution(ctx, "amp"), std::runtime_error);
}

}  // namespace
}  // namespace ipusim::cosim
