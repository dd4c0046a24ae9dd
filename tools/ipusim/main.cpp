// ipusim: the command-line front end of the simulator, and the only translation unit
// that includes CLI11 (a heavy header): each subcommand's options are parsed here into
// its plain struct (commands.h), which its own file runs.
// Exit status: a subcommand's own (see its file); 2 for usage errors and bad input.
#include <cstdio>
#include <exception>
#include <memory>
#include <optional>
#include <string>

#include <CLI/CLI.hpp>

#include "commands.h"
#include "count_option.h"
#include "dist/ranks.h"
#include "iss/core_choice.h"

namespace ipusim::cli {
namespace {

// ---- the options `run` and `serve` share ---------------------------------------------

// --gdb PORT and --core DIR: `runs` says which runs wait for gdb ("the run", "every
// run"), `core_when` when cores are written (docs/debugging.md).
void add_debug_options(CLI::App* cmd, std::optional<uint16_t>& gdb_port, std::string& core_dir,
                       const std::string& runs, const std::string& core_when) {
  cmd->add_option("--gdb", gdb_port,
                  runs + " waits for gdb on 127.0.0.1:PORT (0: any free port, printed on stderr), which stops, "
                         "steps and inspects any tile thread (docs/debugging.md)")
      ->check(CLI::Range(0, 65535));
  cmd->add_option("--core", core_dir,
                  core_when + ", write one ELF core per IPU to DIR/ipu<N>.core for gdb (docs/debugging.md)");
}

// --max-memory SIZE: the host memory the system may take (memory_option.h).
void add_max_memory_option(CLI::App* cmd, std::optional<std::string>& max_memory) {
  cmd->add_option("--max-memory", max_memory,
                  "refuse, before elaborating it, a system whose estimated memory (`ipusim info`) exceeds SIZE "
                  "(e.g. 512M, 4G; K, M, G, T are powers of 1024). Default: the memory available to the process "
                  "(MemAvailable, the cgroup's memory.max, ulimit -v)");
}

// --rtl LIST and --waves FILE: which blocks run as their Verilated RTL, and where their
// waveforms go (docs/cosim.md).
void add_cosim_options(CLI::App* cmd, std::optional<std::string>& rtl, std::string& waves) {
  cmd->add_option("--rtl", rtl,
                  "blocks that run as their Verilated RTL instead of their TLM model: sync, link, amp "
                  "separated by commas, or none; replaces the config's `cosim` (the same results, slower; "
                  "docs/cosim.md)");
  cmd->add_option("--waves", waves,
                  "write the RTL blocks' waveforms to FILE: FST (.fst, compact) or VCD (.vcd, quick to write); "
                  "one file per RTL instance when there are several (FILE's stem + .ipu0.sync + extension)");
}

// --iss jit|interp|lockstep: the tiles' ISS engine (docs/iss.md "Translator (--iss jit)");
// unset: IPUSIM_ISS, else jit where the translator is built (iss/core_choice.h). `what`:
// what the engine is for ("the tiles' ISS engine for every run").
void add_iss_option(CLI::App* cmd, std::optional<std::string>& iss, const std::string& what) {
  // The help says what this build's default is: a build without the translator has only one.
  const std::string fallback = iss::translator_built() ? "jit" : "interp: this build has no translator";
  cmd->add_option("--iss", iss,
                  what + ": jit (the x86-64 translator), interp (the interpreter) or lockstep (the "
                         "translator checked against the interpreter at every taken transfer: several times "
                         "slower; a difference is a 'lockstep divergence' fault); the same output and cycles "
                         "(default: IPUSIM_ISS, else " + fallback + "). Tiles traced by --itrace and gdb's "
                         "breakpoints, watchpoints and steps run on the interpreter (docs/iss.md \"Translator\")")
      ->check(CLI::IsMember({"interp", "jit", "lockstep"}));
}

// ---- the subcommands ------------------------------------------------------------------

void add_info_command(CLI::App& app, int& exit_code) {
  auto options = std::make_shared<InfoOptions>();
  CLI::App* info = app.add_subcommand("info", "Print a chip, board or system configuration, resolved");
  auto* config = info->add_option("-c,--config", options->config, "Chip, board or system YAML file (configs/*.yaml)");
  info->add_option("--elf", options->elf,
                   "Print a tile program's memory before it runs: sections, largest symbols, the stacks and heap as "
                   "the runtime lays them out for the config's tile (without --config: its __ipu_image_limit; "
                   "docs/memory_report.md)");
  auto* json = info->add_flag("--json", options->json, "Print machine-readable JSON");
  auto* yaml = info->add_flag("--yaml", options->yaml, "Print the effective configuration as YAML")->excludes(json);
  info->add_flag("--links", options->links,
                 "Draw every IPU's ports and the hop matrix even above 16 IPUs (else one line per board)")
      ->excludes(json)
      ->excludes(yaml);
  info->add_option("--ranks", options->ranks,
                   "Show the partition over R MPI ranks (`mpirun -n R`): each rank's boards, IPUs and tiles, and "
                   "the IPU-Links cut between ranks with their latency (docs/distributed.md)")
      ->excludes(yaml);
  info->callback([options, config, &exit_code] {
    if (options->elf.empty() && config->count() == 0) throw CLI::RequiredError("--config");
    exit_code = run_info(*options);
  });
}

void add_run_command(CLI::App& app, int& exit_code) {
  auto o = std::make_shared<RunOptions>();
  CLI::App* cmd = app.add_subcommand("run", "Run a firmware ELF on the tiles of a simulated system");
  cmd->add_option("--config", o->config, "chip, board or system YAML file (required unless --restore)");
  cmd->add_option("--elf", o->elf, "tile firmware (rv32 ELF executable; required unless --restore)");
  cmd->add_option("--checkpoint-at", o->checkpoint_at,
                  "superstep:N, cycle:C or every:N: write a checkpoint when every tile waits at its N-th sync (the "
                  "first sync at or after cycle C; every N syncs) and go on (docs/checkpoints.md)");
  cmd->add_option("--checkpoint-dir", o->checkpoint_dir,
                  "the checkpoint's directory (every:N: one DIR/superstep-<N> each)");
  cmd->add_option("--restore", o->restore,
                  "go on from the checkpoint in DIR: its config, ELF and tiles; --config / --elf, if given, must be "
                  "the checkpoint's");
  cmd->add_option("--tiles", o->tiles,
                  "tiles of every IPU to load and run: A-B or A,B,C (default: all)");
  cmd->add_option("--json", o->json,
                  "write the summary as JSON to FILE, and the effective config to FILE.config.yaml");
  cmd->add_option("--console", o->console, "console lines: tagged with ipu/tile, or raw")
      ->check(CLI::IsMember({"tagged", "raw"}));
  cmd->add_option("--console-buffer", o->console_buffer,
                  "bytes of console lines a tile holds before it pauses to hand them over (default 8192; "
                  "memory only: the output and every cycle are the same for any size)")
      ->check(CLI::Range(uint64_t{1}, uint64_t{1} << 32));
  cmd->add_option("--itrace", o->itrace,
                  "trace retired instructions to FILE, one line each: ipu tile thread cycle pc "
                  "<func+off> insn disasm [; xN|fN value] [mem addr [stored]] [fcsr v] (docs/platform.md)");
  cmd->add_option("--itrace-ipus", o->itrace_ipus, "trace only these IPUs: A-B or A,B,C (default: all)");
  cmd->add_option("--itrace-tiles", o->itrace_tiles,
                  "trace only these tiles of every traced IPU: A-B or A,B,C (default: all); the "
                  "others run untraced at full speed");
  cmd->add_option("--itrace-threads", o->itrace_threads,
                  "trace only these threads: A-B or A,B,C, 0 = supervisor, 1.. = workers (default: all)");
  cmd->add_option("--itrace-cycles", o->itrace_cycles,
                  "trace only instructions issued in the tile-cycle window FROM:TO (FROM <= cycle < TO; "
                  "FROM: or :TO leave an end open)");
  cmd->add_option("--profile", o->profile,
                  "profile the tiles' functions into FILE: exclusive and inclusive tile cycles and "
                  "instructions, calls, per tile and thread; pprof's profile.proto if FILE ends in .pb.gz, .pprof "
                  "or .pb (go tool pprof), else callgrind's format (callgrind_annotate, KCachegrind; "
                  "docs/profiling.md)");
  cmd->add_flag("--profile-split", o->profile_split,
               "with --profile FILE: also one file per profiled tile and thread, FILE.ipuI.tileT.threadH");
  cmd->add_option("--profile-ipus", o->profile_ipus, "profile only these IPUs: A-B or A,B,C (default: all)");
  cmd->add_option("--profile-tiles", o->profile_tiles,
                  "profile only these tiles of every profiled IPU: A-B or A,B,C (default: all)");
  cmd->add_option("--memory-report", o->memory_report,
                  "watch every tile's memory and write the report to FILE as JSON when the run ends: SRAM by "
                  "section and region, each thread's stack high-water mark, heap, exchange buffers, free, a chip "
                  "summary; a stack that grows out of its region stops the run before it stores there; the tile "
                  "map PNG to FILE.png (docs/memory_report.md)");
  cmd->add_option("--memory-map", o->memory_map, "with --memory-report: the tile map PNG's path (default FILE.png)");
  cmd->add_option("--stack-margin", o->stack_margin,
                  "with --memory-report: warn about a stack whose high-water mark came within BYTES of its "
                  "region's end (default 256)");
  cmd->add_option("--threads", o->threads,
                  "host threads simulating tiles (default: every core of the host); results "
                  "do not depend on it")
      ->check(CLI::Range(1u, 4096u));
  cmd->add_option("--trace", o->trace,
                  "write the supersteps (compute / sync / exchange per tile) as a Chrome / "
                  "Perfetto trace-event JSON file");
  cmd->add_option("--trace-tiles-max", o->trace_tiles_max,
                  "tracks per IPU in the --trace file; more tiles are grouped (default 64)")
      ->check(CLI::Range(1u, 1u << 20));
  cmd->add_option("--link-faults", o->link_faults,
                  "inject faults on the IPU-Links, replacing the config's link_faults: [LINK:]SPEC, "
                  "repeatable or ';'-separated, e.g. ber=1e-6,seed=7 (every link) or 3:burst=1000:16 "
                  "(link 3, as `ipusim info --links` numbers them; docs/links.md)")
      ->allow_extra_args(false);  // split on ';' by run_run, which names an empty item
  add_debug_options(cmd, o->gdb_port, o->core_dir, "the run",
                    "when the run ends on a fault, an exchange error, a deadlock, a budget, --timeout or Ctrl-C");
  add_max_memory_option(cmd, o->max_memory);
  add_cosim_options(cmd, o->rtl, o->waves);
  // Read as text and checked here (count_option.h): CLI11 reads "-5" into a uint64_t as 2^64 - 5.
  cmd->add_option_function<std::string>(
      "--max-cycles", [o](const std::string& n) { o->stop.max_cycles = parse_count("--max-cycles", n); },
      "cycle budget: no tile issues at or after tile cycle N and the run ends there "
      "(exit 4, naming the tiles still running); exact on every --threads. N from 1 to 2^64 - 1; a budget "
      "beyond the last cycle simulated time can reach (about 2^54 cycles at 1 GHz) is no limit");
  cmd->add_option_function<std::string>(
      "--max-instructions",
      [o](const std::string& n) { o->stop.max_instructions = parse_count("--max-instructions", n); },
      "instruction budget: the run ends after the compute batch in which all tiles "
      "together reach N instructions (exit 4); exact on every --threads. N from 1 to 2^64 - 1");
  cmd->add_option("--timeout", o->stop.timeout,
                  "wall-clock limit in seconds (decimal): the run ends where simulated time is "
                  "(exit 124, naming the tiles still running; Ctrl-C does the same, exit 130); "
                  "the elaboration before the run has the same limit");
  add_iss_option(cmd, o->iss, "the tiles' ISS engine");
  cmd->add_flag("--quiet", o->quiet, "do not print the summary");
  auto* progress = cmd->add_flag("--progress", o->progress,
                                 "show a progress line on stderr (supersteps, simulated time, MIPS, wall time) "
                                 "even when stderr is no terminal (default: on a terminal, for runs over 1 s)");
  cmd->add_flag("--no-progress", o->no_progress, "never show the progress line")->excludes(progress);
  cmd->callback([o, &exit_code] { exit_code = run_run(*o); });
}

void add_serve_command(CLI::App& app, int& exit_code) {
  auto options = std::make_shared<ServeOptions>();
  CLI::App* cmd = app.add_subcommand("serve", "Serve a system's host interface (every board) on a Unix socket (for ipudrv) until SIGINT / SIGTERM");
  cmd->add_option("--config", options->config, "System, board or chip YAML")->required();
  cmd->add_option("--socket", options->socket, "Unix socket path to create (mode 0600)")->required();
  add_debug_options(cmd, options->gdb_port, options->core_dir, "every run",
                    "when a run ends on a fault, an exchange error, a deadlock or a budget");
  add_max_memory_option(cmd, options->max_memory);
  add_cosim_options(cmd, options->rtl, options->waves);
  add_iss_option(cmd, options->iss, "the tiles' ISS engine for every run");
  cmd->add_option("--idle-timeout", options->idle_timeout,
                  "seconds a client past HELLO may hold the device sending nothing while no run is in progress "
                  "(STATE RUNNING, also while gdb holds it stopped, PAUSED or STREAM_WAIT); then it is told why "
                  "(ERROR IDLE) and dropped, and every board is reset for the next client (default 600; 0: never; a "
                  "client that sends no HELLO is dropped after 10 s)")
      ->check(CLI::Range(0.0, 1e6));
  cmd->add_flag("--exit-with-parent", options->exit_with_parent,
                "End (as on SIGTERM) when standard input reaches end of file: give it the read end of a pipe whose "
                "write end only the parent holds, and the server ends when the parent process does, however it ends "
                "(ipudrv starts its own servers so)");
  cmd->add_flag("--quiet", options->quiet, "No session log on stderr");
  cmd->footer(
      "One client at a time. A client that sends no HELLO within 10 s, or holds the device idle for --idle-timeout, "
      "is told why and dropped, and every board is reset for the next client. SIGINT or SIGTERM end the server "
      "promptly whatever its session is doing (a run in progress, a host stream waiting, a client half-way through "
      "a message or not reading its replies, gdb attached) and remove the socket (exit 0). docs/host_driver.md, "
      "\"ipusim serve\".");
  cmd->callback([options, &exit_code] { exit_code = run_serve(*options); });
}

}  // namespace
}  // namespace ipusim::cli

int main(int argc, char** argv) {
  // Under mpirun this process is one rank of a job (docs/distributed.md): MPI starts before
  // anything else, and an error on any rank ends every rank (abort_ranks), never a hang.
  ipusim::dist::RankPlace place;
  try {
    place = ipusim::dist::start_ranks(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "ipusim: error: %s\n", e.what());
    return 2;
  }
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
    const int code = app.exit(e) == 0 ? 0 : 2;
    ipusim::dist::end_ranks();
    return code;
  } catch (const std::exception& e) {
    if (place.distributed()) ipusim::dist::abort_ranks(e.what(), 2);
    std::fprintf(stderr, "ipusim: error: %s\n", e.what());
    ipusim::dist::end_ranks();
    return 2;
  }
  ipusim::dist::end_ranks();
  return exit_code;
}
