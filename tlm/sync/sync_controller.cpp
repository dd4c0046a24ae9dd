#include "sync/sync_controller.h"

#include <algorithm>
#include <stdexcept>
#include <tuple>

#include <fmt/format.h>

#include "common/host_clock.h"
#include "common/payload.h"

namespace ipusim::sync {
namespace {

}  // namespace

Problem SyncDeadlock::problem() const {
  Problem p;
  p.code = ProblemCode::Deadlock;
  p.kind = "sync";
  p.cycle = cycle;
  p.superstep = superstep;
  // The tile to look at is one that never arrives; with none (a run that starved), a waiter.
  if (!never_arriving.empty()) {
    p.ipu = never_arriving.front().ipu;
    p.tile = never_arriving.front().tile;
  } else if (!waiting.empty()) {
    p.ipu = waiting.front().ipu;
    p.tile = waiting.front().tile;
  }
  for (const Absent& a : never_arriving) p.absent.push_back({a.ipu, a.tile, a.why});
  for (const Waiting& w : waiting)
    p.waiters.push_back({w.ipu, w.tile, fmt::format("zone {}, since cycle {}", w.zone, w.since)});
  return p;
}

SyncControllerConfig SyncControllerConfig::from(const config::ChipConfig& chip, uint32_t ipu) {
  SyncControllerConfig c;
  c.ipu = ipu;
  c.tiles = chip.tiles;
  c.latency_min_cycles = chip.sync.latency_min_cycles;
  c.latency_max_cycles = chip.sync.latency_max_cycles;
  c.clock_hz = chip.clock_hz;
  return c;
}

SyncController::SyncController(sc_core::sc_module_name name, const SyncControllerConfig& config,
                               GroupSync& group)
    : sc_module(name),
      tile_socket("tile_socket"),
      config_(config),
      latency_(config.tiles, config.latency_min_cycles, config.latency_max_cycles),
      clock_(config.clock_hz),
      group_(group),
      participant_(config.tiles, 0),
      waiting_flag_(config.tiles, 0),
      left_cycle_(config.tiles, 0) {
  tile_socket.register_nb_transport_fw(this, &SyncController::nb_transport_fw);
  SC_HAS_PROCESS(SyncController);
  SC_THREAD(release_thread);
}

void SyncController::set_participant(uint32_t tile) {
  if (tile >= config_.tiles) throw std::out_of_range(fmt::format("sync controller: no tile {}", tile));
  if (!participant_[tile]) ++participant_count_;
  participant_[tile] = 1;
}

void SyncController::join_group() {
  if (participant_count_ > 0) group_.join(*this);
}

tlm::tlm_sync_enum SyncController::refuse(tlm::tlm_generic_payload& trans,
                                          tlm::tlm_response_status status) {
  trans.set_response_status(status);
  return tlm::TLM_COMPLETED;
}

tlm::tlm_sync_enum SyncController::nb_transport_fw(int id, tlm::tlm_generic_payload& trans,
                                                   tlm::tlm_phase& phase, sc_core::sc_time&) {
  if (phase != tlm::BEGIN_REQ) return tlm::TLM_ACCEPTED;  // END_RESP: nothing to do
  SyncMessage* msg = message_of<SyncMessage>(trans);
  if (!msg || msg->tile != uint32_t(id) || uint32_t(id) >= config_.tiles)
    return refuse(trans, tlm::TLM_COMMAND_ERROR_RESPONSE);
  if (!participant_[id] || left_cycle_[id] != 0) return refuse(trans, tlm::TLM_GENERIC_ERROR_RESPONSE);
  latest_event_cycle_ = std::max(latest_event_cycle_, msg->cycle);
  if (msg->kind == SyncMessage::Kind::Leave) {
    if (waiting_flag_[id]) return refuse(trans, tlm::TLM_GENERIC_ERROR_RESPONSE);
    leave(*msg);
    trans.set_response_status(tlm::TLM_OK_RESPONSE);
    return tlm::TLM_COMPLETED;
  }
  if (msg->kind != SyncMessage::Kind::Arrive || (msg->zone != 1 && msg->zone != 2) ||
      waiting_flag_[id])
    return refuse(trans, tlm::TLM_GENERIC_ERROR_RESPONSE);
  arrive(id, trans, *msg);
  phase = tlm::END_REQ;
  return tlm::TLM_UPDATED;
}

void SyncController::arrive(int id, tlm::tlm_generic_payload& trans, SyncMessage& msg) {
  const unsigned z = msg.zone - 1;
  waiting_flag_[id] = 1;
  waiting_[z].push_back(Waiter{id, &trans, &msg});
  gather_[z] = std::max(gather_[z], msg.cycle + latency_.to_controller(uint32_t(id)));
  earliest_wait_[z] = std::min(earliest_wait_[z], msg.cycle);
  if (waiting_[z].size() == participant_count_) {
    const uint64_t gather = gather_[z];
    if (msg.zone == 1) {
      release_zone(1, gather);
    } else if (timing_) {
      collect_arrivals(waiting_[1]);
      group_.arrive(*this, timing_->gather_zone2(arrivals_));  // may call group_released() at once
    } else {
      group_.arrive(*this, gather);  // may call group_released() at once
    }
    return;
  }
  check_deadlock();
}

void SyncController::leave(SyncMessage& msg) {
  left_cycle_[msg.tile] = msg.cycle + 1;
  ++left_count_;
  earliest_halt_ = std::min(earliest_halt_, msg.cycle);
  group_.left(config_.ipu, msg.tile, msg.cycle);  // calls group_member_left() on every IPU
}

void SyncController::restore_departed(uint32_t tile, uint64_t halt_cycle) {
  if (tile >= config_.tiles || !participant_[tile] || left_cycle_[tile] != 0)
    throw std::invalid_argument(fmt::format("ipu {} tile {}: not a participant still here", config_.ipu, tile));
  latest_event_cycle_ = std::max(latest_event_cycle_, halt_cycle);
  SyncMessage msg;
  msg.kind = SyncMessage::Kind::Leave;
  msg.tile = tile;
  msg.cycle = halt_cycle;
  leave(msg);
}

void SyncController::group_released(uint64_t base_cycle) { release_zone(2, base_cycle); }

void SyncController::group_member_left() { check_deadlock(); }

void SyncController::release_zone(uint32_t zone, uint64_t base_cycle) {
  std::vector<Waiter>& waiters = waiting_[zone - 1];
  std::sort(waiters.begin(), waiters.end(), [](const Waiter& a, const Waiter& b) { return a.id < b.id; });
  bool hold = limit_ != 0 && ++since_run_ >= limit_;
  if (cycle_limit_ != 0 && base_cycle >= cycle_limit_) hold = true;
  if (timing_) time_releases(zone, base_cycle, waiters);
  for (const Waiter& w : waiters) {
    if (!timing_)
      w.msg->release_cycle = base_cycle + latency_.min_cycles() + latency_.from_controller(uint32_t(w.id));
    waiting_flag_[w.id] = 0;
    if (hold)
      held_.push_back(Release{w.id, w.trans, w.msg});
    else
      queue_release(Release{w.id, w.trans, w.msg});
  }
  waiters.clear();
  gather_[zone - 1] = 0;
  earliest_wait_[zone - 1] = ~uint64_t{0};
  if (hold) {
    held_zone_ = zone;
    return;
  }
  ++completed_[zone - 1];
  wake_release_thread();
}

void SyncController::collect_arrivals(const std::vector<Waiter>& waiters) {
  arrivals_.clear();
  for (const Waiter& w : waiters) arrivals_.push_back(SyncArrival{uint32_t(w.id), w.msg->cycle});
  std::sort(arrivals_.begin(), arrivals_.end(),
            [](const SyncArrival& a, const SyncArrival& b) { return a.tile < b.tile; });
}

// The releases from timing_ (waiters sorted by tile, as arrivals_ for zone 2 were).
void SyncController::time_releases(uint32_t zone, uint64_t base_cycle, const std::vector<Waiter>& waiters) {
  timed_.assign(waiters.size(), 0);
  if (zone == 1) {
    collect_arrivals(waiters);
    timing_->release_zone1(arrivals_, timed_);
  } else {
    timing_->release_zone2(base_cycle, timed_);
  }
  for (size_t i = 0; i < waiters.size(); ++i) waiters[i].msg->release_cycle = timed_[i];
}

void SyncController::set_superstep_limit(uint32_t n) {
  limit_ = n;
  since_run_ = 0;
}

void SyncController::continue_run(uint32_t n) {
  set_superstep_limit(n);
  cycle_limit_ = 0;
  if (held_.empty()) return;
  for (const Release& r : held_) queue_release(r);
  held_.clear();
  ++completed_[held_zone_ - 1];
  wake_release_thread();
}

void SyncController::queue_release(const Release& r) {
  if (releases_.empty() || r.msg->release_cycle < earliest_release_) earliest_release_ = r.msg->release_cycle;
  releases_.push_back(r);
}

// The release thread answers releases_ at their cycles: wake it at the earliest one.
void SyncController::wake_release_thread() {
  const sc_core::sc_time at = clock_.time_of(earliest_release_);
  const sc_core::sc_time now = sc_core::sc_time_stamp();
  release_event_.notify(at > now ? at - now : sc_core::SC_ZERO_TIME);
}

void SyncController::reset() {
  release_event_.cancel();
  if (timing_) timing_->reset();
  std::fill(participant_.begin(), participant_.end(), 0);
  std::fill(waiting_flag_.begin(), waiting_flag_.end(), 0);
  std::fill(left_cycle_.begin(), left_cycle_.end(), 0);
  participant_count_ = left_count_ = 0;
  for (auto& w : waiting_) w.clear();
  gather_[0] = gather_[1] = 0;
  earliest_wait_[0] = earliest_wait_[1] = earliest_halt_ = ~uint64_t{0};
  latest_event_cycle_ = 0;
  releases_.clear();
  earliest_release_ = 0;
  completed_[0] = completed_[1] = 0;
  release_ticks_ = 0;
  deadlock_reported_ = false;
  deadlock_cycle_ = 0;
  limit_ = since_run_ = 0;
  cycle_limit_ = 0;
  held_.clear();
  held_zone_ = 0;
}

void SyncController::release_thread() {
  for (;;) {
    wait(release_event_);
    HostTicksScope timed(release_ticks_);
    std::vector<Release> due;
    due.swap(releases_);
    const sc_core::sc_time now = sc_core::sc_time_stamp();
    constexpr size_t kAhead = 4;  // each answer touches a cold tile: fetch a few ahead
    for (size_t i = 0; i < due.size(); ++i) {
      if (i + kAhead < due.size()) {
        __builtin_prefetch(due[i + kAhead].trans, 1);
        __builtin_prefetch(due[i + kAhead].msg, 1);
      }
      const Release& r = due[i];
      const sc_core::sc_time at = clock_.time_of(r.msg->release_cycle);
      sc_core::sc_time delay = at > now ? at - now : sc_core::SC_ZERO_TIME;
      tlm::tlm_phase phase = tlm::BEGIN_RESP;
      r.trans->set_response_status(tlm::TLM_OK_RESPONSE);
      tile_socket[r.id]->nb_transport_bw(*r.trans, phase, delay);
    }
  }
}

// Arrivals and halts come in the order the host computed them, not in cycle order: a tile
// computed far ahead may arrive at a sync millions of cycles later before a tile that
// halted early is seen. So the deadlock's cycle is the earliest at which it was certain,
// from the earliest waiter and the earliest halt (or the earliest waiter at the other
// zone), not the latest event seen; and an event seen later that makes it earlier
// reports it again (the run keeps the earliest stop).
void SyncController::check_deadlock() {
  if (!observer_) return;
  // Constant time: this runs at every arrival and, on every IPU, at every halt.
  const bool waiting1 = !waiting_[0].empty(), waiting2 = !waiting_[1].empty();
  const bool split = waiting1 && waiting2;
  if (!(waiting1 && (left_count_ > 0 || split)) && !(waiting2 && (!group_.departures().empty() || split))) return;
  constexpr uint64_t kNever = ~uint64_t{0};
  const uint64_t at1 = earliest_wait_[0], at2 = earliest_wait_[1];
  const uint64_t halted_here = earliest_halt_, departed = group_.earliest_departure();
  uint64_t cycle = kNever;
  auto certain = [&](uint64_t a, uint64_t b) {
    if (a != kNever && b != kNever) cycle = std::min(cycle, std::max(a, b));
  };
  certain(at1, halted_here);  // zone 1 needs every tile of this IPU
  certain(at1, at2);          // tiles of one IPU wait at different zones
  certain(at2, departed);     // zone 2 needs every tile of the group
  if (cycle == kNever || (deadlock_reported_ && cycle >= deadlock_cycle_)) return;
  deadlock_reported_ = true;
  deadlock_cycle_ = cycle;
  observer_->sync_deadlock(describe(cycle, /*with_running=*/false));
}

SyncDeadlock SyncController::describe(uint64_t cycle, bool with_running) const {
  SyncDeadlock d;
  d.cycle = cycle;
  d.superstep = releases();
  // A deadlock (not with_running) is described as of its cycle: a tile computed ahead
  // that arrives or halts later is still running then.
  auto by_then = [&](uint64_t c) { return with_running || c <= cycle; };
  std::vector<uint32_t> zone_of(config_.tiles, 0);
  std::vector<uint64_t> since(config_.tiles, 0);
  for (unsigned z = 0; z < 2; ++z)
    for (const Waiter& w : waiting_[z])
      if (by_then(w.msg->cycle)) {
        zone_of[w.id] = z + 1;
        since[w.id] = w.msg->cycle;
      }
  for (uint32_t t = 0; t < config_.tiles; ++t)
    if (zone_of[t] != 0) d.waiting.push_back({config_.ipu, t, zone_of[t], since[t]});

  // Who never arrives. Zone-1 waiters need every tile of this IPU: the ones that left,
  // the ones waiting at zone 2. Zone-2 waiters need every tile of the group: the ones
  // that left anywhere, this IPU's zone-1 waiters. At the end of a run (with_running),
  // also the participants that are neither waiting nor gone.
  const bool at1 = std::find(zone_of.begin(), zone_of.end(), 1u) != zone_of.end();
  const bool at2 = std::find(zone_of.begin(), zone_of.end(), 2u) != zone_of.end();
  auto absent = [&](uint32_t ipu, uint32_t tile, std::string why) {
    for (const auto& a : d.never_arriving)
      if (a.ipu == ipu && a.tile == tile) return;
    d.never_arriving.push_back({ipu, tile, std::move(why)});
  };
  for (uint32_t t = 0; t < config_.tiles; ++t) {
    if (!participant_[t]) continue;
    if (left_cycle_[t] != 0 && by_then(left_cycle_[t] - 1))
      absent(config_.ipu, t, fmt::format("halted at cycle {}", left_cycle_[t] - 1));
    else if (zone_of[t] == 2 && at1)
      absent(config_.ipu, t, "waits at zone 2");
    else if (zone_of[t] == 1 && at2)
      absent(config_.ipu, t, "waits at zone 1");
    else if (zone_of[t] == 0 && with_running)
      absent(config_.ipu, t, "did not arrive");
  }
  if (at2)
    for (const Departure& dep : group_.departures())
      if (by_then(dep.cycle)) absent(dep.ipu, dep.tile, fmt::format("halted at cycle {}", dep.cycle));
  std::sort(d.never_arriving.begin(), d.never_arriving.end(),
            [](const auto& a, const auto& b) { return std::tie(a.ipu, a.tile) < std::tie(b.ipu, b.tile); });
  return d;
}

std::optional<SyncDeadlock> SyncController::deadlock() const {
  if (!deadlock_reported_) return std::nullopt;
  return describe(deadlock_cycle_, /*with_running=*/false);
}

std::optional<SyncDeadlock> SyncController::stuck() const {
  if (waiting_[0].empty() && waiting_[1].empty()) return std::nullopt;
  return describe(latest_event_cycle_, /*with_running=*/true);
}

}  // namespace ipusim::sync
