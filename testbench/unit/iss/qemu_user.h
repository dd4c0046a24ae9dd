// Runs a RISC-V ELF under qemu-riscv32 (Debian qemu-user; scripts/deps.sh installs it) and
// returns what it wrote to stdout: the reference side of qemu_random_test.cpp.
#pragma once

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <optional>
#include <string>
#include <vector>

namespace isstest {

// The qemu-riscv32 on PATH, or nullopt.
inline std::optional<std::string> find_qemu_riscv32() {
  FILE* p = popen("command -v qemu-riscv32 2>/dev/null", "r");
  if (!p) return std::nullopt;
  char buf[512];
  std::string path;
  while (fgets(buf, sizeof buf, p)) path += buf;
  pclose(p);
  while (!path.empty() && (path.back() == '\n' || path.back() == ' ')) path.pop_back();
  if (path.empty()) return std::nullopt;
  return path;
}

struct QemuRun {
  std::vector<uint8_t> out;
  int status = -1;  // the exit status (timeout(1) makes a hang 124), -1 if it did not exit
};

// `qemu path` started, killed after `seconds` (coreutils timeout) so a looping program
// fails the test instead of hanging it; finish_qemu collects it. Started before the
// caller's own work, qemu runs alongside it.
inline FILE* start_qemu(const std::string& qemu, const std::string& elf, unsigned seconds = 10) {
  const std::string cmd = "timeout " + std::to_string(seconds) + " '" + qemu + "' '" + elf + "'";
  return popen(cmd.c_str(), "r");
}

inline QemuRun finish_qemu(FILE* p) {
  QemuRun r;
  if (!p) return r;
  uint8_t buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) r.out.insert(r.out.end(), buf, buf + n);
  const int st = pclose(p);
  if (st != -1 && WIFEXITED(st)) r.status = WEXITSTATUS(st);
  return r;
}

}  // namespace isstest
