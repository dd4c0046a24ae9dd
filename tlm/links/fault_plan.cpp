#include "links/fault_plan.h"

#include <charconv>

#include <fmt/format.h>

namespace ipusim::links {

bool FaultPlan::any() const {
  if (every.any()) return true;
  for (const auto& [link, spec] : links)
    if (spec.any()) return true;
  return false;
}

namespace {

// A link prefix is digits then ':' before any '=' ("3:ber=1e-6"); "burst=1:2" has its
// colon after the '=' and is a spec for every link.
std::optional<std::string_view> link_prefix(std::string_view item) {
  const size_t colon = item.find(':');
  const size_t equals = item.find('=');
  if (colon == std::string_view::npos || (equals != std::string_view::npos && equals < colon)) return std::nullopt;
  std::string_view head = item.substr(0, colon);
  while (!head.empty() && (head.front() == ' ' || head.front() == '\t')) head.remove_prefix(1);
  while (!head.empty() && (head.back() == ' ' || head.back() == '\t')) head.remove_suffix(1);
  return head;
}

}  // namespace

bool add_fault_item(FaultPlan& plan, std::string_view item, uint32_t link_count, std::string* error) {
  auto fail = [&](const std::string& why) {
    if (error) *error = why;
    return false;
  };
  std::optional<uint32_t> link;
  std::string_view spec_text = item;
  if (const auto head = link_prefix(item)) {
    uint32_t l = 0;
    const auto [end, ec] = std::from_chars(head->data(), head->data() + head->size(), l);
    if (head->empty() || ec != std::errc() || end != head->data() + head->size())
      return fail(fmt::format("link faults: '{}': a link index is a non-negative integer", *head));
    if (link_count == 0) return fail(fmt::format("link faults: link {}: the system has no IPU-Links", l));
    if (l >= link_count)
      return fail(fmt::format("link faults: link {}: the system has {} IPU-Link{} (0 .. {}; `ipusim info --links`)", l,
                              link_count, link_count == 1 ? "" : "s", link_count - 1));
    link = l;
    spec_text = item.substr(item.find(':') + 1);
  }
  std::string why;
  const std::optional<FaultSpec> spec = parse_fault_spec(spec_text, &why);
  if (!spec) return fail(link ? fmt::format("link {}: {}", *link, why) : why);
  if (link) {
    if (!plan.links.emplace(*link, *spec).second) return fail(fmt::format("link faults: link {}: given twice", *link));
  } else {
    if (plan.every != FaultSpec{}) return fail("link faults: a spec for every link is given twice");
    plan.every = *spec;
  }
  return true;
}

std::string to_string(const FaultPlan& plan) {
  std::string out;
  if (plan.every.any()) out = to_string(plan.every);
  for (const auto& [link, spec] : plan.links) {
    if (!out.empty()) out += "; ";
    out += fmt::format("{}:{}", link, to_string(spec));
  }
  return out.empty() ? "none" : out;
}

}  // namespace ipusim::links
