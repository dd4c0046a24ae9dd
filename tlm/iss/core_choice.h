// Which ISS engine a system's tiles run when nothing asked for one (docs/iss.md
// "Translator (--iss jit)"): the one rule for `ipusim run`, `ipusim serve`, the driver and
// a Platform built in code. An explicit choice (`--iss`, OpenOptions::iss, a
// TileConfig::iss set in code) wins; otherwise IPUSIM_ISS; otherwise the translator where
// it is built and the interpreter elsewhere, so a build without it runs the interpreter
// without a word (CoreState's notice is for jit asked for explicitly).
#pragma once

#include <optional>
#include <string>

#include "common/iss_core.h"

namespace ipusim::iss {

// The translator is in this build (x86-64 with Xbyak and IPUSIM_ISS_TRANSLATOR on).
bool translator_built();

// The engine when nothing asked for one: IPUSIM_ISS (jit, interp or lockstep) when set and not
// empty, else jit where translator_built(), else interp. Throws std::invalid_argument
// "IPUSIM_ISS: 'VALUE' is not jit, interp or lockstep" for any other value. Read at each call (a
// test may change the variable).
IssCore default_core();

// "IPUSIM_ISS=VALUE" when default_core() takes its answer from the variable (the choice
// was asked for), nullopt when it is the build's default. For messages and the summary.
std::optional<std::string> core_from_environment();

// What a tile asking for `core` runs: jit and lockstep only where the translator is built.
inline IssCore effective_core(IssCore core) { return translator_built() ? core : IssCore::interp; }

}  // namespace ipusim::iss
