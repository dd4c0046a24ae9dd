#include "commands.h"

namespace ipusim::cli {
void add_run_command(CLI::App& app, int& exit_code) {
  (void)exit_code;
  app.add_subcommand("run", "(not yet implemented)");
}
}  // namespace ipusim::cli
