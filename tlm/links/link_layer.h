// The IPU-Link data link layer as plain C++ (docs/links.md, "Link layer"): frames with a
// 12-bit sequence number and a CRC-32, cumulative coalesced ACKs, NAK and go-back-N
// replay, a replay timer, retraining, credit flow control, a seeded fault injector, and
// the exchange's view of it all: carry_phase().
//
// The lower levels, for tests and the RTL equivalence tests: frame.h (wire format),
// crc.h, transmitter.h, receiver.h, link_direction.h (the cycle-stepped wire model),
// fault_injector.h.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "links/fault_injector.h"
#include "links/fault_spec.h"
#include "links/link_config.h"
#include "links/link_direction.h"
#include "links/link_failure.h"
#include "links/link_counters.h"

namespace ipusim::links {

struct PhaseResult {
  std::vector<uint8_t> delivered;            // every payload, in order, concatenated
  uint64_t last_delivery_cycle = 0;          // with faults; 0 for a phase without frames
  uint64_t fault_free_last_delivery_cycle = 0;
  uint64_t cycles_lost = 0;                  // == last_delivery_cycle - fault_free_last_delivery_cycle
  LinkCounters stats;                           // this phase only (injected: this phase's share)
};

// One direction of one link carries one exchange phase's frames, in the given order,
// frame i not before frames[i].ready_cycle (cycles from the phase start; cycle 0 is the
// phase start). Under stall semantics: the fault-free run fixes each frame's send cycle;
// the run with `injector` sends no frame earlier than that plus the stall recovery has
// caused so far. `injector` keeps its state across calls. Deterministic. Throws
// std::invalid_argument for an invalid config or an oversized payload, LinkFailure when
// the faults leave no way through.
PhaseResult carry_phase(const LinkLayerConfig& config, FaultInjector& injector,
                        std::span<const ScheduledFrame> frames);
// The same, handing each payload to `deliver` instead of concatenating them
// (PhaseResult::delivered stays empty).
PhaseResult carry_phase(const LinkLayerConfig& config, FaultInjector& injector,
                        std::span<const ScheduledFrame> frames, const DeliverFn& deliver);

}  // namespace ipusim::links
