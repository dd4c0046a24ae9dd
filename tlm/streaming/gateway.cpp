#include "streaming/gateway.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <queue>
#include <stdexcept>

#include <fmt/format.h>

#include "common/payload.h"

namespace ipusim::streaming {
namespace {

const char* mnemonic(GatewayCopy::Op op) {
  switch (op) {
    case GatewayCopy::Op::SmemRead: return "smread";
    case GatewayCopy::Op::SmemWrite: return "smwrite";
    case GatewayCopy::Op::StreamRead: return "hsread";
    default: return "hswrite";
  }
}

// The record of a bad copy without its detail: the posting, the copy's address.
Problem located(const GatewayCopy& c, ProblemCode code, std::string kind) {
  Problem e;
  e.code = code;
  e.kind = std::move(kind);
  e.ipu = c.ipu;
  e.tile = c.tile;
  e.thread = 0;  // the supervisor posts copies
  e.pc = c.pc;
  e.address = is_smem(c.op) ? c.smem_addr : c.stream;
  return e;
}

}  // namespace

Problem copy_problem(const GatewayCopy& c, ProblemCode code, std::string kind, const std::string& why) {
  Problem e = located(c, code, std::move(kind));
  e.detail = fmt::format("{}: {}", describe(c), why);
  return e;
}

std::string describe(const GatewayCopy& c) {
  const std::string far = is_smem(c.op) ? fmt::format("streaming memory 0x{:016x}", c.smem_addr)
                                        : fmt::format("host stream {}", c.stream);
  return fmt::format("{} of {} bytes {} 0x{:08x} {} {}", mnemonic(c.op), c.len, into_tile(c.op) ? "into" : "at",
                     c.tile_addr, into_tile(c.op) ? "from" : "to", far);
}

GatewayConfig GatewayConfig::from(const config::BoardConfig& board, uint32_t index) {
  GatewayConfig c;
  c.board = index;
  c.smem_bytes = board.streaming_memory_bytes;
  c.smem_bytes_per_second = board.streaming_memory_bytes_per_second;
  c.smem_latency_ns = board.streaming_memory_latency_ns;
  c.tile_clock_hz = board.chip.clock_hz;
  c.tile_in_bytes_per_cycle = board.chip.tile.exchange_in_bytes_per_cycle;
  c.tile_out_bytes_per_cycle = board.chip.tile.exchange_out_bytes_per_cycle;
  return c;
}

Gateway::Gateway(sc_core::sc_module_name name, const GatewayConfig& config)
    : sc_module(name),
      copy_socket("copy_socket"),
      config_(config),
      memory_(config.smem_bytes),
      h2d_(IPU_STREAMS, ByteFifo(config.fifo_bytes)),
      d2h_(IPU_STREAMS, ByteFifo(config.fifo_bytes)),
      h2d_queue_(IPU_STREAMS),
      d2h_queue_(IPU_STREAMS) {
  if (!(config.smem_bytes_per_second > 0) || !(config.tile_clock_hz > 0) || config.tile_in_bytes_per_cycle == 0 ||
      config.tile_out_bytes_per_cycle == 0 || !(config.smem_latency_ns >= 0))
    throw std::invalid_argument(fmt::format("gateway of board {}: rates and clock must be positive, latency >= 0",
                                            config.board));
  copy_socket.register_b_transport(this, &Gateway::b_transport);
}

// ---- host side -------------------------------------------------------------------------

uint32_t Gateway::read_smem(uint64_t addr, std::span<uint8_t> out) const {
  return memory_.read(addr, out) ? IPU_ERR_NONE : IPU_ERR_SMEM_RANGE;
}

uint32_t Gateway::write_smem(uint64_t addr, std::span<const uint8_t> in) {
  return memory_.write(addr, in) ? IPU_ERR_NONE : IPU_ERR_SMEM_RANGE;
}

sc_core::sc_time Gateway::bytes_time(uint64_t bytes, double bytes_per_second) const {
  return sc_core::sc_time(double(bytes) / bytes_per_second, sc_core::SC_SEC);
}

sc_core::sc_time Gateway::smem_transfer_time(uint64_t bytes) const {
  return bytes_time(bytes, config_.smem_bytes_per_second) + sc_core::sc_time(config_.smem_latency_ns, sc_core::SC_NS);
}

uint32_t Gateway::h2d_level(uint32_t stream) const { return stream < IPU_STREAMS ? h2d_[stream].level() : 0; }
uint32_t Gateway::d2h_level(uint32_t stream) const { return stream < IPU_STREAMS ? d2h_[stream].level() : 0; }

FifoResult Gateway::push_h2d(uint32_t stream, std::span<const uint8_t> in) {
  if (stream >= IPU_STREAMS) return {IPU_ERR_STREAM, 0};
  const uint32_t n = h2d_[stream].push(in);
  if (n) changed(stream, false);
  return {IPU_ERR_NONE, n};
}

FifoResult Gateway::pop_d2h(uint32_t stream, std::span<uint8_t> out) {
  if (stream >= IPU_STREAMS) return {IPU_ERR_STREAM, 0};
  const uint32_t n = d2h_[stream].pop(out);
  if (n) changed(stream, true);
  return {IPU_ERR_NONE, n};
}

void Gateway::changed(uint32_t stream, bool d2h) {
  fifo_changed_.notify(sc_core::SC_ZERO_TIME);
  if (listener_) listener_(stream, d2h);
}

std::optional<StreamWait> Gateway::stream_wait() const {
  if (waiters_.empty()) return std::nullopt;
  return waiters_.front().wait;
}

void Gateway::hold_streams(bool held) {
  held_ = held;
  if (!held) fifo_changed_.notify(sc_core::SC_ZERO_TIME);
}

// The copies blocked now belong to a run the host has thrown away: they end with an error
// (their fabric was reset too and drops the exchange) and the queues start afresh.
Gateway::Saved Gateway::saved() const {
  if (!waiters_.empty()) throw std::logic_error(fmt::format("board {}: a stream copy waits", config_.board));
  Saved s;
  for (uint32_t id = 0; id < IPU_STREAMS; ++id)
    for (const bool d2h : {false, true}) {
      const ByteFifo& f = (d2h ? d2h_ : h2d_)[id];
      const Queue& q = (d2h ? d2h_queue_ : h2d_queue_)[id];
      if (f.level() == 0 && q.next_ticket == 0) continue;
      const std::span<const uint8_t> bytes = f.contents();
      s.fifos.push_back(SavedFifo{id, d2h, std::vector<uint8_t>(bytes.begin(), bytes.end()), q.next_ticket, q.serving});
    }
  s.gateway_free = gateway_free_.value();
  s.smem_copies = smem_copies_;
  s.smem_bytes_read = smem_bytes_read_;
  s.smem_bytes_written = smem_bytes_written_;
  s.stream_bytes_in = stream_bytes_in_;
  s.stream_bytes_out = stream_bytes_out_;
  s.failed_checks = failed_checks_;
  return s;
}

void Gateway::restore(const Saved& s) {
  for (const SavedFifo& f : s.fifos) {
    if (f.stream >= IPU_STREAMS || f.serving > f.next_ticket)
      throw std::invalid_argument(fmt::format("board {}: no stream {} (or its queue is behind itself)", config_.board,
                                              f.stream));
    ByteFifo& fifo = (f.d2h ? d2h_ : h2d_)[f.stream];
    fifo.clear();
    if (fifo.push(f.bytes) != f.bytes.size())
      throw std::invalid_argument(fmt::format("board {} stream {}: {} bytes for a FIFO of {}", config_.board, f.stream,
                                              f.bytes.size(), fifo.capacity()));
    Queue& q = (f.d2h ? d2h_queue_ : h2d_queue_)[f.stream];
    q.next_ticket = f.next_ticket;
    q.serving = f.serving;
  }
  gateway_free_ = sc_core::sc_time::from_value(s.gateway_free);
  smem_copies_ = s.smem_copies;
  smem_bytes_read_ = s.smem_bytes_read;
  smem_bytes_written_ = s.smem_bytes_written;
  stream_bytes_in_ = s.stream_bytes_in;
  stream_bytes_out_ = s.stream_bytes_out;
  failed_checks_ = s.failed_checks;
}

void Gateway::restore_smem_page(uint64_t number, std::span<const uint8_t> bytes) {
  const uint64_t at = number * SparseMemory::kPageBytes;
  if (number >= memory_.size() / SparseMemory::kPageBytes + 1 || bytes.size() > SparseMemory::kPageBytes ||
      !memory_.write(at, bytes))
    throw std::invalid_argument(fmt::format("board {}: streaming-memory page {} is past its {} bytes", config_.board,
                                            number, memory_.size()));
}

void Gateway::reset_streams() {
  for (ByteFifo& f : h2d_) f.clear();
  for (ByteFifo& f : d2h_) f.clear();
  for (Queue& q : h2d_queue_) q = Queue{};
  for (Queue& q : d2h_queue_) q = Queue{};
  waiters_.clear();
  ++stream_epoch_;
  held_ = false;
  fifo_changed_.notify(sc_core::SC_ZERO_TIME);
}

// ---- the fabrics' copies ---------------------------------------------------------------

void Gateway::b_transport(int, tlm::tlm_generic_payload& trans, sc_core::sc_time&) {
  GatewayRequest* req = message_of<GatewayRequest>(trans);
  if (!req || !req->copies || !req->errors ||
      (req->kind != GatewayRequest::Kind::Check && req->kind != GatewayRequest::Kind::Run)) {
    trans.set_response_status(tlm::TLM_COMMAND_ERROR_RESPONSE);
    return;
  }
  const size_t errors_before = req->errors->size();
  if (req->kind == GatewayRequest::Kind::Check)
    check(*req->copies, *req->errors);
  else
    run(*req->copies, *req->errors);
  trans.set_response_status(req->errors->size() == errors_before ? tlm::TLM_OK_RESPONSE
                                                                  : tlm::TLM_GENERIC_ERROR_RESPONSE);
}

// Kind "no host"; text: "host stream 5: no host connected (use the driver): tile 1 (ipu 0)
// thread 0 pc ...: hsread ... (why)".
Problem Gateway::no_host(const GatewayCopy& c, ProblemCode code, const std::string& why) const {
  Problem e = located(c, code, "no host");
  e.detail = fmt::format("{} ({})", describe(c), why);
  return e;
}

bool Gateway::check_copy(const GatewayCopy& c, std::vector<Problem>& errors) const {
  if (c.len > IPU_XFER_MAX) {
    errors.push_back(copy_problem(c, ProblemCode::SmemRange, "too long", fmt::format("longer than IPU_XFER_MAX ({} bytes)", IPU_XFER_MAX)));
    return false;
  }
  if (c.tile_addr % IPU_SMEM_ALIGN || c.len % IPU_SMEM_ALIGN || (is_smem(c.op) && c.smem_addr % IPU_SMEM_ALIGN)) {
    errors.push_back(copy_problem(c, ProblemCode::SmemAlign, "misaligned copy",
                                  fmt::format("addresses and length must be multiples of {} (IPU_SMEM_ALIGN)", IPU_SMEM_ALIGN)));
    return false;
  }
  if (is_smem(c.op)) {
    if (memory_.size() == 0) {
      errors.push_back(copy_problem(c, ProblemCode::SmemRange, "no streaming memory",
                                    fmt::format("no streaming memory on board {} (streaming_memory.size_gib is 0)",
                                                config_.board)));
      return false;
    }
    if (!memory_.contains(c.smem_addr, c.len)) {
      errors.push_back(copy_problem(c, ProblemCode::SmemRange, "beyond streaming memory",
                                    fmt::format("beyond the end of streaming memory (0x{:x} bytes on board {})",
                                                memory_.size(), config_.board)));
      return false;
    }
  } else if (c.stream >= IPU_STREAMS) {
    errors.push_back(copy_problem(c, ProblemCode::Stream, "no such stream", fmt::format("no such stream (ids 0..{})", IPU_STREAMS - 1)));
    return false;
  }
  return true;
}

void Gateway::check(std::vector<GatewayCopy>& copies, std::vector<Problem>& errors) {
  const size_t before = errors.size();
  // Without a host the FIFOs change only through these copies: replay their levels.
  std::map<uint32_t, uint64_t> h2d_taken, d2h_added;
  for (const GatewayCopy& c : copies) {
    if (!check_copy(c, errors) || is_smem(c.op) || config_.host_connected) continue;
    if (c.op == GatewayCopy::Op::StreamRead) {
      const uint64_t need = (h2d_taken[c.stream] += c.len);
      if (need > h2d_[c.stream].level())
        errors.push_back(no_host(c, ProblemCode::Stream,
                                 fmt::format("the host-to-device FIFO holds {} bytes", h2d_[c.stream].level())));
    } else {
      const uint64_t held = (d2h_added[c.stream] += c.len) + d2h_[c.stream].level();
      if (held > d2h_[c.stream].capacity())
        errors.push_back(no_host(c, ProblemCode::StreamOverflow,
                                 fmt::format("the device-to-host FIFO holds {} of {} bytes and nobody drains it",
                                             d2h_[c.stream].level(), d2h_[c.stream].capacity())));
    }
  }
  if (errors.size() != before) ++failed_checks_;
}

void Gateway::run(std::vector<GatewayCopy>& copies, std::vector<Problem>& errors) {
  for (const GatewayCopy& c : copies) {
    if (!check_copy(c, errors)) return;
    if (c.len > 0 && !c.data) {
      errors.push_back(copy_problem(c, ProblemCode::SmemRange, "no data buffer", "no data buffer (a fabric bug)"));
      return;
    }
  }
  // The bytes: every read sees the streaming memory as the phase found it, then the
  // writes land in order (the last write of a byte wins), then the streams in order.
  for (GatewayCopy& c : copies)
    if (c.op == GatewayCopy::Op::SmemRead) {
      memory_.read(c.smem_addr, std::span<uint8_t>(c.data, c.len));
      ++smem_copies_;
      smem_bytes_read_ += c.len;
    }
  for (GatewayCopy& c : copies)
    if (c.op == GatewayCopy::Op::SmemWrite) {
      memory_.write(c.smem_addr, std::span<const uint8_t>(c.data, c.len));
      ++smem_copies_;
      smem_bytes_written_ += c.len;
    }
  std::vector<sc_core::sc_time> available(copies.size());  // when a stream copy had its bytes
  for (size_t i = 0; i < copies.size(); ++i) {
    GatewayCopy& c = copies[i];
    if (c.op != GatewayCopy::Op::StreamRead && c.op != GatewayCopy::Op::StreamWrite) continue;
    const sc_core::sc_time before = sc_core::sc_time_stamp();
    if (!stream_copy(c, errors)) return;
    if (sc_core::sc_time_stamp() > before) available[i] = sc_core::sc_time_stamp();  // waited for the host
  }
  schedule(copies, available);
}

// A list schedule: the gateway takes, one after another, the copy that can start first
// (ties: the earlier in `copies`); each tile's copies go in their order, one at a time.
void Gateway::schedule(std::vector<GatewayCopy>& copies, const std::vector<sc_core::sc_time>& available) {
  const double rate = config_.smem_bytes_per_second;
  const sc_core::sc_time latency(config_.smem_latency_ns, sc_core::SC_NS);
  std::map<uint64_t, std::vector<size_t>> by_tile;  // (ipu, tile) -> its copies, in order
  for (size_t i = 0; i < copies.size(); ++i) by_tile[uint64_t(copies[i].ipu) << 32 | copies[i].tile].push_back(i);
  struct Next {
    sc_core::sc_time at;
    size_t index;
    const std::vector<size_t>* list;
    size_t pos;
    bool operator>(const Next& o) const { return at != o.at ? at > o.at : index > o.index; }
  };
  std::priority_queue<Next, std::vector<Next>, std::greater<Next>> ready;
  auto earliest = [&](size_t i) { return std::max(copies[i].ready, available[i]); };
  for (const auto& [key, list] : by_tile) ready.push(Next{earliest(list[0]), list[0], &list, 0});
  while (!ready.empty()) {
    const Next n = ready.top();
    ready.pop();
    GatewayCopy& c = copies[n.index];
    const uint32_t port = into_tile(c.op) ? config_.tile_in_bytes_per_cycle : config_.tile_out_bytes_per_cycle;
    const double port_rate = double(port) * config_.tile_clock_hz;
    const sc_core::sc_time start = std::max(n.at, gateway_free_);
    gateway_free_ = start + bytes_time(c.len, rate);
    const sc_core::sc_time data_end = start + bytes_time(c.len, std::min(rate, port_rate));
    c.done = data_end + latency;
    if (n.pos + 1 < n.list->size()) {
      const size_t next = (*n.list)[n.pos + 1];
      ready.push(Next{std::max(earliest(next), data_end), next, n.list, n.pos + 1});
    }
  }
}

// One stream copy, either way: H2D pops the host's bytes into the tile buffer, D2H pushes the
// tile's bytes for the host. Copies of a stream and direction take turns by ticket.
bool Gateway::stream_copy(GatewayCopy& c, std::vector<Problem>& errors) {
  const bool d2h = c.op == GatewayCopy::Op::StreamWrite;
  Queue& q = (d2h ? d2h_queue_ : h2d_queue_)[c.stream];
  ByteFifo& fifo = (d2h ? d2h_ : h2d_)[c.stream];
  const uint64_t ticket = q.next_ticket++;
  const uint64_t waiter = next_waiter_++;
  bool waiting = false;
  uint32_t done = 0;
  const uint64_t epoch = stream_epoch_;
  auto leave = [&] {
    if (waiting) std::erase_if(waiters_, [&](const Waiter& w) { return w.id == waiter; });
    ++q.serving;
  };
  for (;;) {
    if (epoch != stream_epoch_) {  // reset_streams() cleared the queues and waiters already
      errors.push_back(copy_problem(c, ProblemCode::Stream, "streams reset", "the streams were reset while the copy waited"));
      return false;
    }
    const bool my_turn = !held_ && q.serving == ticket;
    if (my_turn && done < c.len && (d2h ? fifo.space() : fifo.level()) > 0) {
      done += d2h ? fifo.push(std::span<const uint8_t>(c.data + done, c.len - done))
                  : fifo.pop(std::span<uint8_t>(c.data + done, c.len - done));
      changed(c.stream, d2h);
    }
    if (done == c.len) break;
    if (!config_.host_connected) {
      errors.push_back(d2h ? no_host(c, ProblemCode::StreamOverflow,
                                     fmt::format("the device-to-host FIFO is full ({} bytes)", fifo.level()))
                           : no_host(c, ProblemCode::Stream, "the host-to-device FIFO is empty"));
      leave();
      return false;
    }
    // What the host is waited on for: D2H, the bytes it should drain; H2D, the bytes still
    // lacking (held: the bytes in the FIFO are not taken yet).
    const uint32_t have = q.serving == ticket ? fifo.level() : 0;
    const uint32_t bytes = d2h ? fifo.level() : (c.len - done > have ? c.len - done - have : 0);
    if (!waiting) waiters_.push_back(Waiter{waiter, StreamWait{c.stream, d2h, bytes, c.ipu, c.tile, c.pc}});
    for (Waiter& w : waiters_)
      if (w.id == waiter) w.wait.bytes = bytes;
    waiting = true;
    if (!held_ && wait_listener_) wait_listener_();  // the host is wanted now
    sc_core::wait(fifo_changed_);
  }
  leave();
  fifo_changed_.notify(sc_core::SC_ZERO_TIME);  // the next copy of the stream may go
  (d2h ? stream_bytes_out_ : stream_bytes_in_) += c.len;
  return true;
}

}  // namespace ipusim::streaming
