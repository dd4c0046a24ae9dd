// A tile's state at a sync, out and back (tile.h TileSnapshot, docs/checkpoints.md).
#include <stdexcept>

#include <fmt/format.h>

#include "tile/tile.h"

namespace ipusim::tile {

TileSnapshot Tile::snapshot() const {
  const std::string who = fmt::format("ipu {} tile {}", identity().ipu, identity().tile);
  if (!core_) throw std::logic_error(who + ": no program booted");
  if (run_.state != TileState::AtSync && run_.state != TileState::Halted)
    throw std::logic_error(fmt::format("{} is {}, not waiting at a sync or halted", who, to_string(run_.state)));
  if (!run_.console.empty() || run_.paused)
    throw std::logic_error(who + ": its stretch is not finished (console lines or a pause pending)");
  TileSnapshot s;
  s.core = core_->snapshot();
  s.resume_cycle = run_.resume_cycle;
  s.stop_cycle = run_.stop_cycle;
  s.prev_stop_cycle = run_.prev_stop_cycle;
  s.last_stretch_cycles = run_.last_stretch_cycles;
  s.instret = run_.instret;
  s.sync_zone = run_.sync_msg.zone;
  s.sync_arrival = run_.sync_msg.cycle;
  s.syncs = run_.syncs;
  s.sync_stall_cycles = run_.sync_stall_cycles;
  s.exchanges = run_.exchanges;
  s.exchange_stall_cycles = run_.exchange_stall_cycles;
  s.exchange_bytes_out = run_.exchange_bytes_out;
  s.exchange_bytes_in = run_.exchange_bytes_in;
  s.supersteps = run_.supersteps.state();
  s.halted = run_.state == TileState::Halted;
  s.exit_code = run_.exit_code;
  return s;
}

void Tile::restore(const TileSnapshot& s) {
  const std::string who = fmt::format("ipu {} tile {}", identity().ipu, identity().tile);
  if (!core_) throw std::invalid_argument(who + ": no program booted to restore into");
  if (s.halted) {
    restore_halted(s);
    return;
  }
  if (s.sync_zone != 1 && s.sync_zone != 2)
    throw std::invalid_argument(fmt::format("{}: waits at sync zone {}", who, s.sync_zone));
  if (!s.core.stop_reason || *s.core.stop_reason != uint8_t(iss::StopReason::Sync) || !s.core.awaiting_release)
    throw std::invalid_argument(who + ": its core is not stopped at a sync");
  core_->restore(s.core);
  if (!run_.supersteps.set_state(s.supersteps))
    throw std::invalid_argument(fmt::format("{}: superstep phase {}", who, s.supersteps.phase));
  run_.state = TileState::Running;  // the replayed stop makes it AtSync again
  run_.stop = iss::StopInfo{};
  run_.pending_release = Release::None;
  restore_figures(s);
  run_.computed = false;
  run_.sync_msg.kind = sync::SyncMessage::Kind::Arrive;
  run_.sync_msg.tile = identity().tile;
  run_.sync_msg.zone = s.sync_zone;
  run_.sync_msg.cycle = s.sync_arrival;
  run_.replay_arrival = true;
}

// Halted before the checkpoint: its figures as they were; start() leaves it halted.
void Tile::restore_halted(const TileSnapshot& s) {
  const std::string who = fmt::format("ipu {} tile {}", identity().ipu, identity().tile);
  if (!s.core.stop_reason || *s.core.stop_reason != uint8_t(iss::StopReason::Halted))
    throw std::invalid_argument(who + ": halted, but its core is not");
  core_->restore(s.core);
  if (!run_.supersteps.set_state(s.supersteps))
    throw std::invalid_argument(fmt::format("{}: superstep phase {}", who, s.supersteps.phase));
  run_.state = TileState::Halted;
  run_.stop = iss::StopInfo{};
  run_.stop.reason = iss::StopReason::Halted;
  run_.stop.exit_code = s.exit_code;
  run_.exit_code = s.exit_code;
  run_.pending_release = Release::None;
  restore_figures(s);
  run_.computed_stop_cycle = s.stop_cycle;
  run_.computed = true;
}

// What a tile restored at a sync and a halted one take alike: its cycles, instructions,
// sync and exchange figures; no exchange phase open and no sync message yet.
void Tile::restore_figures(const TileSnapshot& s) {
  run_.resume_cycle = s.resume_cycle;
  run_.stop_cycle = s.stop_cycle;
  run_.prev_stop_cycle = s.prev_stop_cycle;
  run_.last_stretch_cycles = s.last_stretch_cycles;
  run_.instret = s.instret;
  run_.exchange_phase_open = false;
  run_.sync_msg = sync::SyncMessage{};
  run_.syncs = s.syncs;
  run_.sync_stall_cycles = s.sync_stall_cycles;
  run_.exchanges = s.exchanges;
  run_.exchange_stall_cycles = s.exchange_stall_cycles;
  run_.exchange_bytes_out = s.exchange_bytes_out;
  run_.exchange_bytes_in = s.exchange_bytes_in;
}

}  // namespace ipusim::tile
