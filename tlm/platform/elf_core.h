// ElfCore: an ELF core file of a riscv32 "process" as gdb reads one (ELFCLASS32,
// EM_RISCV, ET_CORE): a PT_NOTE with NT_PRPSINFO, then NT_PRSTATUS + NT_FPREGSET per
// thread in the Linux riscv32 layout (the layout gdb's GNU/Linux RISC-V support and BFD
// know), then one PT_LOAD per memory range. Plain C++: it knows nothing of tiles; the
// platform's core dump (core_dump.h) decides what goes in.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/problem.h"  // ThreadRegisters

namespace ipusim::platform {

class ElfCore {
 public:
  struct Thread {
    uint32_t id = 0;       // pr_pid: gdb lists it as "LWP <id>"
    int signal = 0;        // pr_cursig (gdb reports the last thread's as the core's signal)
    ThreadRegisters regs;
  };
  struct Memory {
    uint32_t vaddr = 0;
    std::vector<uint8_t> bytes;
  };

  // `name`: the program's name for NT_PRPSINFO (pr_fname, cut to 15 bytes); `args`: its
  // pr_psargs (cut to 79).
  ElfCore(std::string name, std::string args) : name_(std::move(name)), args_(std::move(args)) {}

  // Threads in the order gdb numbers them: the first is the one it selects.
  void add_thread(const Thread& t) { threads_.push_back(t); }
  void add_memory(Memory m) { memory_.push_back(std::move(m)); }

  // The whole file.
  std::vector<uint8_t> bytes() const;
  // Writes bytes() to `path`; throws std::runtime_error naming the path on failure.
  void write(const std::string& path) const;

  // Layout sizes of the Linux riscv32 notes (BFD's elf32-riscv: PRSTATUS 204 bytes with
  // pr_reg at 72, PRPSINFO 128; NT_FPREGSET: f0..f31 and fcsr as 32-bit words, then 4
  // bytes of padding: gdb's riscv-linux-tdep wants 32 * flen + 8 bytes, as the kernel
  // writes them, and ignores a shorter one).
  static constexpr size_t kPrstatusSize = 204;
  static constexpr size_t kPrstatusRegOffset = 72;
  static constexpr size_t kPrpsinfoSize = 128;
  static constexpr size_t kFpregsetSize = 32 * 4 + 8;

 private:
  std::string name_, args_;
  std::vector<Thread> threads_;
  std::vector<Memory> memory_;
};

}  // namespace ipusim::platform
