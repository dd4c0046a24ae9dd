// The engine that runs a tile's instructions (docs/iss.md "Translator (--iss jit)"): one
// name for the choice from the command line (`--iss`), the driver (OpenOptions::iss,
// IPUSIM_ISS) and the config structs down to iss::TileParams::core.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace ipusim {

// interp: the threaded interpreter, the reference (and the only engine of the stepping
// loop: traces, probes, bounds). jit: the x86-64 translator, with the interpreter for
// what it does not translate. Both give the same registers, memory, cycles and faults.
// lockstep: the translator checked against the interpreter as it runs (docs/iss.md
// "Lockstep"): the same results, several times slower, or a "lockstep divergence" fault.
enum class IssCore : uint8_t { interp, jit, lockstep };

constexpr std::string_view to_string(IssCore core) {
  switch (core) {
    case IssCore::jit: return "jit";
    case IssCore::lockstep: return "lockstep";
    case IssCore::interp: break;
  }
  return "interp";
}

// What an error says the accepted values are.
inline constexpr std::string_view kIssCoreNames = "jit, interp or lockstep";

// "jit", "interp" or "lockstep"; anything else: nullopt (the caller names where the text
// came from).
constexpr std::optional<IssCore> parse_iss_core(std::string_view text) {
  if (text == "jit") return IssCore::jit;
  if (text == "interp") return IssCore::interp;
  if (text == "lockstep") return IssCore::lockstep;
  return std::nullopt;
}

}  // namespace ipusim
