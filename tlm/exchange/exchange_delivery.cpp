#include "exchange/exchange_delivery.h"

#include <algorithm>

namespace ipusim::exchange {

Delivered deliver_in_parts(const std::vector<Delivery>& all, uint32_t tiles_per_ipu, uint32_t ipus,
                           const PlanThreads* threads, const DeliverOne& one) {
  const size_t parts = std::clamp<size_t>(all.size() / kDeliveriesPerPart, 1, kMaxDeliveryParts);
  std::vector<size_t> begin(parts + 1, all.size());
  begin[0] = 0;
  for (size_t p = 1; p < parts; ++p) {
    size_t i = std::max(begin[p - 1], p * all.size() / parts);
    while (i > 0 && i < all.size() && all[i].dst_tile == all[i - 1].dst_tile) ++i;
    begin[p] = i;
  }
  const uint32_t per_ipu = std::max<uint32_t>(tiles_per_ipu, 1);
  std::vector<Delivered> done(parts);
  auto copy_part = [&](size_t p) {
    tlm::tlm_generic_payload trans;
    std::vector<uint8_t> buffer;
    Delivered& part = done[p];
    part.by_ipu.resize(ipus);
    for (size_t i = begin[p]; i < begin[p + 1]; ++i) {
      const Delivery& d = all[i];
      if (d.len == 0) continue;
      if ((part.problem = one(i, trans, buffer))) return;
      DeliveryCounts& c = part.by_ipu.at(d.dst_tile / per_ipu);
      ++c.messages;
      c.bytes += d.len;
    }
  };
  if (threads && *threads && parts > 1) {
    (*threads)(parts, copy_part);
  } else {
    for (size_t p = 0; p < parts; ++p) copy_part(p);
  }
  Delivered out;
  out.by_ipu.resize(ipus);
  for (Delivered& part : done) {
    for (uint32_t i = 0; i < ipus; ++i) {
      out.by_ipu[i].messages += part.by_ipu[i].messages;
      out.by_ipu[i].bytes += part.by_ipu[i].bytes;
    }
    if (part.problem) {
      out.problem = std::move(part.problem);
      break;
    }
  }
  return out;
}

}  // namespace ipusim::exchange
