// The `ipusim` subcommands. Each registers itself on the CLI11 app; the callback
// it installs sets the process exit status in `exit_code`.
#pragma once

#include <CLI/CLI.hpp>

namespace ipusim::cli {

void add_info_command(CLI::App& app, int& exit_code);  // cmd_info.cpp
void add_run_command(CLI::App& app, int& exit_code);   // cmd_run.cpp
void add_serve_command(CLI::App& app, int& exit_code); // cmd_serve.cpp

}  // namespace ipusim::cli
