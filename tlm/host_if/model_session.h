// A session on the process's device model (device_model.h): the simulated system as a
// set of devices, elaborated from a SystemConfig once per process, its SystemC kernel on
// the model's own thread, one thread-safe DeviceLink per board. This is what the
// driver's in-process transport and `ipusim serve` open.
//
//   ModelSession::open(config, options)  -> session; link(board) -> DeviceLink
//   ~ModelSession (close)                -> every board RESET, host memory and interrupt
//                                        handlers dropped; the model stays for the next open
//
// SystemC elaborates once per process: the first open builds the model (on the model
// thread, which then runs until the process exits: a static owner stops and joins it). A later open of an equal config
// reuses it (every board was reset at close); a different config, an open while a
// session is open, or any open after a failed elaboration throws ModelUnavailable (the
// driver then runs the system in an `ipusim serve` child: docs/host_driver.md
// "Locators"). host_threads is fixed by the first open; the console sink may change with
// each open. docs/host_if.md "The model side".
#pragma once

#include <cstdint>
#include <cstdio>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>

#include "host_if/device_link.h"
#include "common/config.h"
#include "platform/platform_console.h"

namespace ipusim::host_if {

struct ModelOptions {
  unsigned host_threads = 1;                          // threads computing tiles (>= 1)
  std::FILE* console = stdout;                        // firmware console lines; nullptr: none
  platform::ConsoleMode console_mode = platform::ConsoleMode::Tagged;
  // The memory the system may take (platform/memory_estimate.h): a system whose estimate
  // exceeds it is refused before it is elaborated. Unset: the machine's limits.
  std::optional<uint64_t> max_memory;
  // Where max_memory came from and how the user sets it, for the refusal's message.
  std::string max_memory_source = "--max-memory";
  std::string max_memory_hint = "--max-memory SIZE sets another limit";
  // The RTL blocks' waveform file (`--waves`, cosim/waves.h; docs/cosim.md); empty: none.
  // Part of what the process's model is: a session that asks for other waves needs
  // another process.
  std::string waves;
};

class HostInterface;
class DeviceModel;  // device_model.h

// This process's model cannot take the system: a session is open on it, it holds another
// system, or an elaboration in this process failed. Nothing is wrong with the config;
// another process can elaborate it.
class ModelUnavailable : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class ModelSession {
 public:
  // Throws ModelUnavailable (another session open, another config elaborated),
  // platform::SystemTooLarge (the memory estimate exceeds the limit: nothing elaborated)
  // and whatever elaboration throws (std::invalid_argument for a config the models cannot
  // build, platform::ElaborationError naming what was being built when it failed, e.g.
  // out of memory; the process cannot elaborate again: every later open throws
  // ModelUnavailable "an earlier elaboration in this process failed: ...", and the
  // abandoned netlist's memory stays held until the process ends).
  static std::unique_ptr<ModelSession> open(const config::SystemConfig& config, const ModelOptions& options = {});
  ~ModelSession();
  ModelSession(const ModelSession&) = delete;
  ModelSession& operator=(const ModelSession&) = delete;

  uint32_t boards() const;
  const config::SystemConfig& config() const;
  // Throws std::out_of_range for a board the system does not have.
  DeviceLink& link(uint32_t board);
  // For the streaming gateway and tests in the model: the board's interface.
  HostInterface& host_interface(uint32_t board);
  // Every run from now on waits for gdb on 127.0.0.1:`port` (0: any free port) and is
  // debugged by it (device_debugger.h, docs/debugging.md). Returns the port.
  uint16_t serve_gdb(uint16_t port);
  // Every run that ends on a problem from now on writes one ELF core per IPU to `dir`
  // (docs/debugging.md "Core files").
  void set_core_dir(const std::string& dir);
  // Blocks until the model thread has acted on every register write made before the
  // call (a convenience for tests and transports; never needed for correctness).
  void wait_idle();

 private:
  explicit ModelSession(DeviceModel& model) : model_(model) {}
  DeviceModel& model_;
};

}  // namespace ipusim::host_if
