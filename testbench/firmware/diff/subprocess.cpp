#include "subprocess.h"

#include <fstream>
#include <sstream>
#include <stdexcept>

#include "child_process.h"

namespace ipusim::fwtest {

std::string ProcessResult::describe() const {
  return exited ? "exit status " + std::to_string(exit_status)
                : "killed by signal " + std::to_string(signal);
}

std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + path.string());
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

ProcessResult run_process(const std::vector<std::string>& argv,
                          const std::filesystem::path& stdout_file,
                          const std::filesystem::path& stderr_file) {
  ipusim::proc::Command command = ipusim::proc::Command::program(argv);
  command.out = ipusim::proc::Stream::file(stdout_file.string());
  command.err = ipusim::proc::Stream::file(stderr_file.string());
  const ipusim::proc::Outcome o = ipusim::proc::run(command);
  if (!o.started) throw std::runtime_error(o.start_error);
  ProcessResult result;
  result.exited = o.exited;
  result.exit_status = o.exit_status;
  result.signal = o.signal;
  result.out = o.out;
  result.err = o.err;
  return result;
}

}  // namespace ipusim::fwtest
