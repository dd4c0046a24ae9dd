// Which faults each IPU-Link of a system gets: one spec for every link, and specs for
// single links (by link index, as `ipusim info --links` numbers them) that replace it.
// The config's `link_faults`, `ipusim run --link-faults [LINK:]SPEC` and the driver's
// Device::set_link_faults build one (docs/links.md, "Fault injection").
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "links/fault_spec.h"

namespace ipusim::links {

struct FaultPlan {
  FaultSpec every;                     // every link not in `links` (default: no faults)
  std::map<uint32_t, FaultSpec> links; // by link index: replaces `every` for that link

  const FaultSpec& for_link(uint32_t link) const {
    const auto it = links.find(link);
    return it == links.end() ? every : it->second;
  }
  bool any() const;
  bool operator==(const FaultPlan&) const = default;
};

// Adds one item "SPEC" (every link) or "LINK:SPEC" (link LINK; LINK a decimal index) to
// `plan`. Returns false and, when `error` is given, a sentence naming the item's part
// that is wrong: a link index at or past `link_count`, a link or "every links" given
// twice, or the spec's own error (parse_fault_spec).
bool add_fault_item(FaultPlan& plan, std::string_view item, uint32_t link_count, std::string* error);

// The canonical items of `plan`, ";"-separated: "SPEC" for every link if it has faults,
// then "LINK:SPEC" per link; "none" for a plan without faults.
std::string to_string(const FaultPlan& plan);

}  // namespace ipusim::links
