#include "common/clock.h"

#include <cmath>
#include <stdexcept>
#include <string>

namespace ipusim {

TileClock::TileClock(double clock_hz) {
  if (!(clock_hz >= 1.0) || clock_hz > 1e15)
    throw std::invalid_argument("tile clock must be between 1 Hz and 1 PHz, got " +
                                std::to_string(clock_hz));
  hz_ = uint64_t(std::llround(clock_hz));
  // The kernel's resolution is fixed from the first SystemC time made, which every model
  // does while elaborating; reading it per call cost more than the division below.
  const double res_seconds = sc_core::sc_get_time_resolution().to_seconds();
  units_per_second_ = uint64_t(std::llround(1.0 / res_seconds));
}

sc_core::sc_time TileClock::time_of(uint64_t cycle) const {
  // round(cycle * units / hz) in 128-bit integers: exact for any cycle count.
  const unsigned __int128 num = static_cast<unsigned __int128>(cycle) * units_per_second_;
  const unsigned __int128 value = (num + hz_ / 2) / hz_;
  // Past the last time SystemC can count, the time saturates there rather than wrapping
  // to an early one (a budget of 2^60 cycles must not stop a run at once).
  const sc_dt::uint64 last = sc_core::sc_max_time().value();
  const sc_dt::uint64 epoch = epoch_ ? epoch_->value() : 0;
  if (value > last - epoch) return sc_core::sc_max_time();
  return sc_core::sc_time::from_value(epoch + static_cast<sc_dt::uint64>(value));
}

uint64_t TileClock::cycle_at(const sc_core::sc_time& t) const {
  const sc_core::sc_time epoch = epoch_ ? *epoch_ : sc_core::SC_ZERO_TIME;
  if (t <= epoch) return 0;
  // The inverse of time_of's rounding: an estimate, then the exact neighbour.
  const unsigned __int128 units = (t - epoch).value();
  uint64_t c = static_cast<uint64_t>(units * hz_ / units_per_second_);
  while (time_of(c + 1) <= t && reachable(c + 1)) ++c;  // a saturated time_of() ends it
  while (c > 0 && time_of(c) > t) --c;
  return c;
}

}  // namespace ipusim
