// MemoryReserve: address space held while a system is elaborated is really given back
// when it is released, so that a process at its RLIMIT_AS can still compose and print the
// error of the elaboration that failed (memory_reserve.h). Run in forked children: the
// limit must not reach the test runner.
#include <gtest/gtest.h>

#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <string>

#include "platform/memory_reserve.h"

namespace ipusim::platform {
namespace {

uint64_t vm_size_bytes() {
  std::ifstream status("/proc/self/status");
  for (std::string line; std::getline(status, line);)
    if (line.rfind("VmSize:", 0) == 0) return std::stoull(line.substr(7)) << 10;
  return 0;
}

// In a child: reserve 8 MiB, cap the address space just above what is mapped, fill the
// rest, then see whether a 6 MiB allocation fits before and after the release. The child's
// exit status says: 0 = failed before and fitted after.
int child_status(bool release) {
  const pid_t pid = ::fork();
  if (pid == 0) {
    MemoryReserve reserve(size_t{8} << 20);
    if (!reserve.held()) ::_exit(10);
    const rlim_t cap = vm_size_bytes() + (size_t{2} << 20);
    const rlimit limit{cap, cap};
    if (::setrlimit(RLIMIT_AS, &limit) != 0) ::_exit(11);
    void* before = std::malloc(size_t{6} << 20);
    if (before) ::_exit(12);  // the cap left room: nothing to test
    if (release) reserve.release();
    void* after = std::malloc(size_t{6} << 20);
    ::_exit(after ? 0 : 13);
  }
  int raw = 0;
  ::waitpid(pid, &raw, 0);
  return WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
}

TEST(MemoryReserve, ReleasingItGivesTheAddressSpaceBack) { EXPECT_EQ(child_status(true), 0); }

TEST(MemoryReserve, HeldItKeepsTheRoom) { EXPECT_EQ(child_status(false), 13); }

TEST(MemoryReserve, ReleaseIsIdempotent) {
  MemoryReserve r(size_t{1} << 20);
  EXPECT_TRUE(r.held());
  r.release();
  r.release();
  EXPECT_FALSE(r.held());
}

}  // namespace
}  // namespace ipusim::platform
