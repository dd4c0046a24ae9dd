// A config: system the process's model cannot take (SystemC elaborates once per process:
// the model holds another system, or this one is open already) runs in an `ipusim serve`
// child of the driver's own, reached over the socket transport behind the same Device
// API. docs/host_driver.md "Locators".
//
//   start_child_server(config, options) -> the device's transports; the last of them
//   to go (with its host memory) says BYE, then ends the child and removes its directory.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "transport.h"

namespace ipudrv::detail {

// What the child is started with (`ipusim serve` options: there is no message to set
// them later); a device opened with other options needs a child of its own.
struct ChildOptions {
  std::optional<uint64_t> max_memory;  // --max-memory BYTES (unset: the child's IPUSIM_MAX_MEMORY, else the machine's)
  std::optional<uint16_t> gdb_port;    // --gdb PORT
  std::string core_dir;                // --core DIR
  std::optional<std::string> rtl;      // --rtl LIST
  std::string waves;                   // --waves FILE
  std::optional<std::string> iss;      // --iss jit|interp|lockstep (unset: the child's IPUSIM_ISS, else its default)
  bool operator==(const ChildOptions&) const = default;
};

// Starts `ipusim serve --config CONFIG --socket DIR/serve.sock --quiet --idle-timeout 0
// --exit-with-parent` (and the options) in a private directory (mkdtemp, mode 0700) and
// returns its transports, one per board, named "config:CONFIG (ipusim serve child PID)",
// once it answers. The child's stderr is held until it serves (the error's text if it
// never does), then copied to this process's stderr. `reason`: why this process's model
// cannot take the system, for the messages. Throws UsageError (no ipusim executable; the
// child refused the config or the options: exit status 2),
// TransportError (it ended otherwise before serving), TimeoutError (not serving within
// kChildStartTimeout; it is killed).
std::vector<std::unique_ptr<Transport>> start_child_server(const std::string& config_path, const ChildOptions& options,
                                                           const std::string& reason);

}  // namespace ipudrv::detail
