// stream_table.h
#include "stream_table.h"

#include <ipu/hostif_regs.h>

#include <algorithm>
#include <cstring>
#include <string>

namespace ipudrv::detail {

void StreamTable::check_id(uint32_t id) {
  if (id >= IPU_STREAMS) throw UsageError("stream id " + std::to_string(id) + ": ids are 0 .. " + std::to_string(IPU_STREAMS - 1));
}

void StreamTable::connect_h2d(uint32_t id, std::span<const std::byte> source) {
  check_id(id);
  h2d_[id] = H2d{source, 0, {}};
}
void StreamTable::connect_h2d(uint32_t id, StreamFill fill) {
  check_id(id);
  if (!fill) throw UsageError("stream " + std::to_string(id) + ": empty fill callback");
  h2d_[id] = H2d{{}, 0, std::move(fill)};
}
void StreamTable::connect_d2h(uint32_t id, std::span<std::byte> sink) {
  check_id(id);
  d2h_[id] = D2h{sink, 0, {}};
}
void StreamTable::connect_d2h(uint32_t id, StreamDrain drain) {
  check_id(id);
  if (!drain) throw UsageError("stream " + std::to_string(id) + ": empty drain callback");
  d2h_[id] = D2h{{}, 0, std::move(drain)};
}
void StreamTable::disconnect(uint32_t id) {
  check_id(id);
  h2d_.erase(id);
  d2h_.erase(id);
}
void StreamTable::clear() {
  h2d_.clear();
  d2h_.clear();
}

std::vector<uint32_t> StreamTable::d2h_ids() const {
  std::vector<uint32_t> ids;
  for (const auto& [id, c] : d2h_) ids.push_back(id);
  return ids;
}

size_t StreamTable::d2h_received(uint32_t id) const {
  auto it = d2h_.find(id);
  if (it == d2h_.end()) throw UsageError("stream " + std::to_string(id) + " (device to host) is not connected");
  return it->second.used;
}

std::vector<std::byte> StreamTable::take_h2d(uint32_t id, size_t need, size_t room) {
  auto it = h2d_.find(id);
  if (it == h2d_.end())
    throw StreamError("host stream " + std::to_string(id) + " (host to device): the tiles read " + std::to_string(need) +
                      " bytes from it, but it is not connected");
  H2d& s = it->second;
  std::vector<std::byte> out;
  if (!s.fill) {
    const size_t left = s.source.size() - s.used;
    if (left < need)
      throw StreamError("host stream " + std::to_string(id) + " (host to device): the tiles need " + std::to_string(need) +
                        " more bytes, the host buffer has " + std::to_string(left) + " left");
    const size_t n = std::min(left, room);
    out.assign(s.source.begin() + long(s.used), s.source.begin() + long(s.used + n));
    s.used += n;
    return out;
  }
  // A callback is asked for what fits, until it has given what the tiles need.
  out.resize(room);
  size_t got = 0;
  while (got < need) {
    const size_t n = s.fill(std::span<std::byte>(out).subspan(got));
    if (n == 0) break;
    if (n > room - got) throw StreamError("host stream " + std::to_string(id) + ": the fill callback claimed more bytes than it was offered");
    got += n;
  }
  if (got < need)
    throw StreamError("host stream " + std::to_string(id) + " (host to device): the tiles need " + std::to_string(need) +
                      " more bytes, the fill callback gave " + std::to_string(got));
  out.resize(got);
  return out;
}

void StreamTable::give_d2h(uint32_t id, std::span<const std::byte> data) {
  auto it = d2h_.find(id);
  if (it == d2h_.end())
    throw StreamError("host stream " + std::to_string(id) + " (device to host): the tiles wrote " + std::to_string(data.size()) +
                      " bytes to it, but it is not connected");
  D2h& s = it->second;
  if (s.drain) {
    s.drain(data);
    s.used += data.size();
    return;
  }
  if (s.sink.size() - s.used < data.size())
    throw StreamError("host stream " + std::to_string(id) + " (device to host): " + std::to_string(data.size()) +
                      " bytes do not fit the host buffer (" + std::to_string(s.sink.size() - s.used) + " bytes left)");
  std::memcpy(s.sink.data() + s.used, data.data(), data.size());
  s.used += data.size();
}

}  // namespace ipudrv::detail
