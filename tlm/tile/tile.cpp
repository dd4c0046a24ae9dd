#include "tile/tile.h"

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
      supersteps_(superstep_sink()) {
  mem_socket.register_b_transport(this, &Tile::b_transport);
  mem_socket.register_transport_dbg(this, &Tile::transport_dbg);
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
  if (!sram_) sram_ = std::make_unique<iss::Sram>(config_.core.sram_bytes);
}

void Tile::boot(std::shared_ptr<const iss::Program> program, TileEngine& engine, TileListener& listener) {
  if (!sram_) throw std::logic_error("Tile::boot without device SRAM (give_sram)");
  if (core_) unboot_core();
  iss::ConsoleSink* console = this;
  core_ = std::make_unique<iss::TileCore>(config_.core, std::move(program), *sram_, console);
  state_ = TileState::Running;
  connect(engine, listener);
}

// Back to the state of a tile never loaded; the SRAM keeps its bytes.
void Tile::unboot_core() {
  core_.reset();
  supersteps_ = SuperstepTracker(superstep_sink());
  state_ = TileState::Idle;
  stop_ = iss::StopInfo{};
  pending_release_ = Release::None;
  computed_stop_cycle_ = instret_ = 0;
  console_.clear();
  resume_cycle_ = stop_cycle_ = prev_stop_cycle_ = last_stretch_cycles_ = 0;
  computed_ = exchange_phase_open_ = false;
  sync_msg_ = leave_msg_ = sync::SyncMessage{};
  exchange_msg_ = close_msg_ = exchange::ExchangeMessage{};
  syncs_ = exchanges_ = 0;
  sync_stall_cycles_ = exchange_stall_cycles_ = exchange_bytes_out_ = exchange_bytes_in_ = 0;
  exit_code_ = 0;
  fault_.reset();
  exchange_errors_.clear();
  exchange_failure_cycle_ = 0;
}

void Tile::unboot() {
  unboot_core();
  if (sram_) sram_->clear();
}

void Tile::load(std::shared_ptr<const iss::Program> program) {
  iss::ConsoleSink* console = this;
  core_ = std::make_unique<iss::TileCore>(config_.core, std::move(program), console);
  state_ = TileState::Running;
}

void Tile::connect(TileEngine& engine, TileListener& listener) {
  engine_ = &engine;
  listener_ = &listener;
}

void Tile::start() {
  if (!core_ || !engine_) return;
  resume_cycle_ = 0;
  engine_->schedule(*this);
}

void Tile::set_trace(iss::TraceSink* sink) {
  if (core_) core_->set_trace(sink);
}

uint64_t Tile::instructions() const { return core_ ? core_->instret() : 0; }

uint64_t Tile::cycles_at(uint64_t end_cycle) const {
  if (!core_) return 0;
  if (computed_ && stop_cycle_ <= end_cycle) return stop_cycle_;
  if (resume_cycle_ <= end_cycle) return resume_cycle_;
  if (prev_stop_cycle_ <= end_cycle) return prev_stop_cycle_;
  return 0;
}

TileState Tile::state_at(uint64_t end_cycle) const {
  if (core_ && computed_ && stop_cycle_ > end_cycle) return TileState::Running;
  return state_;
}

sc_core::sc_time Tile::delay_to(uint64_t cycle) const {
  const sc_core::sc_time at = clock_.time_of(cycle);
  const sc_core::sc_time now = sc_core::sc_time_stamp();
  return at > now ? at - now : sc_core::SC_ZERO_TIME;
}

// ---- the engine's side -----------------------------------------------------------------

void Tile::prefetch_for_finish() const {
  const char* p = reinterpret_cast<const char*>(&engine_);
  const char* end = reinterpret_cast<const char*>(&fault_);
  for (; p < end; p += 64) __builtin_prefetch(p, 1);
}

void Tile::compute() {
  switch (pending_release_) {
    case Release::Sync: core_->release_sync(resume_cycle_); break;
    case Release::Exchange: core_->release_exchange(resume_cycle_); break;
    case Release::None: break;
  }
  pending_release_ = Release::None;
  stop_ = core_->run();
  computed_stop_cycle_ = core_->cycle();
  instret_ = core_->instret();
}

void Tile::line(const iss::TileIdentity&, uint32_t thread, std::string_view text) {
  console_.push_back(ConsoleLine{thread, std::string(text)});
}

void Tile::finish_compute(uint64_t batch) {
  if (listener_)
    for (const ConsoleLine& l : console_) listener_->console_line(*this, batch, l.thread, l.text);
  console_.clear();
  stop_cycle_ = computed_stop_cycle_;
  computed_ = true;
  last_stretch_cycles_ = stop_cycle_ - resume_cycle_;
  switch (stop_.reason) {
    case iss::StopReason::Sync:
      close_exchange_phase();
      arrive_at_sync(stop_.sync_zone);
      return;
    case iss::StopReason::Exchange:
      post_exchange();
      return;
    case iss::StopReason::Halted:
      halt();
      return;
    case iss::StopReason::Fault: {
      iss::Fault f;
      if (stop_.fault) {
        f = *stop_.fault;
      } else {
        f.code = ProblemCode::TileFault;
        f.kind = "fault";
        f.detail = "the core reported a fault without details";
      }
      stop_with_fault(std::move(f));
      return;
    }
  }
}

void Tile::resume(uint64_t cycle, Release release) {
  pending_release_ = release;
  prev_stop_cycle_ = stop_cycle_;
  resume_cycle_ = cycle;
  computed_ = false;
  state_ = TileState::Running;
  engine_->schedule(*this);
}

// ---- sync ------------------------------------------------------------------------------

void Tile::arrive_at_sync(uint32_t zone) {
  supersteps_.on_sync_arrival(stop_cycle_, instret_, zone);
  sync_msg_ = sync::SyncMessage{};
  sync_msg_.kind = sync::SyncMessage::Kind::Arrive;
  sync_msg_.tile = identity().tile;
  sync_msg_.zone = zone;
  sync_msg_.cycle = stop_cycle_;
  state_ = TileState::AtSync;
  if (sync_socket.size() == 0) {
    fault_here("sync", fmt::format("zone {}: the tile has no sync controller", zone));
    return;
  }
  attach_message(sync_trans_, sync_msg_);
  tlm::tlm_phase phase = tlm::BEGIN_REQ;
  sc_core::sc_time delay = delay_to(stop_cycle_);
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
  if (&trans != &sync_trans_ || phase != tlm::BEGIN_RESP || state_ != TileState::AtSync)
    return tlm::TLM_COMPLETED;  // not ours to act on (END_RESP etc.)
  const uint64_t release = sync_msg_.release_cycle;
  if (!trans.is_response_ok() || release < sync_msg_.cycle) {
    fault_here("sync", fmt::format("zone {}: bad release from the sync controller ({}, cycle {} "
                                   "for an arrival at {})",
                                   sync_msg_.zone, trans.get_response_string(), release,
                                   sync_msg_.cycle));
    return tlm::TLM_COMPLETED;
  }
  supersteps_.on_sync_release(release);
  ++syncs_;
  sync_stall_cycles_ += release - sync_msg_.cycle;
  exchange_phase_open_ = true;
  resume(release, Release::Sync);
  return tlm::TLM_COMPLETED;
}

// ---- exchange --------------------------------------------------------------------------

void Tile::close_exchange_phase() {
  if (!exchange_phase_open_) return;
  exchange_phase_open_ = false;
  if (exchange_socket.size() == 0) return;
  close_msg_ = exchange::ExchangeMessage{};
  close_msg_.kind = exchange::ExchangeMessage::Kind::Close;
  close_msg_.tile = identity().tile;
  close_msg_.cycle = stop_cycle_;
  attach_message(notice_trans_, close_msg_);
  tlm::tlm_phase phase = tlm::BEGIN_REQ;
  sc_core::sc_time delay = delay_to(stop_cycle_);
  exchange_socket->nb_transport_fw(notice_trans_, phase, delay);
}

void Tile::post_exchange() {
  const std::vector<iss::ExchangePost>& posts = core_->exchange_posts();
  if (!exchange_phase_open_) {
    // An `xwait` with nothing posted outside an exchange phase waits for nothing.
    if (posts.empty()) {
      resume(stop_cycle_, Release::Exchange);
    } else {
      fault_here("exchange", "messages posted outside an exchange phase");
    }
    return;
  }
  exchange_phase_open_ = false;
  supersteps_.on_exchange_start(stop_cycle_, instret_);
  state_ = TileState::AtExchange;
  if (exchange_socket.size() == 0) {
    fault_here("exchange", "the tile has no exchange fabric");
    return;
  }
  exchange_msg_ = exchange::ExchangeMessage{};
  exchange_msg_.kind = exchange::ExchangeMessage::Kind::Post;
  exchange_msg_.tile = identity().tile;
  exchange_msg_.cycle = stop_cycle_;
  exchange_msg_.posts = &posts;
  attach_message(exchange_trans_, exchange_msg_);
  tlm::tlm_phase phase = tlm::BEGIN_REQ;
  sc_core::sc_time delay = delay_to(stop_cycle_);
  if (exchange_socket->nb_transport_fw(exchange_trans_, phase, delay) != tlm::TLM_COMPLETED)
    return;
  phase = tlm::BEGIN_RESP;
  exchange_bw(exchange_trans_, phase, delay);
}

tlm::tlm_sync_enum Tile::exchange_bw(tlm::tlm_generic_payload& trans, tlm::tlm_phase& phase,
                                     sc_core::sc_time&) {
  if (&trans != &exchange_trans_ || phase != tlm::BEGIN_RESP || state_ != TileState::AtExchange)
    return tlm::TLM_COMPLETED;
  if (!trans.is_response_ok()) {
    exchange_failure_cycle_ = std::max(exchange_msg_.done_cycle, exchange_msg_.cycle);
    if (exchange_msg_.problems && !exchange_msg_.problems->empty()) {
      exchange_errors_ = *exchange_msg_.problems;
    } else {
      Problem p;
      p.code = ProblemCode::Exchange;
      p.kind = "refused";
      p.ipu = identity().ipu;
      p.tile = identity().tile;
      p.detail = fmt::format("tile {} (ipu {}): the exchange fabric refused the postings: {}", identity().tile,
                             identity().ipu, trans.get_response_string());
      exchange_errors_ = {std::move(p)};
    }
    for (Problem& p : exchange_errors_) {  // the fabric knows the phase, the tile its superstep
      if (!p.cycle) p.cycle = exchange_failure_cycle_;
      if (!p.superstep) p.superstep = syncs_;
    }
    state_ = TileState::ExchangeFailed;
    if (listener_) listener_->tile_stopped(*this);
    return tlm::TLM_COMPLETED;
  }
  const uint64_t done = std::max(exchange_msg_.done_cycle, exchange_msg_.cycle);
  supersteps_.on_exchange_done(done, exchange_msg_.bytes_out, exchange_msg_.bytes_in);
  ++exchanges_;
  exchange_bytes_out_ += exchange_msg_.bytes_out;
  exchange_bytes_in_ += exchange_msg_.bytes_in;
  exchange_stall_cycles_ += done - exchange_msg_.cycle;
  resume(done, Release::Exchange);
  return tlm::TLM_COMPLETED;
}

// ---- halt and faults -------------------------------------------------------------------

void Tile::halt() {
  close_exchange_phase();
  supersteps_.on_halt(stop_cycle_, instret_);
  exit_code_ = stop_.exit_code;
  state_ = TileState::Halted;
  if (sync_socket.size() != 0) {
    leave_msg_ = sync::SyncMessage{};
    leave_msg_.kind = sync::SyncMessage::Kind::Leave;
    leave_msg_.tile = identity().tile;
    leave_msg_.cycle = stop_cycle_;
    attach_message(notice_trans_, leave_msg_);
    tlm::tlm_phase phase = tlm::BEGIN_REQ;
    sc_core::sc_time delay = delay_to(stop_cycle_);
    sync_socket->nb_transport_fw(notice_trans_, phase, delay);
  }
  if (listener_) listener_->tile_stopped(*this);
}

void Tile::fault_here(std::string kind, std::string detail) {
  iss::Fault f;
  f.code = ProblemCode::TileFault;
  f.kind = std::move(kind);
  f.detail = std::move(detail);
  f.thread = 0;
  f.pc = core_->registers(0).pc;
  f.disasm = f.kind;
  stop_with_fault(std::move(f));
}

void Tile::stop_with_fault(iss::Fault fault) {
  // The ISS knows the tile and the thread; here are the tile cycle and the superstep.
  fault.ipu = identity().ipu;
  fault.tile = identity().tile;
  fault.cycle = stop_cycle_;
  fault.superstep = syncs_;
  fault_ = std::move(fault);
  state_ = TileState::Faulted;
  if (listener_) listener_->tile_stopped(*this);
}

void Tile::end_accounting() {
  if (!core_) return;
  supersteps_.on_run_end(computed_ ? stop_cycle_ : resume_cycle_, core_->instret());
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
  if ((!core_ && !sram_) || address > UINT32_MAX || address + length > (uint64_t(1) << 32))
    return tlm::TLM_ADDRESS_ERROR_RESPONSE;
  const auto addr = uint32_t(address);
  if (!core_) {  // device mode, not booted: plain SRAM
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
