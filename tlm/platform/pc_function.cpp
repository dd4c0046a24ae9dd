#include "platform/pc_function.h"

namespace ipusim::platform {

// A linear scan: called once per running tile at the end of a run, never on a hot path.
std::string function_at(const iss::Program& program, uint32_t pc) {
  const iss::Program::Symbol* best = nullptr;
  for (const iss::Program::Symbol& s : program.symbols()) {
    if (s.size == 0 || pc < s.value || pc - s.value >= s.size) continue;
    if (!best || s.size < best->size) best = &s;
  }
  return best ? best->name : std::string();
}

}  // namespace ipusim::platform
