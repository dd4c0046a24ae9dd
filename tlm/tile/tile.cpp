#include "tile/tile.h"

#include <algorithm>
#include <cstring>
#include <span>
#include <stdexcept>
#include <utility>

#include <fmt/format.h>

#include "tile/tile_engine.h"
#include "common/payload.h"

namespace ipusim::tile {

const char* to_string(TileState state) {
  switch (state) {
    case TileState::Idle: return "idle";
    case TileState::Running: return "running";
    case TileState::AtSync: return "at sync";
    case TileState::AtExchange: return "at exchange";
    case TileState::Halted: return "halted";
    case TileState::Faulted: return "faulted";
    case TileState::ExchangeFailed: return "exchange failed";
  }
  return "?";
}

Tile::Tile(sc_core::sc_module_name name, const TileModuleConfig& config)
    : sc_module(name),
      mem_socket("mem_socket"),
      sync_socket("sync_socket"),
      exchange_socket("exchange_socket"),
      config_(config),
      clock_(config.clock_hz),
      run_(superstep_sink()) {
  mem_socket.register_b_transport(this, &Tile::b_transport);
  mem_socket.register_transport_dbg(this, &Tile::transport_dbg);
  mem_socket.register_get_direct_mem_ptr(this, &Tile::get_direct_mem_ptr);
  sync_socket.register_nb_transport_bw(this, &Tile::sync_bw);
  exchange_socket.register_nb_transport_bw(this, &Tile::exchange_bw);
}

Tile::~Tile() = default;

SuperstepTracker::Sink Tile::superstep_sink() {
  return [this](const SuperstepRecord& r) {
    if (listener_) listener_->superstep_closed(*this, r);
  };
}

void Tile::give_sram() {
  if (sram_) return;
  sram_ = std::make_unique<iss::Sram>(config_.core.sram_bytes);
  invalidate_direct_access();  // a refusal for want of SRAM is out of date
}

// `ipusim run`'s load is a host's: the program's image written into the tile's SRAM (its
// segments, .bss left zero), then the one boot path.
void Tile::load(std::shared_ptr<const iss::Program> program, TileEngine& engine, TileListener& listener) {
  give_sram();
  iss::load_image(*sram_, *program);  // boot() replaces a core the tile had
  boot(std::move(program), engine, listener);
}

void Tile::boot(std::shared_ptr<const iss::Program> program, TileEngine& engine, TileListener& listener) {
  if (!sram_) throw std::logic_error("Tile::boot without SRAM (give_sram)");
  if (core_) unboot_core();
  invalidate_direct_access();  // the new program's code is not writable
  iss::ConsoleSink* console = this;
  core_ = std::make_unique<iss::TileCore>(config_.core, std::move(program), *sram_, console);
  core_->set_bounds(bounds_);
  core_->set_trace(trace_);
  if (profile_) core_->set_profile(profile_);
  core_->set_amp_datapath(amp_datapath_.get());
  run_.state = TileState::Running;
  connect(engine, listener);
}

// Back to the state of a tile never loaded; the SRAM keeps its bytes.
void Tile::unboot_core() {
  invalidate_direct_access();
  core_.reset();
  run_ = RunState(superstep_sink());
}

void Tile::unboot() {
  unboot_core();
  invalidate_direct_access();
  if (sram_) sram_->clear();
}

void Tile::connect(TileEngine& engine, TileListener& listener) {
  engine_ = &engine;
  listener_ = &listener;
}

void Tile::start() {
  if (!core_ || !engine_) return;
  if (run_.state == TileState::Halted) return;  // restored halted: the platform reports it
  if (!run_.replay_arrival) run_.resume_cycle = 0;
  engine_->schedule(*this);
}

void Tile::set_trace(iss::TraceSink* sink) {
  trace_ = sink;
  if (core_) core_->set_trace(sink);
}

void Tile::set_profile(iss::ProfileSink* sink) {
  profile_ = sink;
  if (core_) core_->set_profile(sink);
}

void Tile::set_amp_datapath(std::unique_ptr<iss::AmpDatapath> datapath) {
  amp_datapath_ = std::move(datapath);
  if (core_) core_->set_amp_datapath(amp_datapath_.get());
}

void Tile::set_bounds(const iss::RunBounds* bounds) {
  bounds_ = bounds;
  if (core_) core_->set_bounds(bounds);
}

void Tile::resume_paused() {
  if (!run_.paused) return;
  run_.paused = false;
  engine_->schedule(*this);
}

uint64_t Tile::instructions() const { return core_ ? core_->instret() : 0; }

uint64_t Tile::cycles_at(uint64_t end_cycle) const {
  if (!core_) return 0;
  if (run_.computed && run_.stop_cycle <= end_cycle) return run_.stop_cycle;
  if (run_.resume_cycle <= end_cycle) return run_.resume_cycle;
  if (run_.prev_stop_cycle <= end_cycle) return run_.prev_stop_cycle;
  return 0;
}

TileState Tile::state_at(uint64_t end_cycle) const {
  if (core_ && run_.computed && run_.stop_cycle > end_cycle) return TileState::Running;
  return run_.state;
}

sc_core::sc_time Tile::delay_to(uint64_t cycle) const {
  const sc_core::sc_time at = clock_.time_of(cycle);
  const sc_core::sc_time now = sc_core::sc_time_stamp();
  return at > now ? at - now : sc_core::SC_ZERO_TIME;
}

// ---- the engine's side -----------------------------------------------------------------

void Tile::prefetch_for_finish() const {
  const char* p = reinterpret_cast<const char*>(&engine_);
  const char* end = reinterpret_cast<const char*>(&notice_trans_ + 1);
  for (; p < end; p += 64) __builtin_prefetch(p, 1);
}

void Tile::compute() {
  switch (run_.pending_release) {
    case Release::Sync: core_->release_sync(run_.resume_cycle); break;
    case Release::Exchange: core_->release_exchange(run_.resume_cycle); break;
    case Release::None: break;
  }
  run_.pending_release = Release::None;
  run_.stop = core_->run();
  run_.computed_stop_cycle = core_->cycle();
  run_.instret = core_->instret();
}

bool Tile::line(const iss::TileIdentity&, uint32_t thread, std::string_view text) {
  run_.console.push_back(ConsoleLine{thread, std::string(text)});
  run_.console_bytes += text.size() + kConsoleLineCost;
  return run_.console_bytes < console_buffer_bytes_;
}

void Tile::deliver_console(uint64_t batch) {
  if (listener_)
    for (const ConsoleLine& l : run_.console) listener_->console_line(*this, batch, l.thread, l.text);
  run_.console.clear();
  run_.console_bytes = 0;
}

void Tile::finish_compute(uint64_t batch) {
  deliver_console(batch);
  if (console_full()) return;  // the engine computes the rest of the stretch (tile_engine.h)
  if (run_.stop.reason == iss::StopReason::Paused) {
    // Not a stop of the stretch: its figures wait for the real one.
    run_.paused = true;
    if (listener_) listener_->tile_paused(*this);
    return;
  }
  run_.stop_cycle = run_.computed_stop_cycle;
  run_.computed = true;
  run_.last_stretch_cycles = run_.stop_cycle - run_.resume_cycle;
  switch (run_.stop.reason) {
    case iss::StopReason::Sync:
      if (run_.replay_arrival) {  // restored: recorded before the checkpoint, sent again
        run_.replay_arrival = false;
        run_.state = TileState::AtSync;
        send_arrival();
        return;
      }
      close_exchange_phase();
      arrive_at_sync(run_.stop.sync_zone);
      return;
    case iss::StopReason::Exchange:
      post_exchange();
      return;
    case iss::StopReason::Halted:
      halt();
      return;
    case iss::StopReason::Paused:
      return;  // handled above
    case iss::StopReason::Fault: {
      iss::Fault f;
      if (run_.stop.fault) {
        f = *run_.stop.fault;
      } else {
        f.code = ProblemCode::TileFault;
        f.ipu = identity().ipu;
        f.tile = identity().tile;
        f.kind = "fault";
        f.detail = "the core reported a fault without details";
      }
      stop_with_fault(std::move(f));
      return;
    }
  }
}

void Tile::resume(uint64_t cycle, Release release) {
  run_.pending_release = release;
  run_.prev_stop_cycle = run_.stop_cycle;
  run_.resume_cycle = cycle;
  run_.computed = false;
  run_.state = TileState::Running;
  engine_->schedule(*this);
}

// ---- sync ------------------------------------------------------------------------------

void Tile::arrive_at_sync(uint32_t zone) {
  run_.supersteps.on_sync_arrival(run_.stop_cycle, run_.instret, zone);
  run_.sync_msg = sync::SyncMessage{};
  run_.sync_msg.kind = sync::SyncMessage::Kind::Arrive;
  run_.sync_msg.tile = identity().tile;
  run_.sync_msg.zone = zone;
  run_.sync_msg.cycle = run_.stop_cycle;
  run_.state = TileState::AtSync;
  send_arrival();
}

void Tile::send_arrival() {
  const uint32_t zone = run_.sync_msg.zone;
  if (sync_socket.size() == 0) {
    fault_here("sync", fmt::format("zone {}: the tile has no sync controller", zone));
    return;
  }
  attach_message(sync_trans_, run_.sync_msg);
  tlm::tlm_phase phase = tlm::BEGIN_REQ;
  sc_core::sc_time delay = delay_to(run_.stop_cycle);
  if (sync_socket->nb_transport_fw(sync_trans_, phase, delay) != tlm::TLM_COMPLETED) return;
  // Answered at once: refused, or (a controller may) released immediately.
  if (!sync_trans_.is_response_ok()) {
    fault_here("sync", fmt::format("zone {}: the sync controller refused the sync: {}", zone,
                                   sync_trans_.get_response_string()));
    return;
  }
  phase = tlm::BEGIN_RESP;
  sync_bw(sync_trans_, phase, delay);
}

tlm::tlm_sync_enum Tile::sync_bw(tlm::tlm_generic_payload& trans, tlm::tlm_phase& phase,
                                 sc_core::sc_time&) {
  if (&trans != &sync_trans_ || phase != tlm::BEGIN_RESP || run_.state != TileState::AtSync)
    return tlm::TLM_COMPLETED;  // not ours to act on (END_RESP etc.)
  const uint64_t release = run_.sync_msg.release_cycle;
  if (!trans.is_response_ok() || release < run_.sync_msg.cycle) {
    fault_here("sync", fmt::format("zone {}: bad release from the sync controller ({}, cycle {} "
                                   "for an arrival at {})",
                                   run_.sync_msg.zone, trans.get_response_string(), release,
                                   run_.sync_msg.cycle));
    return tlm::TLM_COMPLETED;
  }
  run_.supersteps.on_sync_release(release);
  ++run_.syncs;
  run_.sync_stall_cycles += release - run_.sync_msg.cycle;
  run_.exchange_phase_open = true;
  resume(release, Release::Sync);
  return tlm::TLM_COMPLETED;
}

// ---- exchange --------------------------------------------------------------------------

void Tile::close_exchange_phase() {
  if (!run_.exchange_phase_open) return;
  run_.exchange_phase_open = false;
  if (exchange_socket.size() == 0) return;
  run_.close_msg = exchange::ExchangeMessage{};
  run_.close_msg.kind = exchange::ExchangeMessage::Kind::Close;
  run_.close_msg.tile = identity().tile;
  run_.close_msg.cycle = run_.stop_cycle;
  run_.close_msg.zone = run_.sync_msg.zone;  // the sync that opened the phase
  attach_message(notice_trans_, run_.close_msg);
  tlm::tlm_phase phase = tlm::BEGIN_REQ;
  sc_core::sc_time delay = delay_to(run_.stop_cycle);
  exchange_socket->nb_transport_fw(notice_trans_, phase, delay);
}

void Tile::post_exchange() {
  const iss::PostingLog& posts = core_->exchange_log();
  if (!run_.exchange_phase_open) {
    // An `xwait` with nothing posted outside an exchange phase waits for nothing.
    if (posts.empty()) {
      resume(run_.stop_cycle, Release::Exchange);
    } else {
      fault_here("exchange", "messages posted outside an exchange phase");
    }
    return;
  }
  run_.exchange_phase_open = false;
  run_.supersteps.on_exchange_start(run_.stop_cycle, run_.instret);
  run_.state = TileState::AtExchange;
  if (exchange_socket.size() == 0) {
    fault_here("exchange", "the tile has no exchange fabric");
    return;
  }
  run_.exchange_msg = exchange::ExchangeMessage{};
  run_.exchange_msg.kind = exchange::ExchangeMessage::Kind::Post;
  run_.exchange_msg.tile = identity().tile;
  run_.exchange_msg.cycle = run_.stop_cycle;
  run_.exchange_msg.log = &posts;
  run_.exchange_msg.zone = run_.sync_msg.zone;  // the sync that opened the phase
  attach_message(exchange_trans_, run_.exchange_msg);
  tlm::tlm_phase phase = tlm::BEGIN_REQ;
  sc_core::sc_time delay = delay_to(run_.stop_cycle);
  if (exchange_socket->nb_transport_fw(exchange_trans_, phase, delay) != tlm::TLM_COMPLETED)
    return;
  phase = tlm::BEGIN_RESP;
  exchange_bw(exchange_trans_, phase, delay);
}

tlm::tlm_sync_enum Tile::exchange_bw(tlm::tlm_generic_payload& trans, tlm::tlm_phase& phase,
                                     sc_core::sc_time&) {
  if (&trans != &exchange_trans_ || phase != tlm::BEGIN_RESP || run_.state != TileState::AtExchange)
    return tlm::TLM_COMPLETED;
  if (!trans.is_response_ok()) {
    run_.exchange_failure_cycle = std::max(run_.exchange_msg.done_cycle, run_.exchange_msg.cycle);
    if (run_.exchange_msg.problems && !run_.exchange_msg.problems->empty()) {
      run_.exchange_errors = *run_.exchange_msg.problems;
    } else {
      Problem p;
      p.code = ProblemCode::Exchange;
      p.kind = "refused";
      p.ipu = identity().ipu;
      p.tile = identity().tile;
      p.detail = fmt::format("tile {} (ipu {}): the exchange fabric refused the postings: {}", identity().tile,
                             identity().ipu, trans.get_response_string());
      p.cycle = run_.exchange_failure_cycle;
      run_.exchange_errors = {std::move(p)};
    }
    for (Problem& p : run_.exchange_errors)  // the fabric knows the phase's cycle, the tile its superstep
      if (!p.superstep) p.superstep = run_.syncs;
    run_.state = TileState::ExchangeFailed;
    if (listener_) listener_->tile_stopped(*this);
    return tlm::TLM_COMPLETED;
  }
  const uint64_t done = std::max(run_.exchange_msg.done_cycle, run_.exchange_msg.cycle);
  run_.supersteps.on_exchange_done(done, run_.exchange_msg.bytes_out, run_.exchange_msg.bytes_in);
  ++run_.exchanges;
  run_.exchange_bytes_out += run_.exchange_msg.bytes_out;
  run_.exchange_bytes_in += run_.exchange_msg.bytes_in;
  run_.exchange_stall_cycles += done - run_.exchange_msg.cycle;
  resume(done, Release::Exchange);
  return tlm::TLM_COMPLETED;
}

// ---- halt and faults -------------------------------------------------------------------

void Tile::halt() {
  close_exchange_phase();
  run_.supersteps.on_halt(run_.stop_cycle, run_.instret);
  run_.exit_code = run_.stop.exit_code;
  run_.state = TileState::Halted;
  if (sync_socket.size() != 0) {
    run_.leave_msg = sync::SyncMessage{};
    run_.leave_msg.kind = sync::SyncMessage::Kind::Leave;
    run_.leave_msg.tile = identity().tile;
    run_.leave_msg.cycle = run_.stop_cycle;
    attach_message(notice_trans_, run_.leave_msg);
    tlm::tlm_phase phase = tlm::BEGIN_REQ;
    sc_core::sc_time delay = delay_to(run_.stop_cycle);
    sync_socket->nb_transport_fw(notice_trans_, phase, delay);
  }
  if (listener_) listener_->tile_stopped(*this);
}

void Tile::fault_here(std::string kind, std::string detail) {
  iss::Fault f;
  f.code = ProblemCode::TileFault;
  f.ipu = identity().ipu;
  f.tile = identity().tile;
  f.kind = std::move(kind);
  f.detail = std::move(detail);
  f.thread = 0;
  f.pc = core_->registers(0).pc;
  f.disasm = f.kind;
  stop_with_fault(std::move(f));
}

void Tile::stop_with_fault(iss::Fault fault) {
  // The fault names its tile and thread (the ISS's, or fault_here's); here are the tile
  // cycle and the superstep.
  fault.cycle = run_.stop_cycle;
  fault.superstep = run_.syncs;
  run_.fault = std::make_shared<const iss::Fault>(std::move(fault));
  run_.state = TileState::Faulted;
  if (listener_) listener_->tile_stopped(*this);
}

void Tile::end_accounting() {
  if (!core_) return;
  run_.supersteps.on_run_end(run_.computed ? run_.stop_cycle : run_.resume_cycle, core_->instret());
}

// ---- mem_socket ------------------------------------------------------------------------

void Tile::b_transport(int, tlm::tlm_generic_payload& trans, sc_core::sc_time&) {
  trans.set_response_status(access(trans));
}

unsigned int Tile::transport_dbg(int, tlm::tlm_generic_payload& trans) {
  const tlm::tlm_response_status status = access(trans);
  trans.set_response_status(status);
  if (status != tlm::TLM_OK_RESPONSE || trans.is_write() == trans.is_read()) return 0;
  return trans.get_data_length();
}

tlm::tlm_response_status Tile::access(tlm::tlm_generic_payload& trans) {
  if (trans.get_byte_enable_ptr() != nullptr) return tlm::TLM_BYTE_ENABLE_ERROR_RESPONSE;
  const unsigned int length = trans.get_data_length();
  if (trans.get_streaming_width() < length) return tlm::TLM_BURST_ERROR_RESPONSE;
  if (trans.is_read() == trans.is_write()) return tlm::TLM_OK_RESPONSE;  // TLM_IGNORE_COMMAND
  const uint64_t address = trans.get_address();
  if (!sram_ || address > UINT32_MAX || address + length > (uint64_t(1) << 32))
    return tlm::TLM_ADDRESS_ERROR_RESPONSE;
  const auto addr = uint32_t(address);
  if (!core_) {  // not booted: plain SRAM
    if (addr < iss::kSramBase || addr - iss::kSramBase + uint64_t{length} > sram_->size())
      return tlm::TLM_ADDRESS_ERROR_RESPONSE;
    uint8_t* at = sram_->data() + (addr - iss::kSramBase);
    if (trans.is_read())
      std::memcpy(trans.get_data_ptr(), at, length);
    else
      std::memcpy(at, trans.get_data_ptr(), length);
    return tlm::TLM_OK_RESPONSE;
  }
  bool ok;
  if (trans.is_read())
    ok = core_->read(addr, std::span<uint8_t>(trans.get_data_ptr(), length));
  else
    ok = core_->write(addr, std::span<const uint8_t>(trans.get_data_ptr(), length));
  return ok ? tlm::TLM_OK_RESPONSE : tlm::TLM_ADDRESS_ERROR_RESPONSE;
}

}  // namespace ipusim::tile

namespace ipusim::tile {

// The grants follow access(): reads anywhere in SRAM; writes anywhere but code.
bool Tile::get_direct_mem_ptr(int, tlm::tlm_generic_payload& trans, tlm::tlm_dmi& dmi) {
  dmi_answered_ = true;  // a refusal too: the initiator may keep it until told otherwise
  const uint64_t address = trans.get_address();
  if (!sram_ || address < iss::kSramBase || address - iss::kSramBase >= sram_->size()) return false;
  uint64_t lo = iss::kSramBase, end = iss::kSramBase + uint64_t{sram_->size()};  // [lo, end)
  if (trans.is_read()) {
    dmi.allow_read();
  } else {
    if (core_)
      for (const iss::Segment& s : core_->program().segments()) {
        if (!s.executable || s.mem_size == 0) continue;
        const uint64_t code_end = uint64_t{s.vaddr} + s.mem_size;
        if (code_end <= address) {
          lo = std::max(lo, code_end);
        } else if (s.vaddr > address) {
          end = std::min(end, uint64_t{s.vaddr});
        } else {
          return false;  // a write into code
        }
      }
    dmi.allow_read_write();
  }
  dmi.set_start_address(lo);
  dmi.set_end_address(end - 1);
  dmi.set_dmi_ptr(sram_->data() + (lo - iss::kSramBase));
  dmi.set_read_latency(sc_core::SC_ZERO_TIME);
  dmi.set_write_latency(sc_core::SC_ZERO_TIME);
  return true;
}

void Tile::invalidate_direct_access() {
  if (!dmi_answered_) return;  // also: before the end of elaboration the socket has no initiators yet
  dmi_answered_ = false;
  for (unsigned int i = 0; i < mem_socket.size(); ++i)
    mem_socket[int(i)]->invalidate_direct_mem_ptr(0, ~sc_dt::uint64{0});
}

}  // namespace ipusim::tile
