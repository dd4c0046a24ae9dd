// One time resolution for the whole platform (docs/cosim.md "Time").
//
// Every RTL file declares `timeunit 1ns; timeprecision 1ps;` and the platform keeps
// SystemC's default resolution of 1 ps: a wrapper converts tile cycles to RTL time and a
// waveform's timestamps to SystemC time with no rounding only if the two agree, so each
// wrapper checks it when it builds its model.
#pragma once

#include <string>

class VerilatedContext;

namespace ipusim::cosim {

// Throws std::runtime_error naming the block and both resolutions unless SystemC's time
// resolution equals the RTL's timeprecision (ctx.timeprecision(), a power of ten exponent).
void check_time_resolution(const VerilatedContext& ctx, const std::string& block);

// The same check from the exponent alone (-12 is 1 ps), for tests.
void check_time_resolution(int rtl_precision_exponent, const std::string& block);

}  // namespace ipusim::cosim
