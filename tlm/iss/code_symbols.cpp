#include "iss/code_symbols.h"

#include <algorithm>
#include <tuple>

namespace ipusim::iss {
namespace {

// Sorted so that the last entry at or below a pc is the one to show.
bool before(const CodeSymbols::Entry& a, const CodeSymbols::Entry& b) {
  return std::tie(a.value, a.global, a.name) < std::tie(b.value, b.global, b.name);
}

// The last entry whose value is <= pc, or nullptr.
const CodeSymbols::Entry* at_or_below(const std::vector<CodeSymbols::Entry>& v, uint32_t pc) {
  auto it = std::upper_bound(v.begin(), v.end(), pc,
                             [](uint32_t p, const CodeSymbols::Entry& e) { return p < e.value; });
  return it == v.begin() ? nullptr : &*std::prev(it);
}

}  // namespace

CodeSymbols::CodeSymbols(std::vector<Entry> entries) {
  for (Entry& e : entries) {
    // Mapping symbols ($x, $d) and assembler-local labels (.L*) name no place a reader knows.
    if (e.name.empty() || e.name[0] == '$' || e.name.rfind(".L", 0) == 0) continue;
    (e.function && e.size > 0 ? functions_ : labels_).push_back(std::move(e));
  }
  std::sort(functions_.begin(), functions_.end(), before);
  std::sort(labels_.begin(), labels_.end(), before);
}

// The narrowest sized function holding pc: one nested in another (a local alias inside
// a larger symbol) names the pc, and an outer one still holds what lies past the inner.
// Lookups happen once per problem: a scan is enough.
std::optional<std::string_view> CodeSymbols::function_at(uint32_t pc) const {
  const Entry* best = nullptr;
  for (const Entry& f : functions_) {
    if (f.value > pc) break;
    if (pc - f.value < f.size && (!best || f.size < best->size)) best = &f;
  }
  if (!best) return std::nullopt;
  return best->name;
}

bool CodeSymbols::function_entry(uint32_t pc) const {
  auto it = std::lower_bound(functions_.begin(), functions_.end(), pc,
                             [](const Entry& e, uint32_t p) { return e.value < p; });
  return it != functions_.end() && it->value == pc;
}

std::optional<CodeSymbols::Location> CodeSymbols::locate(uint32_t pc) const {
  const Entry* f = at_or_below(functions_, pc);
  if (f && pc - f->value < f->size) return Location{f->name, pc - f->value};
  const Entry* best = at_or_below(labels_, pc);
  // A sized function that ended below pc still beats nothing, but not a nearer label.
  if (f && (!best || f->value > best->value)) best = f;
  if (!best) return std::nullopt;
  return Location{best->name, pc - best->value};
}

}  // namespace ipusim::iss
