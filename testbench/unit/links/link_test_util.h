// Phases for the link-layer tests: payloads that name their frame, so a test can check
// every delivered payload is the right one, once, in order.
#pragma once

#include <cstdint>
#include <cstring>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "links/link_layer.h"

namespace ipusim::links::test {

// Move-only: `frames` point into `payloads` (a copy's would point into the original).
struct Phase {
  Phase() = default;
  Phase(Phase&&) = default;
  Phase& operator=(Phase&&) = default;
  Phase(const Phase&) = delete;
  Phase& operator=(const Phase&) = delete;

  std::vector<std::vector<uint8_t>> payloads;
  std::vector<ScheduledFrame> frames;
};

// `count` frames of `bytes` payload bytes (at least 8), frame i ready at i * spacing; the
// first 8 bytes hold `first_id + i`, the rest a pattern of it.
inline Phase make_phase(size_t count, size_t bytes, uint64_t spacing, uint64_t first_id = 0) {
  Phase p;
  p.payloads.resize(count);
  p.frames.resize(count);
  for (size_t i = 0; i < count; ++i) {
    const uint64_t id = first_id + i;
    auto& b = p.payloads[i];
    b.resize(bytes);
    std::memcpy(b.data(), &id, sizeof id);
    for (size_t k = sizeof id; k < bytes; ++k) b[k] = static_cast<uint8_t>(id * 31 + k);
    p.frames[i] = ScheduledFrame{i * spacing, b};
  }
  return p;
}

inline uint64_t frame_id(std::span<const uint8_t> payload) {
  uint64_t id = 0;
  std::memcpy(&id, payload.data(), sizeof id);
  return id;
}

inline std::vector<uint8_t> concatenated(const Phase& p) {
  std::vector<uint8_t> all;
  for (const auto& b : p.payloads) all.insert(all.end(), b.begin(), b.end());
  return all;
}

inline FaultInjector injector_for(const char* spec) {
  std::string error;
  auto s = parse_fault_spec(spec, &error);
  if (!s) throw std::invalid_argument(error);
  return FaultInjector(*s);
}

}  // namespace ipusim::links::test
