// One direction of one full-duplex link in integer cycles: a Transmitter and a Receiver
// joined by a forward wire (frames: serialisation at bytes_per_cycle, then latency) and a
// return path (ACK / NAK / credit DLLPs: latency only, their bandwidth is neglected), with
// a FaultInjector on both. step() runs every event of the next cycle that has one, so an
// RTL equivalence test can compare states cycle by cycle.
//
// Frame i is not sent before not_before[i] (Pacing::Ready), or, under stall semantics
// (Pacing::Stalled), not before not_before[i] + the stall so far, where the stall only
// grows: whenever a transmission of frame i starts at t, stall = max(stall, t -
// not_before[i]). With not_before = the fault-free send cycles, the link never runs
// ahead of the fault-free schedule delayed by what recovery has cost (docs/links.md,
// "cycles_lost").
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <optional>
#include <span>
#include <vector>

#include "links/fault_injector.h"
#include "links/link_config.h"
#include "links/receiver.h"
#include "links/transmitter.h"

namespace ipusim::links {

struct ScheduledFrame {
  uint64_t ready_cycle = 0;            // earliest cycle the frame may start, from the phase start
  std::span<const uint8_t> payload;    // at most frame_bytes; must outlive the call
};

// A payload accepted in order by the receiver.
struct Delivery {
  uint64_t index = 0;                  // its place in the phase (0, 1, ...: in order)
  uint64_t cycle = 0;                  // the cycle its last bit arrived
  uint64_t stall = 0;                  // the stall its accepted copy was sent with
  std::span<const uint8_t> payload;    // valid during the callback only
};
using DeliverFn = std::function<void(const Delivery&)>;

// A frame transmission put on the wire (for tests and traces).
struct WireEvent {
  uint64_t cycle = 0;
  uint64_t index = 0;
  uint16_t seq = 0;
  bool replay = false;
  FrameVerdict verdict;
};
using WireTraceFn = std::function<void(const WireEvent&)>;

enum class Pacing { Ready, Stalled };

class LinkDirection {
 public:
  // config must be valid; frames and not_before (one per frame) must outlive this.
  LinkDirection(const LinkLayerConfig& config, FaultInjector& injector,
                std::span<const ScheduledFrame> frames, std::span<const uint64_t> not_before,
                Pacing pacing, DeliverFn deliver = {});
  void set_wire_trace(WireTraceFn trace) { trace_ = std::move(trace); }

  // Runs the next cycle that has an event; false when nothing is left to happen.
  bool step();
  // Steps until quiet; throws std::logic_error if that leaves a frame undelivered or
  // unacknowledged (it cannot, unless the protocol is broken), LinkFailure if the link
  // gives up.
  void run();

  uint64_t now() const { return now_; }
  uint64_t stall() const { return stall_; }
  bool all_delivered() const { return delivered_ == frames_.size(); }
  std::optional<uint64_t> last_delivery_cycle() const { return last_delivery_cycle_; }
  uint64_t last_delivery_stall() const { return last_delivery_stall_; }
  // The cycle each frame was first put on the wire.
  std::span<const uint64_t> first_send_cycles() const { return first_send_; }
  // Transmitter and receiver counters together (not the injector's).
  LinkCounters stats() const;
  const Transmitter& tx() const { return tx_; }
  const Receiver& rx() const { return rx_; }

 private:
  struct InFlightFrame {
    uint64_t arrival;
    uint64_t stall;
    std::vector<uint8_t> wire;
  };
  struct InFlightDllp {
    uint64_t arrival;
    Dllp dllp;
  };

  std::optional<uint64_t> next_event() const;
  std::optional<uint64_t> transmit_cycle() const;
  void transmit(uint64_t t);
  void send_dllp(const Dllp& dllp);
  void recover(Recovery r);
  void receive(InFlightFrame& frame);

  LinkLayerConfig config_;
  FaultInjector& injector_;
  std::span<const ScheduledFrame> frames_;
  std::span<const uint64_t> not_before_;
  Pacing pacing_;
  DeliverFn deliver_;
  WireTraceFn trace_;
  Transmitter tx_;
  Receiver rx_;

  uint64_t now_ = 0;
  uint64_t wire_free_ = 0;             // the forward wire is busy before this cycle
  uint64_t stall_ = 0;
  size_t next_new_ = 0;                // next frame not yet sent
  uint64_t delivered_ = 0;
  uint64_t last_drain_ = 0;
  std::optional<uint64_t> last_delivery_cycle_;
  uint64_t last_delivery_stall_ = 0;
  std::vector<uint64_t> first_send_;
  std::deque<InFlightFrame> forward_;  // arrival cycles never decrease
  std::deque<InFlightDllp> back_;      // likewise: same latency, sent in cycle order
  std::deque<uint64_t> drains_;        // consumer drain cycles, in order
};

}  // namespace ipusim::links
