// profile_overhead: what `ipusim run --profile` costs (docs/profiling.md "Cost"). Runs each
// ELF on a config with and without --profile of every tile, alternately, on the chosen
// ISS engine, and prints one JSON line: per ELF the median host seconds of each side, their
// ratio, and the host's load average at the end (the machine is shared: say how loaded).
#include <algorithm>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "child_run.h"

namespace {

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

double load_average() {
  std::ifstream in("/proc/loadavg");
  double l = 0;
  in >> l;
  return l;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"ipusim run with and without --profile"};
  std::string ipusim = IPUSIM_BINARY, config = "configs/gc200.yaml", iss = "jit", out = "/tmp/ipusim_profile_overhead.out";
  std::vector<std::string> elfs = {std::string(IPUSIM_FIRMWARE_DIR) + "/gemm.elf",
                                   std::string(IPUSIM_FIRMWARE_DIR) + "/jacobi.elf"};
  unsigned runs = 3, threads = 2;
  app.add_option("--ipusim", ipusim, "the ipusim binary");
  app.add_option("--config", config, "the system config (default: a GC200)");
  app.add_option("--elf", elfs, "the ELFs (default: gemm and jacobi)");
  app.add_option("--iss", iss, "the ISS engine (default: jit)");
  app.add_option("--runs", runs, "runs of each side, alternated (default 3)");
  app.add_option("--threads", threads, "host threads (default 2)");
  app.add_option("--out", out, "where the profile goes (overwritten)");
  CLI11_PARSE(app, argc, argv);

  nlohmann::ordered_json result;
  result["bench"] = "profile_overhead";
  result["config"] = config;
  result["iss"] = iss;
  nlohmann::ordered_json cases = nlohmann::ordered_json::array();
  int status = 0;
  for (const std::string& elf : elfs) {
    std::vector<double> plain, profiled;
    const std::vector<std::string> base = {ipusim, "run", "--config", config, "--elf", elf, "--iss", iss,
                                           "--threads", std::to_string(threads), "--quiet"};
    for (unsigned r = 0; r < runs; ++r) {
      std::vector<std::string> with = base;
      with.insert(with.end(), {"--profile", out});
      const ipusim::bench::ChildRun a = ipusim::bench::run_child(base, true);
      const ipusim::bench::ChildRun b = ipusim::bench::run_child(with, true);
      if (a.exit_status != 0 || b.exit_status != 0) {
        std::fprintf(stderr, "profile_overhead: %s exited %d without and %d with --profile\n", elf.c_str(),
                     a.exit_status, b.exit_status);
        status = 1;
      }
      plain.push_back(a.wall_seconds);
      profiled.push_back(b.wall_seconds);
    }
    nlohmann::ordered_json c;
    c["elf"] = elf;
    c["seconds"] = median(plain);
    c["profiled_seconds"] = median(profiled);
    c["ratio"] = median(plain) > 0 ? median(profiled) / median(plain) : 0;
    std::fprintf(stderr, "%-40s %8.3f s  --profile %8.3f s  ratio %.2f\n", elf.c_str(), median(plain),
                 median(profiled), c["ratio"].get<double>());
    cases.push_back(c);
  }
  result["cases"] = cases;
  result["load_average"] = load_average();
  std::printf("%s\n", result.dump().c_str());
  return status;
}
