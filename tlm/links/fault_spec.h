// What faults to inject on one link direction, as a value: parsed from the text of the
// CLI option `--link-faults SPEC` or the config, and printed back by to_string().
// Grammar and meaning: docs/links.md, "Fault injection".
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace ipusim::links {

struct FaultSpec {
  uint64_t seed = 1;
  double ber = 0;                 // bit-error rate over every frame bit put on the wire
  uint64_t periodic = 0;          // corrupt every N-th frame transmission (0 = off)
  uint64_t burst_start = 0;       // corrupt transmissions [start, start + length) ...
  uint64_t burst_length = 0;      // (0 = off)
  uint64_t burst_period = 0;      // ... and again every period transmissions (0 = once)
  double drop = 0;                // probability a frame transmission is lost
  uint64_t drop_every = 0;        // lose every N-th frame transmission (0 = off)
  double dup = 0;                 // probability a frame arrives twice
  uint64_t dup_every = 0;         // every N-th frame transmission arrives twice (0 = off)
  double ack_drop = 0;            // probability an ACK or NAK is lost
  uint64_t ack_drop_every = 0;    // lose every N-th ACK / NAK (0 = off)

  bool any() const;
  bool operator==(const FaultSpec&) const = default;
};

// Empty text or "none" is a spec without faults. On an error returns nullopt and, when
// `error` is given, a sentence naming the key and value, e.g.
// "link faults: ber=2: must be a probability in [0, 1)".
std::optional<FaultSpec> parse_fault_spec(std::string_view text, std::string* error);

// The canonical text: the keys that differ from the defaults, in the grammar's order,
// with the seed; "none" for a spec without faults. parse_fault_spec(to_string(s)) == s.
std::string to_string(const FaultSpec& spec);

}  // namespace ipusim::links
