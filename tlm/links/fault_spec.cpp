#include "links/fault_spec.h"

#include <charconv>
#include <cmath>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace ipusim::links {
namespace {

constexpr std::string_view kKeys =
    "seed, ber, periodic, burst, drop, drop_every, dup, dup_every, ack_drop, ack_drop_every";

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

std::vector<std::string_view> split(std::string_view s, char sep) {
  std::vector<std::string_view> parts;
  for (;;) {
    const size_t at = s.find(sep);
    parts.push_back(trim(s.substr(0, at)));
    if (at == std::string_view::npos) return parts;
    s.remove_prefix(at + 1);
  }
}

// Each parser returns an empty string or the reason, which the caller prefixes with key=value.
std::string parse_u64(std::string_view v, uint64_t& out) {
  const auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), out);
  if (!v.empty() && ec == std::errc::result_out_of_range && end == v.data() + v.size())
    return "out of range: more than 2^64 - 1 (18446744073709551615)";
  if (v.empty() || ec != std::errc() || end != v.data() + v.size())
    return "not a non-negative integer";
  return {};
}

std::string parse_every(std::string_view v, uint64_t& out) {
  if (auto e = parse_u64(v, out); !e.empty()) return e;
  // Every transmission hit would leave no way through: the link could never recover.
  if (out < 2) return "must be at least 2";
  return {};
}

std::string parse_probability(std::string_view v, double& out) {
  const auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), out);
  if (!v.empty() && ec == std::errc::result_out_of_range && end == v.data() + v.size()) {
    // from_chars says so for a number a double cannot hold: too small or too large.
    const size_t e = v.find_first_of("eE");
    const bool tiny = e != std::string_view::npos && e + 1 < v.size() && v[e + 1] == '-';
    return tiny ? "out of range: underflows a double (the smallest is about 2.2e-308; 0 for none)"
                : "out of range: must be a probability in [0, 1)";
  }
  if (v.empty() || ec != std::errc() || end != v.data() + v.size()) return "not a number";
  if (!(out >= 0 && out < 1)) return "must be a probability in [0, 1)";
  return {};
}

std::string parse_burst(std::string_view v, FaultSpec& s) {
  const auto parts = split(v, ':');
  if (parts.size() < 2 || parts.size() > 3) return "expected START:LENGTH or START:LENGTH:PERIOD";
  if (!parse_u64(parts[0], s.burst_start).empty()) return "START is not a non-negative integer";
  if (!parse_u64(parts[1], s.burst_length).empty() || s.burst_length == 0)
    return "LENGTH must be a positive integer";
  s.burst_period = 0;
  if (parts.size() == 3) {
    if (!parse_u64(parts[2], s.burst_period).empty()) return "PERIOD is not a non-negative integer";
    if (s.burst_period <= s.burst_length) return "PERIOD must be greater than LENGTH";
  }
  return {};
}

std::string parse_item(std::string_view key, std::string_view value, FaultSpec& s) {
  if (key == "seed") return parse_u64(value, s.seed);
  if (key == "ber") return parse_probability(value, s.ber);
  if (key == "periodic") return parse_every(value, s.periodic);
  if (key == "burst") return parse_burst(value, s);
  if (key == "drop") return parse_probability(value, s.drop);
  if (key == "drop_every") return parse_every(value, s.drop_every);
  if (key == "dup") return parse_probability(value, s.dup);
  if (key == "dup_every") return parse_every(value, s.dup_every);
  if (key == "ack_drop") return parse_probability(value, s.ack_drop);
  if (key == "ack_drop_every") return parse_every(value, s.ack_drop_every);
  return fmt::format("unknown key (known: {})", kKeys);
}

}  // namespace

bool FaultSpec::any() const {
  return ber > 0 || periodic != 0 || burst_length != 0 || drop > 0 || drop_every != 0 || dup > 0 ||
         dup_every != 0 || ack_drop > 0 || ack_drop_every != 0;
}

std::optional<FaultSpec> parse_fault_spec(std::string_view text, std::string* error) {
  auto fail = [&](std::string message) -> std::optional<FaultSpec> {
    if (error) *error = "link faults: " + message;
    return std::nullopt;
  };
  FaultSpec spec;
  text = trim(text);
  if (text.empty() || text == "none") return spec;
  std::vector<std::string_view> seen;
  for (std::string_view item : split(text, ',')) {
    if (item.empty()) return fail("empty item in '" + std::string(text) + "'");
    const size_t eq = item.find('=');
    if (eq == std::string_view::npos)
      return fail(fmt::format("'{}': expected KEY=VALUE", item));
    const std::string_view key = trim(item.substr(0, eq));
    const std::string_view value = trim(item.substr(eq + 1));
    for (std::string_view k : seen)
      if (k == key) return fail(fmt::format("{}: given twice", key));
    seen.push_back(key);
    if (auto why = parse_item(key, value, spec); !why.empty())
      return fail(fmt::format("{}={}: {}", key, value, why));
  }
  return spec;
}

std::string to_string(const FaultSpec& s) {
  if (!s.any()) return "none";
  std::vector<std::string> items;
  if (s.ber > 0) items.push_back(fmt::format("ber={}", s.ber));
  if (s.periodic) items.push_back(fmt::format("periodic={}", s.periodic));
  if (s.burst_length) {
    items.push_back(s.burst_period ? fmt::format("burst={}:{}:{}", s.burst_start, s.burst_length, s.burst_period)
                                   : fmt::format("burst={}:{}", s.burst_start, s.burst_length));
  }
  if (s.drop > 0) items.push_back(fmt::format("drop={}", s.drop));
  if (s.drop_every) items.push_back(fmt::format("drop_every={}", s.drop_every));
  if (s.dup > 0) items.push_back(fmt::format("dup={}", s.dup));
  if (s.dup_every) items.push_back(fmt::format("dup_every={}", s.dup_every));
  if (s.ack_drop > 0) items.push_back(fmt::format("ack_drop={}", s.ack_drop));
  if (s.ack_drop_every) items.push_back(fmt::format("ack_drop_every={}", s.ack_drop_every));
  items.push_back(fmt::format("seed={}", s.seed));
  return fmt::format("{}", fmt::join(items, ","));
}

}  // namespace ipusim::links
