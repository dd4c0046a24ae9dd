// The sync controller of one IPU: releases the IPU's tiles from a BSP sync once every
// participating tile has arrived, with a latency that grows with each tile's distance
// from the controller (sync_latency.h, docs/sync.md).
//
//   zone 1 (IPU)    every participating tile of this IPU arrives; the controller releases
//                   tile t at  G + latency_min + way_out(t),
//                   G = max over tiles u of (arrival(u) + way_in(u)).
//   zone 2 (group)  the IPU gathers the same way, then waits for every IPU of the sync
//                   group (group_sync.h); tile t is released at
//                   base + latency_min + way_out(t), base = max over IPUs of G + group latency.
//
// The controller waits (SystemC time) once per sync, until the earliest release, then
// answers every waiting tile in tile order with its release cycle (annotated delays for
// the later ones). A sync that can never complete — a participant halted (Leave) while
// others wait, or the IPU's tiles wait at different zones — is reported to the observer
// as a deadlock naming the waiting tiles and the ones that will never arrive.
//
// Sockets
//   tile_socket  TLM-2.0 target (multi-passthrough; binding i = tile i of the IPU, zero or
//                more bindings). Non-blocking transport only; payload and protocol:
//                sync_payload.h. Arrivals and leaves may carry annotated delays (tiles run
//                ahead of SystemC time); their cycle is in the message.
//
// Parameters (SyncControllerConfig): the IPU's index and tile count, the chip's
// sync.latency_min_cycles / latency_max_cycles, the tile clock.
//
// Statistics: syncs_completed(zone), participants(), release_ticks() (host time answering
// releases, in common/host_clock.h ticks: a host figure).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <systemc>
#include <tlm>
#include <tlm_utils/multi_passthrough_target_socket.h>

#include "common/config.h"
#include "sync/group_sync.h"
#include "sync/release_timing.h"
#include "sync/sync_latency.h"
#include "sync/sync_payload.h"
#include "common/clock.h"
#include "common/problem.h"

namespace ipusim::sync {

struct SyncControllerConfig {
  uint32_t ipu = 0;
  uint32_t tiles = 1;                 // tiles of the IPU (bindings of tile_socket)
  uint32_t latency_min_cycles = 16;   // config sync.latency_min_cycles
  uint32_t latency_max_cycles = 80;   // config sync.latency_max_cycles
  double clock_hz = 1e9;              // tile clock

  static SyncControllerConfig from(const config::ChipConfig& chip, uint32_t ipu);
};

// A sync that can never complete.
struct SyncDeadlock {
  uint64_t cycle = 0;  // tile cycle at which it became certain
  struct Waiting {
    uint32_t ipu = 0, tile = 0, zone = 0;
    uint64_t since = 0;  // arrival cycle
  };
  struct Absent {
    uint32_t ipu = 0, tile = 0;
    std::string why;  // "halted at cycle 24", "waits at zone 2", "did not arrive"
  };
  std::vector<Waiting> waiting;         // (ipu, tile) order
  std::vector<Absent> never_arriving;   // (ipu, tile) order
  uint64_t superstep = 0;               // syncs the controller had released
  // The problem record: code Deadlock, kind "sync", the first tile that never arrives
  // as ipu / tile (else the first waiter), every absent tile, the waiters, the
  // cycle and superstep. Its text (to_text): "sync deadlock: 2 tile(s) wait at
  // a sync that can never complete: ipu 0 tile 1 (zone 1, since cycle 30), ...; 1 tile(s)
  // never arrive: ipu 0 tile 0 (halted at cycle 24)".
  Problem problem() const;
};

class SyncObserver {
 public:
  virtual ~SyncObserver() = default;
  // Called when a deadlock becomes certain, and again if an event seen later makes its
  // cycle earlier.
  virtual void sync_deadlock(const SyncDeadlock& deadlock) = 0;
};

class SyncController : public sc_core::sc_module, private GroupMember {
 public:
  using TileSocket = tlm_utils::multi_passthrough_target_socket<
      SyncController, 32, tlm::tlm_base_protocol_types, 0, sc_core::SC_ZERO_OR_MORE_BOUND>;
  TileSocket tile_socket;

  SyncController(sc_core::sc_module_name name, const SyncControllerConfig& config,
                 GroupSync& group);

  // Before the simulation: the tiles that take part in this IPU's syncs (those running a
  // program), then join_group() once if there is any.
  void set_participant(uint32_t tile);
  void join_group();
  void set_observer(SyncObserver* observer) { observer_ = observer; }
  // Before the simulation: time the releases with `timing` (e.g. RTL behind a
  // transactor, tlm/cosim/sync) instead of the controller's own arithmetic; it must
  // outlive the controller. nullptr: the arithmetic.
  void set_timing(ReleaseTiming* timing) { timing_ = timing; }

  // A host's run (tlm/host_if, docs/host_if.md "Running"): the superstep gate. After
  // set_superstep_limit(n) (n > 0) the controller counts the releases it computes and
  // holds the n-th: its tiles stay waiting, nothing is scheduled, so the simulation
  // starves there. continue_run(n) answers what was held at the release cycles already
  // computed (so a split run has the cycles of an unsplit one) and gates again from 0;
  // n = 0 turns the gate off.
  void set_superstep_limit(uint32_t n);
  // The gate by cycle (a checkpoint's `cycle:C`, docs/checkpoints.md): hold the first
  // release whose base is at or after `cycle` (zone 1: the gather, the last arrival plus
  // its way to the controller; zone 2: the group's base); 0: off. continue_run turns it off.
  void set_cycle_limit(uint64_t cycle) { cycle_limit_ = cycle; }
  void continue_run(uint32_t n);
  bool holding() const { return !held_.empty(); }
  // Syncs released since the last reset, both zones (a held release is not counted yet).
  uint64_t releases() const { return completed_[0] + completed_[1]; }
  // Back to the state after elaboration: no participant, nothing waiting or pending,
  // counters zero (a release in flight is dropped).
  void reset();
  // Cycle 0 is SystemC time *epoch (the run's start).
  void set_epoch(const sc_core::sc_time* epoch) { clock_.set_epoch(epoch); }

  const SyncControllerConfig& config() const { return config_; }
  const SyncLatency& latency() const { return latency_; }
  uint32_t participants() const { return participant_count_; }
  // Participants that halted (left) since the last reset.
  uint32_t departed() const { return left_count_; }
  uint64_t syncs_completed(uint32_t zone) const { return completed_[zone == 2 ? 1 : 0]; }
  uint64_t release_ticks() const { return release_ticks_; }
  // A checkpoint's restore (docs/checkpoints.md): the releases counted before it, by
  // zone, put back before the run starts (the tiles' arrivals are sent again).
  // And each participant that had halted, at its halt cycle, as its Leave did: counted
  // departed here and in the group. Throws std::invalid_argument for a tile that is no
  // participant or left already.
  void restore_departed(uint32_t tile, uint64_t halt_cycle);
  void restore_releases(uint64_t zone1, uint64_t zone2) {
    completed_[0] = zone1;
    completed_[1] = zone2;
  }
  // The deadlock this controller reported, described with every tile that arrived or
  // halted by its cycle (also those seen after it was reported).
  std::optional<SyncDeadlock> deadlock() const;
  // The tiles waiting now and the participants that are not: for the end of a run that
  // stopped with tiles still waiting (nothing if none waits).
  std::optional<SyncDeadlock> stuck() const;

 private:
  struct Waiter {
    int id;
    tlm::tlm_generic_payload* trans;
    SyncMessage* msg;
  };
  struct Release {
    int id;
    tlm::tlm_generic_payload* trans;
    SyncMessage* msg;
  };

  tlm::tlm_sync_enum nb_transport_fw(int id, tlm::tlm_generic_payload& trans,
                                     tlm::tlm_phase& phase, sc_core::sc_time& delay);
  tlm::tlm_sync_enum refuse(tlm::tlm_generic_payload& trans, tlm::tlm_response_status status);
  void arrive(int id, tlm::tlm_generic_payload& trans, SyncMessage& msg);
  void leave(SyncMessage& msg);
  void release_zone(uint32_t zone, uint64_t base_cycle);  // base: before min + way out
  void time_releases(uint32_t zone, uint64_t base_cycle, const std::vector<Waiter>& waiters);
  void collect_arrivals(const std::vector<Waiter>& waiters);  // into arrivals_ (tile order)
  void queue_release(const Release& r);  // for the release thread, earliest_release_ kept
  void wake_release_thread();
  void release_thread();  // SC_THREAD: answers due releases
  void check_deadlock();
  SyncDeadlock describe(uint64_t cycle, bool with_running) const;

  // GroupMember
  void group_released(uint64_t base_cycle) override;
  void group_member_left() override;

  SyncControllerConfig config_;
  SyncLatency latency_;
  TileClock clock_;
  GroupSync& group_;
  SyncObserver* observer_ = nullptr;
  ReleaseTiming* timing_ = nullptr;    // nullptr: the arithmetic
  std::vector<SyncArrival> arrivals_;  // for timing_: the sync being timed
  std::vector<uint64_t> timed_;        // its release cycles

  std::vector<uint8_t> participant_;   // per tile: 1 = takes part
  std::vector<uint8_t> waiting_flag_;  // per tile: 1 = waits now
  std::vector<uint64_t> left_cycle_;   // per tile: halt cycle + 1, 0 = still here
  uint32_t participant_count_ = 0;
  uint32_t left_count_ = 0;
  std::vector<Waiter> waiting_[2];     // zone 1, zone 2; arrival order
  uint64_t gather_[2] = {0, 0};        // max(arrival + way in) of the waiters
  // The deadlock check's inputs, kept as events come (it runs at every arrival and halt).
  uint64_t earliest_wait_[2] = {~uint64_t{0}, ~uint64_t{0}};  // min arrival cycle of the waiters
  uint64_t earliest_halt_ = ~uint64_t{0};                     // min halt cycle of this IPU's tiles
  uint64_t latest_event_cycle_ = 0;    // latest arrival or leave seen (a stuck run's time)
  std::vector<Release> releases_;      // answered at release_event_
  uint64_t earliest_release_ = 0;
  sc_core::sc_event release_event_;
  uint64_t completed_[2] = {0, 0};
  uint64_t release_ticks_ = 0;
  bool deadlock_reported_ = false;
  uint64_t deadlock_cycle_ = 0;
  // The superstep gate.
  uint32_t limit_ = 0;                 // 0: off
  uint64_t cycle_limit_ = 0;           // set_cycle_limit; 0: off
  uint32_t since_run_ = 0;             // releases computed since the gate was set
  std::vector<Release> held_;
  uint32_t held_zone_ = 0;
};

}  // namespace ipusim::sync
