// chip_speed: the whole-chip speed benchmark. Runs `ipusim run` on a full chip config
// with a compute-bound six-worker kernel for each requested host thread count and
// prints one JSON line: simulated MIPS per thread count, the speed-up, peak resident
// memory of each run (from wait4's rusage), elaboration time, and the share of host time
// spent outside the ISS (the SystemC kernel and the platform).
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "child_run.h"


int main(int argc, char** argv) {
  CLI::App app{"chip_speed: simulated MIPS of a whole chip on 1..N host threads"};
  std::string ipusim = IPUSIM_BINARY;
  std::string config = "configs/gc200.yaml";
  std::string elf = std::string(IPUSIM_FIRMWARE_DIR) + "/supersteps_10k.elf";
  std::vector<unsigned> threads{1, 2};
  std::string label;  // default: the ELF's name
  app.add_option("--ipusim", ipusim, "the ipusim binary")->check(CLI::ExistingFile);
  app.add_option("--config", config, "system config")->check(CLI::ExistingFile);
  app.add_option("--elf", elf, "firmware run on every tile")->check(CLI::ExistingFile);
  app.add_option("--threads", threads, "host thread counts to run")->expected(1, 16);
  app.add_option("--label", label, "name of this measurement in the JSON line (default: the ELF's name)");
  CLI11_PARSE(app, argc, argv);
  if (label.empty()) label = std::filesystem::path(elf).stem().string();

  nlohmann::json out{{"bench", "chip_speed"}, {"label", label}, {"config", config}, {"elf", elf}};
  double base_mips = 0;
  for (unsigned n : threads) {
    std::string json_path = "/tmp/chip_speed." + std::to_string(getpid()) + ".json";
    // The kernel's console line and the summary are not what is measured.
    const ipusim::bench::ChildRun r = ipusim::bench::run_child({ipusim, "run", "--config", config, "--elf", elf, "--threads",
                                                std::to_string(n), "--json", json_path},
                                               true);
    if (r.exit_status != 0) {
      std::cerr << "chip_speed: ipusim exited with status " << r.exit_status << " for --threads " << n
                << "\n";
      return 1;
    }
    std::ifstream in(json_path);
    nlohmann::json s = nlohmann::json::parse(in);
    std::remove(json_path.c_str());
    std::remove((json_path + ".config.yaml").c_str());
    nlohmann::json run{{"threads", n},
                       {"instructions", s["instructions"]},
                       {"host_seconds", s["host_seconds"]},
                       {"mips", s["mips"]},
                       {"elaboration_seconds", s["elaboration_seconds"]},
                       {"max_rss_mib", r.max_rss_kib / 1024.0}};
    // kernel_share: host time the SystemC kernel thread spends outside the ISS (exact on
    // one thread, an overstatement on more: part of it hides behind other threads' ISS
    // work); serial_share: host time in which no tile computes at all (docs/chip.md).
    for (const char* key : {"iss_seconds", "kernel_share", "serial_share"})
      if (s.contains(key)) run[key] = s[key];
    double mips = s["mips"].get<double>();
    if (base_mips == 0) base_mips = mips;
    run["speedup"] = mips / base_mips;
    out["runs"].push_back(run);
  }
  std::cout << out.dump() << std::endl;
  return 0;
}
