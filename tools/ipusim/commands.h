// The `ipusim` subcommands: each one's options, as the command line (main.cpp, the only
// translation unit that includes CLI11) fills them in, and the function that runs it
// and returns the process's exit status (see its file). A function throws
// std::exception for bad input: main() prints it and exits 2.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "stop_options.h"

namespace ipusim::cli {

struct InfoOptions {
  std::string config;
  bool json = false;
  bool yaml = false;
  bool links = false;  // the port table and hop matrix even for a large system
  std::optional<int64_t> ranks;  // --ranks R: the partition over R MPI ranks (docs/distributed.md)
  std::string elf;  // --elf F: the program's memory before a run (docs/memory_report.md); --config optional then
};
int run_info(const InfoOptions& options);  // cmd_info.cpp

struct RunOptions {
  std::string config;
  std::string elf;
  std::optional<std::string> tiles;  // given (even empty: an error) or not (every tile)
  std::string json;
  std::string console = "tagged";
  std::string itrace;
  std::string itrace_ipus, itrace_tiles, itrace_threads, itrace_cycles;  // empty: all
  std::string profile;                        // --profile FILE (callgrind or pprof); empty: none
  std::string profile_ipus, profile_tiles;    // empty: all
  bool profile_split = false;
  std::string memory_report;  // --memory-report FILE (JSON; docs/memory_report.md); empty: none
  std::string memory_map;     // --memory-map PNG; empty: FILE.png
  std::optional<uint32_t> stack_margin;  // --stack-margin BYTES; unset: memreport::kDefaultStackMargin
  std::string trace;
  uint32_t trace_tiles_max = 64;
  unsigned threads = 0;  // 0: every core of the host
  std::optional<uint64_t> console_buffer;  // unset: tile::kConsoleBufferBytes
  std::vector<std::string> link_faults;
  std::optional<uint16_t> gdb_port;
  std::string core_dir;  // --core: core files when the run ends on a problem
  std::optional<std::string> max_memory;  // --max-memory; unset: the machine's limits
  std::optional<std::string> rtl;  // --rtl; unset: the config's `cosim`
  std::string waves;               // --waves; empty: none
  std::optional<std::string> iss;  // --iss: the tiles' ISS engine; unset: iss::default_core()
  std::string checkpoint_at;   // --checkpoint-at superstep:N | every:N (docs/checkpoints.md)
  std::string checkpoint_dir;  // --checkpoint-dir DIR
  std::string restore;         // --restore DIR: config, ELF and state from a checkpoint
  StopOptions stop;
  bool quiet = false;
  bool progress = false, no_progress = false;
};
int run_run(const RunOptions& options);  // cmd_run.cpp

struct ServeOptions {
  std::string config;
  std::string socket;
  std::optional<uint16_t> gdb_port;
  std::string core_dir;
  std::optional<std::string> max_memory;  // unset: the machine's limits
  std::optional<std::string> rtl;  // --rtl; unset: the config's `cosim`
  std::string waves;               // --waves; empty: none
  std::optional<std::string> iss;  // --iss; unset: IPUSIM_ISS, else jit where the translator is built
  double idle_timeout = 600;  // seconds; ServerOptions::idle_timeout
  bool exit_with_parent = false;  // ServerOptions::parent_fd = standard input
  bool quiet = false;
};
int run_serve(const ServeOptions& options);  // cmd_serve.cpp

}  // namespace ipusim::cli
