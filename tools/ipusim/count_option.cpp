#include "count_option.h"

#include <charconv>
#include <stdexcept>

#include <fmt/format.h>

namespace ipusim::cli {

uint64_t parse_count(const std::string& option, const std::string& text) {
  auto bad = [&](const std::string& why) {
    return std::invalid_argument(fmt::format("{} '{}': {}", option, text, why));
  };
  if (text.empty()) throw bad("empty: expected a whole number from 1 (leave the option out for no limit)");
  if (text.front() == '-') throw bad("negative: expected a whole number from 1 (leave the option out for no limit)");
  if (text.find_first_not_of("0123456789") != std::string::npos)
    throw bad("not a whole number (decimal digits only, e.g. 1000000)");
  uint64_t value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec == std::errc::result_out_of_range) throw bad("more than 2^64 - 1 (18446744073709551615)");
  if (ec != std::errc() || end != text.data() + text.size()) throw bad("not a whole number");
  if (value == 0) throw bad("must be at least 1 (leave the option out for no limit)");
  return value;
}

}  // namespace ipusim::cli
