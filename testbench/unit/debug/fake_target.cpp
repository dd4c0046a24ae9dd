#include "fake_target.h"

#include <chrono>
#include <cstring>
#include <thread>

namespace ipusim::debug::testing {

FakeTarget::FakeTarget() {
  // IPU 0: tile 0 supervisor and worker 1, tile 7 worker 3; IPU 1: tile 0 supervisor.
  const ThreadRef refs[] = {{0, 0, 0}, {0, 0, 1}, {0, 7, 3}, {1, 0, 0}};
  uint32_t i = 0;
  for (const auto& r : refs) {
    Thread t;
    t.ref = r;
    for (uint32_t n = 0; n < 32; ++n) {
      // Recognisable values: 0xIITTSSNN (ipu, tile, slot, register).
      t.x[n] = n == 0 ? 0 : r.ipu << 24 | r.tile << 16 | r.slot << 8 | n;
      float v = static_cast<float>(n) + 0.5f;
      std::memcpy(&t.f[n], &v, 4);
    }
    t.start = t.pc = kSramBase + kLoop * i++;
    thread_state.push_back(t);
    // Code gdb can decode: 4-byte nops (addi x0, x0, 0) where the thread loops, so a gdb
    // that single-steps in software (a Linux OS ABI) puts its breakpoint at pc + 4, where
    // this fake goes.
    auto& mem = sram(r.ipu, r.tile);
    for (uint32_t a = t.start - kSramBase; a < t.start - kSramBase + kLoop; a += 4) {
      const uint32_t nop = 0x00000013;
      std::memcpy(mem.data() + a, &nop, 4);
    }
  }
}

FakeTarget::Thread* FakeTarget::find(const ThreadRef& r) {
  for (auto& t : thread_state)
    if (t.ref == r) return &t;
  return nullptr;
}
const FakeTarget::Thread* FakeTarget::find(const ThreadRef& r) const {
  for (const auto& t : thread_state)
    if (t.ref == r) return &t;
  return nullptr;
}

std::vector<uint8_t>& FakeTarget::sram(uint32_t ipu, uint32_t tile) {
  auto& s = sram_[{ipu, tile}];
  if (s.empty()) s.resize(kSramSize);
  return s;
}

std::vector<ThreadRef> FakeTarget::threads() const {
  std::vector<ThreadRef> out;
  for (const auto& t : thread_state) out.push_back(t.ref);
  return out;
}

bool FakeTarget::alive(const ThreadRef& r) const { return find(r) != nullptr; }

std::string FakeTarget::name(const ThreadRef& r) const {
  std::string who = r.slot == 0 ? "supervisor" : "w" + std::to_string(r.slot);
  return "tile " + std::to_string(r.tile) + " " + who;
}

std::string FakeTarget::extra_info(const ThreadRef& r) const { return alive(r) ? "running" : ""; }

std::vector<DebugTarget::CsrDesc> FakeTarget::csrs() const {
  return {{0xc00, "cycle"}, {0xcc0, "tile"}, {0xcc1, "ipu"}, {0xcc2, "thread"}, {0xcc8, "superstep"}};
}

std::optional<uint32_t> FakeTarget::read_register(const ThreadRef& r, uint32_t regno) const {
  const Thread* t = find(r);
  if (!t) return std::nullopt;
  if (regno < 32) return t->x[regno];
  if (regno == kRegPc) return t->pc;
  if (regno < kRegF0 + 32) return t->f[regno - kRegF0];
  switch (regno - kRegCsr0) {
    case 1: case 2: case 3: return 0;
    case 0xc00: return 1000;
    case 0xcc0: return r.tile;
    case 0xcc1: return r.ipu;
    case 0xcc2: return r.slot;
    case 0xcc8: return 3;
  }
  return std::nullopt;
}

bool FakeTarget::write_register(const ThreadRef& r, uint32_t regno, uint32_t value) {
  Thread* t = find(r);
  if (!t) return false;
  if (regno == 0) return true;
  if (regno < 32) t->x[regno] = value;
  else if (regno == kRegPc) t->pc = value;
  else if (regno < kRegF0 + 32) t->f[regno - kRegF0] = value;
  else return false;  // CSRs: read-only here
  return true;
}

bool FakeTarget::read_memory(const ThreadRef& r, uint32_t address, std::span<uint8_t> out) const {
  if (!alive(r) || address < kSramBase || uint64_t{address} + out.size() > kSramBase + kSramSize) return false;
  auto it = sram_.find({r.ipu, r.tile});
  if (it == sram_.end()) {
    std::fill(out.begin(), out.end(), 0);
  } else {
    std::memcpy(out.data(), it->second.data() + (address - kSramBase), out.size());
  }
  return true;
}

bool FakeTarget::write_memory(const ThreadRef& r, uint32_t address, std::span<const uint8_t> in) {
  if (!alive(r) || address < kSramBase || uint64_t{address} + in.size() > kSramBase + kSramSize) return false;
  std::memcpy(sram(r.ipu, r.tile).data() + (address - kSramBase), in.data(), in.size());
  return true;
}

bool FakeTarget::insert_breakpoint(uint32_t ipu, uint32_t address) {
  if (ipu >= ipus() || address < kSramBase || address >= kSramBase + kSramSize) return false;
  breakpoints.insert({ipu, address});
  return true;
}

bool FakeTarget::remove_breakpoint(uint32_t ipu, uint32_t address) {
  return breakpoints.erase({ipu, address}) > 0;
}

bool FakeTarget::insert_watchpoint(uint32_t ipu, WatchKind kind, uint32_t address, uint32_t length) {
  if (ipu >= ipus() || address < kSramBase || address >= kSramBase + kSramSize) return false;
  watchpoints.insert({ipu, kind, address, length});
  return true;
}

bool FakeTarget::remove_watchpoint(uint32_t ipu, WatchKind kind, uint32_t address, uint32_t length) {
  return watchpoints.erase({ipu, kind, address, length}) > 0;
}

StopEvent FakeTarget::initial_stop() const {
  StopEvent e;
  e.kind = StopEvent::Kind::Interrupt;
  e.thread = thread_state.front().ref;
  return e;
}

bool FakeTarget::watch_hit(const Thread& t) const {
  if (!(t.ref == ThreadRef{0, 0, 0}) || t.pc != kStorePc) return false;
  for (const auto& [ipu, kind, address, length] : watchpoints)
    if (ipu == 0 && kind != WatchKind::Read && address < kWatched + 4 && kWatched < address + length) return true;
  return false;
}

void FakeTarget::execute(Thread& t) {
  if (t.ref == ThreadRef{0, 0, 0} && t.pc == kStorePc) {
    ++counter_;
    std::memcpy(sram(0, 0).data() + (kWatched - kSramBase), &counter_, 4);
  }
  t.pc += 4;
  if (t.pc >= t.start + kLoop) t.pc = t.start;
}

StopEvent FakeTarget::resume(const Resume& how) {
  resumes.push_back(how);
  if (final_) return *final_;
  if (!script.empty()) {
    StopEvent e = script.front();
    script.pop_front();
    if (e.kind == StopEvent::Kind::Fault || e.kind == StopEvent::Kind::Exited) final_ = e;
    return e;
  }
  StopEvent e;
  e.thread = thread_state.front().ref;
  if (block_until_interrupt) {
    // A run that only Ctrl-C ends; bounded so a broken test cannot hang.
    for (int i = 0; i < 1000 && !interrupted_; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
    interrupted_ = false;
    e.kind = StopEvent::Kind::Interrupt;
    return e;
  }
  if (how.step) {
    Thread* t = find(*how.step);
    if (t) {
      execute(*t);
      e.thread = t->ref;
    }
    e.kind = StopEvent::Kind::Step;
    return e;
  }
  for (uint64_t n = 0; n < max_instructions;) {
    for (auto& t : thread_state) {
      if (interrupted_) {
        interrupted_ = false;
        e.kind = StopEvent::Kind::Interrupt;
        return e;
      }
      e.thread = t.ref;
      if (breakpoints.count({t.ref.ipu, t.pc})) {
        e.kind = StopEvent::Kind::Breakpoint;
        return e;
      }
      if (watch_hit(t)) {
        e.kind = StopEvent::Kind::Watchpoint;
        e.address = kWatched;
        e.watch = WatchKind::Write;
        return e;
      }
      execute(t);
      ++n;
    }
  }
  e.kind = StopEvent::Kind::Exited;
  e.thread = thread_state.front().ref;
  e.exit_code = 0;
  final_ = e;
  return e;
}

}  // namespace ipusim::debug::testing
