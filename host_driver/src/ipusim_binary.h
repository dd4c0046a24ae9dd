// Where the `ipusim` executable is, for the `ipusim serve` children the driver starts
// (child_server.h). docs/host_driver.md "Locators".
#pragma once

#include <string>

namespace ipudrv::detail {

// The first of: $IPUSIM_BIN (which must name an executable file); the build tree's
// bin/ipusim when this library is the build tree's; the installed one (bin/ beside the
// library's lib/, else the configured install prefix's bin/); `ipusim` on PATH. Throws UsageError saying where it looked, led by
// `why` ("config:configs/gc200.yaml needs an `ipusim serve` child").
std::string find_ipusim_binary(const std::string& why);

}  // namespace ipudrv::detail
