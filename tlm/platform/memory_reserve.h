// Address space held back while a system is elaborated, and given back the moment the
// elaboration fails.
//
// An elaboration that runs out of memory (RLIMIT_AS, a cgroup limit) leaves its netlist
// abandoned, not freed (ElaborationError): the process is at its limit. The error must
// still be composed, passed up through the host interface's and the driver's own messages
// and printed, and each of those steps allocates; one that fails turns "building ipu 3
// tile 117: std::bad_alloc" into a bare "std::bad_alloc", or into an exception thrown
// where none may be (the process dies of a signal, saying nothing). So the elaboration
// maps a few MiB first and unmaps them when it fails, before anything is said.
#pragma once

#include <cstddef>

namespace ipusim::platform {

class MemoryReserve {
 public:
  // Maps `bytes` of address space (not touched, so no RAM); none if the mapping fails
  // (the elaboration would fail at once anyway).
  explicit MemoryReserve(size_t bytes);
  ~MemoryReserve() { release(); }
  MemoryReserve(const MemoryReserve&) = delete;
  MemoryReserve& operator=(const MemoryReserve&) = delete;

  // Gives the address space back (idempotent).
  void release();
  bool held() const { return base_ != nullptr; }

 private:
  void* base_ = nullptr;
  size_t bytes_ = 0;
};

// Under an address-space limit (RLIMIT_AS), throws std::bad_alloc unless `bytes` more
// could still be mapped. The elaboration asks before each tile: SystemC's own small-object
// allocator uses malloc's result unchecked, so running out inside it is a segfault, not an
// error; asking first makes the failure a checked one, named with what was being built.
// Without such a limit (a cgroup's instead) it asks nothing.
void require_address_space(size_t bytes);

}  // namespace ipusim::platform
