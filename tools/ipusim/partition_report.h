// The partition of a system over MPI ranks as `ipusim info --ranks R` and the run summary
// show it (docs/distributed.md): text lines and the `partition` JSON object.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "common/config.h"
#include "dist/partition.h"

namespace ipusim::cli {

// "partition over 2 ranks (balanced by tiles)\n  rank 0: boards 0-1, ..." (ends in '\n').
std::string partition_text(const config::SystemConfig& system, const dist::Partition& partition);

// {"ranks", "source", "lookahead_cycles", "per_rank": [...], "cut_links": [...]} (docs/distributed.md).
nlohmann::ordered_json partition_json(const config::SystemConfig& system, const dist::Partition& partition);

}  // namespace ipusim::cli
