// `ipusim run --gdb PORT`: the run is served to one gdb (docs/debugging.md).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "platform/platform.h"

namespace ipusim::cli {

// Thrown out of Platform::run when gdb killed the run (`kill`): there is no result.
struct KilledFromDebugger {};

// Makes `platform`'s run wait for gdb on 127.0.0.1:`port` (0: a free port; the line
// "ipusim: gdb: listening on 127.0.0.1:PORT" on stderr says which) and be driven by it
// until the run is over. When gdb detaches or disconnects, the run goes on to its end
// at full speed. Throws std::runtime_error when the port cannot be listened on.
void serve_gdb(platform::Platform& platform, uint16_t port);

}  // namespace ipusim::cli
