// The in-process transport: direct calls on a DeviceLink of this process (the device
// model's ModelSession, or a test double). Host memory is anonymous memory mapped into the
// link, so the device's DMA reads and writes it in place.
#pragma once

#include <memory>
#include <string>

#include "host_if/device_link.h"
#include "transport.h"

namespace ipudrv::detail {

// `owner` keeps the link alive (e.g. the SystemBackend it belongs to).
std::unique_ptr<Transport> make_inproc_transport(std::shared_ptr<void> owner,
                                                 ipusim::host_if::DeviceLink& link,
                                                 std::string description);

}  // namespace ipudrv::detail
