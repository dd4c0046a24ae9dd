// The budgets and the timeout `ipusim run` was given (--max-cycles, --max-instructions,
// --timeout): what the command line fills in (commands.h) and the stop's report reads
// (run_stop.h).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace ipusim::cli {

struct StopOptions {
  uint64_t max_cycles = 0;        // 0: none
  uint64_t max_instructions = 0;  // 0: none
  std::optional<std::string> timeout;  // seconds as given (unset: none; "" is an error); timeout_seconds()
};

}  // namespace ipusim::cli
