// The superstep rows that left the accounts' window during a run that takes checkpoints
// (docs/checkpoints.md "More than 4096 supersteps"): the accounts hand each final row to
// their sink and keep only a window (platform_supersteps.h), so a checkpoint past the
// window would lose the rows before it. Each is encoded (checkpoint_codec.h) into an
// anonymous temporary file as it leaves: memory stays bounded, and the checkpoint's
// `rows` section is the file's bytes. A restored run hands the section's rows to its
// sink first (and spools them again, for its own checkpoints).
#pragma once

#include <cstdint>
#include <cstdio>
#include <functional>
#include <span>
#include <vector>

#include "platform/platform_supersteps.h"

namespace ipusim::platform {

class DepartedRows {
 public:
  DepartedRows();  // throws std::runtime_error when no temporary file can be made
  ~DepartedRows();
  DepartedRows(const DepartedRows&) = delete;
  DepartedRows& operator=(const DepartedRows&) = delete;

  void add(const SuperstepRow& row);
  uint64_t count() const { return count_; }
  // The `rows` section: the count, then the rows. Throws std::runtime_error when the
  // spool cannot be read back or was not written whole.
  std::vector<uint8_t> section() const;
  // The rows of a `rows` section, each to `each` in order; they must be rows 0 .. n-1
  // of a system of `ipus` IPUs. Throws checkpoint::CheckpointError (Corrupt) naming the
  // field otherwise.
  static uint64_t for_each(std::span<const uint8_t> section, uint32_t ipus,
                           const std::function<void(const SuperstepRow&)>& each);

 private:
  std::FILE* file_ = nullptr;
  uint64_t count_ = 0;
  bool failed_ = false;
};

}  // namespace ipusim::platform
