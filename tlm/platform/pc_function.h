// The function a pc lies in, for naming where a tile is (a run budget's running tiles).
// The ELF symbol table alone for now: one small function, so the DWARF symbolizer
// (function + file:line) can take its place without touching its callers.
#pragma once

#include <cstdint>
#include <string>

#include "iss/program.h"

namespace ipusim::platform {

// The name of the smallest sized symbol of `program` whose range holds `pc`, or "" (no
// symbol table: a program a host booted from its image; a pc outside every symbol).
std::string function_at(const iss::Program& program, uint32_t pc);

}  // namespace ipusim::platform
