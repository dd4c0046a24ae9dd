// The tile engine: runs the compute stretches of all ready tiles as parallel batches on a
// pool of host threads, driven by one SystemC process.
//
// A tile becomes ready when the simulation starts and whenever the sync controller or
// the exchange fabric releases it (Tile::resume -> schedule()). Releases of one sync reach
// every tile of the zone in the same SystemC time step, so the engine, woken one delta
// later, finds them all on its ready list and runs them as one batch:
//
//   1. parallel: Tile::compute() for every tile of the batch (the ISS runs the tile to its
//      next sync / xwait / halt / fault). Longest previous stretch first, handed out one
//      tile at a time (host_pool.h).
//   2. serial, back in the kernel: Tile::finish_compute() for every tile in (ipu, tile)
//      order: console lines, accounting, and the stop sent through the tile's sockets.
//
// Why this is exact: between a release and its next stop a tile reads and writes only its
// own core and SRAM (BSP: the exchange moves data only while the tiles involved wait), so
// the order and the host thread in which tiles compute cannot change any result; all
// interaction happens in step 2, whose order is fixed. Every host thread count gives the
// same bytes and the same cycles. SystemC time is not advanced here at all: it advances
// when the controller and the fabric wait for their release times.
//
// With an instruction trace on, the tiles of a batch compute one after another on the
// kernel's thread in (ipu, tile) order (the trace sink is not thread-safe and its line
// order must not depend on the host).
//
// Statistics: batches(), iss_seconds() (wall time inside step 1: the ISS's share of the
// run), host_threads().
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include <systemc>

#include "tile/host_pool.h"

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
  // One tile at a time on the kernel's thread, in (ipu, tile) order (instruction traces).
  void set_serial(bool serial) { serial_ = serial; }

  unsigned host_threads() const { return pool_.threads(); }
  uint64_t batches() const { return batches_; }
  uint64_t tiles_computed() const { return tiles_computed_; }
  double iss_seconds() const { return iss_seconds_; }

 private:
  void drive();  // SC_THREAD
  void run_batch();

  HostPool pool_;
  bool serial_ = false;
  std::vector<Tile*> ready_;
  std::vector<Tile*> batch_;   // the running batch, (ipu, tile) order
  std::vector<Tile*> order_;   // the same tiles, longest previous stretch first
  sc_core::sc_event work_;
  bool wake_pending_ = false;  // work_ is notified for the next delta (one notify per batch)
  uint64_t batches_ = 0;
  uint64_t tiles_computed_ = 0;
  double iss_seconds_ = 0;
};

}  // namespace ipusim::tile
