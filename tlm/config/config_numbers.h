// Exact conversions between the decimal numbers written in config files (in the
// units their key names: MHz, GB/s, GiB) and the base units of config.h (Hz, B/s, B).
//
// Scaling by a power of ten is done on the decimal text, not by multiplying doubles,
// so "1325" MHz becomes exactly the double nearest 1.325e9, and writing a double back
// (format_decimal) then reading it (parse_decimal) gives the same double bit for bit:
// the effective config written next to a result reloads to the identical struct.
// Private to ipusim_config (no YAML here; the loader and writer share it).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace ipusim::config::detail {

// A plain decimal number ("1325", "-0.5", "1.6e3"; no hex, no inf/nan, no quotes)
// times 10^pow10, correctly rounded; nullopt if `text` is not such a number or the
// result is not finite.
std::optional<double> parse_decimal(std::string_view text, int pow10 = 0);

// An unsigned decimal integer ("1472"); nullopt if it is anything else or exceeds uint64.
std::optional<uint64_t> parse_unsigned(std::string_view text);

// The shortest decimal text d such that parse_decimal(d, pow10) == value. Plain
// notation ("1325", "0.25") for moderate exponents, scientific ("1e-09") otherwise.
std::string format_decimal(double value, int pow10 = 0);

}  // namespace ipusim::config::detail
