// The memory report on the command line (docs/memory_report.md): `ipusim info --elf F`
// (the ELF alone) and what `ipusim run --memory-report FILE` writes when the run ends.
#pragma once

#include <string>

#include "commands.h"
#include "platform/platform.h"

namespace ipusim::cli {

// `ipusim info --elf F [--config C] [--json]`. Throws std::invalid_argument for an ELF or
// config it cannot read.
int run_info_elf(const InfoOptions& options);

// The report of `platform`'s run of `elf_path`: FILE as JSON, the tile map PNG
// (--memory-map, else FILE.png), and the summary on stderr unless `quiet`. A file that
// cannot be written is named on stderr; returns false then.
bool write_memory_report(const RunOptions& o, const platform::Platform& platform, const std::string& elf_path, bool quiet);

}  // namespace ipusim::cli
