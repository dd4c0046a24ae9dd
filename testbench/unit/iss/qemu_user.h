// Runs a RISC-V ELF under qemu-riscv32 (Debian qemu-user; scripts/deps.sh installs it) and
// returns what it wrote to stdout: the reference side of qemu_random_test.cpp.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "child_process.h"

namespace isstest {

// The qemu-riscv32 on PATH, or nullopt.
inline std::optional<std::string> find_qemu_riscv32() {
  std::string path = ipusim::proc::run(ipusim::proc::Command::shell("command -v qemu-riscv32")).out;
  while (!path.empty() && (path.back() == '\n' || path.back() == ' ')) path.pop_back();
  if (path.empty()) return std::nullopt;
  return path;
}

struct QemuRun {
  std::vector<uint8_t> out;
  int status = -1;  // the exit status, -1 if it did not exit (killed at its timeout)
};

// `qemu path` started, killed after `seconds` so a looping program fails the test instead
// of hanging it; finish_qemu collects it. Started before the caller's own work, qemu runs
// alongside it.
inline std::unique_ptr<ipusim::proc::Child> start_qemu(const std::string& qemu, const std::string& elf,
                                                       unsigned seconds = 10) {
  ipusim::proc::Command command = ipusim::proc::Command::program({qemu, elf});
  command.err = ipusim::proc::Stream::inherit();
  command.timeout_seconds = seconds;
  return std::make_unique<ipusim::proc::Child>(command);
}

inline QemuRun finish_qemu(ipusim::proc::Child& qemu) {
  const ipusim::proc::Outcome o = qemu.wait();
  QemuRun r;
  r.out.assign(o.out.begin(), o.out.end());
  if (o.exited) r.status = o.exit_status;
  return r;
}

}  // namespace isstest
