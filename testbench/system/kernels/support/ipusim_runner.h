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

// The cycle IPU `ipu`'s last superstep began (its last sync's release) in a run's --json
// summary: where a kernel's exchanges are over and only its report is left (whose
// instructions depend on the numbers it prints).
uint64_t last_superstep_begin(const nlohmann::json& summary, uint32_t ipu);

}  // namespace kref
