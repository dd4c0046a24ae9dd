#include "tile/tile.h"

#include <span>
#include <utility>

namespace ipusim::tile {

const char* to_string(TileState state) {
  switch (state) {
    case TileState::Idle: return "idle";
    case TileState::Running: return "running";
    case TileState::AtSync: return "at sync";
    case TileState::Halted: return "halted";
    case TileState::Faulted: return "faulted";
  }
  return "?";
}

Tile::Tile(sc_core::sc_module_name name, const TileModuleConfig& config)
    : sc_module(name),
      host_socket("host_socket"),
      config_(config),
      clock_(config.clock_hz) {
  host_socket.register_b_transport(this, &Tile::b_transport);
  host_socket.register_transport_dbg(this, &Tile::transport_dbg);
  SC_HAS_PROCESS(Tile);
  SC_THREAD(run_thread);
}

Tile::~Tile() = default;

void Tile::load(std::shared_ptr<const iss::Program> program) {
  iss::ConsoleSink* console = this;
  core_ = std::make_unique<iss::TileCore>(config_.core, std::move(program), console);
  state_ = TileState::Running;
}

void Tile::connect(SyncPort* sync, TileListener* listener) {
  sync_ = sync;
  listener_ = listener;
}

void Tile::set_trace(iss::TraceSink* sink) {
  if (core_) core_->set_trace(sink);
}

uint64_t Tile::instructions() const { return core_ ? core_->instret() : 0; }

std::string Tile::fault_message() const {
  return fault_ ? fault_->message(identity()) : std::string();
}

void Tile::advance_to(uint64_t cycle) {
  const sc_core::sc_time target = clock_.time_of(cycle);
  const sc_core::sc_time now = sc_core::sc_time_stamp();
  if (target > now) wait(target - now);
  cycles_ = cycle;
}

void Tile::run_thread() {
  // The thread never returns: SystemC 2.3 removes a terminated thread from a linked
  // list, which made ending 20k tiles quadratic. A stopped tile parks on an event that
  // is never notified.
  if (core_) run_core();
  sc_core::wait(parked_);
}

void Tile::run_core() {
  for (;;) {
    stretch_start_ = sc_core::sc_time_stamp();
    const iss::StopInfo stop = core_->run();
    const uint64_t stop_cycle = core_->cycle();
    advance_to(stop_cycle);
    switch (stop.reason) {
      case iss::StopReason::Sync: {
        if (!sync_ || !sync_->supports(stop.sync_zone)) {
          iss::Fault f;
          f.kind = "sync";
          f.detail = "no sync zone " + std::to_string(stop.sync_zone) + " in this platform";
          stop_with_fault(std::move(f));
          return;
        }
        state_ = TileState::AtSync;
        sync_zone_ = stop.sync_zone;
        sync_arrival_cycle_ = stop_cycle;
        const uint64_t release = sync_->sync(*this, stop.sync_zone, stop_cycle);
        state_ = TileState::Running;
        ++syncs_;
        sync_stall_cycles_ += release - stop_cycle;
        core_->release_sync(release);
        advance_to(release);
        break;
      }
      case iss::StopReason::Halted:
        exit_code_ = stop.exit_code;
        state_ = TileState::Halted;
        if (listener_) listener_->tile_stopped(*this);
        return;
      case iss::StopReason::Fault: {
        iss::Fault f;
        if (stop.fault) {
          f = *stop.fault;
        } else {
          f.kind = "fault";
          f.detail = "the core reported a fault without details";
        }
        stop_with_fault(std::move(f));
        return;
      }
    }
  }
}

void Tile::stop_with_fault(iss::Fault fault) {
  fault_ = std::move(fault);
  state_ = TileState::Faulted;
  if (listener_) listener_->tile_stopped(*this);
}

void Tile::line(const iss::TileIdentity&, uint32_t thread, std::string_view text) {
  if (listener_) listener_->console_line(*this, stretch_start_, thread, text);
}

void Tile::b_transport(tlm::tlm_generic_payload& trans, sc_core::sc_time&) {
  trans.set_response_status(access(trans));
}

unsigned int Tile::transport_dbg(tlm::tlm_generic_payload& trans) {
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
  if (!core_ || address > UINT32_MAX || address + length > (uint64_t(1) << 32))
    return tlm::TLM_ADDRESS_ERROR_RESPONSE;
  const auto addr = uint32_t(address);
  bool ok;
  if (trans.is_read())
    ok = core_->read(addr, std::span<uint8_t>(trans.get_data_ptr(), length));
  else
    ok = core_->write(addr, std::span<const uint8_t>(trans.get_data_ptr(), length));
  return ok ? tlm::TLM_OK_RESPONSE : tlm::TLM_ADDRESS_ERROR_RESPONSE;
}

}  // namespace ipusim::tile
