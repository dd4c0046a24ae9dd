// The tile engine: runs the compute stretches of all ready tiles as parallel batches on a
// pool of host threads, driven by one SystemC process.
//
// A tile becomes ready when the simulation starts and whenever the sync controller or
// the exchange fabric releases it (Tile::resume -> schedule()). Releases of one sync reach
// every tile of the zone in the same SystemC time step, so the engine, woken one delta
// later, finds them all on its ready list and runs them as one batch. The batch is put in
// a fixed order (longest previous stretch first, then (ipu, tile)) and then
//
//   - Tile::compute() runs for every tile on the pool's threads (the ISS runs the tile to
//     its next sync / xwait / halt / fault), tiles handed out one at a time in that order;
//   - Tile::finish_compute() runs for every tile on the kernel's thread, in that same
//     order, each as soon as its compute is done: console lines, accounting, and the stop
//     sent through the tile's sockets. The kernel's thread computes tiles itself whenever
//     the next tile to finish is not done yet (HostPool::run_ordered), so this serial
//     work overlaps the parallel work.
//
// Why this is exact: between a release and its next stop a tile reads and writes only its
// own core and SRAM (BSP: the exchange moves data only while the tiles involved wait), so
// which host thread computes a tile, and when, cannot change any result; every
// interaction happens in finish_compute() and in the controller's and fabric's processes,
// in an order fixed by simulated figures alone. Every host thread count gives the same
// bytes and the same cycles. SystemC time is not advanced here at all: it advances when
// the controller and the fabric wait for their release times.
//
// Traced tiles (Tile::traced(): an instruction trace) compute on the kernel's thread, each
// just before its finish_compute(), so in the batch's order whatever the host thread
// count (the trace sink is not thread-safe and its line order must not depend on the
// host); the other tiles of the batch compute in parallel meanwhile, so a trace of a few
// tiles costs little more than their own tracing.
//
// Console: a tile whose console buffer fills (tile.h, kConsoleBufferBytes) pauses in
// its stretch; its finish_compute() delivers the lines and nothing else. After the
// batch's ordered pass the engine finishes those stretches in the same batch, one tile
// at a time in (ipu, tile) order on the kernel's thread: before each, and after each
// buffer it fills, it tells the platform (set_console_ready) that every line of the batch
// up to that tile has arrived, so the platform prints them and holds at most a buffer
// per tile. The lines keep the order of an unbounded buffer (the batch, then (ipu, tile),
// then emission), the batch stays one batch (its end, the budgets' checks, come once),
// and pausing changes no cycle (iss::ConsoleSink). Only printing more than a buffer per
// stretch serialises those tiles.
//
// Cycle stepping (set_cycle_stepping; a debugger): instead of batches, the tiles advance one cycle
// at a time in simulated order, never ahead of the next SystemC activity, serially on the
// kernel's thread (cycle_stepping.h). Slow (a few tile-instructions per microsecond), exact, and
// the same bytes and cycles as batches.
//
// Statistics: batches(), host_threads(), batch_seconds() (wall time of the batches; the
// rest of the run is serial: the kernel, the controllers, the fabric), iss_seconds()
// (batch_seconds minus the kernel thread's time in finish_compute(): what the kernel
// thread did not spend on the models, counting overlapped finishes as model time too).
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <unordered_map>
#include <vector>

#include <systemc>

#include "common/host_clock.h"
#include "tile/host_pool.h"
#include "tile/cycle_stepping.h"

namespace ipusim::tile {

class Tile;

class TileEngine : public sc_core::sc_module {
 public:
  // `host_threads` >= 1 (the kernel's thread included).
  TileEngine(sc_core::sc_module_name name, unsigned host_threads);
  ~TileEngine() override;

  // Puts `tile` on the ready list; it computes in the engine's next batch. Call from the
  // kernel's thread (a process, a transport call) or before the simulation starts.
  void schedule(Tile& tile);
  // A host (tlm/host_if): before each batch, if *flag is set the engine pauses the
  // kernel (sc_pause), so a host's command is taken between batches; the batch runs when
  // the kernel is started again.
  void set_attention(const std::atomic<bool>* flag) { attention_ = flag; }
  // Called on the kernel's thread after every batch, a point fixed by simulated figures
  // alone (the platform's run budget checks there, and its progress line); not in
  // cycle stepping, which has no batches.
  void set_batch_end(std::function<void()> f) { batch_end_ = std::move(f); }
  // Called on the kernel's thread when every console line of batch `batch` ordered up to
  // `through` (its (ipu, tile); nullptr: the whole batch) has been delivered to the
  // tiles' listener: those lines are final.
  void set_console_ready(std::function<void(uint64_t batch, const Tile* through)> f) {
    console_ready_ = std::move(f);
  }
  // Tiles of a frozen IPU (a board stopped on an error, or being reset) are
  // dropped from the ready list and never scheduled again until unfrozen.
  void set_frozen(uint32_t ipu, bool frozen);
  // Cycle stepping under `control` (nullptr: batches again; tiles in the middle of a cycle-stepped
  // stretch finish it in the next batch). From the kernel's thread or between runs.
  void set_cycle_stepping(CycleStepControl* control);

  unsigned host_threads() const { return pool_.threads(); }
  // The pool, for other parallel work on the kernel's thread (the exchange plans): it is
  // free whenever another process runs, as a batch never yields.
  HostPool& pool() { return pool_; }
  uint64_t batches() const { return batches_; }
  uint64_t tiles_computed() const { return tiles_computed_; }
  double iss_seconds() const;
  // Wall time of the batches, the overlapped finish_compute() calls included: outside
  // it no tile computes (the serial part of the run).
  double batch_seconds() const;

 private:
  void drive();  // SC_THREAD
  void run_batch();
  void finish_console_stretches(uint64_t batch);
  void run_cycle_stepping();
  void stepping_join(Tile& tile);  // a released tile joins at its first instruction
  void stepping_settle(Tile& tile);
  bool pause_in_cycle_stepping(const CycleStepControl& control);
  uint64_t stamp_of(const Tile& tile) const;

  HostPool pool_;
  const std::atomic<bool>* attention_ = nullptr;
  std::function<void()> batch_end_;
  std::function<void(uint64_t, const Tile*)> console_ready_;
  std::vector<uint8_t> frozen_;  // by IPU
  std::vector<Tile*> ready_;
  std::vector<Tile*> batch_;   // the running batch, in its order
  std::vector<Tile*> console_full_;  // tiles of the batch paused on a full console buffer
  CycleStepControl* cycle_stepping_ = nullptr;
  // Cycle stepping: the tiles in the middle of a stretch, paused before their next instruction
  // (Tile::pause().pause_cycle), in (ipu, tile) order.
  std::vector<Tile*> stepping_;
  std::unordered_map<const Tile*, uint64_t> stamps_;  // the batch number of each stretch
  sc_core::sc_time join_time_ = sc_core::SC_ZERO_TIME;
  sc_core::sc_time delta_waited_at_ = sc_core::sc_max_time();
  unsigned delta_waits_ = 0;  // delta cycles let run at delta_waited_at_
  static constexpr unsigned kDeltaWaits = 64;
  sc_core::sc_event work_;
  bool wake_pending_ = false;  // work_ is notified for the next delta (one notify per batch)
  bool driving_ = false;       // drive() has started (before: it finds the ready list itself)
  uint64_t batches_ = 0;
  uint64_t tiles_computed_ = 0;
  HostClock timer_;  // host time in the ticks of a cheap counter (twice per tile)
  uint64_t batch_ticks_ = 0;   // inside batches
  uint64_t finish_ticks_ = 0;  // of which in finish_compute() on the kernel's thread
};

}  // namespace ipusim::tile
