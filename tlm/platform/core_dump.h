// Core files of a stopped run: one ELF core per IPU, DIR/ipu<N>.core, that
// `gdb-multiarch firmware.elf ipu0.core` opens (docs/debugging.md, "Core files").
//
// A core has one address space but every tile has its own SRAM at the same addresses, so
//  - the SRAM of one tile, the *native* tile (the tile the problem names, else the IPU's
//    lowest booted tile), is at its own addresses: backtraces of its threads work;
//  - every booted tile's SRAM is also mirrored at kMirrorBase + tile * kMirrorStride +
//    address (only its pages that are not all zero), when the chip's tile address space
//    fits a window (SRAM_BASE + SRAM <= 1 MiB, tiles <= 2048);
//  - every alive thread is a thread of the core (the supervisor of each booted tile, and
//    each worker that ever started), pr_pid = tile * 8 + thread + 1; the thread the
//    problem names comes first, so gdb selects it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/problem.h"

namespace ipusim::platform {

class Platform;

inline constexpr uint32_t kMirrorBase = 0x8000'0000u;
inline constexpr uint32_t kMirrorStride = 0x10'0000u;  // 1 MiB of tile address space per tile

// gdb's thread id ("LWP N") of thread `thread` (0 = supervisor) of tile `tile` of its IPU.
inline uint32_t core_thread_id(uint32_t tile, uint32_t thread) { return tile * 8 + thread + 1; }

// Writes DIR/ipu<N>.core for every IPU with a booted tile, DIR created if missing, after
// a run stopped on `reason` (a fault, an exchange error, a deadlock; null: a stop with no
// problem, such as an interrupt, whose first thread is the lowest tile's supervisor).
// `program_name` goes into NT_PRPSINFO. Returns the paths written. Throws
// std::runtime_error naming the file it could not write.
std::vector<std::string> write_cores(const std::string& dir, const Platform& platform, const Problem* reason,
                                     const std::string& program_name);

// The signal gdb reports for `reason` ("Program terminated with signal SIGSEGV"):
// illegal instruction SIGILL, misaligned access SIGBUS, access fault SIGSEGV, other
// faults SIGTRAP, exchange errors and deadlocks (and no problem) SIGSTOP.
int core_signal(const Problem* reason);

}  // namespace ipusim::platform
