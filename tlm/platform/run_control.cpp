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
}

void RunControl::request(StopRequest request) {
  if (fired_ || (best_ && !request.before(*best_))) return;
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

void RunControl::rearm() {
  stop_event_.cancel();
  best_.reset();
  fired_.reset();
}

}  // namespace ipusim::platform
