// Finding devices: a locator names a config to elaborate in this process (one device per
// board) or an `ipusim serve` socket (one device).
#include <functional>

#include "device_impl.h"
#include "system_backend.h"
#include "transports/inproc_transport.h"
#include "transports/socket_transport.h"

namespace ipudrv {

struct DeviceRef::Source {
  std::function<std::unique_ptr<detail::Transport>()> make_transport;
};

std::unique_ptr<Device> DeviceRef::open(const OpenOptions& options) const {
  auto impl = std::make_unique<DeviceImpl>(source_->make_transport(), info_.locator, options);
  return std::make_unique<Device>(std::move(impl));
}

std::vector<DeviceRef> enumerate(const std::string& locator) {
  if (locator.empty()) throw UsageError("enumerate: empty locator (use config:PATH or unix:PATH)");
  std::vector<DeviceRef> refs;
  if (locator.rfind("unix:", 0) == 0) {
    const std::string path = locator.substr(5);
    if (path.empty()) throw UsageError("enumerate: '" + locator + "' names no socket path");
    auto probe = detail::make_socket_transport(path);
    DeviceInfo info = DeviceImpl::read_info(*probe, locator);
    probe.reset();  // the server serves one client at a time: let go before open()
    auto source = std::make_shared<DeviceRef::Source>();
    source->make_transport = [path] { return detail::make_socket_transport(path); };
    refs.emplace_back(std::move(info), std::move(source));
    return refs;
  }
  const std::string path = locator.rfind("config:", 0) == 0 ? locator.substr(7) : locator;
  if (path.empty()) throw UsageError("enumerate: '" + locator + "' names no config file");
  std::shared_ptr<detail::SystemBackend> system = detail::open_system_backend(path);
  for (size_t b = 0; b < system->board_count(); ++b) {
    const std::string where = "config:" + path + "#" + std::to_string(b);
    auto make = [system, b, where] {
      return detail::make_inproc_transport(system, system->board_link(b), "in-process " + where);
    };
    DeviceInfo info = DeviceImpl::read_info(*make(), where);
    auto source = std::make_shared<DeviceRef::Source>();
    source->make_transport = make;
    refs.emplace_back(std::move(info), std::move(source));
  }
  return refs;
}

std::unique_ptr<Device> open(const std::string& locator, uint32_t board, const OpenOptions& options) {
  auto refs = enumerate(locator);
  if (board >= refs.size())
    throw UsageError("open " + locator + ": board " + std::to_string(board) + ", it has " + std::to_string(refs.size()) +
                     " board(s)");
  return refs[board].open(options);
}

}  // namespace ipudrv
