#include "platform/platform.h"
#include "profile/profile_files.h"
#include "platform/memory_reserve.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <new>
#include <span>
#include <stdexcept>
#include <tuple>

#include <fmt/format.h>

#include "cosim/amp/rtl_amp.h"
#include "cosim/link/rtl_link_carrier.h"
#include "iss/core_choice.h"


namespace ipusim::platform {
namespace {

// SystemC's own reports go to stderr, so stdout carries only the tiles' console.
// Its informational reports are not news.
void report_to_stderr(const sc_core::sc_report& report, const sc_core::sc_actions& actions) {
  if (actions & sc_core::SC_DISPLAY)
    std::fprintf(stderr, "%s\n", sc_core::sc_report_compose_message(report).c_str());
  sc_core::sc_report_handler::default_handler(report, actions & ~sc_core::SC_DISPLAY);
}

// What reporting a failed elaboration takes, from the platform's message up to the driver's
// and `ipusim serve`'s, with room to spare.
constexpr size_t kElaborationReserveBytes = size_t{4} << 20;

void quiet_systemc() {
  // Must precede the first use of the kernel, which prints the banner to stdout.
  setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 0);
  sc_core::sc_report_handler::set_handler(report_to_stderr);
  sc_core::sc_report_handler::set_actions("/OSCI/SystemC", sc_core::SC_INFO,
                                          sc_core::SC_DO_NOTHING);
}

// The config's `link_faults` as a plan (the loader checked every spec; a config built in
// code may hold any text, so it is checked again).
links::FaultPlan fault_plan(const config::SystemConfig& config) {
  links::FaultPlan plan;
  auto parse = [&](const std::string& text, const std::string& where) {
    std::string why;
    const auto spec = links::parse_fault_spec(text, &why);
    if (!spec) throw std::invalid_argument(fmt::format("config '{}': {}: {}", config.name(), where, why));
    return *spec;
  };
  plan.every = parse(config.link_faults.every, "link_faults.all");
  for (const auto& [link, text] : config.link_faults.links) {
    if (link >= config.links().size())
      throw std::invalid_argument(fmt::format("config '{}': link_faults.{}: the system has {} IPU-Links", config.name(),
                                              link, config.links().size()));
    plan.links.emplace(link, parse(text, fmt::format("link_faults.{}", link)));
  }
  return plan;
}

}  // namespace

namespace {

// The one rule for a run's exit status: the first (ipu, tile) halted tile's non-zero code,
// clamped to 1..255; else 0.
int exit_status_rule(tile::TileState state, int32_t code, int& status) {
  if (status == 0 && state == tile::TileState::Halted && code != 0) status = std::clamp(code, 1, 255);
  return status;
}

}  // namespace

int RunResult::exit_status() const {
  int status = 0;
  for (const TileResult& t : tiles) exit_status_rule(t.state, t.exit_code, status);  // (ipu, tile) order
  return status;
}

int Platform::exit_status() const {
  int status = 0;
  for (const auto& ipu : ipus_)
    for (uint32_t t = 0; t < ipu->tile_count(); ++t)
      if (ipu->tile(t).loaded()) exit_status_rule(ipu->tile(t).state(), ipu->tile(t).exit_code(), status);
  return status;
}

namespace {

// The config with its ISS engine decided (iss::default_core() when unset): one answer for
// every tile, and the one the run reports.
config::SystemConfig with_iss_core(config::SystemConfig config) {
  if (!config.board.chip.tile.iss) config.board.chip.tile.iss = iss::default_core();
  return config;
}

}  // namespace

Platform::Platform(const config::SystemConfig& config, const PlatformOptions& options)
    : config_(with_iss_core(config)),
      options_(options),
      topology_(links::Topology::of(config)),
      console_(options.console_out, options.console),
      accounts_(config.total_ipus()) {
  quiet_systemc();
  if (sc_core::sc_is_running() || sc_core::sc_end_of_simulation_invoked())
    throw std::logic_error("a process can elaborate and run only one Platform");
  // simulate() runs whenever its caller asks (a host between commands), sometimes with
  // nothing to do: not news.
  sc_core::sc_report_handler::set_actions(sc_core::SC_ID_NO_SC_START_ACTIVITY_, sc_core::SC_DO_NOTHING);
  if (options_.host_threads == 0) throw std::invalid_argument("host threads must be at least 1");
  if (options_.on_checkpoint) departed_rows_ = std::make_unique<DepartedRows>();
  if (options_.superstep_sink || departed_rows_)
    accounts_.set_sink([this](const SuperstepRow& row) { row_departed(row); });
  if (options_.progress_hide) console_.set_before_print(options_.progress_hide);
  if (!options_.itrace_path.empty()) {
    if (!options_.disassemble) throw std::logic_error("itrace needs a disassembler");
    trace_ = std::make_unique<InstructionTrace>(options_.itrace_path, options_.disassemble, options_.itrace_filter);
  }
  // Opened before anything is elaborated, so a bad path fails first.
  std::unique_ptr<Timeline> timeline;
  if (!options_.timeline_path.empty())
    timeline = std::make_unique<Timeline>(options_.timeline_path, config.board.chip.clock_hz,
                                          options_.timeline_tracks_max);
  const uint32_t ipus = config.total_ipus();
  if (ipus == 0) throw std::invalid_argument("config '" + config.name() + "' has no IPUs");
  engine_ = std::make_unique<tile::TileEngine>("engine", options_.host_threads);
  plan_threads_ = [this](size_t count, const std::function<void(size_t)>& body) {
    const auto begin = std::chrono::steady_clock::now();
    engine_->pool().run(count, body);
    exchange_parallel_seconds_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
  };
  // A zone-2 sync spans every IPU over the links, so each must reach IPU 0 (the loader
  // checks the whole system for files; a config built in code is checked here).
  for (uint32_t i = 0; i < ipus; ++i)
    if (topology_.hops(0, i) == links::Topology::kUnreachable)
      throw std::invalid_argument(fmt::format("config '{}': IPU {} has no IPU-Link path to IPU 0", config.name(), i));
  control_ = std::make_unique<RunControl>("control", config.board.chip.clock_hz);
  control_->set_epoch(&epoch_);
  group_ = std::make_unique<sync::GroupSync>();  // its latency is set at each start
  exchange_group_ = std::make_unique<exchange::ExchangeGroup>(
      topology_, links::LinkTimingConfig::from(config.board.chip),
      exchange::ExchangeFabricConfig::from(config.board.chip, 0, ipus).timing);
  exchange_group_->set_plan_threads(&plan_threads_, engine_->host_threads());
  if (config.cosim.link == config::BlockModel::Rtl) {
    std::vector<std::string> names;
    for (uint32_t d = 0; d < 2 * topology_.wires().size(); ++d) names.push_back(cosim::link::RtlLinkCarrier::instance_name(d));
    link_rtl_ = std::make_unique<cosim::link::RtlLinkCarrier>(
        links::LinkFaults::layer_config(config.board.chip), std::move(names), options_.waves,
        uint64_t(std::llround(1e12 / config.board.chip.clock_hz)));
  }
  initial_link_faults_ = options_.link_faults ? *options_.link_faults : fault_plan(config);
  set_link_faults(initial_link_faults_);
  timeline_ = std::move(timeline);
  std::string building = "ipu 0";  // for the error of an elaboration that fails (out of memory)
  MemoryReserve reserve(kElaborationReserveBytes);  // room to report a failure (memory_reserve.h)
  try {
    ipus_.reserve(ipus);
    for (uint32_t i = 0; i < ipus; ++i) {
      building = "ipu " + std::to_string(i);
      const std::string name = "ipu" + std::to_string(i);
      ipus_.push_back(std::make_unique<Ipu>(name.c_str(), config_.board.chip, i, ipus, *group_, config.cosim,
                                            options_.waves.get()));
      if (!ipus_.back()->failure().empty()) throw ElaborationError(ipus_.back()->failure());
      ipus_.back()->sync_controller().set_observer(this);
      ipus_.back()->exchange_fabric().set_group(exchange_group_.get());
      ipus_.back()->exchange_fabric().set_plan_threads(&plan_threads_);
      ipus_.back()->set_epoch(&epoch_);
    }
    for (uint32_t b = 0; b < config.boards; ++b) {
      streaming::GatewayConfig gc = streaming::GatewayConfig::from(config.board, b);
      // Nobody serves the host streams until a host attaches to the board (the host
      // interface says so: Gateway::set_host_connected); until then a copy that would wait
      // on a stream fails the exchange, as in `ipusim run`.
      gc.host_connected = false;
      building = "board " + std::to_string(b) + " gateway";
      const std::string name = "gateway" + std::to_string(b);
      gateways_.push_back(std::make_unique<streaming::Gateway>(name.c_str(), gc));
      // A copy that starts to wait on the host pauses the run where it is (a host's run;
      // without a host such a copy is an error instead): the host hears of it at once,
      // not when the rest of the system has run out of work.
      gateways_.back()->set_wait_listener([this] { control_->request_pause(); });
      for (uint32_t i = b * config.board.ipus; i < (b + 1) * config.board.ipus; ++i)
        ipus_.at(i)->exchange_fabric().gateway_socket.bind(gateways_.back()->copy_socket);
    }
  } catch (const ElaborationError&) {
    reserve.release();
    abandon_netlist();
    throw;
  } catch (const std::exception& e) {
    reserve.release();
    abandon_netlist();
    throw ElaborationError("building " + building + ": " + e.what());
  }
  // `cosim: {amp: rtl}`: every tile's amp.mac on its own Verilated AMP array (docs/xipu.md
  // "The AMP as RTL"); the model is built at the tile's first amp.mac.
  if (config.cosim.amp == config::BlockModel::Rtl) {
    cosim::amp::check_rtl_amp_time_resolution();
    for (uint32_t i = 0; i < ipus_.size(); ++i)
      for (uint32_t t = 0; t < ipus_[i]->tile_count(); ++t)
        ipus_[i]->tile(t).set_amp_datapath(std::make_unique<cosim::amp::RtlAmp>(cosim::amp::RtlAmpConfig{
            fmt::format("ipu{}.tile{}.amp", i, t), config.board.chip.clock_hz, options_.waves}));
  }
  // Every RTL instance that traces has said so: each one's waveform file is fixed now.
  if (options_.waves) options_.waves->freeze();
  // Every tile runs with the budget's bounds: without limits they cost a test per
  // quantum, and the interrupt flag lets a host stop a tile in an endless loop.
  for (auto& ipu : ipus_)
    for (uint32_t t = 0; t < ipu->tile_count(); ++t) {
      ipu->tile(t).set_bounds(budget_.bounds());
      ipu->tile(t).set_console_buffer(options.console_buffer_bytes);
    }
  engine_->set_batch_end([this] {
    HostTicksScope timed(run_control_ticks_);
    batch_ended();
  });
  engine_->set_console_ready([this](uint64_t batch, const tile::Tile* through) {
    HostTicksScope timed(console_ticks_);
    if (through)
      console_.release(batch, through->identity().ipu, through->identity().tile);
    else
      console_.release(batch);
  });
}

Platform::~Platform() = default;

void Platform::abandon_netlist() {
  // Destroying a big partial netlist takes minutes (SystemC unregisters ports one by one),
  // and a half-built IPU may not be destroyed at all (Ipu::failure): the process ends.
  for (auto& ipu : ipus_) static_cast<void>(ipu.release());
  for (auto& g : gateways_) static_cast<void>(g.release());
  static_cast<void>(engine_.release());
}

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
  run_.boot(0);  // before anything is loaded: a load after the run is refused
  check_fits(*program, config_.board.chip);
  for (uint32_t i = 0; i < ipus_.size(); ++i) {
    for (uint32_t t : tiles.tiles(ipus_[i]->tile_count())) {
      tile::Tile& tile = ipus_[i]->tile(t);
      if (!tile.loaded()) run_.boot(1);
      set_tile_trace(tile, i, t);
      if (!options_.profile_path.empty() && options_.profile_ipus.contains(i) && options_.profile_tiles.contains(t)) {
        profiles_.push_back(std::make_unique<profile::TileProfile>(*program, i, t, config_.board.chip.tile.workers + 1));
        tile.set_profile(profiles_.back().get());
      }
      try {
        tile.load(program, *engine_, *this);
      } catch (const std::bad_alloc& e) {
        throw ElaborationError(fmt::format("loading ipu {} tile {}: {}", i, t, e.what()));
      } catch (const iss::SramError& e) {
        throw ElaborationError(fmt::format("loading ipu {} tile {}: {}", i, t, e.what()));
      }
      if (options_.memory_watch) tile.core()->watch_memory(program->symbol("__ipu_stack_size").value_or(0));
    }
  }
}

// Only the tiles the filter keeps get the sink: the others run the fast loop.
void Platform::set_tile_trace(tile::Tile& tile, uint32_t ipu, uint32_t index) {
  if (trace_ && trace_->filter().traces_tile(ipu, index)) tile.set_trace(trace_.get());
}

// ---- during the run --------------------------------------------------------------------

void Platform::console_line(const tile::Tile& tile, uint64_t batch, uint32_t thread,
                            std::string_view text) {
  console_.add(batch, tile.identity().ipu, tile.identity().tile, thread, text);
}

void Platform::tile_stopped(const tile::Tile& tile) {
  StopRequest r;
  r.cycle = tile.stop_cycle();
  r.ipu = tile.identity().ipu;
  r.tile = tile.identity().tile;
  switch (tile.state()) {
    case tile::TileState::Halted:
      last_halt_cycle_ = std::max(last_halt_cycle_, tile.stop_cycle());
      if (++halted_ < run_.booted()) return;
      r.kind = RunEndKind::Halted;
      r.cycle = last_halt_cycle_;
      break;
    case tile::TileState::Faulted:
      r.kind = RunEndKind::Fault;
      break;
    case tile::TileState::ExchangeFailed:
      r.kind = RunEndKind::ExchangeError;
      r.cycle = tile.exchange_failure_cycle();
      break;
    default:
      return;
  }
  control_->request(std::move(r));
}

void Platform::superstep_closed(const tile::Tile& tile, const tile::SuperstepRecord& record) {
  const iss::TileIdentity& id = tile.identity();
  accounts_.add(id.ipu, id.tile, record);
  if (Timeline* timeline = timeline_.get()) timeline->add(id.ipu, id.tile, record);
  if (keep_tile_supersteps_) ++tile_superstep_counts_.at(size_t(id.ipu) * config_.board.chip.tiles + id.tile);
}

void Platform::tile_paused(const tile::Tile& tile) {
  if (tile.pause().pause == iss::PauseReason::Probe) return;  // a debugger's, when there is one
  budget_.tile_paused(tile);
}

void Platform::batch_ended() {
  if (progress_clock_ && progress_clock_->due()) options_.progress(progress(progress_clock_->seconds()));
  // A checkpoint's gate: once every IPU holds its sync (or has no tile left) nothing moves
  // until the run goes on, so pause now, as the starved kernel would; a cycle budget's
  // end pending in simulated time would otherwise end the run there instead.
  if (options_.on_checkpoint && !control_->paused()) {
    bool held = false, moving = false;
    for (const auto& ipu : ipus_) {
      const sync::SyncController& sc = ipu->sync_controller();
      held = held || sc.holding();
      moving = moving || (!sc.holding() && sc.departed() < sc.participants());
    }
    if (held && !moving) control_->request_pause();
  }
  if (!budget_.acts_after_batch()) return;  // the common case: one test per batch
  if (auto r = budget_.batch_ended(budget_.counts_instructions() ? total_instructions() : 0, now_cycle()))
    control_->request(*r);
}

uint64_t Platform::now_cycle() const {
  TileClock clock(config_.board.chip.clock_hz);
  clock.set_epoch(&epoch_);
  return clock.cycle_at(sc_core::sc_time_stamp());
}

// A tile paused at a bound has computed up to its pause, not only to its last stop.
uint64_t Platform::cycles_reached(const tile::Tile& tile, uint64_t end_cycle) {
  const uint64_t c = tile.cycles_at(end_cycle);
  return tile.paused() ? std::max(c, std::min(tile.pause().pause_cycle, end_cycle)) : c;
}

uint64_t Platform::total_instructions() const {
  uint64_t n = 0;
  for (const auto& ipu : ipus_)
    for (uint32_t t = 0; t < ipu->tile_count(); ++t) n += ipu->tile(t).instructions();
  return n;
}

std::vector<RunningTile> Platform::running_tiles(uint64_t end_cycle) const {
  std::vector<RunningTile> out;
  for (const auto& ipu : ipus_)
    for (uint32_t t = 0; t < ipu->tile_count(); ++t) {
      const tile::Tile& tile = ipu->tile(t);
      if (!tile.loaded() || tile.state_at(end_cycle) != tile::TileState::Running) continue;
      RunningTile r;
      r.ipu = ipu->index();
      r.tile = t;
      if (tile.paused()) {  // where the bound stopped it
        r.thread = tile.pause().pause_thread;
        r.pc = tile.pause().pause_pc;
        r.cycle = tile.pause().pause_cycle;
      } else {  // not computed since its release, or computed ahead: the supervisor
        r.pc = tile.core()->registers(0).pc;
        r.cycle = tile.cycles_at(end_cycle);
      }
      r.function = tile.core()->program().locate(r.pc).function;  // as the problem names it
      out.push_back(std::move(r));
    }
  return out;
}

std::vector<WaitingTile> Platform::waiting_tiles(uint64_t end_cycle) const {
  std::vector<WaitingTile> out;
  for (const auto& ipu : ipus_)
    for (uint32_t t = 0; t < ipu->tile_count(); ++t) {
      const tile::Tile& tile = ipu->tile(t);
      if (!tile.loaded()) continue;
      const tile::TileState state = tile.state_at(end_cycle);
      if (state != tile::TileState::AtSync && state != tile::TileState::AtExchange) continue;
      WaitingTile w;
      w.ipu = ipu->index();
      w.tile = t;
      w.pc = tile.core()->registers(0).pc;
      w.function = tile.core()->program().locate(w.pc).function;
      w.what = state == tile::TileState::AtSync ? fmt::format("at sync (zone {})", tile.sync_zone()) : "at exchange";
      out.push_back(std::move(w));
    }
  return out;
}

void Platform::sync_deadlock(const sync::SyncDeadlock& deadlock) {
  StopRequest r;
  r.kind = RunEndKind::Deadlock;
  r.cycle = deadlock.cycle;
  if (!deadlock.waiting.empty()) {  // the controller whose tiles wait keeps the deadlock
    r.ipu = deadlock.waiting.front().ipu;
    r.tile = deadlock.waiting.front().tile;
  }
  control_->request(std::move(r));
}

// ---- the run ---------------------------------------------------------------------------

// `ipusim run`: the lifecycle once.
RunResult Platform::run() {
  // A second run() is refused by the state machine (start in state 'ended').
  if (!run_.allows(RunEvent::Start)) throw RunStateError(run_.state(), RunEvent::Start);
  budget_.set_end_on_interrupt(true);  // no host to take a command: an interrupt ends the run
  keep_tile_supersteps_ = loaded_tiles() <= options_.per_tile_supersteps_max;
  if (keep_tile_supersteps_) tile_superstep_counts_.assign(size_t(ipus_.size()) * config_.board.chip.tiles, 0);
  start_run(std::vector<uint32_t>(ipus_.size(), options_.on_checkpoint ? options_.checkpoint_at : 0));
  if (options_.on_checkpoint)
    for (auto& ipu : ipus_) ipu->sync_controller().set_cycle_limit(options_.checkpoint_at_cycle);
  apply_restored_run();

  RunResult result;
  result.tile_supersteps_kept = keep_tile_supersteps_;
  const auto start = std::chrono::steady_clock::now();
  if (options_.progress) progress_clock_ = std::make_unique<ProgressClock>(options_.progress_period_seconds);
  if (loaded_tiles() > 0) {
    if (run_driver_)
      run_driver_();
    else
      simulate_with_checkpoints();
  }
  progress_clock_.reset();
  result.host_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  result.iss_seconds = engine_->iss_seconds();
  result.batch_seconds = engine_->batch_seconds();
  result.exchange_parallel_seconds = exchange_parallel_seconds_;
  result.host_components = host_components(result.host_seconds);
  result.host_threads = engine_->host_threads();
  result.batches = engine_->batches();
  console_.flush();
  if (trace_) trace_->close();
  if (!profiles_.empty()) {
    std::vector<const profile::TileProfile*> tiles;
    for (const auto& p : profiles_) tiles.push_back(p.get());
    profile::write_profile_files(options_.profile_path, tiles, options_.profile_command, options_.profile_split);
  }

  // The run has stopped or starved: its outcome as a host would see it. A stream or a
  // hold with no host to serve it is a deadlock here.
  std::optional<RunEnd> end = outcome(/*starved=*/true);
  if (!end || !end->over()) {
    end = RunEnd{.kind = RunEndKind::Deadlock, .problems = {describe_stuck()}};
    locate(end->problems.front());
  }
  finish_run();
  collect(result, end->cycle.value_or(std::numeric_limits<uint64_t>::max()));
  result.end = std::move(*end);
  return result;
}

// The program booted on the tile named knows its source (when booted from an ELF; a
// host's BOOT_CMD gives only an image: the driver, which has the ELF, locates instead).
void Platform::locate(Problem& p) const {
  auto program_of = [&](uint32_t ipu, uint32_t tile) -> const iss::Program* {
    if (ipu >= ipus_.size() || tile >= ipus_[ipu]->tile_count()) return nullptr;
    const iss::TileCore* core = ipus_[ipu]->tile(tile).core();
    return core ? &core->program() : nullptr;
  };
  if (p.pc != Problem::kNone && p.function.empty() && p.source.empty())
    if (const iss::Program* prog = program_of(p.ipu, p.tile)) {
      const iss::SourceLocation at = prog->locate(p.pc);
      p.function = at.function;
      p.source = at.source();
    }
  if (p.peer && p.peer->pc != Problem::kNone && p.peer->function.empty() && p.peer->source.empty())
    if (const iss::Program* prog = program_of(p.peer->ipu, p.peer->tile)) {
      const iss::SourceLocation at = prog->locate(p.peer->pc);
      p.peer->function = at.function;
      p.peer->source = at.source();
    }
}

void Platform::add_timeline_ipu(Timeline& timeline, const Ipu& ipu) const {
  std::vector<uint32_t> loaded;
  for (uint32_t t = 0; t < ipu.tile_count(); ++t)
    if (ipu.tile(t).loaded()) loaded.push_back(t);
  timeline.add_ipu(ipu.index(), ipu.tile_count(), loaded);
}

void Platform::collect(RunResult& result, uint64_t end_cycle) {
  result.iss_core = iss::effective_core(*config_.board.chip.tile.iss);
  size_t loaded = 0;  // reserved: a vector grown by doubling holds both copies at its last growth
  for (const auto& ipu : ipus_)
    for (uint32_t t = 0; t < ipu->tile_count(); ++t) loaded += ipu->tile(t).loaded() ? 1 : 0;
  result.tiles.reserve(result.tiles.size() + loaded);
  for (const auto& ipu : ipus_) {
    bool any = false;
    for (uint32_t t = 0; t < ipu->tile_count(); ++t) {
      const tile::Tile& tile = ipu->tile(t);
      if (!tile.loaded()) continue;
      any = true;
      TileResult r;
      r.ipu = ipu->index();
      r.tile = t;
      r.state = tile.state_at(end_cycle);
      r.cycles = cycles_reached(tile, end_cycle);
      r.instructions = tile.instructions();
      r.syncs = tile.syncs();
      r.sync_stall_cycles = tile.sync_stall_cycles();
      r.exchanges = tile.exchanges();
      r.exchange_stall_cycles = tile.exchange_stall_cycles();
      r.exchange_bytes_out = tile.exchange_bytes_out();
      r.exchange_bytes_in = tile.exchange_bytes_in();
      r.exit_code = tile.exit_code();
      if (const iss::Fault* fault = tile.fault()) {
        Problem located = *fault;
        locate(located);
        r.fault = std::make_shared<const Problem>(std::move(located));
      }
      if (keep_tile_supersteps_) {
        r.superstep_count = tile_superstep_counts_.at(size_t(ipu->index()) * ipu->tile_count() + t);
        for (const SuperstepRow& row : accounts_.rows())
          for (const TileSuperstep& ts : row.tiles)
            if (ts.ipu == r.ipu && ts.tile == t) r.supersteps.push_back(ts.record);
      }
      if (trace_ && trace_->filter().traces_tile(ipu->index(), t)) ++result.itrace_tiles;
      if (const iss::TileCore* core = tile.core()) {
        const iss::JitStats jit = core->jit_stats();
        result.jit_regions += jit.tile_regions;
        result.jit_code_bytes += jit.tile_code_bytes;
        result.jit_seconds += double(jit.tile_translate_ns) * 1e-9;
      }
      result.tile_cycles = std::max(result.tile_cycles, r.cycles);
      result.instructions += r.instructions;
      result.tiles.push_back(std::move(r));
    }
    result.ipus += any ? 1 : 0;
    const exchange::ExchangeFabric& fabric = ipu->exchange_fabric();
    result.exchanges += fabric.exchanges();
    result.exchange_messages += fabric.messages();
    result.exchange_bytes += fabric.bytes();
    result.streaming_copies += fabric.copies();
    result.streaming_bytes += fabric.copy_bytes();
    result.supersteps.push_back(accounts_.ipu(ipu->index()));
  }
  result.supersteps_first = accounts_.first();
  result.superstep_count = accounts_.count();
  result.late_superstep_records = accounts_.late_records();
  exchange::ExchangeHostTicks exchange_ticks = exchange_group_->host_ticks();
  for (const auto& ipu : ipus_) exchange_ticks += ipu->exchange_fabric().host_ticks();
  result.exchange_plan_seconds = host_clock_.seconds(exchange_ticks.plan);
  result.links = link_results();
  for (const LinkResult& l : result.links) result.link_cycles_lost += l.layer.cycles_lost;
  result.simulated_seconds = TileClock(config_.board.chip.clock_hz).seconds_of(result.tile_cycles);
  result.console_lines = console_.lines();
  result.console_error = console_.write_error();
}

// Described again at the end of the run: every tile that arrived by then is among the
// waiters (the request was made when the first tile found the sync could not complete).
std::vector<Problem> Platform::stop_problems(const StopRequest& stop, const std::vector<RunningTile>& running) const {
  const tile::Tile& tile = ipus_.at(stop.ipu)->tile(stop.tile);
  switch (stop.kind) {
    case RunEndKind::Fault:
      return {*tile.fault()};
    case RunEndKind::ExchangeError:
      return tile.exchange_errors();
    case RunEndKind::Deadlock:
      // Described now, not when it was found: every tile that arrived by the end is named.
      return {ipus_.at(stop.ipu)->sync_controller().deadlock().value_or(sync::SyncDeadlock{}).problem()};
    case RunEndKind::Budget:
    case RunEndKind::Interrupted:
      return {budget_.problem(stop, running, total_instructions(),
                              running.empty() ? waiting_tiles(stop.cycle) : std::vector<WaitingTile>{})};
    default:  // Halted; the run control makes no other stops
      break;
  }
  return {};
}

std::vector<std::optional<streaming::StreamWait>> Platform::stream_waits() const {
  std::vector<std::optional<streaming::StreamWait>> waits;
  bool any = false;
  for (const auto& g : gateways_) {
    waits.push_back(g->stream_wait());
    any = any || waits.back().has_value();
  }
  if (!any) waits.clear();
  return waits;
}

// The simulation ran out of events with tiles still waiting: a copy waiting on a host
// stream, else a sync that cannot complete, else the tiles that never finished.
Problem Platform::describe_stuck() const {
  std::optional<streaming::StreamWait> wait;
  for (const auto& g : gateways_)
    if (!wait) wait = g->stream_wait();
  if (auto w = wait) {
    Problem p;
    p.code = ProblemCode::Deadlock;
    p.kind = "stream wait";
    p.ipu = w->ipu;
    p.tile = w->tile;
    p.pc = w->pc;
    p.address = w->stream;
    p.detail = fmt::format("host stream {}: tile {} (ipu {}) pc 0x{:08x} waits to {} (nobody serves the stream)",
                           w->stream, w->tile, w->ipu, w->pc,
                           w->d2h ? fmt::format("write; its device-to-host FIFO holds {} bytes", w->bytes)
                                  : fmt::format("read {} more bytes than its host-to-device FIFO holds", w->bytes));
    return p;
  }
  const auto& ipus = ipus_;
  // The sync controller reports a deadlock when it becomes certain; one found only here,
  // when nothing was left to run, says so (a test tells the two apart by it).
  for (const auto& ipu : ipus)
    if (auto d = ipu->sync_controller().stuck()) {
      Problem p = d->problem();
      p.detail = "found at the end of the run: the simulation ran out of events with tiles waiting at a sync";
      return p;
    }
  Problem p;
  p.code = ProblemCode::Deadlock;
  p.kind = "never finished";
  for (const auto& ipu : ipus)
    for (uint32_t t = 0; t < ipu->tile_count(); ++t) {
      const tile::Tile& tile = ipu->tile(t);
      if (tile.loaded() && tile.state() != tile::TileState::Halted)
        p.absent.push_back({ipu->index(), t, std::string(tile::to_string(tile.state()))});
    }
  if (!p.absent.empty()) {
    p.ipu = p.absent.front().ipu;
    p.tile = p.absent.front().tile;
  }
  return p;
}

// The exchange group's scheduler sees every IPU's traffic.
std::vector<LinkResult> Platform::link_results() const {
  std::vector<LinkResult> out;
  const uint64_t ticks_per_cycle = config_.board.chip.tile.exchange_ticks_per_cycle();
  for (uint32_t d = 0; d < 2 * topology_.wires().size(); ++d) {
    LinkResult l;
    l.link = d / 2;
    const config::LinkWire& w = topology_.wires()[l.link];
    l.from_ipu = d % 2 == 0 ? w.ipu_a : w.ipu_b;
    l.to_ipu = d % 2 == 0 ? w.ipu_b : w.ipu_a;
    const links::LinkLoad& load = exchange_group_->links().load(d);
    l.frames = load.frames;
    l.bytes = load.bytes;
    if (const links::LinkFaults* f = exchange_group_->faults()) l.layer = f->stats(d);
    l.busy_cycles = double(load.busy_ticks) / double(ticks_per_cycle);
    if (l.frames == 0 && l.layer.frames_sent == 0) continue;
    out.push_back(l);
  }
  return out;
}

void Platform::set_link_faults(const links::FaultPlan& plan) {
  const uint32_t link_count = uint32_t(topology_.wires().size());
  for (const auto& [link, spec] : plan.links)
    if (link >= link_count)
      throw std::invalid_argument(fmt::format("link faults: link {}: the system has {} IPU-Links", link, link_count));
  // With the link RTL every phase goes through the link layer, faults or none (without
  // any it delivers the same bytes at the same cycles as the exchange's own timing).
  std::unique_ptr<links::LinkFaults> faults;
  if (plan.any() || link_rtl_)
    faults = std::make_unique<links::LinkFaults>(plan, links::LinkFaults::layer_config(config_.board.chip), link_count);
  if (link_rtl_)
    faults->set_carrier([rtl = link_rtl_.get()](uint32_t direction, const links::LinkLayerConfig& layer,
                                                links::FaultInjector& injector,
                                                std::span<const links::ScheduledFrame> frames) {
      return rtl->carry(direction, layer, injector, frames);
    });
  exchange_group_->set_faults(std::move(faults));
}

}  // namespace ipusim::platform
