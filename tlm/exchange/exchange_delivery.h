// Moving a valid phase's messages on the plan's host threads, for one IPU's fabric and
// for the exchange group alike (docs/exchange.md, "Delivery").
//
// The deliveries come by destination tile (the plan's order); they are cut into parts of
// whole destination tiles. No part reads bytes that another writes: a part writes only
// its destinations' receive buffers, and a tile's receive buffers overlap none of its
// send buffers (docs/exchange.md, "Buffers"). In two passes, so that what a failed
// delivery leaves in SRAM is the same for any thread count:
//   1. check (parts in parallel): every delivery's direct path, its host bytes in both
//      SRAMs (the tiles' DMI grants); those without one are noted, in plan order;
//   2. the deliveries without a direct path through the tiles' b_transport, one after
//      the other in plan order; the first refused one fails the phase and nothing more
//      is copied (with tiles as targets the check finds exactly the accesses a tile
//      would refuse, so a failed phase copies nothing);
//   3. copy (parts in parallel): every direct path, a memmove from host bytes to host
//      bytes.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include <tlm>

#include "common/problem.h"
#include "exchange/exchange_plan.h"

namespace ipusim::exchange {

struct DeliveryCounts {
  uint64_t messages = 0, bytes = 0;
};

struct Delivered {
  std::vector<DeliveryCounts> by_ipu;  // per destination IPU: what was delivered
  std::optional<Problem> problem;      // the first refused delivery's, in plan order
};

// The host bytes a delivery goes from and to; either null: no direct path.
struct DirectCopy {
  const uint8_t* from = nullptr;
  uint8_t* to = nullptr;
};

// all[i]'s direct path (never one of length 0); called from any host thread, and twice
// per delivery with the same answer.
using DirectPath = std::function<DirectCopy(size_t i)>;
// Delivers all[i] without a direct path through `trans` and `buffer`; a problem if a
// tile refused it.
using DeliverOne =
    std::function<std::optional<Problem>(size_t i, tlm::tlm_generic_payload& trans, std::vector<uint8_t>& buffer)>;

// Parts of about this many deliveries (whole destinations), at most this many parts.
inline constexpr size_t kDeliveriesPerPart = 4096, kMaxDeliveryParts = 64;

// Every delivery of `all`, by parts on `threads` (null: this thread alone); counted by
// the IPU of its destination (dst_tile / tiles_per_ipu, below `ipus`).
Delivered deliver_in_parts(const std::vector<Delivery>& all, uint32_t tiles_per_ipu, uint32_t ipus,
                           const PlanThreads* threads, const DirectPath& direct, const DeliverOne& one);

}  // namespace ipusim::exchange
