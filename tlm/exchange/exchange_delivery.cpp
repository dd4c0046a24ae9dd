#include "exchange/exchange_delivery.h"

#include <algorithm>
#include <cstring>

namespace ipusim::exchange {

namespace {

void add(std::vector<DeliveryCounts>& by_ipu, uint32_t ipu, uint64_t bytes) {
  DeliveryCounts& c = by_ipu.at(ipu);
  ++c.messages;
  c.bytes += bytes;
}

}  // namespace

Delivered deliver_in_parts(const std::vector<Delivery>& all, uint32_t tiles_per_ipu, uint32_t ipus,
                           const PlanThreads* threads, const DirectPath& direct, const DeliverOne& one) {
  const size_t parts = std::clamp<size_t>(all.size() / kDeliveriesPerPart, 1, kMaxDeliveryParts);
  std::vector<size_t> begin(parts + 1, all.size());
  begin[0] = 0;
  for (size_t p = 1; p < parts; ++p) {
    size_t i = std::max(begin[p - 1], p * all.size() / parts);
    while (i > 0 && i < all.size() && all[i].dst_tile == all[i - 1].dst_tile) ++i;
    begin[p] = i;
  }
  const uint32_t per_ipu = std::max<uint32_t>(tiles_per_ipu, 1);
  const auto on_parts = [&](const std::function<void(size_t)>& body) {
    if (threads && *threads && parts > 1) {
      (*threads)(parts, body);
    } else {
      for (size_t p = 0; p < parts; ++p) body(p);
    }
  };

  // 1. Check: the deliveries without a direct path, by part.
  std::vector<std::vector<size_t>> indirect(parts);
  on_parts([&](size_t p) {
    for (size_t i = begin[p]; i < begin[p + 1]; ++i) {
      if (all[i].len == 0) continue;
      const DirectCopy c = direct(i);
      if (!c.from || !c.to) indirect[p].push_back(i);
    }
  });

  // 2. Those through b_transport, in plan order; the first refused one stops the phase.
  Delivered out;
  out.by_ipu.resize(ipus);
  tlm::tlm_generic_payload trans;
  std::vector<uint8_t> buffer;
  for (const std::vector<size_t>& part : indirect)
    for (size_t i : part) {
      if ((out.problem = one(i, trans, buffer))) return out;
      add(out.by_ipu, all[i].dst_tile / per_ipu, all[i].len);
    }

  // 3. Copy the direct paths.
  std::vector<std::vector<DeliveryCounts>> done(parts, std::vector<DeliveryCounts>(ipus));
  on_parts([&](size_t p) {
    for (size_t i = begin[p]; i < begin[p + 1]; ++i) {
      const Delivery& d = all[i];
      if (d.len == 0) continue;
      const DirectCopy c = direct(i);
      if (!c.from || !c.to) continue;  // copied in 2
      std::memmove(c.to, c.from, d.len);
      add(done[p], d.dst_tile / per_ipu, d.len);
    }
  });
  for (const std::vector<DeliveryCounts>& part : done)
    for (uint32_t i = 0; i < ipus; ++i) {
      out.by_ipu[i].messages += part[i].messages;
      out.by_ipu[i].bytes += part[i].bytes;
    }
  return out;
}

}  // namespace ipusim::exchange
