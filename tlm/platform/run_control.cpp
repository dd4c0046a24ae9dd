#include "platform/run_control.h"

#include <tuple>

namespace ipusim::platform {

bool StopRequest::before(const StopRequest& o) const {
  return std::tie(cycle, kind, ipu, tile) < std::tie(o.cycle, o.kind, o.ipu, o.tile);
}

RunControl::RunControl(sc_core::sc_module_name name, double clock_hz) : sc_module(name), clock_(clock_hz) {
  SC_HAS_PROCESS(RunControl);
  SC_METHOD(fire);
  sensitive << stop_event_;
  dont_initialize();
  SC_METHOD(pause);
  sensitive << pause_event_;
  dont_initialize();
}

void RunControl::request(StopRequest request) {
  if (fired_ || (best_ && !request.before(*best_))) return;
  // A stop beyond the last time SystemC counts (a budget near 2^64 cycles) can never come:
  // such a budget is no limit.
  if (!clock_.reachable(request.cycle)) return;
  best_ = std::move(request);
  const sc_core::sc_time at = clock_.time_of(best_->cycle);
  const sc_core::sc_time now = sc_core::sc_time_stamp();
  // An earlier notification replaces a pending later one.
  stop_event_.notify(at > now ? at - now : sc_core::SC_ZERO_TIME);
}

void RunControl::fire() {
  if (fired_ || !best_) return;
  fired_ = best_;
  sc_core::sc_pause();
}

void RunControl::request_pause() { pause_event_.notify(sc_core::SC_ZERO_TIME); }

// Another delta while anything else is due now: the pause comes after the last of them.
void RunControl::pause() {
  if (fired_) return;
  if (sc_core::sc_pending_activity_at_current_time()) {
    pause_event_.notify(sc_core::SC_ZERO_TIME);
    return;
  }
  paused_ = true;
  sc_core::sc_pause();
}

void RunControl::rearm() {
  stop_event_.cancel();
  pause_event_.cancel();
  paused_ = false;
  best_.reset();
  fired_.reset();
}

}  // namespace ipusim::platform
