// The host ends of the board's host streams: for each id, a buffer or a callback per
// direction. The device impl asks it for bytes to fill a host-to-device FIFO and hands it
// bytes drained from a device-to-host FIFO (docs/host_if.md, "Host streams").
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <vector>

#include "ipudrv/device.h"

namespace ipudrv::detail {

class StreamTable {
 public:
  void connect_h2d(uint32_t id, std::span<const std::byte> source);
  void connect_h2d(uint32_t id, StreamFill fill);
  void connect_d2h(uint32_t id, std::span<std::byte> sink);
  void connect_d2h(uint32_t id, StreamDrain drain);
  void disconnect(uint32_t id);
  void clear();

  bool has_h2d(uint32_t id) const { return h2d_.count(id) != 0; }
  bool has_d2h(uint32_t id) const { return d2h_.count(id) != 0; }
  std::vector<uint32_t> d2h_ids() const;
  size_t d2h_received(uint32_t id) const;

  // At least `need` and at most `room` bytes for stream `id`'s FIFO. Throws StreamError
  // when the stream is not connected or its source runs dry before `need`.
  std::vector<std::byte> take_h2d(uint32_t id, size_t need, size_t room);
  // Delivers drained bytes; throws StreamError when a sink buffer overflows.
  void give_d2h(uint32_t id, std::span<const std::byte> data);

 private:
  struct H2d {
    std::span<const std::byte> source;
    size_t used = 0;
    StreamFill fill;
  };
  struct D2h {
    std::span<std::byte> sink;
    size_t used = 0;
    StreamDrain drain;
  };
  static void check_id(uint32_t id);
  std::map<uint32_t, H2d> h2d_;
  std::map<uint32_t, D2h> d2h_;
};

}  // namespace ipudrv::detail
