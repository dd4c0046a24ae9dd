#include "iss/core_choice.h"

#include <cstdlib>
#include <stdexcept>

#include "iss/jit/jit.h"

namespace ipusim::iss {
namespace {

// IPUSIM_ISS, or null when unset or empty (an empty value chooses nothing, as unset).
const char* iss_variable() {
  const char* v = std::getenv("IPUSIM_ISS");
  return v != nullptr && *v != '\0' ? v : nullptr;
}

}  // namespace

bool translator_built() { return jit::available(); }

IssCore default_core() {
  if (const char* v = iss_variable()) {
    if (const std::optional<IssCore> core = parse_iss_core(v)) return *core;
    throw std::invalid_argument(std::string("IPUSIM_ISS: '") + v + "' is not " + std::string(kIssCoreNames));
  }
  return translator_built() ? IssCore::jit : IssCore::interp;
}

std::optional<std::string> core_from_environment() {
  if (const char* v = iss_variable()) return std::string("IPUSIM_ISS=") + v;
  return std::nullopt;
}

}  // namespace ipusim::iss
