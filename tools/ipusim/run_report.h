// The summary of an `ipusim run`: printed to stderr, and written as JSON with --json.
#pragma once

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "common/config.h"
#include "dist/partition.h"
#include "platform/platform.h"
#include "run_stop.h"

namespace ipusim::cli {

struct RunReport {
  std::string config_path;
  std::string elf_path;
  std::string tile_selection;   // "all" or "0-3,8"
  config::SystemConfig config;
  platform::RunResult result;
  double elaboration_seconds = 0;
  std::string iss_source;       // what chose the ISS engine: "--iss jit", "IPUSIM_ISS=interp", "the default"
  int exit_code = 0;            // the process exit status
  StopOptions stop_options;     // --max-cycles, --max-instructions, --timeout
  StopReason stop_reason = StopReason::None;  // run_stop.h: None unless the run stopped short
  // Under mpirun (docs/distributed.md): the job's partition, shown in the summary and as
  // --json's `partition`, a host figure like `host_threads`. Unset without a launcher.
  std::optional<dist::Partition> partition;
};

// Every tile's superstep records (supersteps[k].ipus[i].per_tile) are kept up to this
// many tiles; above it those lists are empty and `per_tile_supersteps` is false.
inline constexpr size_t kJsonPerTileLimit = 64;

std::string summary_text(const RunReport& report);
// Every key of --json but the last, `supersteps` (superstep_json.h writes the document).
nlohmann::ordered_json summary_json(const RunReport& report);

}  // namespace ipusim::cli
