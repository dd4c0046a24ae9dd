// `ipusim run --checkpoint-at / --checkpoint-dir / --restore` (docs/checkpoints.md): the
// options read and checked, a checkpoint written where the run pauses, and the inputs of
// a restored run (config, ELF, tiles) taken from its checkpoint.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "checkpoint/checkpoint_file.h"
#include "commands.h"
#include "common/config.h"
#include "iss/program.h"
#include "platform/platform.h"

namespace ipusim::cli {

// --checkpoint-at superstep:N | cycle:C | every:N with --checkpoint-dir DIR.
struct CheckpointPlan {
  uint64_t superstep = 0;  // superstep:N, absolute (the tiles wait at their N-th sync)
  uint64_t cycle = 0;      // cycle:C: the first sync at or after tile cycle C
  uint64_t every = 0;      // every:N
  std::string dir;
};
// nullopt when neither option is given; throws std::invalid_argument naming the option.
std::optional<CheckpointPlan> checkpoint_plan(const RunOptions& o);

// What a run was started from, as a checkpoint records it.
struct RunInputs {
  std::string config_path, elf_path, tiles;  // as given (the report names them)
  std::string config_text;                   // the effective config (config::to_yaml)
  std::vector<uint8_t> elf;
  std::vector<std::string> link_faults;      // --link-faults as given (they replace the config's)
};

// A restored run's inputs and state: `--restore DIR` read and checked (build, format,
// every section), the options that would change results refused, and a --config / --elf
// given with it compared with the checkpoint's. Throws checkpoint::CheckpointError.
struct Restored {
  checkpoint::Checkpoint ckpt;
  RunInputs inputs;
  config::SystemConfig system;
  std::shared_ptr<const iss::Program> program;
};
Restored open_restore(const RunOptions& o);

// The gate of the sync controllers for `plan` (PlatformOptions::checkpoint_at / _every)
// when the run starts at superstep `start` (1, or a restored checkpoint's).
void set_checkpoint_gate(const CheckpointPlan& plan, uint64_t start, platform::PlatformOptions& options);

// Writes the checkpoint of `platform`, paused at `superstep`: the plan's directory, or
// DIR/superstep-<N> for every:N. Throws checkpoint::CheckpointError.
void write_run_checkpoint(const CheckpointPlan& plan, platform::Platform& platform, uint64_t superstep,
                          const RunInputs& inputs);

}  // namespace ipusim::cli
