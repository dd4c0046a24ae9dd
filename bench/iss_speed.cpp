// iss_speed: simulated instructions per second of the ISS on one host core, optionally
// against qemu-riscv32 running an equivalent Linux user-mode build of the same kernel.
//
//   iss_speed --elf E [--qemu-elf Q] [--reps N] [--sram-kib K] [--quantum Q]
//
// Runs E on one TileCore on the calling thread (reset + run, N times, best time kept)
// and prints ONE JSON line. With --qemu-elf, times `qemu-riscv32 Q` the same way and
// reports qemu's MIPS for the same instruction count (the two builds are equivalent).
#include <sys/resource.h>
#include <sys/wait.h>
#include <spawn.h>
#include <fcntl.h>
#include <unistd.h>

#include <chrono>
#include <ctime>
#include <cstdio>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "iss/tile_core.h"

extern char** environ;

namespace {

using Clock = std::chrono::steady_clock;

class CountingConsole : public ipusim::iss::ConsoleSink {
 public:
  void line(const ipusim::iss::TileIdentity&, uint32_t thread, std::string_view text) override {
    // Echo the first lines of the first run only, as a sanity check of the result.
    if (echo_ && lines_++ < 4) std::fprintf(stderr, "iss_speed: [thread %u] %.*s\n", thread, int(text.size()), text.data());
  }
  void stop_echo() { echo_ = false; }

 private:
  size_t lines_ = 0;
  bool echo_ = true;
};

double thread_cpu_seconds() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

struct Timing {
  double wall = 1e30, cpu = 1e30;
  void keep_best(double w, double c) {
    wall = std::min(wall, w);
    cpu = std::min(cpu, c);
  }
};

// One `qemu-riscv32 elf` run with its output discarded: wall time and the child's CPU
// time (user + system); false if it cannot be started.
bool time_qemu(const std::string& elf, int& status, double& wall, double& cpu) {
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
  std::vector<char*> argv = {const_cast<char*>("qemu-riscv32"), const_cast<char*>(elf.c_str()), nullptr};
  const auto t0 = Clock::now();
  pid_t pid;
  if (posix_spawnp(&pid, "qemu-riscv32", &fa, nullptr, argv.data(), environ) != 0) return false;
  rusage ru{};
  wait4(pid, &status, 0, &ru);
  wall = std::chrono::duration<double>(Clock::now() - t0).count();
  cpu = ru.ru_utime.tv_sec + ru.ru_utime.tv_usec * 1e-6 + ru.ru_stime.tv_sec + ru.ru_stime.tv_usec * 1e-6;
  posix_spawn_file_actions_destroy(&fa);
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"ISS speed: simulated MIPS of one tile on one host core"};
  std::string elf, qemu_elf;
  int reps = 3;
  uint32_t sram_kib = 624, quantum = 1024;
  app.add_option("--elf", elf, "tile ELF to run")->required()->check(CLI::ExistingFile);
  app.add_option("--qemu-elf", qemu_elf, "equivalent Linux user-mode ELF for qemu-riscv32")->check(CLI::ExistingFile);
  app.add_option("--reps", reps, "runs of each; the best time is kept")->check(CLI::Range(1, 1000));
  app.add_option("--sram-kib", sram_kib, "tile SRAM in KiB");
  app.add_option("--quantum", quantum, "thread_quantum");
  CLI11_PARSE(app, argc, argv);

  nlohmann::json out;
  out["bench"] = "iss_speed";
  out["elf"] = elf;
  try {
    auto program = ipusim::iss::Program::load(elf);
    ipusim::iss::TileParams params;
    params.sram_bytes = sram_kib * 1024;
    params.thread_quantum = quantum;
    CountingConsole console;
    ipusim::iss::TileCore core(params, program, &console);
    Timing iss;
    ipusim::iss::StopInfo stop;
    for (int r = 0; r < reps; ++r) {
      core.reset();
      const auto t0 = Clock::now();
      const double c0 = thread_cpu_seconds();
      stop = core.run();
      iss.keep_best(std::chrono::duration<double>(Clock::now() - t0).count(), thread_cpu_seconds() - c0);
      console.stop_echo();
    }
    if (stop.reason == ipusim::iss::StopReason::Fault) {
      std::fprintf(stderr, "iss_speed: %s\n", stop.fault->message(params.id).c_str());
      return 1;
    }
    const uint64_t insns = core.instret();
    out["instructions"] = insns;
    out["cycles"] = core.cycle();
    out["exit_code"] = stop.exit_code;
    // MIPS from CPU time (robust when other processes share the host); wall too.
    out["cpu_seconds"] = iss.cpu;
    out["wall_seconds"] = iss.wall;
    out["mips"] = insns / iss.cpu / 1e6;
    out["wall_mips"] = insns / iss.wall / 1e6;
    if (!qemu_elf.empty()) {
      Timing qemu;
      int status = 0;
      for (int r = 0; r < reps; ++r) {
        double wall = 0, cpu = 0;
        if (!time_qemu(qemu_elf, status, wall, cpu)) {
          std::fprintf(stderr, "iss_speed: cannot run qemu-riscv32\n");
          return 1;
        }
        qemu.keep_best(wall, cpu);
      }
      out["qemu_elf"] = qemu_elf;
      out["qemu_cpu_seconds"] = qemu.cpu;
      out["qemu_wall_seconds"] = qemu.wall;
      out["qemu_exit_status"] = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
      out["qemu_mips"] = insns / qemu.cpu / 1e6;
      out["qemu_wall_mips"] = insns / qemu.wall / 1e6;
      out["ratio"] = qemu.cpu / iss.cpu;
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "iss_speed: %s\n", e.what());
    return 1;
  }
  std::printf("%s\n", out.dump().c_str());
  return 0;
}
