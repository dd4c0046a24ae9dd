// Moving a valid phase's messages on the plan's host threads, for one IPU's fabric and
// for the exchange group alike (docs/exchange.md, "Planning on several host threads").
//
// The deliveries come by destination tile (the plan's order); they are cut into parts of
// whole destination tiles, each copied with its own payload and buffer. No part reads
// bytes that another writes: a part writes only its destinations' receive buffers, and a
// tile's receive buffers overlap none of its send buffers (docs/exchange.md, "Buffers").
// The counts and the problem reported are those of copying in plan order up to the first
// failed access (a tile refusing a buffer the ISS accepted: a model error).
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
  std::optional<Problem> problem;      // the first in plan order; nothing after it counts
};

// Delivers all[i] (never one of length 0) through the payload and buffer of its part; a
// problem stops the part.
using DeliverOne =
    std::function<std::optional<Problem>(size_t i, tlm::tlm_generic_payload& trans, std::vector<uint8_t>& buffer)>;

// Parts of about this many deliveries (whole destinations), at most this many parts.
inline constexpr size_t kDeliveriesPerPart = 4096, kMaxDeliveryParts = 64;

// Every delivery of `all` with `one`, by parts on `threads` (null: this thread alone);
// counted by the IPU of its destination (dst_tile / tiles_per_ipu, below `ipus`).
Delivered deliver_in_parts(const std::vector<Delivery>& all, uint32_t tiles_per_ipu, uint32_t ipus,
                           const PlanThreads* threads, const DeliverOne& one);

}  // namespace ipusim::exchange
