// ipusim: the command-line front end of the simulator.
// Exit status: a subcommand's own (see its file); 2 for usage errors and bad input.
#include <cstdio>
#include <exception>

#include "commands.h"

int main(int argc, char** argv) {
  CLI::App app{"ipusim: a virtual platform of an IPU-class accelerator"};
  app.require_subcommand(1);
  int exit_code = 0;
  ipusim::cli::add_info_command(app, exit_code);
  ipusim::cli::add_run_command(app, exit_code);
  ipusim::cli::add_serve_command(app, exit_code);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // --help / --version exit 0; every usage error exits 2, whatever CLI11's own code.
    return app.exit(e) == 0 ? 0 : 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "ipusim: error: %s\n", e.what());
    return 2;
  }
  return exit_code;
}
