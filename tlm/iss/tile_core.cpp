// TileCore: the public face of CoreState (see tile_core.h).
#include "iss/tile_core.h"

#include <cstring>
#include <stdexcept>

#include <fmt/format.h>

#include "iss/core_state.h"
#include "iss/isa_table.h"
#include "iss/sram_image.h"

namespace ipusim::iss {

struct TileCore::Impl : CoreState {
  using CoreState::CoreState;
};

void load_image(Sram& sram, const Program& program) {
  sram.clear();
  for (const Segment& s : program.segments())
    if (!s.bytes.empty() &&
        (s.vaddr < kSramBase || s.vaddr - kSramBase + uint64_t{s.bytes.size()} > sram.size()))
      throw ProgramError(fmt::format("{}: segment 0x{:08x} (+{} bytes) is outside the {} bytes of tile SRAM",
                                     program.name(), s.vaddr, s.bytes.size(), sram.size()));
  // Shared with the other tiles running the program until written (sram_image.h), or
  // copied when the process shares no more images.
  if (shared_image_limit() != 0)
    if (const auto image = program.sram_image(sram.size()); image && sram.map_image(*image)) return;
  for (const Segment& s : program.segments())
    if (!s.bytes.empty()) std::memcpy(sram.data() + (s.vaddr - kSramBase), s.bytes.data(), s.bytes.size());
}

TileCore::TileCore(const TileParams& params, std::shared_ptr<const Program> program, Sram& sram,
                   ConsoleSink* console) {
  if (!program) throw std::invalid_argument("TileCore: no program");
  impl_ = std::make_unique<Impl>(params, std::move(program), console, sram);
}

TileCore::~TileCore() = default;

void TileCore::reset() { impl_->reset(); }
StopInfo TileCore::run() { return impl_->run(); }
void TileCore::release_sync(uint64_t release_cycle) { impl_->release_sync(release_cycle); }
const PostingLog& TileCore::exchange_log() const { return impl_->exchange_log(); }
void TileCore::release_exchange(uint64_t done_cycle) { impl_->release_exchange(done_cycle); }
CoreSnapshot TileCore::snapshot() const { return impl_->snapshot(); }
void TileCore::restore(const CoreSnapshot& snapshot) { impl_->restore(snapshot); }

uint64_t TileCore::cycle() const { return impl_->thread(0).clock; }

JitStats TileCore::jit_stats() const {
  JitStats s;
  if (!impl_->jit_cache()) return s;
  const jit::Stats program = jit::stats(*impl_->jit_cache());
  s.active = true;
  s.tile_translate_ns = impl_->jit_tile_stats().translate_ns;
  s.tile_regions = impl_->jit_tile_stats().regions;
  s.tile_code_bytes = impl_->jit_tile_stats().code_bytes;
  s.program_translate_ns = program.translate_ns;
  s.program_regions = program.regions;
  s.program_code_bytes = program.code_bytes;
  s.program_hoisted_loops = program.hoisted_loops;
  return s;
}

uint64_t TileCore::instret() const {
  uint64_t n = 0;
  for (uint32_t i = 0; i < impl_->thread_count(); ++i) n += impl_->thread(i).instret;
  return n;
}

ThreadStats TileCore::thread_stats(uint32_t thread) const {
  if (thread >= impl_->thread_count())
    throw std::out_of_range(fmt::format("thread {} (the tile has threads 0..{})", thread, impl_->thread_count() - 1));
  const Thread& t = impl_->thread(thread);
  ThreadStats s;
  s.instret = t.instret;
  s.stall_cycles = t.stall;
  s.exchange_stall_cycles = t.exchange_stall;
  s.starts = t.starts;
  s.last_status = t.last_status;
  return s;
}

ThreadRegisters TileCore::registers(uint32_t thread) const {
  if (thread >= impl_->thread_count())
    throw std::out_of_range(fmt::format("thread {} (the tile has threads 0..{})", thread, impl_->thread_count() - 1));
  const Thread& t = impl_->thread(thread);
  return thread_registers(t, t.ip ? impl_->pc_of(t.ip) : 0);
}

const TileParams& TileCore::params() const { return impl_->params(); }
const Program& TileCore::program() const { return impl_->program(); }
void TileCore::set_trace(TraceSink* sink) { impl_->set_trace(sink); }
void TileCore::set_profile(ProfileSink* sink) { impl_->set_profile(sink); }
void TileCore::watch_memory(uint32_t supervisor_stack_bytes) { impl_->watch_memory(supervisor_stack_bytes); }

StackUse TileCore::stack_use(uint32_t thread) const {
  if (thread >= impl_->thread_count())
    throw std::out_of_range(fmt::format("thread {} (the tile has threads 0..{})", thread, impl_->thread_count() - 1));
  return impl_->stack_use(thread);
}

const BufferUse& TileCore::buffer_use() const { return impl_->buffer_use(); }
void TileCore::set_bounds(const RunBounds* bounds) { impl_->set_bounds(bounds); }
void TileCore::set_amp_datapath(AmpDatapath* datapath) { impl_->set_amp_datapath(datapath); }

bool TileCore::set_registers(uint32_t thread, const ThreadRegisters& regs) {
  if (thread >= impl_->thread_count())
    throw std::out_of_range(fmt::format("thread {} (the tile has threads 0..{})", thread, impl_->thread_count() - 1));
  const DecodedInsn* ip = impl_->entry_for(regs.pc);
  if (!ip) return false;
  Thread& t = impl_->thread_mut(thread);
  // A thread inside a rpt body's copy reads as the body's pc; writing that same pc back
  // (a debugger writes every register) keeps it in the repeat, another pc moves it to
  // plain code and ends the repeat (docs/iss.md "Zero-overhead loops").
  if (!(t.ip && impl_->pc_of(t.ip) == regs.pc)) t.ip = ip;
  for (unsigned i = 1; i < 32; ++i) t.hart.regs[i] = regs.x[i];  // x0 stays 0
  for (unsigned i = 0; i < 32; ++i) t.hart.regs[kFReg0 + i] = regs.f[i];
  t.hart.regs[kFrmReg] = (regs.fcsr >> 5) & 7;
  t.hart.regs[kFflagsReg] = regs.fcsr & 31;
  return true;
}

std::optional<uint32_t> TileCore::read_csr(uint32_t thread, uint32_t csr) const {
  if (thread >= impl_->thread_count()) return std::nullopt;
  const Thread& t = impl_->thread(thread);
  return impl_->csr_value(t, csr, t.clock, t.instret);
}

std::vector<CsrInfo> tile_csrs() {
  std::vector<CsrInfo> out;
  for (const isa::Csr& c : isa::csrs()) out.push_back({c.number, c.name, c.writable});
  return out;
}

bool TileCore::thread_alive(uint32_t thread) const {
  if (thread >= impl_->thread_count()) return false;
  return thread == 0 || impl_->thread(thread).state != ThreadState::Idle;
}

bool TileCore::read(uint32_t addr, std::span<uint8_t> out) const {
  const uint32_t size = impl_->params().sram_bytes;
  if (addr < kSramBase || addr - kSramBase + uint64_t{out.size()} > size) return false;
  std::memcpy(out.data(), impl_->sram().data() + (addr - kSramBase), out.size());
  return true;
}

bool TileCore::write(uint32_t addr, std::span<const uint8_t> in) {
  const uint32_t size = impl_->params().sram_bytes;
  if (addr < kSramBase || addr - kSramBase + uint64_t{in.size()} > size) return false;
  if (!impl_->host_write_allowed(addr, static_cast<uint32_t>(in.size()))) return false;
  std::memcpy(impl_->sram().data() + (addr - kSramBase), in.data(), in.size());
  return true;
}

// Code is fixed per Program (tiles share its decoded form), so the host may not change it.
bool CoreState::host_write_allowed(uint32_t addr, uint32_t size) const {
  if (size == 0) return true;
  for (const Segment& s : program_->segments())
    if (s.executable && uint64_t{addr} + size > s.vaddr && addr < uint64_t{s.vaddr} + s.mem_size) return false;
  return true;
}

}  // namespace ipusim::iss
