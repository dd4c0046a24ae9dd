// Ends or pauses the simulation at the right simulated time (two SystemC methods).
//
// Tiles compute ahead of SystemC time, so what stops a run (a fault, a failed exchange, a
// sync deadlock, the last halt) is known before simulated time reaches it. Each is a
// request at its tile cycle; the control keeps the earliest (cycle, then kind in the
// order of RunEndKind, then ipu, tile) and pauses the kernel (sc_pause) when SystemC time gets
// there. Any
// earlier event still happens first, so the run ends at the first stop in simulated
// time whatever order the requests came in, and SystemC time ends at that cycle.
//
// A pause (request_pause: a copy began to wait on a host stream) is no end: the kernel
// pauses once everything due at the current SystemC time has run (no delta left), so
// every copy that blocks at that time is waiting when the host looks, and the host's
// service starts from a state that does not depend on the order of the deltas. The run
// goes on after resume().
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <systemc>

#include "common/clock.h"
#include "common/run_end.h"

namespace ipusim::platform {

struct StopRequest {
  // Fault, ExchangeError, Deadlock, Halted (the last tile halted), Budget or Interrupted:
  // Budget and Interrupted come last, so a run that ends otherwise at the same cycle ended
  // so (run_budget.h).
  uint64_t cycle = 0;
  RunEndKind kind = RunEndKind::Halted;
  uint32_t ipu = 0, tile = 0;  // the tile that stopped (Deadlock: one that waits; Budget: none)

  bool before(const StopRequest& other) const;
};

class RunControl : public sc_core::sc_module {
 public:
  // The stop pauses the kernel (sc_pause) rather than ending it, so the caller can read
  // the result and, after rearm(), simulate again (a device's next run).
  RunControl(sc_core::sc_module_name name, double clock_hz);

  // Forget the request that fired (or is pending), for the next run; cycle 0 at *epoch.
  void rearm();
  void set_epoch(const sc_core::sc_time* epoch) { clock_.set_epoch(epoch); }

  // From the kernel's thread during the simulation.
  void request(StopRequest request);
  // The request that ended the run (empty if the simulation ran out of events first).
  const std::optional<StopRequest>& fired() const { return fired_; }

  // From the kernel's thread: pause at the end of the current time (see above).
  void request_pause();
  // The kernel paused for a request_pause() and the run has not been resumed since.
  bool paused() const { return paused_; }
  void resume() { paused_ = false; }

 private:
  void fire();   // SC_METHOD
  void pause();  // SC_METHOD: pauses once no delta is left at the current time

  TileClock clock_;
  std::optional<StopRequest> best_;
  std::optional<StopRequest> fired_;
  sc_core::sc_event stop_event_;
  sc_core::sc_event pause_event_;
  bool paused_ = false;
};

}  // namespace ipusim::platform
