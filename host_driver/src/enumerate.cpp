// Finding devices: a locator names a config to elaborate in this process or an `ipusim
// serve` socket; either way one device, the whole system with a session per board.
#include <cstdio>
#include <functional>

#include "device_impl.h"
#include "system_backend.h"
#include "transports/inproc_transport.h"
#include "transports/socket_transport.h"

namespace ipudrv {

struct DeviceRef::Source {
  // One transport per board, in board order.
  std::function<std::vector<std::unique_ptr<detail::Transport>>()> make_transports;
  std::function<uint16_t(uint16_t)> serve_gdb;  // in-process devices only
  std::function<void(const std::string&)> set_core_dir;  // in-process devices only
};

std::unique_ptr<Device> DeviceRef::open(const OpenOptions& options) const {
  if (!options.core_dir.empty()) {
    if (!source_->set_core_dir)
      throw UsageError("open " + info_.locator + ": core_dir is for in-process devices; serve this one with "
                       "`ipusim serve --core DIR`");
    source_->set_core_dir(options.core_dir);
  }
  if (options.gdb_port) {
    if (!source_->serve_gdb)
      throw UsageError("open " + info_.locator + ": gdb_port is for in-process devices; serve this one with "
                       "`ipusim serve --gdb PORT`");
    const uint16_t port = source_->serve_gdb(*options.gdb_port);
    std::fprintf(stderr, "ipudrv: gdb: every run of %s waits for gdb on 127.0.0.1:%u\n", info_.locator.c_str(),
                 unsigned(port));
  }
  auto impl = std::make_unique<DeviceImpl>(source_->make_transports(), info_.locator, options);
  return std::make_unique<Device>(std::move(impl));
}

namespace {

// enumerate(), elaborating a config with `max_memory` (OpenOptions::max_memory).
std::vector<DeviceRef> enumerate_with(const std::string& locator, std::optional<uint64_t> max_memory) {
  if (locator.empty()) throw UsageError("enumerate: empty locator (use config:PATH or unix:PATH)");
  std::vector<DeviceRef> refs;
  auto source = std::make_shared<DeviceRef::Source>();
  std::string where = locator;  // DeviceInfo::locator
  if (locator.rfind("unix:", 0) == 0) {
    const std::string path = locator.substr(5);
    if (path.empty()) throw UsageError("enumerate: '" + locator + "' names no socket path");
    source->make_transports = [path] { return detail::make_socket_transports(path); };
  } else {
    const std::string path = locator.rfind("config:", 0) == 0 ? locator.substr(7) : locator;
    if (path.empty()) throw UsageError("enumerate: '" + locator + "' names no config file");
    where = "config:" + path;
    std::shared_ptr<detail::SystemBackend> system = detail::open_system_backend(path, max_memory);
    source->serve_gdb = [system](uint16_t port) { return system->serve_gdb(port); };
    source->set_core_dir = [system](const std::string& dir) { system->set_core_dir(dir); };
    source->make_transports = [system, path] {
      std::vector<std::unique_ptr<detail::Transport>> boards;
      for (size_t b = 0; b < system->board_count(); ++b)
        boards.push_back(detail::make_inproc_transport(system, system->board_link(b),
                                                       "in-process config:" + path + " board " + std::to_string(b)));
      return boards;
    };
  }
  // Probed, then let go before open(): the server takes one client at a time.
  DeviceInfo info = DeviceImpl::read_info(source->make_transports(), where);
  refs.emplace_back(std::move(info), std::move(source));
  return refs;
}

}  // namespace

std::vector<DeviceRef> enumerate(const std::string& locator) { return enumerate_with(locator, std::nullopt); }

std::unique_ptr<Device> open(const std::string& locator, uint32_t device, const OpenOptions& options) {
  auto refs = enumerate_with(locator, options.max_memory);
  if (device >= refs.size())
    throw UsageError("open " + locator + ": device " + std::to_string(device) + ", it has " + std::to_string(refs.size()) +
                     " device(s) (a locator names one system: every board is one device)");
  return refs[device].open(options);
}

}  // namespace ipudrv
