// ipusim: the command-line front end of the simulator.
#include <cstdio>
#include <exception>

#include "commands.h"

int main(int argc, char** argv) {
  CLI::App app{"ipusim: a virtual platform of an IPU-class accelerator"};
  app.require_subcommand(1);
  int exit_code = 0;
  ipusim::cli::add_info_command(app, exit_code);
  ipusim::cli::add_run_command(app, exit_code);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "ipusim: error: %s\n", e.what());
    return 2;
  }
  return exit_code;
}
