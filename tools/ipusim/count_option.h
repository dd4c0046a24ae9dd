// Whole-number options of `ipusim run` (--max-cycles, --max-instructions) and the text
// options whose emptiness matters (--timeout, --max-memory), parsed as checked values:
// CLI11 reads "-5" into a uint64_t as 2^64 - 5 and an empty --timeout as "not given".
#pragma once

#include <cstdint>
#include <string>

namespace ipusim::cli {

// `text`, the value of `option`, as a whole number from 1 to 2^64 - 1. Throws
// std::invalid_argument naming the option and the value for anything else: empty,
// negative, zero, not a plain decimal number, or beyond 2^64 - 1.
uint64_t parse_count(const std::string& option, const std::string& text);

}  // namespace ipusim::cli
