// A tile core's architectural state as a plain value (docs/checkpoints.md): what a
// checkpoint saves of a core and restores into a fresh one booted on the same program.
// Every thread's registers, pc, counters and AMP state, the per-tile CSRs, and where the
// tile stands (stopped at a sync, halted, running). Translations, the decoded cache and
// the host-side views are not here: a restored core rebuilds them from its Program.
// The SRAM is not here either (the checkpoint saves its pages apart, sparse).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace ipusim::iss {

struct ThreadSnapshot {
  std::vector<uint32_t> regs;  // x0..x31, f0..f31 and the FP CSRs as the core holds them
  uint8_t state = 0;           // iss::ThreadState
  std::optional<uint32_t> pc;  // of the next instruction (none: a context never started)
  uint64_t clock = 0, instret = 0, stall = 0, exchange_stall = 0;
  uint64_t alloc_cycle = 0, start_cycle = 0, exit_cycle = 0;
  uint32_t starts = 0;
  int32_t last_status = 0;
  uint32_t wait_arg = 0;
  std::string line;  // console line being assembled
  // The AMP's weights and accumulators, when the thread has used the AMP.
  bool amp = false;
  uint8_t amp_type = 0;
  uint32_t amp_rows = 0;
  std::vector<float> amp_w, amp_acc;
  std::vector<uint8_t> amp_w_raw;
};

struct CoreSnapshot {
  std::vector<ThreadSnapshot> threads;  // the supervisor, then the workers if any was made
  uint32_t wstack_base = 0, wstack_size = 0, wexit_pc = 0, superstep = 0;
  // Where the tile stands: stopped (a StopReason: Halted, Sync) with its operand.
  std::optional<uint8_t> stop_reason;
  int32_t exit_code = 0;
  uint32_t sync_zone = 0;
  bool awaiting_release = false, exchange_open = false, awaiting_exchange = false;
  std::vector<uint32_t> xdst;
  std::optional<uint32_t> xsrc;
  std::optional<uint64_t> smaddr;
  std::optional<uint32_t> stream;
  uint64_t horizon = 0;
  uint64_t pending_posts = 0;  // postings not yet exchanged (a checkpoint needs none)
};

}  // namespace ipusim::iss
