// Finding devices: a locator names a config to elaborate in this process (or, when the
// process's model holds another system, in an `ipusim serve` child of the driver's own)
// or an `ipusim serve` socket; either way one device, the whole system with a session per
// board.
#include <cstdio>
#include <functional>
#include <mutex>
#include <optional>

#include "child_server.h"
#include "device_impl.h"
#include "system_backend.h"
#include "transports/inproc_transport.h"
#include "transports/socket_transport.h"

namespace ipudrv {

struct DeviceRef::Source {
  // A session with the device for `options`: one transport per board, in board order.
  std::function<std::vector<std::unique_ptr<detail::Transport>>(const OpenOptions&)> open_session;
};

std::unique_ptr<Device> DeviceRef::open(const OpenOptions& options) const {
  auto impl = std::make_unique<DeviceImpl>(source_->open_session(options), info_.locator, options);
  return std::make_unique<Device>(std::move(impl));
}

namespace {

// The `ipusim serve` options a device opened with `options` needs (gdb and core files
// cannot be set on a running server); max_memory is what the device was found with.
detail::ChildOptions child_options(const OpenOptions& options, std::optional<uint64_t> max_memory) {
  return {.max_memory = max_memory,
          .gdb_port = options.gdb_port,
          .core_dir = options.core_dir,
          .rtl = options.rtl,
          .waves = options.waves,
          .iss = options.iss};
}

// A config: system in a child of its own: the child enumerate() started (and probed)
// serves the first open with the options it was started with; any other open starts
// another (the first child ends when its spare transports go).
struct ChildSource {
  std::string path, reason;
  std::optional<uint64_t> max_memory;
  std::mutex mutex;
  detail::ChildOptions spare_options;
  std::vector<std::unique_ptr<detail::Transport>> spare;

  std::vector<std::unique_ptr<detail::Transport>> open_session(const OpenOptions& options) {
    const detail::ChildOptions want = child_options(options, max_memory);
    std::vector<std::unique_ptr<detail::Transport>> unused;  // ends an unfit spare child, unlocked
    {
      std::lock_guard lock(mutex);
      if (!spare.empty() && spare_options == want) return std::move(spare);
      unused = std::move(spare);
    }
    unused.clear();
    return detail::start_child_server(path, want, reason);
  }
};

// enumerate(); open() passes its options, so that the device a config: locator starts a
// child for is started with them (OpenOptions::max_memory elaborates with it).
std::vector<DeviceRef> enumerate_with(const std::string& locator, const OpenOptions& options) {
  if (locator.empty()) throw UsageError("enumerate: empty locator (use config:PATH or unix:PATH)");
  std::vector<DeviceRef> refs;
  auto source = std::make_shared<DeviceRef::Source>();
  std::string where = locator;  // DeviceInfo::locator
  std::function<DeviceInfo()> probe;
  if (locator.rfind("unix:", 0) == 0) {
    const std::string path = locator.substr(5);
    if (path.empty()) throw UsageError("enumerate: '" + locator + "' names no socket path");
    source->open_session = [path, locator](const OpenOptions& o) {
      if (!o.core_dir.empty())
        throw UsageError("open " + locator + ": core_dir is for config: devices; serve this one with "
                         "`ipusim serve --core DIR`");
      if (o.gdb_port)
        throw UsageError("open " + locator + ": gdb_port is for config: devices; serve this one with "
                         "`ipusim serve --gdb PORT`");
      if (o.rtl)
        throw UsageError("open " + locator + ": rtl is for config: devices; serve this one with "
                         "`ipusim serve --rtl LIST`");
      if (!o.waves.empty())
        throw UsageError("open " + locator + ": waves is for config: devices; serve this one with "
                         "`ipusim serve --waves FILE`");
      if (o.iss)
        throw UsageError("open " + locator + ": iss is for config: devices; serve this one with "
                         "`ipusim serve --iss jit|interp|lockstep`");
      return detail::make_socket_transports(path);
    };
    // Probed, then let go before open(): the server takes one client at a time.
    probe = [path, where] { return DeviceImpl::read_info(detail::make_socket_transports(path), where); };
  } else {
    const std::string path = locator.rfind("config:", 0) == 0 ? locator.substr(7) : locator;
    if (path.empty()) throw UsageError("enumerate: '" + locator + "' names no config file");
    where = "config:" + path;
    std::shared_ptr<detail::SystemBackend> system;
    try {
      system = detail::open_system_backend(path, options.max_memory, "", options.rtl, options.waves, options.iss);
    } catch (const detail::ModelUnavailable& e) {
      // SystemC elaborates once per process: this system runs in a child of its own.
      auto child = std::make_shared<ChildSource>();
      child->path = path;
      child->reason = e.what();
      child->max_memory = options.max_memory;
      child->spare_options = child_options(options, options.max_memory);
      child->spare = detail::start_child_server(path, child->spare_options, child->reason);
      source->open_session = [child](const OpenOptions& o) { return child->open_session(o); };
      probe = [child, where] {
        std::lock_guard lock(child->mutex);
        return DeviceImpl::read_info(child->spare, where);
      };
    }
    if (system) {
      source->open_session = [system, where](const OpenOptions& o) {
        if (!o.core_dir.empty()) system->set_core_dir(o.core_dir);
        if (o.gdb_port) {
          const uint16_t port = system->serve_gdb(*o.gdb_port);
          std::fprintf(stderr, "ipudrv: gdb: every run of %s waits for gdb on 127.0.0.1:%u\n", where.c_str(),
                       unsigned(port));
        }
        std::vector<std::unique_ptr<detail::Transport>> boards;
        for (size_t b = 0; b < system->board_count(); ++b)
          boards.push_back(detail::make_inproc_transport(system, system->board_link(b),
                                                         "in-process " + where + " board " + std::to_string(b)));
        return boards;
      };
      probe = [source, where] { return DeviceImpl::read_info(source->open_session({}), where); };
    }
  }
  DeviceInfo info = probe();
  refs.emplace_back(std::move(info), std::move(source));
  return refs;
}

}  // namespace

std::vector<DeviceRef> enumerate(const std::string& locator) { return enumerate_with(locator, {}); }

std::unique_ptr<Device> open(const std::string& locator, uint32_t device, const OpenOptions& options) {
  auto refs = enumerate_with(locator, options);
  if (device >= refs.size())
    throw UsageError("open " + locator + ": device " + std::to_string(device) + ", it has " + std::to_string(refs.size()) +
                     " device(s) (a locator names one system: every board is one device)");
  return refs[device].open(options);
}

}  // namespace ipudrv
