// Runs the real `ipusim run` on a config and a firmware ELF for the kernel tests: the
// console (stdout), the summary (stderr), the exit status and the --json summary.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace kref {

struct IpusimRun {
  int status = -1;
  std::string console;  // stdout: the tagged console lines
  std::string err;      // stderr: summary and errors
  nlohmann::json json;  // the --json summary (null if it was not written)
  double host_seconds = 0;
};

// `ipusim run --config <config> --elf <firmware_dir>/<elf> --json <tmp> <extra>`, from the
// project source dir (config paths relative to it). `tag` names the temporary files.
IpusimRun run_ipusim(const std::string& config, const std::string& elf, const std::string& tag,
                     const std::string& extra = "");

std::string firmware_path(const std::string& elf);  // <IPUSIM_FIRMWARE_DIR>/<elf>

}  // namespace kref
