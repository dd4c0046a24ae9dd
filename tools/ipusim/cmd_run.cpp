// `ipusim run`: load a config and an ELF, elaborate the platform, run, report.
//
// Exit status: 0 if every tile exited 0; else the exit code of the lowest-numbered tile
// (ipu, tile) with a non-zero code, clamped to 1..255; 3 for a fault or a sync deadlock
// ("ipusim: fault: ...") or a failed exchange (one "ipusim: exchange error: ..." line per
// problem, streaming-memory and host-stream copies included: with no host, a stream read
// from an empty FIFO is "host stream N: no host connected (use the driver)"); 2 for bad input ("ipusim: error: ...", from main());
// 137 when gdb (--gdb) killed the run. A system whose memory estimate exceeds the limit
// (--max-memory, or the machine's) is bad input, refused before elaboration; an
// elaboration that fails (out of memory) reports what was being built and exits 2 at
// once with _Exit, skipping SystemC's clean-up of the abandoned netlist.
// 4 for a used-up --max-cycles / --max-instructions, 124 for --timeout, 130 for Ctrl-C
// (run_stop.h: "ipusim: budget: ...", "ipusim: timeout: ...", "ipusim: interrupted: ...",
// then the tiles still running); 5 when the console (stdout) could not be written (a full
// disk, a closed pipe: "ipusim: error: console: ..."; the run ends there), also when a
// budget, the timeout or Ctrl-C ended the same run (stop_reason "console error").
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>

#include <fmt/format.h>

#include "commands.h"
#include "gdb_session.h"
#include "memory_option.h"
#include "iss/core_choice.h"
#include "iss/disasm.h"
#include "iss/program.h"
#include "config/config_loader.h"
#include "config/config_writer.h"
#include "dist/partition.h"
#include "dist/ranks.h"
#include "platform/core_dump.h"
#include "platform/memory_estimate.h"
#include "platform/platform.h"
#include "tile/tile.h"
#include "progress_line.h"
#include "run_checkpoint.h"
#include "memory_report_cli.h"
#include "run_report.h"
#include "superstep_json.h"

namespace ipusim::cli {
namespace {

constexpr int kKilledStatus = 137;  // as a process killed by SIGKILL

unsigned default_threads() { return std::max(1u, std::thread::hardware_concurrency()); }

void write_file(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
  out.close();
  if (!out) throw std::runtime_error("cannot write '" + path + "'");
}

std::vector<uint8_t> read_file_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::invalid_argument("--elf '" + path + "': cannot be read");
  return std::vector<uint8_t>((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

// The effective config next to the JSON result.
void write_effective_config(const std::string& json_path, const config::SystemConfig& config) {
  write_file(json_path + ".config.yaml", config::to_yaml(config));
}

// The --itrace-* filters, checked against the system: errors name the option and value.
platform::TraceFilter trace_filter(const RunOptions& o, const config::SystemConfig& system) {
  platform::TraceFilter f;
  const config::ChipConfig& chip = system.board.chip;
  if (!o.itrace_ipus.empty())
    f.ipus = platform::TileSelection::parse(o.itrace_ipus, system.total_ipus(), "--itrace-ipus", "IPU", "the system");
  if (!o.itrace_tiles.empty())
    f.tiles = platform::TileSelection::parse(o.itrace_tiles, chip.tiles, "--itrace-tiles", "tile", "the IPU");
  if (!o.itrace_threads.empty())
    f.threads = platform::TileSelection::parse(o.itrace_threads, chip.tile.workers + 1, "--itrace-threads",
                                               "thread", "a tile (0 = supervisor)");
  if (!o.itrace_cycles.empty()) f.parse_cycles(o.itrace_cycles);
  if (o.itrace.empty() && (!o.itrace_ipus.empty() || !o.itrace_tiles.empty() || !o.itrace_threads.empty() ||
                           !o.itrace_cycles.empty()))
    throw std::invalid_argument("--itrace-ipus / -tiles / -threads / -cycles filter an instruction trace: "
                                "give --itrace FILE too");
  return f;
}

// Closes the RTL blocks' waveform files when it goes out of scope (Waves::close).
struct WavesCloser {
  cosim::Waves* waves;
  ~WavesCloser() {
    try {
      if (waves) waves->close();
    } catch (const std::exception& e) {
      std::fprintf(stderr, "ipusim: error: closing the waveforms: %s\n", e.what());
    }
  }
};

// The waveform files the run wrote, after closing them: an instance that never ran (a
// link that carried nothing, a tile that issued no amp.mac) writes none.
std::vector<std::string> written_waves(const std::shared_ptr<cosim::Waves>& waves) {
  waves->close();
  std::vector<std::string> out;
  for (const std::string& path : waves->paths())
    if (std::filesystem::exists(path)) out.push_back(path);
  return out;
}

// The config with `--rtl`'s choice of blocks in place of its `cosim`.
config::SystemConfig with_rtl(config::SystemConfig system, const std::optional<std::string>& rtl) {
  if (!rtl) return system;
  try {
    system.cosim = config::CosimConfig::parse_rtl_list(*rtl);
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument("--rtl '" + *rtl + "': " + e.what());
  }
  if (const std::string why = config::cosim_unfit(system); !why.empty())
    throw std::invalid_argument("--rtl '" + *rtl + "': " + why);
  return system;
}

}  // namespace

// The partition of `system` over the job's ranks under a launcher (unset without one), or
// the refusal of a run the platform cannot make exact over several ranks
// (docs/distributed.md "What is refused"): every rank finds the same, so rank 0 reports it.
// The config's `ranks` (a checkpoint's effective config carries it) chooses the boards.
static std::optional<dist::Partition> job_partition(const config::SystemConfig& system) {
  const dist::RankPlace place = dist::rank_place();
  if (!place.mpi) return std::nullopt;
  dist::Partition partition = dist::partition_system(system, place.size, "mpirun -n");
  if (place.distributed())
    throw std::invalid_argument(
        "mpirun -n " + std::to_string(place.size) + ": running " + system.name() + " split over " +
        std::to_string(place.size) +
        " ranks is refused: exchange and zone-2 syncs between IPUs of different ranks are not exact in this "
        "build (docs/distributed.md \"What is refused\"); run it on 1 rank (mpirun -n 1, or no mpirun)");
  return partition;
}

int run_run(const RunOptions& o) {
  const double timeout = timeout_seconds(o.stop.timeout);  // a bad value before any work
  const std::optional<uint64_t> max_memory = max_memory_bytes(o.max_memory);
  if (o.gdb_port && (o.stop.max_cycles || o.stop.max_instructions || timeout > 0))
    throw std::invalid_argument("--gdb cannot be combined with --max-cycles, --max-instructions or --timeout: "
                                "gdb decides where the run stops");
  // --restore: the config, the ELF and the tiles are the checkpoint's (run_checkpoint.h).
  std::optional<Restored> restored;
  if (!o.restore.empty()) {
    restored.emplace(open_restore(o));
  } else if (o.config.empty() || o.elf.empty()) {
    throw std::invalid_argument("--config and --elf are required (or --restore DIR)");
  }
  const std::optional<CheckpointPlan> checkpoint_at = checkpoint_plan(o);
  RunInputs inputs = restored ? restored->inputs : RunInputs{.config_path = o.config, .elf_path = o.elf};
  // A restore may put other blocks on their RTL (--rtl): the state at a sync is the same.
  config::SystemConfig system = with_rtl(restored ? restored->system : config::load_system(o.config), o.rtl);
  // Under mpirun: the job's partition (a rank count the system or its `ranks` cannot take is
  // refused here, by name), and what cannot run split over ranks, refused before any work.
  const std::optional<dist::Partition> partition = job_partition(system);
  if (!restored && checkpoint_at) {
    inputs.config_text = config::to_yaml(system);
    inputs.elf = read_file_bytes(o.elf);
    if (o.tiles) inputs.tiles = *o.tiles;
    inputs.link_faults = o.link_faults;
  }
  // The engine is decided here, before any work: a bad IPUSIM_ISS is bad input (exit 2).
  system.board.chip.tile.iss = o.iss ? *parse_iss_core(*o.iss) : iss::default_core();
  const std::optional<std::string> iss_asked = o.iss ? "--iss " + *o.iss : iss::core_from_environment();
  const std::string iss_source = iss_asked.value_or("the default");
  if (!o.itrace.empty() && system.board.chip.tile.iss != IssCore::interp && iss_asked)
    // Asked for in so many words: say what the traced tiles run.
    std::fprintf(stderr, "ipusim: --itrace: the traced tiles run on the interpreter, which reports every "
                         "instruction (%s applies to the others; the results are the same)\n",
                 iss_source.c_str());
  const config::ChipConfig& chip = system.board.chip;
  platform::TileSelection selection;
  if (restored && !restored->inputs.tiles.empty())
    selection = platform::TileSelection::parse(restored->inputs.tiles, chip.tiles);
  else if (o.tiles)
    selection = platform::TileSelection::parse(*o.tiles, chip.tiles);
  const std::shared_ptr<const iss::Program> program = restored ? restored->program : iss::Program::load(o.elf);
  platform::Platform::check_fits(*program, chip);

  platform::PlatformOptions options;
  options.console = o.console == "raw" ? platform::ConsoleMode::Raw : platform::ConsoleMode::Tagged;
  options.console_out = stdout;
  options.itrace_path = o.itrace;
  options.itrace_filter = trace_filter(o, system);
  options.disassemble = [](uint32_t pc, uint32_t insn) { return iss::disassemble(insn, pc); };
  options.profile_path = o.profile;
  if (!o.profile_ipus.empty())
    options.profile_ipus =
        platform::TileSelection::parse(o.profile_ipus, system.total_ipus(), "--profile-ipus", "IPU", "the system");
  if (!o.profile_tiles.empty())
    options.profile_tiles = platform::TileSelection::parse(o.profile_tiles, chip.tiles, "--profile-tiles", "tile", "the IPU");
  if (o.profile.empty() && (!o.profile_ipus.empty() || !o.profile_tiles.empty() || o.profile_split))
    throw std::invalid_argument(
        "--profile-ipus / --profile-tiles / --profile-split shape a profile: give --profile FILE too");
  options.profile_split = o.profile_split;
  options.profile_command = "ipusim run " + o.elf;
  options.memory_watch = !o.memory_report.empty();
  if (o.memory_report.empty() && (!o.memory_map.empty() || o.stack_margin))
    throw std::invalid_argument("--memory-map / --stack-margin shape a memory report: give --memory-report FILE too");
  options.host_threads = o.threads == 0 ? default_threads() : o.threads;
  options.timeline_path = o.trace;
  options.timeline_tracks_max = o.trace_tiles_max;
  options.per_tile_supersteps_max = uint32_t(kJsonPerTileLimit);
  // The supersteps leave memory as the run goes (a long run's would not fit).
  std::optional<SuperstepJsonWriter> json_supersteps;
  if (!o.json.empty()) {
    json_supersteps.emplace(o.json);
    options.superstep_sink = [&json_supersteps](const platform::SuperstepRow& row) { json_supersteps->add(row); };
  }
  options.console_buffer_bytes = size_t(o.console_buffer.value_or(tile::kConsoleBufferBytes));
  if (!o.waves.empty()) {
    if (!system.cosim.any_rtl())
      throw std::invalid_argument("--waves '" + o.waves + "': no block runs as RTL (choose some with --rtl or the "
                                  "config's `cosim`)");
    try {
      options.waves = std::make_shared<cosim::Waves>(o.waves);
    } catch (const std::invalid_argument& e) {
      throw std::invalid_argument(std::string("--waves: ") + e.what());
    }
  }
  // A restored run's are the checkpointed run's (--link-faults itself is refused there).
  const std::vector<std::string>& link_fault_items = restored ? restored->inputs.link_faults : o.link_faults;
  if (!link_fault_items.empty()) {
    // The option's items replace the config's `link_faults` altogether.
    links::FaultPlan plan;
    for (const std::string& given : link_fault_items) {
      for (size_t at = 0;;) {
        const size_t end = given.find(';', at);
        const std::string item = given.substr(at, end == std::string::npos ? std::string::npos : end - at);
        if (item.find_first_not_of(" \t") == std::string::npos)
          throw std::invalid_argument("--link-faults '" + given + "': an empty item (give [LINK:]SPEC items, ';' "
                                      "between them, e.g. ber=1e-6,seed=7 or 3:burst=1000:16; 'none' for none)");
        std::string why;
        if (!links::add_fault_item(plan, item, uint32_t(system.links().size()), &why))
          throw std::invalid_argument("--link-faults '" + item + "': " + why);
        if (end == std::string::npos) break;
        at = end + 1;
      }
    }
    options.link_faults = plan;
  }

  platform::Platform* elaborated = nullptr;
  uint64_t checkpoints_written = 0;
  if (checkpoint_at) {
    set_checkpoint_gate(*checkpoint_at, restored ? restored->ckpt.header.superstep : 1, options);
    options.on_checkpoint = [&](uint64_t superstep) {
      write_run_checkpoint(*checkpoint_at, *elaborated, superstep, inputs);
      ++checkpoints_written;
      if (!o.quiet && checkpoint_at->cycle > 0)
        std::fprintf(stderr, "ipusim: checkpoint at superstep %llu (the first sync at or after cycle %llu)\n",
                     (unsigned long long)superstep, (unsigned long long)checkpoint_at->cycle);
      else if (!o.quiet)
        std::fprintf(stderr, "ipusim: checkpoint at superstep %llu\n", (unsigned long long)superstep);
    };
  }

  // Lives until the summary: clears its line first.
  ProgressLine progress(stderr, o.no_progress ? ProgressLine::Mode::Off
                                : o.progress  ? ProgressLine::Mode::On
                                              : ProgressLine::Mode::Auto);
  if (progress.enabled()) {
    options.progress = [&progress](const platform::RunProgress& p) { progress.update(p); };
    // Console lines on the same terminal would land after the line's text.
    if (::isatty(::fileno(stdout)) == 1) options.progress_hide = [&progress] { progress.clear(); };
  }

  // A system that cannot fit is refused now, not out of memory half-way through its netlist.
  const uint64_t loaded_tiles = uint64_t(selection.tiles(chip.tiles).size()) * system.total_ipus();
  platform::check_fits_memory(
      system, platform::estimate_memory(system, platform::footprint_of(*program), loaded_tiles, options.host_threads),
      platform::memory_limits(max_memory));

  const auto elaboration_start = std::chrono::steady_clock::now();
  std::optional<ElaborationDeadline> deadline;
  deadline.emplace(timeout, fmt::format("the system of {} IPUs x {} tiles ({})", uint64_t(system.boards) * system.board.ipus,
                                        chip.tiles, inputs.config_path));
  // Never destroyed: the process ends after the report, and tearing down a SystemC
  // netlist unregisters its ports one by one from vectors, quadratic in the port count
  // (about a second for a POD16's 23552 tiles).
  try {
    elaborated = new platform::Platform(system, options);
    elaborated->budget().set_limits({.max_cycles = o.stop.max_cycles, .max_instructions = o.stop.max_instructions});
    elaborated->load(program, selection);
    if (restored) elaborated->restore_checkpoint(restored->ckpt);
  } catch (const platform::ElaborationError& e) {
    // Nothing ran, so nothing is lost by ending here: exit() would run SystemC's clean-up
    // of the abandoned netlist, which takes minutes for a big system.
    std::fflush(stdout);
    std::fprintf(stderr, "ipusim: error: config '%s': %s\n", inputs.config_path.c_str(), e.what());
    std::fflush(stderr);
    std::_Exit(2);
  }
  deadline.reset();
  platform::Platform& platform = *elaborated;
  // The waveforms are complete however the run ends (an FST file is readable only once
  // closed, and the platform is never destroyed): a fault, a budget, gdb's kill, an error.
  const WavesCloser close_waves(options.waves.get());
  // Console lines that cannot be written end the run (simulating on would only lose
  // more); a closed pipe is such an error too, not a SIGPIPE that would lose the report.
  std::signal(SIGPIPE, SIG_IGN);
  platform.set_console_write_error_hook([&platform](const std::string&) { platform.budget().interrupt(); });
  if (o.gdb_port) serve_gdb(platform, *o.gdb_port);
  const double elaboration_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - elaboration_start).count();

  RunReport report;
  report.config_path = inputs.config_path;
  report.elf_path = inputs.elf_path;
  report.tile_selection = selection.to_string();
  report.config = system;
  report.elaboration_seconds = elaboration_seconds;
  report.iss_source = iss_source;
  report.stop_options = o.stop;
  report.partition = partition;
  // From here Ctrl-C and the timeout (counted from here) stop the run where simulated time
  // is, and the report below, the JSON and the --trace file are still written (a Ctrl-C
  // while they are, too: only a second one kills).
  RunInterrupts interrupts(platform.budget(), timeout);
  try {
    report.result = platform.run();
  } catch (const KilledFromDebugger&) {
    progress.clear();
    std::fflush(stdout);
    std::fprintf(stderr, "ipusim: the run was killed from gdb\n");
    return kKilledStatus;
  }
  progress.clear();
  if (checkpoint_at && checkpoints_written == 0)
    std::fprintf(stderr, "ipusim: --checkpoint-at %s: the run ended before it; no checkpoint written\n",
                 o.checkpoint_at.c_str());
  report.stop_reason = stop_reason(report.result, interrupts.timed_out());
  std::fflush(stdout);

  const platform::RunResult& result = report.result;
  report.exit_code = report_end(result, report.stop_reason, timeout, stderr);
  if (result.console_error)
    // Under gdb the error stops the tiles for gdb, which may continue them to the end.
    std::fprintf(stderr,
                 "ipusim: error: console: writing stdout failed: %s (%s; %llu console line(s) in all, the "
                 "later ones lost)\n",
                 result.console_error->c_str(), o.gdb_port ? "the tiles stopped for gdb there" : "the run ended there",
                 static_cast<unsigned long long>(result.console_lines));
  if (!o.core_dir.empty() && result.end.problem()) {
    // A core that cannot be written costs the core, not the run's report and status.
    try {
      for (const std::string& path : platform::write_cores(o.core_dir, platform, result.end.problem(), inputs.elf_path))
        std::fprintf(stderr, "ipusim: core file %s\n", path.c_str());
    } catch (const std::exception& e) {
      std::fprintf(stderr, "ipusim: error: %s\n", e.what());
    }
  }
  if (!o.quiet) std::fputs(summary_text(report).c_str(), stderr);
  if (options.waves && !o.quiet)
    for (const std::string& path : written_waves(options.waves))
      std::fprintf(stderr, "ipusim: waveform %s\n", path.c_str());
  if (!o.json.empty()) {
    json_supersteps->write(summary_json(report), result);
    write_effective_config(o.json, system);
  }
  if (!o.memory_report.empty() && !write_memory_report(o, platform, inputs.elf_path, o.quiet)) return 2;
  // A waveform the run's end could not write (Platform::finish_run named it on stderr and
  // noted it as the run's OUTPUT problem): exit 2 as for a --json or --trace that cannot be
  // written.
  if (platform.take_output_problem()) return 2;
  return report.exit_code;
}

}  // namespace ipusim::cli
