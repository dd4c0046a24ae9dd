// Shared pieces of the device tests: the test configuration most of them open, a
// ModelSession that prints nothing, and the endless BSP program the reset / abort / pause
// cases stop from the host.
#pragma once

#include <memory>

#include "host_if/model_session.h"
#include "iss/program.h"
#include "config/config_loader.h"
#include "test_program.h"
#include "test_system.h"

namespace ipusim::test {

inline config::SystemConfig tiny4() { return config::load_system("configs/test/tiny4.yaml"); }

// A device test reads results through registers, not the console.
inline host_if::ModelOptions quiet() {
  host_if::ModelOptions o;
  o.console = nullptr;
  return o;
}

// sync (zone 1), repeat: never halts, so only the host ends it.
inline std::shared_ptr<const iss::Program> forever_sync_loop() {
  Asm a;
  a.li(t0, 1);
  a.label("top");
  a.sync(t0);
  a.beq(zero, zero, "top");
  return program(a, "forever.elf");
}

}  // namespace ipusim::test
