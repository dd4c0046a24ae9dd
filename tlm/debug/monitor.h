// gdb's `monitor` commands (qRcmd) of the stub: catches on syncs and exchanges.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "debug/debug_target.h"

namespace ipusim::debug {

// Runs one command line against the stub's catch list; returns the text for gdb's
// console (ends with a newline). `ipu`: the IPU of the selected thread, which a TILE
// argument refers to.
std::string run_monitor_command(std::string_view line, uint32_t ipu, std::vector<Catch>& catches);

std::string describe(const Catch& c);

}  // namespace ipusim::debug
