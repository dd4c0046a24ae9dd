#include "debug/platform_target.h"

#include <algorithm>
#include <filesystem>

#include <fmt/format.h>

#include "common/problem.h"

namespace ipusim::debug {
namespace {

StopEvent event(StopEvent::Kind kind, const ThreadRef& thread) {
  StopEvent e;
  e.kind = kind;
  e.thread = thread;
  return e;
}

}  // namespace

PlatformTarget::PlatformTarget(platform::Platform& platform)
    : platform_(platform), breakpoints_(platform.ipu_count()), watches_(platform.ipu_count()) {
  // One interrupt flag with the platform's budget: gdb's Ctrl-C, `ipusim run`'s Ctrl-C and
  // a host's abort or reset all stop the system, and the debugger reports the stop.
  bounds_.interrupt = &platform_.budget().interrupt_flag();
  set_tile_bounds(&bounds_);
  platform_.set_cycle_stepping(this);
}

PlatformTarget::~PlatformTarget() { detach(); }

void PlatformTarget::detach() {
  if (!attached_) return;
  attached_ = false;
  set_tile_bounds(platform_.budget().bounds());  // the run's own bounds again
  platform_.set_cycle_stepping(nullptr);
}

void PlatformTarget::set_tile_bounds(const iss::RunBounds* bounds) {
  for (uint32_t i = 0; i < platform_.ipu_count(); ++i) {
    platform::Ipu& ipu = platform_.ipu(i);
    for (uint32_t t = 0; t < ipu.tile_count(); ++t) ipu.tile(t).set_bounds(bounds);
  }
}

// ---- what there is ---------------------------------------------------------------------

uint32_t PlatformTarget::ipus() const { return platform_.ipu_count(); }
uint32_t PlatformTarget::tiles_per_ipu() const { return platform_.config().board.chip.tiles; }
uint32_t PlatformTarget::slots_per_tile() const { return platform_.config().board.chip.tile.workers + 1; }

const tile::Tile* PlatformTarget::tile_of(const ThreadRef& thread) const {
  if (thread.ipu >= platform_.ipu_count()) return nullptr;
  const platform::Ipu& ipu = platform_.ipu(thread.ipu);
  if (thread.tile >= ipu.tile_count()) return nullptr;
  const tile::Tile& t = ipu.tile(thread.tile);
  return t.loaded() ? &t : nullptr;
}

const iss::TileCore* PlatformTarget::core_of(const ThreadRef& thread) const {
  const tile::Tile* t = tile_of(thread);
  if (!t || thread.slot >= slots_per_tile()) return nullptr;
  return t->core();
}

bool PlatformTarget::alive(const ThreadRef& thread) const {
  const iss::TileCore* core = core_of(thread);
  return core && core->thread_alive(thread.slot);
}

std::vector<ThreadRef> PlatformTarget::threads() const {
  std::vector<ThreadRef> out;
  for (uint32_t i = 0; i < platform_.ipu_count(); ++i) {
    const platform::Ipu& ipu = platform_.ipu(i);
    for (uint32_t t = 0; t < ipu.tile_count(); ++t) {
      const iss::TileCore* core = ipu.tile(t).core();
      if (!core) continue;
      for (uint32_t s = 0; s < slots_per_tile(); ++s)
        if (core->thread_alive(s)) out.push_back({i, t, s});
    }
  }
  return out;
}

std::optional<ThreadRef> PlatformTarget::first_thread() const {
  for (uint32_t i = 0; i < platform_.ipu_count(); ++i) {
    const platform::Ipu& ipu = platform_.ipu(i);
    for (uint32_t t = 0; t < ipu.tile_count(); ++t)
      if (ipu.tile(t).loaded()) return ThreadRef{i, t, 0};
  }
  return std::nullopt;
}

std::string PlatformTarget::name(const ThreadRef& thread) const {
  return thread.slot == 0 ? fmt::format("tile {} sup", thread.tile) : fmt::format("tile {} w{}", thread.tile, thread.slot);
}

std::string PlatformTarget::extra_info(const ThreadRef& thread) const {
  const tile::Tile* t = tile_of(thread);
  if (!t) return "no program";
  return fmt::format("ipu {} tile {} {}: {}", thread.ipu, thread.tile,
                     thread.slot == 0 ? std::string("supervisor") : fmt::format("worker {}", thread.slot),
                     tile::to_string(t->state()));
}

// The ELF file the IPU's first tile runs, if it came from one (a host's boot gives an
// image with no file).
std::string PlatformTarget::executable(uint32_t ipu) const {
  if (ipu >= platform_.ipu_count()) return {};
  const platform::Ipu& chip = platform_.ipu(ipu);
  for (uint32_t t = 0; t < chip.tile_count(); ++t) {
    const iss::TileCore* core = chip.tile(t).core();
    if (!core) continue;
    std::error_code ec;
    const std::filesystem::path path = std::filesystem::absolute(core->program().name(), ec);
    return !ec && std::filesystem::is_regular_file(path, ec) ? path.string() : std::string();
  }
  return {};
}

std::vector<DebugTarget::CsrDesc> PlatformTarget::csrs() const {
  std::vector<CsrDesc> out;
  for (const iss::CsrInfo& c : iss::tile_csrs())
    if (c.number > IPU_CSR_FCSR) out.push_back({c.number, c.name});  // the F CSRs are the FPU feature's
  return out;
}

// ---- registers and memory ----------------------------------------------------------------

std::optional<uint32_t> PlatformTarget::read_register(const ThreadRef& thread, uint32_t regno) const {
  const iss::TileCore* core = core_of(thread);
  if (!core) return std::nullopt;
  const iss::ThreadRegisters r = core->registers(thread.slot);
  if (regno < 32) return r.x[regno];
  if (regno == kRegPc) return r.pc;
  if (regno >= kRegF0 && regno < kRegF0 + 32) return r.f[regno - kRegF0];
  if (regno >= kRegCsr0) return core->read_csr(thread.slot, regno - kRegCsr0);
  return std::nullopt;
}

bool PlatformTarget::write_register(const ThreadRef& thread, uint32_t regno, uint32_t value) {
  const tile::Tile* t = tile_of(thread);
  if (!t || thread.slot >= slots_per_tile()) return false;
  iss::TileCore& core = *platform_.ipu(thread.ipu).tile(thread.tile).core();
  iss::ThreadRegisters r = core.registers(thread.slot);
  if (regno == 0) return true;  // x0 is zero whatever is written
  if (regno < 32) r.x[regno] = value;
  else if (regno == kRegPc) r.pc = value;
  else if (regno >= kRegF0 && regno < kRegF0 + 32) r.f[regno - kRegF0] = value;
  else if (regno == kRegCsr0 + IPU_CSR_FFLAGS) r.fcsr = (r.fcsr & ~0x1fu) | (value & 0x1f);
  else if (regno == kRegCsr0 + IPU_CSR_FRM) r.fcsr = (r.fcsr & 0x1f) | (value & 7) << 5;
  else if (regno == kRegCsr0 + IPU_CSR_FCSR) r.fcsr = value & 0xff;
  else return false;  // the other CSRs are the tile's, not the thread's to change
  return core.set_registers(thread.slot, r);
}

bool PlatformTarget::read_memory(const ThreadRef& thread, uint32_t address, std::span<uint8_t> out) const {
  const iss::TileCore* core = core_of(ThreadRef{thread.ipu, thread.tile, 0});
  return core && core->read(address, out);
}

bool PlatformTarget::write_memory(const ThreadRef& thread, uint32_t address, std::span<const uint8_t> in) {
  if (!tile_of(thread)) return false;
  return platform_.ipu(thread.ipu).tile(thread.tile).core()->write(address, in);
}

// ---- breakpoints, watchpoints, catches --------------------------------------------------

bool PlatformTarget::insert_breakpoint(uint32_t ipu, uint32_t address) {
  if (ipu >= breakpoints_.size() || address % 4 != 0) return false;
  breakpoints_[ipu].insert(address);
  return true;
}

bool PlatformTarget::remove_breakpoint(uint32_t ipu, uint32_t address) {
  if (ipu >= breakpoints_.size()) return false;
  breakpoints_[ipu].erase(address);
  return true;
}

bool PlatformTarget::insert_watchpoint(uint32_t ipu, WatchKind kind, uint32_t address, uint32_t length) {
  if (ipu >= watches_.size() || length == 0) return false;
  watches_[ipu].push_back({kind, address, length});
  return true;
}

bool PlatformTarget::remove_watchpoint(uint32_t ipu, WatchKind kind, uint32_t address, uint32_t length) {
  if (ipu >= watches_.size()) return false;
  auto& w = watches_[ipu];
  const auto it = std::find(w.begin(), w.end(), Watch{kind, address, length});
  if (it != w.end()) w.erase(it);
  return true;
}

void PlatformTarget::set_catches(std::vector<Catch> catches) { catches_ = std::move(catches); }

// ---- the probe and cycle stepping ---------------------------------------------------

void PlatformTarget::begin_pass(uint64_t, bool check) { checking_ = check; }

bool PlatformTarget::free_run() const {
  if (step_ || !catches_.empty()) return false;
  for (uint32_t i = 0; i < breakpoints_.size(); ++i)
    if (!breakpoints_[i].empty() || !watches_[i].empty()) return false;
  return true;
}

bool PlatformTarget::stop_before(const iss::TileIdentity& tile, const Insn& insn) {
  const ThreadRef who{tile.ipu, tile.tile, insn.thread};
  std::optional<StopEvent> hit;
  if (only_thread_ && !(*only_thread_ == who)) {
    // gdb moves one thread alone (over a breakpoint) and takes a stop of no other: the
    // threads sharing its tile issue with it, unstopped.
  } else if (breakpoints_[tile.ipu].contains(insn.pc)) {
    hit = event(StopEvent::Kind::Breakpoint, who);
  } else if (insn.load || insn.store) {
    // The load (a read) and the store (a write) of the instruction; a wide load-and-store
    // has both. A watchpoint fires on any byte an access touches.
    auto touches = [](const Watch& w, uint32_t address, uint32_t size) {
      return address < uint64_t{w.address} + w.length && w.address < uint64_t{address} + size;
    };
    for (const Watch& w : watches_[tile.ipu]) {
      std::optional<uint32_t> at;
      if (insn.load && w.kind != WatchKind::Write && touches(w, insn.address, insn.size))
        at = std::max(insn.address, w.address);
      else if (insn.store && w.kind != WatchKind::Read && touches(w, insn.store_address, insn.store_size))
        at = std::max(insn.store_address, w.address);
      if (at) {
        hit = event(StopEvent::Kind::Watchpoint, who);
        hit->address = *at;
        hit->watch = w.kind;
        break;
      }
    }
  }
  if (hit) {
    if (!stop_) stop_ = std::move(hit);
    return true;
  }
  if (!checking_ && step_ && *step_ == who) step_issued_ = true;  // it issues in this pass
  return checking_;  // the check pass stops every tile before its first instruction
}

bool PlatformTarget::stop_requested() {
  if (platform_.budget().interrupted() || gdb_interrupt_.load(std::memory_order_acquire)) {
    platform_.budget().clear_interrupt();
    gdb_interrupt_ = false;
    if (!stop_) stop_ = event(StopEvent::Kind::Interrupt, step_ ? *step_ : first_thread().value_or(ThreadRef{}));
  }
  if (step_issued_ && !stop_) stop_ = event(StopEvent::Kind::Step, *step_);
  // The thread gdb moves alone exited (`wexit`): it stops there, so gdb is not left
  // waiting for a thread that will never come back.
  if (only_thread_ && !stop_ && !alive(*only_thread_)) stop_ = event(StopEvent::Kind::Step, *only_thread_);
  return stop_.has_value();
}

void PlatformTarget::only_tile_blocked() {
  // The one tile allowed to run waits on the others (a sync, an exchange): a step ends
  // where it is; a thread continued alone lets every tile run on.
  if (stop_) return;
  if (step_)
    stop_ = event(StopEvent::Kind::Step, *step_);
  else
    only_ = nullptr;  // still, only its thread's stops are reported (stop_before)
}

void PlatformTarget::stretch_ended(const tile::Tile& tile) {
  const iss::TileIdentity& id = tile.identity();
  const bool at_sync = tile.state() == tile::TileState::AtSync;
  const bool at_exchange = tile.state() == tile::TileState::AtExchange;
  if (!at_sync && !at_exchange) return;
  for (const Catch& c : catches_) {
    if ((c.kind == Catch::Kind::Sync) != at_sync) continue;
    if ((c.ipu && *c.ipu != id.ipu) || (c.tile && *c.tile != id.tile)) continue;
    if (stop_) return;
    StopEvent e = event(StopEvent::Kind::Catch, ThreadRef{id.ipu, id.tile, 0});
    e.text = at_sync ? fmt::format("ipu {} tile {} reached a sync (zone {}) at cycle {}", id.ipu, id.tile,
                                   tile.sync_zone(), tile.stop_cycle())
                     : fmt::format("ipu {} tile {} waits for its exchange from cycle {}", id.ipu, id.tile,
                                   tile.stop_cycle());
    stop_ = std::move(e);
    return;
  }
}

// ---- running -----------------------------------------------------------------------------

void PlatformTarget::begin_resume(const Resume& how) {
  step_ = how.step;
  step_issued_ = false;
  only_thread_ = how.step && !how.others ? how.step : how.only;
  only_ = only_thread_ ? tile_of(*only_thread_) : nullptr;
  stop_.reset();
  // Free, nothing is asked before each instruction: the fast loop runs, and only the
  // interrupt flag can pause a tile. In cycle stepping the flag is read between passes
  // (stop_requested), so an interrupt never splits the tiles of one cycle.
  const bool free = free_run();
  bounds_.probe = free ? nullptr : this;
  bounds_.interrupt = free ? &platform_.budget().interrupt_flag() : nullptr;
}

void PlatformTarget::new_run() {
  over_.reset();
  stop_.reset();
  step_.reset();
  step_issued_ = false;
  only_ = nullptr;
  only_thread_.reset();
}

void PlatformTarget::clear_all() {
  for (auto& b : breakpoints_) b.clear();
  for (auto& w : watches_) w.clear();
  catches_.clear();
}

std::optional<StopEvent> PlatformTarget::take_stop() {
  // gdb's Ctrl-C that came when no tile was computing (the kernel idle, or the run just
  // ended) found nobody to stop: it is the stop now, not a flag left set for ever.
  if (!stop_ && !over_ && gdb_interrupt_.exchange(false)) {
    platform_.budget().clear_interrupt();
    stop_ = event(StopEvent::Kind::Interrupt, first_thread().value_or(ThreadRef{}));
  }
  if (!stop_) return std::nullopt;
  StopEvent e = std::move(*stop_);
  stop_.reset();
  step_.reset();
  only_ = nullptr;
  only_thread_.reset();
  return e;
}

StopEvent PlatformTarget::resume(const Resume& how) {
  if (over_) return *over_;
  begin_resume(how);
  const bool starved = platform_.simulate();
  if (std::optional<StopEvent> e = take_stop()) return *e;
  return run_over(starved);
}

StopEvent PlatformTarget::run_over(bool starved) {
  const std::optional<RunEnd> end = platform_.outcome(starved);
  StopEvent e = event(StopEvent::Kind::Exited, first_thread().value_or(ThreadRef{}));
  if (end && end->kind == RunEndKind::Halted) {
    e.exit_code = platform_.exit_status();  // as `ipusim run` exits
  } else if (end && end->problem()) {
    const Problem& p = *end->problem();
    if (end->kind == RunEndKind::Fault && p.has_tile()) {
      e.kind = StopEvent::Kind::Fault;
      e.thread = ThreadRef{p.ipu, p.tile, p.thread == Problem::kNone ? 0 : p.thread};
    } else {
      e.exit_code = 1;
    }
    e.text = to_text(p);
  } else {
    e.exit_code = 1;
    e.text = "the run cannot go on (tiles wait for something nothing will do)";
  }
  over_ = e;
  return e;
}

void PlatformTarget::interrupt() {
  gdb_interrupt_.store(true, std::memory_order_release);
  platform_.budget().interrupt();  // the flag computing tiles read
}

StopEvent PlatformTarget::initial_stop() const {
  if (over_) return *over_;
  return event(StopEvent::Kind::Step, first_thread().value_or(ThreadRef{}));
}

}  // namespace ipusim::debug
