// The exchange fabric's side of streaming-memory and host-stream copies (docs/xipu.md
// funct3 = 3 / 4, docs/streaming.md "An exchange phase"): collect the phase's copies in
// (tile, posting) order, have the board's gateway check them before anything moves, and
// after the messages: read the tile buffers of the writes, let the gateway run every copy,
// write the reads' bytes into their tiles, and fold each copy's completion into its tile's
// done cycle.
#include <algorithm>

#include <fmt/format.h>
#include <ipu/hostif_regs.h>

#include "exchange/exchange_fabric.h"
#include "common/payload.h"

namespace ipusim::exchange {
namespace {

using streaming::GatewayCopy;
using streaming::into_tile;

GatewayCopy::Op op_of(iss::ExchangePost::Kind kind) {
  switch (kind) {
    case iss::ExchangePost::Kind::SmemRead: return GatewayCopy::Op::SmemRead;
    case iss::ExchangePost::Kind::SmemWrite: return GatewayCopy::Op::SmemWrite;
    case iss::ExchangePost::Kind::StreamRead: return GatewayCopy::Op::StreamRead;
    default: return GatewayCopy::Op::StreamWrite;
  }
}

}  // namespace

void ExchangeFabric::collect_copies(const std::vector<Entry>& entries) {
  copies_of_phase_.clear();
  for (const Entry& e : entries) {
    if (!e.msg) continue;
    const iss::PostingsRef posts = postings_of(*e.msg);
    if (posts.log && posts.log->size() == posts.log->sends() + posts.log->recvs()) continue;  // messages only
    const sc_core::sc_time ready = clock_.time_of(e.cycle);
    for (size_t i = 0; i < posts.size(); ++i) {
      if (posts.view(i).is_message()) continue;
      const iss::ExchangePost p = posts.at(i);
      GatewayCopy c;
      c.op = op_of(p.kind);
      c.ipu = config_.ipu;
      c.tile = e.tile;
      c.pc = p.pc;
      c.tile_addr = p.addr;
      c.len = p.len;
      c.stream = p.stream;
      c.smem_addr = p.smem_addr;
      c.ready = ready;
      copies_of_phase_.push_back(c);
    }
  }
}

bool ExchangeFabric::gateway_call(streaming::GatewayRequest::Kind kind) {
  const size_t errors_before = errors_.size();
  streaming::GatewayRequest req;
  req.kind = kind;
  req.copies = &copies_of_phase_;
  req.errors = &errors_;  // the gateway appends
  tlm::tlm_generic_payload trans;
  attach_message(trans, req);
  sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
  gateway_socket[0]->b_transport(trans, delay);
  const bool added = errors_.size() != errors_before;
  if (trans.is_response_ok() && !added) return true;
  if (!added) {
    const GatewayCopy& c = copies_of_phase_.front();
    Problem e = fabric_problem("gateway refused", c.tile,
                               fmt::format("exchange fabric of ipu {}: the gateway refused the copies: {}", config_.ipu,
                                           trans.get_response_string()));
    e.pc = c.pc;
    errors_.push_back(std::move(e));
  }
  return false;
}

void ExchangeFabric::check_copies() {
  if (gateway_socket.size() == 0) {
    for (const GatewayCopy& c : copies_of_phase_)
      errors_.push_back(streaming::copy_problem(
          c, streaming::is_smem(c.op) ? ProblemCode::SmemRange : ProblemCode::Stream, "no gateway",
          fmt::format("no streaming memory or host streams (no gateway connected to ipu {})", c.ipu)));
  } else {
    gateway_call(streaming::GatewayRequest::Kind::Check);
  }
}

Problem ExchangeFabric::fabric_problem(std::string kind, uint32_t tile, std::string detail) const {
  Problem e;
  e.code = ProblemCode::Exchange;
  e.kind = std::move(kind);
  e.ipu = config_.ipu;
  e.tile = tile;
  e.detail = std::move(detail);
  return e;
}

bool ExchangeFabric::tile_access(tlm::tlm_generic_payload& trans, tlm::tlm_command cmd, uint32_t tile, uint32_t addr,
                                 uint8_t* data, uint32_t len) {
  trans.set_command(cmd);
  trans.set_address(addr);
  trans.set_data_ptr(data);
  trans.set_data_length(len);
  trans.set_streaming_width(len);
  trans.set_byte_enable_ptr(nullptr);
  trans.set_dmi_allowed(false);
  trans.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
  sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
  memory_socket[int(tile)]->b_transport(trans, delay);
  return trans.is_response_ok();
}

// Cycles count from the clock's epoch (device mode: the board's last RUN from READY), the
// gateway's times are absolute.
uint64_t ExchangeFabric::cycle_at(const sc_core::sc_time& t) const {
  const sc_core::sc_time zero = clock_.time_of(0);
  if (t <= zero) return 0;
  const double resolution = sc_core::sc_get_time_resolution().to_seconds();
  const auto units_per_second = static_cast<unsigned __int128>(std::llround(1.0 / resolution));
  const unsigned __int128 scaled = static_cast<unsigned __int128>((t - zero).value()) * clock_.hz();
  return uint64_t((scaled + units_per_second - 1) / units_per_second);
}

void ExchangeFabric::run_copies(std::vector<TileOutcome>& outcomes, const std::vector<Entry>& entries) {
  // Writes read their tile buffers as the messages left them; reads land after every copy.
  tlm::tlm_generic_payload trans;  // one per phase: a payload allocates its extension array
  copy_data_.resize(copies_of_phase_.size());
  for (size_t i = 0; i < copies_of_phase_.size(); ++i) {
    GatewayCopy& c = copies_of_phase_[i];
    copy_data_[i].resize(c.len);
    c.data = copy_data_[i].data();
    if (!into_tile(c.op) && c.len > 0 && !tile_access(trans, tlm::TLM_READ_COMMAND, c.tile, c.tile_addr, c.data, c.len)) {
      errors_.push_back(fabric_problem("tile access failed", c.tile,
                                       fmt::format("exchange fabric: reading {} bytes at 0x{:08x} of tile {} (ipu {}) for {} failed",
                                                   c.len, c.tile_addr, c.tile, c.ipu, streaming::describe(c))));
      return;
    }
  }
  const uint64_t generation = generation_;
  const bool ran = gateway_call(streaming::GatewayRequest::Kind::Run);
  if (generation != generation_) return;  // reset while a stream copy waited: drop the phase
  if (!ran) return;  // the gateway's problems are in errors_
  // entries are in tile order, like the copies.
  size_t entry = 0;
  for (size_t i = 0; i < copies_of_phase_.size(); ++i) {
    GatewayCopy& c = copies_of_phase_[i];
    if (into_tile(c.op) && c.len > 0 && !tile_access(trans, tlm::TLM_WRITE_COMMAND, c.tile, c.tile_addr, c.data, c.len)) {
      errors_.push_back(fabric_problem("tile access failed", c.tile,
                                       fmt::format("exchange fabric: writing {} bytes at 0x{:08x} of tile {} (ipu {}) for {} failed",
                                                   c.len, c.tile_addr, c.tile, c.ipu, streaming::describe(c))));
      return;
    }
    while (entries[entry].tile != c.tile) ++entry;
    outcomes[entry].done_cycle = std::max(outcomes[entry].done_cycle, cycle_at(c.done));
    ++copies_;
    copy_bytes_ += c.len;
  }
  copy_data_.clear();  // a phase's buffers do not outlive it
}

uint64_t ExchangeFabric::set_failure_cycle(const std::vector<Entry>& entries) {
  uint64_t cycle = 0;
  for (const Entry& e : entries) cycle = std::max(cycle, e.cycle);
  for (Problem& p : errors_) p.cycle = cycle;
  return cycle;
}

}  // namespace ipusim::exchange
