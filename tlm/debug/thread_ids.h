// gdb thread ids of tile threads (docs/debugging.md, "gdb remote protocol"): with the
// multiprocess extension "p<pid>.<tid>" in hex, pid = ipu + 1, tid = tile * 8 + slot + 1;
// without it a bare "<tid>" that folds the IPU in, (ipu << 16) | (tile * 8 + slot + 1).
// gdb reserves 0 (any) and -1 (all) in both parts, hence the + 1s.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "debug/debug_target.h"

namespace ipusim::debug {

std::string format_thread_id(const ThreadRef& thread, bool multiprocess);

// A parsed id: nullopt parts are "any" (0) or "all" (-1), which the stub treats alike
// (all-stop: it picks a thread where one is needed).
struct ThreadPattern {
  std::optional<uint32_t> ipu;
  std::optional<uint32_t> tile;
  std::optional<uint32_t> slot;
  bool any() const { return !ipu && !tile; }
};
// nullopt: malformed (not hex, a zero tid in a bare id, a tid of "every process"
// such as p-1.3a). A slot of 7 parses; the target then finds no such thread.
std::optional<ThreadPattern> parse_thread_id(std::string_view text);

}  // namespace ipusim::debug
