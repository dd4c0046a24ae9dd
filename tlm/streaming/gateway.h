// The gateway of one board: its streaming memory and its host streams (docs/streaming.md).
//
//   Gateway (per board)
//     streaming memory   SparseMemory of BoardConfig::streaming_memory_bytes (0: none)
//     host streams       IPU_STREAMS host-to-device (H2D) and IPU_STREAMS device-to-host
//                        (D2H) byte FIFOs of fifo_bytes each
//
// Sockets
//   copy_socket   TLM-2.0 target (multi-passthrough, zero or more bindings: every IPU
//                 fabric of the board). Blocking transport of GatewayRequest
//                 (gateway_payload.h): Check, then Run, the tiles' copies of an exchange
//                 phase. Run may block its caller on a host stream.
//
// Host side (the host interface's DMA engine; plain C++, call from a SystemC process or
// between sc_start calls, never from another host thread):
//   read_smem / write_smem      streaming memory at a byte offset (IPU_ERR_SMEM_RANGE)
//   smem_transfer_time(bytes)   what the streaming memory adds to a DMA of that size
//   push_h2d / pop_d2h          fill a H2D FIFO / drain a D2H FIFO (IPU_ERR_STREAM)
//   h2d_level / d2h_level / fifo_bytes   FIFO levels and capacity (STREAM_*_LEVEL,
//                               STREAM_FIFO_BYTES)
//   fifo_event / set_fifo_listener       notice of every level change
//   stream_wait()               the stream a blocked copy waits on (STATE_STREAM_WAIT)
//   set_wait_listener(f)        f() when a copy begins to wait on the host (not while
//                               held): the platform pauses the run there
//   set_host_connected(false)   no host will ever serve the streams: a copy that would
//                               block is an error instead (the CLI, `ipusim run`)
//   hold_streams(true / false)  blocked copies take no FIFO bytes while held (the device
//                               in STREAM_WAIT: the host fills / drains, RUN releases)
//   reset_streams()             empties every FIFO and ends every blocked copy with an
//                               error its fabric drops (CTRL.RESET); memory is kept
//
// Bytes of a Run (docs/streaming.md "An exchange phase"): every SmemRead sees the
// streaming memory as it was before the Run, then the SmemWrites land in the order given
// (the last write of a byte wins), then the stream copies take / give their FIFO bytes in
// the order given (a stream's copies from several fabrics: in arrival order).
//
// Timing of a Run: a list schedule. Repeatedly, the copy that can start first (ties: the
// earlier in the Run) is served; a tile's copies go one at a time in its order. For a copy
// of L bytes of tile T:
//   start        = max(ready, port_free(T), gateway_free[, when a stream copy that waited
//                  for the host got its bytes])
//   gateway_free = start + L / B                    B = streaming_memory.gbytes_per_s
//   port_free(T) = start + L / min(B, P)            P = T's exchange port (in for reads,
//                                                   out for writes) x tile clock
//   done         = port_free(T) + latency           streaming_memory.latency_ns
// So the gateway moves at most B bytes per second in all, a tile at most P, and a tile
// port slower than B slows its own copy, not the gateway. gateway_free carries over from
// Run to Run (all fabrics of the board share it); port_free is per Run.
//
// Parameters (GatewayConfig): the board's streaming memory size, rate and latency, the
// tile clock and exchange port rates, the FIFO capacity (kStreamFifoBytes).
//
// Statistics: smem_copies(), smem_bytes_read(), smem_bytes_written() (tile copies),
// stream_bytes_in(), stream_bytes_out() (tile copies), failed_checks(), memory().
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include <ipu/hostif_regs.h>
#include <systemc>
#include <tlm>
#include <tlm_utils/multi_passthrough_target_socket.h>

#include "common/config.h"
#include "streaming/byte_fifo.h"
#include "streaming/gateway_payload.h"
#include "streaming/sparse_memory.h"

namespace ipusim::streaming {

// Capacity of each stream FIFO: one largest tile copy (IPU_XFER_MAX).
inline constexpr uint32_t kStreamFifoBytes = IPU_XFER_MAX;

struct GatewayConfig {
  uint32_t board = 0;
  uint64_t smem_bytes = 0;                 // 0: no streaming memory
  double smem_bytes_per_second = 20e9;
  double smem_latency_ns = 500;
  double tile_clock_hz = 1e9;
  uint32_t tile_in_bytes_per_cycle = 4;    // a tile's exchange in port (streaming reads)
  uint32_t tile_out_bytes_per_cycle = 4;   // and out port (streaming writes)
  uint32_t fifo_bytes = kStreamFifoBytes;  // each stream FIFO, each direction
  bool host_connected = true;              // false: a copy that would block is an error

  static GatewayConfig from(const config::BoardConfig& board, uint32_t index);
};

// What a blocked copy waits for (STREAM_WAIT_ID / BYTES / DIR).
struct StreamWait {
  uint32_t stream = 0;
  bool d2h = false;        // false: tiles read (fill H2D), true: tiles write (drain D2H)
  uint32_t bytes = 0;      // H2D: bytes the FIFO lacks for the copy; D2H: bytes it holds
  uint32_t ipu = 0, tile = 0, pc = 0;  // the copy's requester
};

// Result of a host-side FIFO operation.
struct FifoResult {
  uint32_t error = IPU_ERR_NONE;  // IPU_ERR_STREAM for a stream id out of range
  uint32_t bytes = 0;             // bytes pushed / popped
};

class Gateway : public sc_core::sc_module {
 public:
  using CopySocket = tlm_utils::multi_passthrough_target_socket<
      Gateway, 32, tlm::tlm_base_protocol_types, 0, sc_core::SC_ZERO_OR_MORE_BOUND>;
  CopySocket copy_socket;

  Gateway(sc_core::sc_module_name name, const GatewayConfig& config);

  const GatewayConfig& config() const { return config_; }

  // ---- streaming memory, host side ----
  uint64_t smem_size() const { return memory_.size(); }
  // IPU_ERR_NONE, or IPU_ERR_SMEM_RANGE (and nothing moved) if any byte is out of range.
  uint32_t read_smem(uint64_t addr, std::span<uint8_t> out) const;
  uint32_t write_smem(uint64_t addr, std::span<const uint8_t> in);
  // bytes / streaming_memory.gbytes_per_s + streaming_memory.latency_ns.
  sc_core::sc_time smem_transfer_time(uint64_t bytes) const;
  const SparseMemory& memory() const { return memory_; }

  // ---- host streams, host side ----
  uint32_t fifo_bytes() const { return config_.fifo_bytes; }
  uint32_t h2d_level(uint32_t stream) const;  // 0 for a stream id out of range
  uint32_t d2h_level(uint32_t stream) const;
  FifoResult push_h2d(uint32_t stream, std::span<const uint8_t> in);  // as many as fit
  FifoResult pop_d2h(uint32_t stream, std::span<uint8_t> out);        // as many as held
  // Notified (delta) after every level change, from either side.
  const sc_core::sc_event& fifo_event() const { return fifo_changed_; }
  // Called synchronously at every level change (stream, d2h). One listener; empty: none.
  void set_fifo_listener(std::function<void(uint32_t, bool)> listener) { listener_ = std::move(listener); }
  // The oldest copy blocked on a host stream, if any.
  std::optional<StreamWait> stream_wait() const;
  void set_host_connected(bool connected) { config_.host_connected = connected; }
  // Called (on the kernel's thread) each time a copy goes to sleep lacking what only the
  // host can give, unless the streams are held. One listener; empty: none.
  void set_wait_listener(std::function<void()> listener) { wait_listener_ = std::move(listener); }
  // While held, a blocked stream copy moves no bytes (the FIFO levels are the host's
  // alone); releasing lets every blocked copy look at its FIFO again.
  void hold_streams(bool held);
  bool streams_held() const { return held_; }
  void reset_streams();

  // ---- statistics ----
  uint64_t smem_copies() const { return smem_copies_; }
  uint64_t smem_bytes_read() const { return smem_bytes_read_; }
  uint64_t smem_bytes_written() const { return smem_bytes_written_; }
  uint64_t stream_bytes_in() const { return stream_bytes_in_; }    // H2D bytes tiles read
  uint64_t stream_bytes_out() const { return stream_bytes_out_; }  // D2H bytes tiles wrote
  uint64_t failed_checks() const { return failed_checks_; }

  // A checkpoint at a sync (docs/checkpoints.md): what outlives an exchange phase besides
  // the streaming memory (memory(), saved as its pages): each stream FIFO's bytes and its
  // queue's ticket positions, when the gateway is next free, and the figures. saved()
  // throws std::logic_error while a copy waits (an exchange phase is in flight);
  // restore() (before the run) throws std::invalid_argument for a stream id out of range
  // or more bytes than a FIFO holds; restore_smem_page() for a page past the memory.
  struct SavedFifo {
    uint32_t stream = 0;
    bool d2h = false;
    std::vector<uint8_t> bytes;
    uint64_t next_ticket = 0, serving = 0;
  };
  struct Saved {
    std::vector<SavedFifo> fifos;  // those holding bytes or with tickets given, by (stream, d2h)
    uint64_t gateway_free = 0;     // SystemC time, in the kernel's resolution
    uint64_t smem_copies = 0, smem_bytes_read = 0, smem_bytes_written = 0;
    uint64_t stream_bytes_in = 0, stream_bytes_out = 0, failed_checks = 0;
  };
  Saved saved() const;
  void restore(const Saved& saved);
  void restore_smem_page(uint64_t number, std::span<const uint8_t> bytes);

 private:
  struct Waiter {
    uint64_t id;
    StreamWait wait;
  };
  struct Queue {  // per stream and direction: serves copies in arrival order
    uint64_t next_ticket = 0, serving = 0;
  };

  void b_transport(int id, tlm::tlm_generic_payload& trans, sc_core::sc_time& delay);
  // Appends the problem of `c` to `errors` if it cannot be done at all; true if fine.
  bool check_copy(const GatewayCopy& c, std::vector<Problem>& errors) const;
  void check(std::vector<GatewayCopy>& copies, std::vector<Problem>& errors);
  void run(std::vector<GatewayCopy>& copies, std::vector<Problem>& errors);
  void schedule(std::vector<GatewayCopy>& copies, const std::vector<sc_core::sc_time>& available);
  // Stream copies: move the bytes, waiting on the host if needed (SystemC wait). False
  // (and an error appended) if the FIFO would block and no host is connected.
  bool stream_copy(GatewayCopy& c, std::vector<Problem>& errors);
  void changed(uint32_t stream, bool d2h);
  // A copy no host can serve (the problem records of the other bad copies: copy_problem()).
  Problem no_host(const GatewayCopy& c, ProblemCode code, const std::string& why) const;
  sc_core::sc_time bytes_time(uint64_t bytes, double bytes_per_second) const;

  GatewayConfig config_;
  SparseMemory memory_;
  std::vector<ByteFifo> h2d_, d2h_;
  std::vector<Queue> h2d_queue_, d2h_queue_;
  std::vector<Waiter> waiters_;  // blocked copies, oldest first
  uint64_t next_waiter_ = 0;
  uint64_t stream_epoch_ = 0;  // reset_streams(): a copy blocked before it gives up
  bool held_ = false;
  sc_core::sc_event fifo_changed_;
  std::function<void(uint32_t, bool)> listener_;
  std::function<void()> wait_listener_;
  sc_core::sc_time gateway_free_;
  uint64_t smem_copies_ = 0, smem_bytes_read_ = 0, smem_bytes_written_ = 0;
  uint64_t stream_bytes_in_ = 0, stream_bytes_out_ = 0, failed_checks_ = 0;
};

}  // namespace ipusim::streaming
