// The driver's backend: the system a `config:` locator opens, elaborated from a config on
// the model's own thread, handing out one thread-safe DeviceLink per board
// (tlm/host_if/device_link.h). system_backend.cpp is the only file that knows the model's
// own class (host_if::ModelSession); `ipusim serve` uses the same factory.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "host_if/device_link.h"
#include "ipudrv/errors.h"

namespace ipudrv::detail {

class SystemBackend {
 public:
  virtual ~SystemBackend() = default;
  virtual size_t board_count() const = 0;
  // Valid while the system lives; board < board_count().
  virtual ipusim::host_if::DeviceLink& board_link(size_t board) = 0;
  // Every run from now on waits for gdb on 127.0.0.1:`port` (0: any free port); returns
  // the port. Throws UsageError if it cannot listen or the backend has no debugger.
  virtual uint16_t serve_gdb(uint16_t port) = 0;
  // Every run that ends on a problem from now on writes ELF cores to `dir`.
  virtual void set_core_dir(const std::string& dir) = 0;
};

// open_system_backend's refusal of a good config that fits the memory limit when this
// process's model cannot take it (a session is open on it, it holds another system, or
// an elaboration here failed: SystemC elaborates once per process). The driver then runs
// the system in an `ipusim serve` child of its own (child_server.h); to a caller that
// cannot, it is a UsageError like the others.
class ModelUnavailable : public UsageError {
 public:
  using UsageError::UsageError;
};

// Elaborates `config_path` (a system, board or chip YAML). Throws ipudrv::UsageError
// with the config loader's FILE:LINE: KEY message for a bad config, for a system whose
// memory estimate exceeds `max_memory` (unset: IPUSIM_MAX_MEMORY, else the machine's
// limits) and for an elaboration that failed (naming what was being built),
// ModelUnavailable when the config is good and fits (the check a new process would make:
// the machine's memory, not this process's address space) but this process's model
// cannot take it, TransportError when this build has no device model. `max_memory_option` names the
// command-line option max_memory came from (`ipusim serve --max-memory`); empty: a
// device's OpenOptions::max_memory. `rtl` replaces the config's `cosim` (OpenOptions::rtl,
// `--rtl`: a bad list is a UsageError naming it); `waves` is OpenOptions::waves; `iss`
// the tiles' ISS engine, "jit", "interp" or "lockstep" (OpenOptions::iss, `--iss`: anything else is a
// UsageError naming it; unset: IPUSIM_ISS, else jit where the translator is built, a bad
// IPUSIM_ISS a UsageError naming the variable).
std::shared_ptr<SystemBackend> open_system_backend(const std::string& config_path,
                                                   std::optional<uint64_t> max_memory = std::nullopt,
                                                   const std::string& max_memory_option = "",
                                                   const std::optional<std::string>& rtl = std::nullopt,
                                                   const std::string& waves = "",
                                                   const std::optional<std::string>& iss = std::nullopt);

// Tests only: route open_system_backend to `factory` (empty: back to the model).
using SystemFactory = std::function<std::shared_ptr<SystemBackend>(const std::string&)>;
void set_system_factory_for_tests(SystemFactory factory);

}  // namespace ipudrv::detail
