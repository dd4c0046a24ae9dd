// `--rtl LIST` and `--waves FILE`, as `run` and `serve` both take them: which blocks run as
// their Verilated RTL, and where their waveforms go (docs/cosim.md).
#pragma once

#include <optional>
#include <string>

#include <CLI/CLI.hpp>

namespace ipusim::cli {

void add_cosim_options(CLI::App* cmd, std::optional<std::string>& rtl, std::string& waves);

}  // namespace ipusim::cli
