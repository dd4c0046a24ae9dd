#include "commands.h"

namespace ipusim::cli {
void add_info_command(CLI::App& app, int& exit_code) {
  (void)exit_code;
  app.add_subcommand("info", "(not yet implemented)");
}
}  // namespace ipusim::cli
