// chip_speed: the whole-chip speed benchmark. Runs `ipusim run` on a full chip config
// with a compute-bound six-worker kernel for each requested ISS core and host thread
// count and prints one JSON line: simulated MIPS per run, the speed-up over the first
// thread count of the same core, each core's MIPS over the first core's at the same
// thread count, peak resident memory of each run (from wait4's rusage), elaboration
// time, the share of host time spent outside the ISS (the SystemC kernel and the
// platform) and, on the translator, the share spent translating.
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
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
  std::vector<std::string> cores{"interp", "jit"};
  app.add_option("--ipusim", ipusim, "the ipusim binary")->check(CLI::ExistingFile);
  app.add_option("--config", config, "system config")->check(CLI::ExistingFile);
  app.add_option("--elf", elf, "firmware run on every tile")->check(CLI::ExistingFile);
  app.add_option("--threads", threads, "host thread counts to run")->expected(1, 16);
  app.add_option("--iss", cores, "ISS cores to run (ipusim run --iss), the first the reference")
      ->check(CLI::IsMember({"interp", "jit"}))
      ->expected(1, 2);
  app.add_option("--label", label, "name of this measurement in the JSON line (default: the ELF's name)");
  CLI11_PARSE(app, argc, argv);
  if (label.empty()) label = std::filesystem::path(elf).stem().string();

  nlohmann::json out{{"bench", "chip_speed"}, {"label", label}, {"config", config}, {"elf", elf}};
  std::map<unsigned, double> reference_mips;  // the first core's, per thread count
  for (const std::string& core : cores) {
    double base_mips = 0;
    for (unsigned n : threads) {
      std::string json_path = "/tmp/chip_speed." + std::to_string(getpid()) + ".json";
      // The kernel's console line and the summary are not what is measured.
      const ipusim::bench::ChildRun r = ipusim::bench::run_child(
          {ipusim, "run", "--config", config, "--elf", elf, "--threads", std::to_string(n), "--iss", core, "--json",
           json_path},
          true);
      if (r.exit_status != 0) {
        std::cerr << "chip_speed: ipusim exited with status " << r.exit_status << " for --iss " << core
                  << " --threads " << n << "\n";
        return 1;
      }
      std::ifstream in(json_path);
      nlohmann::json s = nlohmann::json::parse(in);
      std::remove(json_path.c_str());
      std::remove((json_path + ".config.yaml").c_str());
      nlohmann::json run{{"iss", core},
                         {"threads", n},
                         {"instructions", s["instructions"]},
                         {"tile_cycles", s["tile_cycles"]},
                         {"host_seconds", s["host_seconds"]},
                         {"mips", s["mips"]},
                         {"elaboration_seconds", s["elaboration_seconds"]},
                         {"max_rss_mib", r.max_rss_kib / 1024.0}};
      // kernel_share: host time the SystemC kernel thread spends outside the ISS (exact on
      // one thread, an overstatement on more: part of it hides behind other threads' ISS
      // work); serial_share: host time in which one host thread works alone (docs/chip.md);
      // jit_*: the translator's regions, code bytes, translation seconds and their share of
      // host seconds (docs/iss.md "Translator").
      for (const char* key : {"iss_core", "iss_seconds", "kernel_share", "serial_share", "jit_regions", "jit_code_bytes",
                              "jit_seconds", "jit_share"})
        if (s.contains(key)) run[key] = s[key];
      const double mips = s["mips"].get<double>();
      if (base_mips == 0) base_mips = mips;
      run["speedup"] = mips / base_mips;
      if (!reference_mips.count(n)) reference_mips[n] = mips;
      run["over_" + cores.front()] = mips / reference_mips[n];
      out["runs"].push_back(run);
    }
  }
  std::cout << out.dump() << std::endl;
  return 0;
}
