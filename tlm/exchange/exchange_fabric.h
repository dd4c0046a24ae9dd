// The exchange fabric of one IPU: collects the tiles' postings of an exchange phase,
// checks and times them with plan_exchange() (exchange_plan.h, docs/exchange.md), moves
// the data from sender to receiver SRAM, and releases each tile when its part is done.
//
// Phase: after a sync (zone 1 or 2) releases the IPU, every participating tile either
// posts (Post: it reached `xwait`, or a sync / halt with postings pending) or closes its
// phase empty (Close: it reached its next sync or its halt without an `xwait`). When
// every participant has done one or the other, the fabric (its one SC_THREAD, a delta
// later):
//   1. plans the exchange over all of them (closed tiles count as posting nothing, so a
//      send to one is reported as "posts no receive");
//   2. on any error answers every poster with TLM_GENERIC_ERROR_RESPONSE and the list of
//      problems (ExchangeMessage::problems), and moves nothing: every receive buffer keeps its contents;
//   3. sends the phase's streaming-memory and host-stream copies (docs/xipu.md funct3 = 3
//      and 4) to the board's gateway for a Check; any problem fails the exchange as in 2;
//   4. otherwise copies every delivery (from the sender's SRAM to the receiver's, through
//      the tiles' DMI grants, or their mem_socket where there is none: "Sockets") — all
//      tiles of the IPU are stopped, so no core sees a half-done exchange —, then the copies (docs/streaming.md, "An exchange phase"):
//      reads every streaming write's tile buffer, has the gateway Run them all (which
//      may block on a host stream), writes every streaming read's bytes into its tile;
//      then waits until the earliest done cycle and answers every poster with its done
//      cycle (annotated delays for the later ones): the later of its messages' and its
//      copies' completion.
// A phase opened by a zone-2 sync spans the run domain's IPUs: instead of planning it
// alone, the fabric hands its tiles' postings to the domain's ExchangeGroup
// (exchange_group.h), which plans the phase over every member IPU with the IPU-Links'
// timing and moves the messages between IPUs; the fabric then does its own copies and
// answers its tiles as above. After a zone-1 sync a message to or from another IPU is an
// error (the IPUs have not synced with each other).
//
// Phases are queued as they complete, so an IPU whose tiles close phases without
// waiting (no postings) may run ahead of a joint phase still waiting for other IPUs.
//
// Sockets
//   tile_socket    TLM-2.0 target (multi-passthrough; binding i = tile i of the IPU, zero
//                  or more bindings). Non-blocking transport only; payload and protocol:
//                  exchange_payload.h.
//   memory_socket  TLM-2.0 initiator (multi-passthrough; binding i = tile i's mem_socket).
//                  DMI: a tile's grants (a read grant of its SRAM, a write grant at its
//                  top) are asked for once, before the first delivery that needs them,
//                  and kept until the tile invalidates them; a delivery both grants cover
//                  is a memmove between host bytes. Any other delivery goes by blocking
//                  transport with zero delay, one read and one write, through a buffer of
//                  the fabric (exchange_delivery.h). The tiles' b_transport never waits,
//                  and a phase's deliveries are made on the plan's host threads
//                  (set_plan_threads), by parts of whole destination tiles: a tile's
//                  b_transport must take concurrent calls for different tiles' parts
//                  (reads of its send buffers while it is written elsewhere).
//   gateway_socket TLM-2.0 initiator (zero or one binding: the board's
//                  streaming::Gateway::copy_socket). Blocking transport of
//                  streaming::GatewayRequest (streaming/gateway_payload.h). Unbound: every
//                  copy fails the exchange ("no streaming memory").
//
// Parameters (ExchangeFabricConfig): the IPU's index and tile count, and the timing of
// plan_exchange(): per-tile in / out bytes per cycle (tile.exchange_*_bytes_per_cycle),
// exchange.latency_min_cycles / latency_max_cycles, the layout's tiles per column.
//
// Statistics: exchanges(), failed_exchanges(), messages(), bytes(), host_ticks() (host
// time planning, in the links' schedule and delivering: exchange_host_time.h), copies() and copy_bytes() (streaming-memory and host-stream
// copies done). The problems of a failed exchange go to its posters in their responses
// (ExchangeMessage::problems), the first being the one the board reports.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <systemc>
#include <tlm>
#include <tlm_utils/multi_passthrough_initiator_socket.h>
#include <tlm_utils/multi_passthrough_target_socket.h>

#include <deque>

#include "exchange/exchange_delivery.h"
#include "exchange/exchange_group.h"
#include "exchange/exchange_host_time.h"
#include "exchange/exchange_payload.h"
#include "exchange/exchange_plan.h"
#include "common/config.h"
#include "streaming/gateway_payload.h"
#include "common/clock.h"

namespace ipusim::exchange {

struct ExchangeFabricConfig {
  uint32_t ipu = 0;
  uint32_t ipus = 1;         // IPUs in the system (with one, no message can leave the IPU)
  uint32_t tiles = 1;        // tiles of the IPU (bindings of both sockets)
  ExchangeTiming timing;     // tiles_per_ipu == tiles
  double clock_hz = 1e9;     // tile clock

  static ExchangeFabricConfig from(const config::ChipConfig& chip, uint32_t ipu, uint32_t ipus);
};

class ExchangeFabric : public sc_core::sc_module {
 public:
  using TileSocket = tlm_utils::multi_passthrough_target_socket<
      ExchangeFabric, 32, tlm::tlm_base_protocol_types, 0, sc_core::SC_ZERO_OR_MORE_BOUND>;
  using MemorySocket = tlm_utils::multi_passthrough_initiator_socket<
      ExchangeFabric, 32, tlm::tlm_base_protocol_types, 0, sc_core::SC_ZERO_OR_MORE_BOUND>;
  using GatewaySocket = tlm_utils::multi_passthrough_initiator_socket<
      ExchangeFabric, 32, tlm::tlm_base_protocol_types, 1, sc_core::SC_ZERO_OR_MORE_BOUND>;
  TileSocket tile_socket;
  MemorySocket memory_socket;
  GatewaySocket gateway_socket;

  ExchangeFabric(sc_core::sc_module_name name, const ExchangeFabricConfig& config);

  // Before the simulation: the tiles that take part in this IPU's exchanges.
  void set_participant(uint32_t tile);
  // The run domain's group for phases after a zone-2 sync (null: every phase stays on the
  // IPU). join_group(): once the participants are set, join it if there are any.
  void set_group(ExchangeGroup* group) { group_ = group; }
  // Host threads for this IPU's plans (null: the calling thread alone); the plan is the
  // same either way (docs/exchange.md, "Planning on several host threads").
  void set_plan_threads(const PlanThreads* threads) { plan_threads_.set(threads); }
  void join_group();
  // Delivery `d` (length > 0) from a tile of `src` (this fabric or another IPU's) to one
  // of this fabric's tiles, through both memory sockets, `trans` and `buffer`; not
  // counted. A problem if a tile refused the access. Calls for different destination
  // tiles may run at once on different host threads (exchange_delivery.h).
  std::optional<Problem> copy(ExchangeFabric& src, const Delivery& d, tlm::tlm_generic_payload& trans,
                              std::vector<uint8_t>& buffer);
  // The two halves of a copy: the sender's bytes (global tile id), and the receiver's
  // write of bytes that came another way (over the link layer), not counted.
  std::optional<Problem> read(uint32_t global_tile, uint32_t addr, std::vector<uint8_t>& out);
  std::optional<Problem> write(const Delivery& d, tlm::tlm_generic_payload& trans, std::vector<uint8_t>& bytes);
  // On the SystemC thread, before deliveries from or to this fabric's tiles: the DMI
  // grants it lacks. Then, from any host thread, the host bytes of [addr, addr + len) of
  // a tile (global id) to read or to write; null where no grant covers them.
  void prepare_direct();
  const uint8_t* direct_read(uint32_t global_tile, uint32_t addr, uint32_t len) const;
  uint8_t* direct_write(uint32_t global_tile, uint32_t addr, uint32_t len) const;
  // Adds messages and bytes delivered to this fabric's tiles.
  void count(const DeliveryCounts& c) {
    messages_ += c.messages;
    bytes_ += c.bytes;
  }
  uint32_t participants() const { return participant_count_; }
  const ExchangeFabricConfig& config() const { return config_; }
  // A reset (a device's): back to the state after elaboration (no participant, no phase, counters
  // zero; an exchange waiting for its done time is dropped). Cycle 0 at *epoch.
  void reset();
  void set_epoch(const sc_core::sc_time* epoch) { clock_.set_epoch(epoch); }

  uint64_t exchanges() const { return exchanges_; }
  uint64_t failed_exchanges() const { return failed_; }
  uint64_t messages() const { return messages_; }
  uint64_t bytes() const { return bytes_; }
  const ExchangeHostTicks& host_ticks() const { return host_ticks_; }
  uint64_t copies() const { return copies_; }
  uint64_t copy_bytes() const { return copy_bytes_; }
  // Checkpoints (docs/checkpoints.md): no phase open or waiting, nothing to answer; and
  // the counters above as a checkpoint saved them.
  bool quiet() const { return entries_.empty() && complete_.empty() && errors_.empty(); }
  struct Counters {
    uint64_t exchanges = 0, failed = 0, messages = 0, bytes = 0, copies = 0, copy_bytes = 0;
  };
  Counters counters() const { return {exchanges_, failed_, messages_, bytes_, copies_, copy_bytes_}; }
  void restore_counters(const Counters& c) {
    exchanges_ = c.exchanges;
    failed_ = c.failed;
    messages_ = c.messages;
    bytes_ = c.bytes;
    copies_ = c.copies;
    copy_bytes_ = c.copy_bytes;
  }

 private:
  struct Entry {
    uint32_t tile;                       // index in the IPU
    uint64_t cycle;                      // xwait (Post) or stop (Close) cycle
    tlm::tlm_generic_payload* trans;     // Post: answered later; Close: nullptr
    ExchangeMessage* msg;                // Post: the tile's message
  };

  struct Phase {
    std::vector<Entry> entries;
    uint32_t zone = 1;
  };

  tlm::tlm_sync_enum nb_transport_fw(int id, tlm::tlm_generic_payload& trans, tlm::tlm_phase& phase,
                                     sc_core::sc_time& delay);
  tlm::tlm_sync_enum refuse(tlm::tlm_generic_payload& trans, tlm::tlm_response_status status);
  // A tile's DMI grant: host bytes `ptr` for tile addresses [lo, hi] (empty: lo > hi).
  struct Grant {
    uint8_t* ptr = nullptr;
    uint64_t lo = 1, hi = 0;
    uint8_t* at(uint32_t addr, uint32_t len) const {
      return addr >= lo && uint64_t{addr} + len - 1 <= hi ? ptr + (addr - lo) : nullptr;
    }
  };
  struct TileGrants {
    Grant read, write;
    bool asked = false;  // since the tile's last invalidation
  };
  Grant ask_grant(uint32_t tile, tlm::tlm_command command, uint64_t addr);
  void invalidate_direct_mem_ptr(int id, sc_dt::uint64 start, sc_dt::uint64 end);
  static iss::PostingsRef postings_of(const ExchangeMessage& m) {
    return m.log ? iss::PostingsRef{m.log, nullptr} : iss::PostingsRef{nullptr, m.posts};
  }
  void exchange_thread();  // SC_THREAD
  std::vector<Problem> cross_ipu_errors(const std::vector<Entry>& entries) const;
  void deliver(const ExchangePlan& plan);  // a failed copy adds to errors_
  // Plans the phase: alone, or with the group. Fills outcomes (postings order) or errors_;
  // false if a reset dropped the phase meanwhile.
  bool plan_phase(const Phase& phase, std::vector<TileOutcome>& outcomes);
  // Streaming copies (exchange_copies.cpp).
  void collect_copies(const std::vector<Entry>& entries);
  bool gateway_call(streaming::GatewayRequest::Kind kind);  // false: problems added to errors_
  void check_copies();       // adds to errors_ if a copy cannot be done
  void run_copies(std::vector<TileOutcome>& outcomes, const std::vector<Entry>& entries);
  // One b_transport to a tile's memory, reusing `trans`; false if refused (reason in trans).
  bool tile_access(tlm::tlm_generic_payload& trans, tlm::tlm_command cmd, uint32_t tile, uint32_t addr,
                   uint8_t* data, uint32_t len);
  uint64_t cycle_at(const sc_core::sc_time& t) const;  // the first tile cycle at or after t
  // Every problem of a failed phase happened at the cycle the phase failed (the last
  // participant's arrival): sets it on each and returns it.
  uint64_t set_failure_cycle(const std::vector<Entry>& entries);
  // A problem the fabric finds itself (a tile access it could not make, a message to
  // another IPU): code Exchange, this IPU, `tile`.
  Problem fabric_problem(std::string kind, uint32_t tile, std::string detail) const;
  // outcomes: the done cycles of an exchange that succeeded; nullptr: it failed at
  // failure_cycle (set_failure_cycle()), and the posters get errors_.
  void answer(const std::vector<Entry>& entries, const std::vector<TileOutcome>* outcomes, uint64_t failure_cycle);

  ExchangeFabricConfig config_;
  TileClock clock_;
  std::vector<uint8_t> participant_;
  std::vector<uint8_t> in_phase_;  // per tile: posted or closed in the current phase
  uint32_t participant_count_ = 0;
  std::vector<Entry> entries_;     // the current phase
  uint32_t zone_ = 1;              // of the current phase (the latest entry's)
  std::deque<Phase> complete_;     // phases every participant finished, oldest first
  ExchangeGroup* group_ = nullptr;
  TimedPlanThreads plan_threads_;
  std::vector<TilePostings> postings_;     // its plan input (storage reused)
  // The last plan's, delivered: storage for the next (an IPU alone; in a system the
  // batch keeps its groups' storage, plan_batch.h).
  std::vector<Delivery> kept_deliveries_;
  sc_core::sc_event complete_event_;
  std::vector<uint8_t> buffer_;
  std::vector<TileGrants> grants_;  // by tile
  tlm::tlm_generic_payload transfer_;  // every copy's tile accesses (one payload, reused)
  std::vector<Problem> errors_;
  std::vector<streaming::GatewayCopy> copies_of_phase_;
  std::vector<std::vector<uint8_t>> copy_data_;  // one buffer per copy of the phase
  uint64_t copies_ = 0, copy_bytes_ = 0;
  uint64_t exchanges_ = 0, failed_ = 0, messages_ = 0, bytes_ = 0;
  ExchangeHostTicks host_ticks_;
  uint64_t generation_ = 0;  // reset() count: an exchange planned before one is dropped
};

}  // namespace ipusim::exchange
