// `--iss jit|interp|lockstep`, as `run` and `serve` both take it: the tiles' ISS engine (docs/iss.md
// "Translator (--iss jit)"). Unset: IPUSIM_ISS, else jit where the translator is built
// (iss/core_choice.h).
#pragma once

#include <optional>
#include <string>

#include <CLI/CLI.hpp>

namespace ipusim::cli {

// `what`: what the engine is for ("the tiles' ISS engine for every run").
void add_iss_option(CLI::App* cmd, std::optional<std::string>& iss, const std::string& what);

}  // namespace ipusim::cli
