#include "platform/platform.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <stdexcept>
#include <tuple>

#include <fmt/format.h>

namespace ipusim::platform {
namespace {

// SystemC's own reports go to stderr, so stdout carries only the tiles' console.
// "Simulation stopped by user" (our own sc_stop) is not news.
void report_to_stderr(const sc_core::sc_report& report, const sc_core::sc_actions& actions) {
  if (actions & sc_core::SC_DISPLAY)
    std::fprintf(stderr, "%s\n", sc_core::sc_report_compose_message(report).c_str());
  sc_core::sc_report_handler::default_handler(report, actions & ~sc_core::SC_DISPLAY);
}

void quiet_systemc() {
  // Must precede the first use of the kernel, which prints the banner to stdout.
  setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 0);
  sc_core::sc_report_handler::set_handler(report_to_stderr);
  sc_core::sc_report_handler::set_actions("/OSCI/SystemC", sc_core::SC_INFO,
                                          sc_core::SC_DO_NOTHING);
}

}  // namespace

int RunResult::exit_status() const {
  for (const TileResult& t : tiles)  // already in (ipu, tile) order
    if (t.state == tile::TileState::Halted && t.exit_code != 0)
      return std::clamp(t.exit_code, 1, 255);
  return 0;
}

Platform::Platform(const config::SystemConfig& config, const PlatformOptions& options)
    : config_(config), options_(options), console_(options.console_out, options.console) {
  quiet_systemc();
  if (sc_core::sc_is_running() || sc_core::sc_end_of_simulation_invoked())
    throw std::logic_error("a process can elaborate and run only one Platform");
  sc_core::sc_set_stop_mode(sc_core::SC_STOP_FINISH_DELTA);
  if (!options_.itrace_path.empty()) {
    if (!options_.disassemble) throw std::logic_error("itrace needs a disassembler");
    trace_ = std::make_unique<InstructionTrace>(options_.itrace_path, options_.disassemble);
  }
  const uint32_t ipus = config.total_ipus();
  if (ipus == 0) throw std::invalid_argument("config '" + config.name + "' has no IPUs");
  group_barrier_ = std::make_unique<SyncBarrier>("group_sync_released");
  ipus_.reserve(ipus);
  for (uint32_t i = 0; i < ipus; ++i) {
    const std::string name = "ipu" + std::to_string(i);
    ipus_.push_back(std::make_unique<Ipu>(name.c_str(), config.board.chip, i, ipus, *group_barrier_));
  }
}

Platform::~Platform() = default;

void Platform::check_fits(const iss::Program& program, const config::ChipConfig& chip) {
  const uint64_t sram_end = uint64_t(iss::kSramBase) + chip.tile.sram_bytes;
  for (const iss::Segment& s : program.segments()) {
    const uint64_t end = uint64_t(s.vaddr) + s.mem_size;
    if (s.mem_size == 0) continue;
    if (s.vaddr < iss::kSramBase || end > sram_end)
      throw std::invalid_argument(fmt::format(
          "{}: segment 0x{:08x}..0x{:08x} does not fit the tile SRAM 0x{:08x}..0x{:08x} "
          "({} KiB, chip '{}')",
          program.name(), s.vaddr, end, iss::kSramBase, sram_end, chip.tile.sram_bytes / 1024,
          chip.name));
  }
}

void Platform::load(std::shared_ptr<const iss::Program> program, const TileSelection& tiles) {
  if (ran_) throw std::logic_error("Platform::load after run");
  check_fits(*program, config_.board.chip);
  for (auto& ipu : ipus_) {
    for (uint32_t t : tiles.tiles(ipu->tile_count())) {
      tile::Tile& tile = ipu->tile(t);
      if (!tile.loaded()) ++loaded_;
      tile.load(program);
      tile.connect(&ipu->sync_port(), this);
      if (trace_) tile.set_trace(trace_.get());
    }
  }
}

void Platform::console_line(const tile::Tile& tile, const sc_core::sc_time& stretch_start,
                            uint32_t thread, std::string_view text) {
  console_.add(stretch_start.value(), tile.identity().ipu, tile.identity().tile, thread, text);
}

void Platform::tile_stopped(const tile::Tile& tile) {
  ++stopped_;
  if (tile.state() == tile::TileState::Faulted) {
    const sc_core::sc_time now = sc_core::sc_time_stamp();
    const auto key = [](const tile::Tile& t) { return std::tie(t.identity().ipu, t.identity().tile); };
    if (!first_fault_ || now < first_fault_time_ ||
        (now == first_fault_time_ && key(tile) < key(*first_fault_))) {
      first_fault_ = &tile;
      first_fault_time_ = now;
    }
    stop_simulation();
  } else if (stopped_ == loaded_) {
    stop_simulation();
  }
}

void Platform::stop_simulation() {
  if (stop_requested_) return;
  stop_requested_ = true;
  sc_core::sc_stop();  // SC_STOP_FINISH_DELTA: tiles already running this delta finish it
}

std::string Platform::describe_deadlock() const {
  std::vector<const tile::Tile*> waiting;
  uint32_t halted = 0;
  for (const auto& ipu : ipus_) {
    for (uint32_t t = 0; t < ipu->tile_count(); ++t) {
      const tile::Tile& tile = ipu->tile(t);
      if (tile.state() == tile::TileState::AtSync) waiting.push_back(&tile);
      if (tile.state() == tile::TileState::Halted) ++halted;
    }
  }
  std::string out = fmt::format("sync deadlock: {} tile(s) wait at a sync that never completes",
                                waiting.size());
  const size_t shown = std::min<size_t>(waiting.size(), 4);
  for (size_t i = 0; i < shown; ++i) {
    const tile::Tile& t = *waiting[i];
    out += fmt::format("{} ipu {} tile {} (zone {}, since cycle {})", i == 0 ? ": " : ", ",
                       t.identity().ipu, t.identity().tile, t.sync_zone(), t.sync_arrival_cycle());
  }
  if (waiting.size() > shown) out += fmt::format(", and {} more", waiting.size() - shown);
  out += fmt::format("; {} tile(s) already halted", halted);
  return out;
}

RunResult Platform::run() {
  if (ran_) throw std::logic_error("Platform::run called twice");
  ran_ = true;
  uint32_t group_participants = 0;
  for (auto& ipu : ipus_) {
    ipu->update_sync_participants();
    group_participants += ipu->loaded_tiles();
  }
  group_barrier_->set_participants(group_participants);

  RunResult result;
  const auto start = std::chrono::steady_clock::now();
  if (loaded_ > 0) sc_core::sc_start();
  result.host_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  console_.flush();
  if (trace_) trace_->close();

  for (const auto& ipu : ipus_) {
    bool any = false;
    for (uint32_t t = 0; t < ipu->tile_count(); ++t) {
      const tile::Tile& tile = ipu->tile(t);
      if (!tile.loaded()) continue;
      any = true;
      TileResult r;
      r.ipu = ipu->index();
      r.tile = t;
      r.state = tile.state();
      r.cycles = tile.cycles();
      r.instructions = tile.instructions();
      r.syncs = tile.syncs();
      r.sync_stall_cycles = tile.sync_stall_cycles();
      r.exit_code = tile.exit_code();
      r.fault = tile.fault_message();
      result.tile_cycles = std::max(result.tile_cycles, r.cycles);
      result.instructions += r.instructions;
      result.tiles.push_back(std::move(r));
    }
    result.ipus += any ? 1 : 0;
  }
  result.simulated_seconds = tile::TileClock(config_.board.chip.clock_hz).seconds_of(result.tile_cycles);
  result.console_lines = console_.lines();
  if (first_fault_) {
    result.fault = first_fault_->fault_message();
  } else if (stopped_ < loaded_) {
    result.deadlock = describe_deadlock();
  }
  return result;
}

}  // namespace ipusim::platform

