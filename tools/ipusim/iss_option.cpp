#include "iss_option.h"

#include "iss/core_choice.h"

namespace ipusim::cli {

void add_iss_option(CLI::App* cmd, std::optional<std::string>& iss, const std::string& what) {
  // The help says what this build's default is: a build without the translator has only one.
  const std::string fallback = iss::translator_built() ? "jit" : "interp: this build has no translator";
  cmd->add_option("--iss", iss,
                  what + ": jit (the x86-64 translator), interp (the interpreter) or lockstep (the "
                         "translator checked against the interpreter at every taken transfer: several times "
                         "slower; a difference is a 'lockstep divergence' fault); the same output and cycles "
                         "(default: IPUSIM_ISS, else " + fallback + "). Tiles traced by --itrace and gdb's "
                         "breakpoints, watchpoints and steps run on the interpreter (docs/iss.md \"Translator\")")
      ->check(CLI::IsMember({"interp", "jit", "lockstep"}));
}

}  // namespace ipusim::cli
