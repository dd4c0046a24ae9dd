#include "cosim/rtl_clock.h"

#include <cmath>
#include <stdexcept>

#include "cosim/verilated_sc.h"

namespace ipusim::cosim {

namespace {
// 1 ps, 10 ns, ...: the forms a `timeprecision` takes.
std::string seconds_text(int exponent) {
  static const char* const units[] = {"s", "ms", "us", "ns", "ps", "fs", "as"};
  const int k = -exponent;
  if (k < 0 || k > 18) return "1e" + std::to_string(exponent) + " s";
  const int unit = (k + 2) / 3;  // the smallest unit the value is a whole number of
  static const char* const scale[] = {"1", "10", "100"};
  return std::string(scale[unit * 3 - k]) + " " + units[unit];
}
}  // namespace

void check_time_resolution(int rtl_precision_exponent, const std::string& block) {
  const double sc = sc_core::sc_get_time_resolution().to_seconds();
  const double rtl = std::pow(10.0, rtl_precision_exponent);
  if (std::fabs(sc - rtl) > rtl * 1e-9)
    throw std::runtime_error("RTL " + block + ": its timeprecision is " + seconds_text(rtl_precision_exponent) +
                             " but the platform's SystemC time resolution is " +
                             sc_core::sc_get_time_resolution().to_string() +
                             ": the platform needs one resolution (docs/cosim.md \"Time\")");
}

void check_time_resolution(const VerilatedContext& ctx, const std::string& block) {
  check_time_resolution(ctx.timeprecision(), block);
}

}  // namespace ipusim::cosim
