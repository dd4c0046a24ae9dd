// iss_speed: simulated instructions per second of the ISS on one host core, optionally
// against qemu-riscv32 running an equivalent Linux user-mode build of the same kernel.
//
//   iss_speed --elf E [--qemu-elf Q [--base-elf E0 --qemu-base-elf Q0]] [--reps N]
//             [--sram-kib K] [--quantum Q] [--iss interp|jit|lockstep] [--jit-hot N]
//
// Runs E on one TileCore on the calling thread (reset + run, N times, best time kept)
// and prints ONE JSON line. With --qemu-elf, times `qemu-riscv32 Q` the same way and
// reports qemu's MIPS for the same instruction count (the two builds are equivalent).
// qemu's time includes starting a process and translating the program; with
// --qemu-base-elf (the same program with no repetition of its kernel, E0 its tile build)
// that time is taken off, so qemu_mips is its speed on the kernel alone, as the ISS's is
// (the ISS's best repetition has its translations made already).
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <ctime>
#include <stdexcept>
#include <cstdio>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "child_run.h"
#include "iss/sram.h"
#include "iss/tile_core.h"


namespace {

using Clock = std::chrono::steady_clock;

class CountingConsole : public ipusim::iss::ConsoleSink {
 public:
  bool line(const ipusim::iss::TileIdentity&, uint32_t thread, std::string_view text) override {
    // Echo the first lines of the first run only, as a sanity check of the result.
    if (echo_ && lines_++ < 4) std::fprintf(stderr, "iss_speed: [thread %u] %.*s\n", thread, int(text.size()), text.data());
    return true;
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

// Best of `reps` runs of qemu-riscv32 on `elf`; `status` its exit status.
Timing time_qemu(const std::string& elf, int reps, int& status) {
  Timing t;
  for (int r = 0; r < reps; ++r) {
    const ipusim::bench::ChildRun run = ipusim::bench::run_child({"qemu-riscv32", elf}, false);
    if (!run.started) throw std::runtime_error("cannot run qemu-riscv32");
    status = run.exit_status;
    t.keep_best(run.wall_seconds, run.cpu_seconds);
  }
  return t;
}

// The instructions `elf` retires on a tile (the interpreter: it runs only once).
uint64_t instructions_of(const std::string& elf, ipusim::iss::TileParams params) {
  params.core = ipusim::iss::TileParams::Core::interp;
  auto program = ipusim::iss::Program::load(elf);
  ipusim::iss::Sram sram(params.sram_bytes);
  ipusim::iss::load_image(sram, *program);
  CountingConsole console;
  console.stop_echo();
  ipusim::iss::TileCore core(params, program, sram, &console);
  const ipusim::iss::StopInfo stop = core.run();
  if (stop.reason == ipusim::iss::StopReason::Fault)
    throw std::runtime_error(fmt::format("{}: {}", elf, ipusim::to_text(*stop.fault)));
  return core.instret();
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"ISS speed: simulated MIPS of one tile on one host core"};
  std::string elf, qemu_elf;
  int reps = 3;
  uint32_t sram_kib = 624, quantum = 1024;
  app.add_option("--elf", elf, "tile ELF to run")->required()->check(CLI::ExistingFile);
  auto* qemu_opt =
      app.add_option("--qemu-elf", qemu_elf, "equivalent Linux user-mode ELF for qemu-riscv32")->check(CLI::ExistingFile);
  std::string base_elf, qemu_base_elf;
  auto* base_opt = app.add_option("--base-elf", base_elf, "E with no repetition of its kernel (its instructions are "
                                                          "taken off E's for qemu's kernel speed)")
                       ->check(CLI::ExistingFile);
  app.add_option("--qemu-base-elf", qemu_base_elf, "the qemu twin of --base-elf: qemu's start-up, timed and taken off")
      ->check(CLI::ExistingFile)
      ->needs(qemu_opt)
      ->needs(base_opt);
  base_opt->needs("--qemu-base-elf");
  app.add_option("--reps", reps, "runs of each; the best time is kept")->check(CLI::Range(1, 1000));
  app.add_option("--sram-kib", sram_kib, "tile SRAM in KiB");
  app.add_option("--quantum", quantum, "thread_quantum");
  bool no_co_issue = false;
  app.add_flag("--no-co-issue", no_co_issue, "co_issue off (docs/xipu.md \"Timing\"): one instruction per slot");
  std::string iss_core = "interp";
  app.add_option("--iss", iss_core,
                 "the ISS engine: the interpreter, the x86-64 translator, or the translator checked against "
                 "the interpreter (docs/iss.md)")
      ->check(CLI::IsMember({"interp", "jit", "lockstep"}));
  uint32_t jit_hot = ipusim::iss::TileParams{}.jit_hot_entries;
  app.add_option("--jit-hot", jit_hot, "jit: translate a region at its Nth entry");
  CLI11_PARSE(app, argc, argv);

  nlohmann::json out;
  out["bench"] = "iss_speed";
  out["elf"] = elf;
  try {
    auto program = ipusim::iss::Program::load(elf);
    ipusim::iss::TileParams params;
    params.sram_bytes = sram_kib * 1024;
    params.thread_quantum = quantum;
    params.co_issue = !no_co_issue;
    params.core = *ipusim::parse_iss_core(iss_core);
    params.jit_hot_entries = jit_hot;
    CountingConsole console;
    ipusim::iss::Sram sram(params.sram_bytes);
    ipusim::iss::load_image(sram, *program);
    ipusim::iss::TileCore core(params, program, sram, &console);
    Timing iss;
    ipusim::iss::StopInfo stop;
    for (int r = 0; r < reps; ++r) {
      ipusim::iss::load_image(sram, *program);  // every repetition from the image as loaded
      core.reset();
      const auto t0 = Clock::now();
      const double c0 = thread_cpu_seconds();
      stop = core.run();
      iss.keep_best(std::chrono::duration<double>(Clock::now() - t0).count(), thread_cpu_seconds() - c0);
      console.stop_echo();
    }
    if (stop.reason == ipusim::iss::StopReason::Fault) {
      std::fprintf(stderr, "iss_speed: %s\n", ipusim::to_text(*stop.fault).c_str());
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
    out["iss"] = iss_core;
    if (const ipusim::iss::JitStats js = core.jit_stats(); js.active) {
      // Translations persist across repetitions (they belong to the Program): the first
      // run pays for them all.
      out["jit_regions"] = js.program_regions;
      out["jit_code_bytes"] = js.program_code_bytes;
      out["jit_hoisted_loops"] = js.program_hoisted_loops;
      out["jit_translate_seconds"] = js.program_translate_ns * 1e-9;
    }
    if (!qemu_elf.empty()) {
      int status = 0;
      const Timing qemu = time_qemu(qemu_elf, reps, status);
      out["qemu_elf"] = qemu_elf;
      out["qemu_cpu_seconds"] = qemu.cpu;
      out["qemu_wall_seconds"] = qemu.wall;
      out["qemu_exit_status"] = status;
      // The whole process: start-up and translation included.
      out["qemu_whole_mips"] = insns / qemu.cpu / 1e6;
      out["qemu_whole_wall_mips"] = insns / qemu.wall / 1e6;
      double kernel_insns = double(insns), kernel_cpu = qemu.cpu, kernel_wall = qemu.wall;
      if (!qemu_base_elf.empty()) {
        const uint64_t base_insns = instructions_of(base_elf, params);
        int base_status = 0;
        const Timing base = time_qemu(qemu_base_elf, reps, base_status);
        if (base_status != 0 || base.cpu >= qemu.cpu || base_insns >= insns)
          throw std::runtime_error(fmt::format("--qemu-base-elf {}: exit {}, {:.3f} s and {} instructions against {:.3f} s "
                                               "and {}: not the same program with less work",
                                               qemu_base_elf, base_status, base.cpu, base_insns, qemu.cpu, insns));
        out["qemu_base_elf"] = qemu_base_elf;
        out["qemu_base_cpu_seconds"] = base.cpu;
        out["base_instructions"] = base_insns;
        kernel_insns -= double(base_insns);
        kernel_cpu -= base.cpu;
        kernel_wall = std::max(kernel_wall - base.wall, 1e-9);
      }
      out["qemu_mips"] = kernel_insns / kernel_cpu / 1e6;
      out["qemu_wall_mips"] = kernel_insns / kernel_wall / 1e6;
      out["ratio"] = (insns / iss.cpu) / (kernel_insns / kernel_cpu);
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "iss_speed: %s\n", e.what());
    return 1;
  }
  std::printf("%s\n", out.dump().c_str());
  return 0;
}
