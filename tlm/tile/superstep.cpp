#include "tile/superstep.h"

namespace ipusim::tile {

void SuperstepTracker::close(uint64_t end, uint64_t instret_at_end, bool complete) {
  cur_.end = end;
  cur_.instructions = instret_at_end - instret_begin_;
  cur_.complete = complete;
  sink_(cur_);
  SuperstepRecord next;
  next.index = ++next_index_;
  next.begin = end;
  cur_ = next;
  instret_begin_ = instret_at_end;
}

// The tile was released from a sync and reached its next stop without posting: the
// superstep ends at that release; the compute since then opens the next one.
void SuperstepTracker::close_empty_exchange_phase() {
  const uint64_t release = cur_.sync_release;
  cur_.exchange_start = release;
  close(release, instret_arrival_);
  phase_ = Phase::Compute;
}

void SuperstepTracker::on_sync_arrival(uint64_t cycle, uint64_t instret, uint32_t zone) {
  if (phase_ == Phase::Released) close_empty_exchange_phase();
  cur_.compute_cycles = cycle - cur_.begin;  // nothing but compute before a sync
  cur_.sync_arrival = cycle;
  cur_.sync_zone = zone;
  instret_arrival_ = instret;
  phase_ = Phase::AtSync;
}

void SuperstepTracker::on_sync_release(uint64_t cycle) {
  cur_.sync_release = cycle;
  cur_.sync_cycles = cycle - cur_.sync_arrival;
  phase_ = Phase::Released;
}

void SuperstepTracker::on_exchange_start(uint64_t cycle, uint64_t instret) {
  cur_.compute_cycles += cycle - cur_.sync_release;
  cur_.exchange_start = cycle;
  cur_.exchanged = true;
  instret_arrival_ = instret;  // the superstep's instructions end here
  phase_ = Phase::AtExchange;
}

void SuperstepTracker::on_exchange_done(uint64_t cycle, uint64_t bytes_out, uint64_t bytes_in) {
  cur_.exchange_cycles = cycle - cur_.exchange_start;
  cur_.bytes_out = bytes_out;
  cur_.bytes_in = bytes_in;
  close(cycle, instret_arrival_);
  phase_ = Phase::Compute;
}

void SuperstepTracker::on_halt(uint64_t cycle, uint64_t instret) {
  if (phase_ == Phase::Released) close_empty_exchange_phase();
  cur_.compute_cycles = cycle - cur_.begin;
  cur_.sync_arrival = cur_.sync_release = cur_.exchange_start = cycle;
  close(cycle, instret);
  phase_ = Phase::Done;
}

void SuperstepTracker::on_run_end(uint64_t cycle, uint64_t instret) {
  switch (phase_) {
    case Phase::Done:
      return;
    case Phase::Compute:
      cur_.compute_cycles = cycle > cur_.begin ? cycle - cur_.begin : 0;
      cur_.sync_arrival = cur_.sync_release = cur_.exchange_start = cycle;
      break;
    case Phase::AtSync:  // arrived, never released
      cur_.sync_release = cur_.exchange_start = cur_.sync_arrival;
      cycle = cur_.sync_arrival;
      break;
    case Phase::Released:  // released, the run ended before its next stop
      cur_.exchange_start = cur_.sync_release;
      cycle = cur_.sync_release;
      break;
    case Phase::AtExchange:  // posted, never completed
      cycle = cur_.exchange_start;
      break;
  }
  close(cycle, instret, /*complete=*/false);
  phase_ = Phase::Done;
}

}  // namespace ipusim::tile
