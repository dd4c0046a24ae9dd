#include "platform/run_budget.h"

#include <algorithm>

#include <fmt/format.h>

#include "tile/tile.h"

namespace ipusim::platform {

RunBudget::RunBudget() { bounds_.interrupt = &interrupt_; }

void RunBudget::set_limits(const RunLimits& limits) {
  limits_ = limits;
  bounds_.cycle_limit = limits.max_cycles ? limits.max_cycles : iss::RunBounds::kNone;
  // No tile can use more than the whole budget on its own.
  bounds_.instruction_limit = limits.max_instructions ? limits.max_instructions : iss::RunBounds::kNone;
}

std::optional<StopRequest> RunBudget::start() {
  instruction_stop_.reset();
  interrupt_requested_ = false;
  reached_ = 0;
  if (!limits_.max_cycles) return std::nullopt;
  StopRequest r;
  r.kind = RunEndKind::Budget;
  r.cycle = limits_.max_cycles;
  return r;
}

// A cycle limit needs nothing here (the stop at max_cycles is pending); the batch's end
// acts on the others.
void RunBudget::tile_paused(const tile::Tile& tile) {
  if (tile.pause().pause == iss::PauseReason::CycleLimit) return;
  reached_ = std::max(reached_, tile.pause().pause_cycle);
}

std::optional<StopRequest> RunBudget::batch_ended(uint64_t total, uint64_t now) {
  StopRequest r;
  r.cycle = std::max(now, reached_);
  // The flag is looked at here, not only in the tiles: a batch of short stretches may
  // never reach a quantum's end.
  if (end_on_interrupt_ && !interrupt_requested_ && interrupted()) {
    interrupt_requested_ = true;
    r.kind = RunEndKind::Interrupted;
    return r;
  }
  if (!limits_.max_instructions || instruction_stop_ || total < limits_.max_instructions) return std::nullopt;
  instruction_stop_ = r.cycle;
  r.kind = RunEndKind::Budget;
  return r;
}

Problem RunBudget::problem(const StopRequest& stop, const std::vector<RunningTile>& running,
                           uint64_t instructions, const std::vector<WaitingTile>& waiting) const {
  Problem p;
  p.cycle = stop.cycle;
  std::string still = fmt::format("{} tile(s) still running", running.size());
  if (!running.empty()) {
    p.ipu = running.front().ipu;
    p.tile = running.front().tile;
    p.thread = running.front().thread;
    p.pc = running.front().pc;
  } else if (!waiting.empty()) {
    // Nothing computes, yet nothing ended the run: the tiles wait on each other.
    p.ipu = waiting.front().ipu;
    p.tile = waiting.front().tile;
    p.pc = waiting.front().pc;
    constexpr size_t kListed = 8;
    still += fmt::format(": {} tile(s) wait, and nothing they wait on can come:", waiting.size());
    for (size_t i = 0; i < waiting.size() && i < kListed; ++i) {
      const WaitingTile& w = waiting[i];
      still += fmt::format("{} ipu {} tile {} {} pc 0x{:08x}{}", i ? ";" : "", w.ipu, w.tile, w.what, w.pc,
                           w.function.empty() ? "" : " in " + w.function);
    }
    if (waiting.size() > kListed) still += fmt::format("; and {} more", waiting.size() - kListed);
  }
  if (stop.kind == RunEndKind::Interrupted) {
    p.code = ProblemCode::Interrupted;
    p.kind = "interrupted";
    p.detail = fmt::format("the run was interrupted at cycle {} with {}", stop.cycle, still);
  } else if (instruction_stop_ && *instruction_stop_ == stop.cycle &&
             !(limits_.max_cycles && limits_.max_cycles == stop.cycle)) {
    p.code = ProblemCode::Budget;
    p.kind = "instruction budget";
    p.detail = fmt::format("the run used up its budget of {} instructions ({} retired) at cycle {} with {}",
                           limits_.max_instructions, instructions, stop.cycle, still);
  } else {
    p.code = ProblemCode::Budget;
    p.kind = "cycle budget";
    p.detail = fmt::format("the run used up its budget of {} cycles with {}", limits_.max_cycles, still);
  }
  return p;
}

}  // namespace ipusim::platform
