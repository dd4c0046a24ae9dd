// cosim_speed: the co-simulation slowdown of RTL blocks (docs/cosim.md "Speed").
//
// Runs `ipusim run` on one config and firmware all-TLM and with `--rtl BLOCKS`, alternating
// the two so that a noisy machine slows both alike, and prints one JSON line: each side's
// median host seconds (the run, without elaboration) and wall seconds (the whole process),
// and their ratios. It fails (exit 1) if the two runs end differently: the same tile
// cycles, instructions and exit status are what makes the ratio a like-for-like one.
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "child_run.h"

namespace {

struct Side {
  std::vector<double> host, wall;
  nlohmann::json first;  // the first run's summary: what every run must match
};

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"cosim_speed: ipusim run with RTL blocks against all-TLM"};
  std::string ipusim = IPUSIM_BINARY;
  std::string config = "configs/test/tiny16.yaml";
  std::string elf;
  std::string blocks = "sync";
  std::vector<std::string> extra;
  unsigned reps = 3, threads = 1;
  app.add_option("--ipusim", ipusim, "the ipusim binary")->check(CLI::ExistingFile);
  app.add_option("--config", config, "system config")->check(CLI::ExistingFile);
  app.add_option("--elf", elf, "firmware")->check(CLI::ExistingFile)->required();
  app.add_option("--block", blocks, "blocks run as RTL: ipusim run's --rtl list (default sync)");
  app.add_option("--reps", reps, "runs of each side (default 3; the median is reported)")->check(CLI::Range(1u, 100u));
  app.add_option("--threads", threads, "host threads (default 1: the steadiest figure)")->check(CLI::Range(1u, 64u));
  app.add_option("--run-arg", extra, "another argument for both runs (repeatable), e.g. --run-arg=--link-faults=ber=1e-6");
  CLI11_PARSE(app, argc, argv);

  const std::string json_path = "/tmp/cosim_speed." + std::to_string(getpid()) + ".json";
  Side tlm, rtl;
  for (unsigned rep = 0; rep < reps; ++rep) {
    for (Side* side : {&tlm, &rtl}) {
      std::vector<std::string> args{ipusim, "run", "--config", config, "--elf", elf, "--threads", std::to_string(threads),
                                    "--json", json_path, "--rtl", side == &rtl ? blocks : "none"};
      args.insert(args.end(), extra.begin(), extra.end());
      const ipusim::bench::ChildRun r = ipusim::bench::run_child(args, true);
      if (!r.started) {
        std::cerr << "cosim_speed: cannot start " << ipusim << "\n";
        return 1;
      }
      std::ifstream in(json_path);
      if (!in) {
        std::cerr << "cosim_speed: ipusim wrote no summary (exit status " << r.exit_status << ", --rtl "
                  << (side == &rtl ? blocks : "none") << ")\n";
        return 1;
      }
      nlohmann::json s = nlohmann::json::parse(in);
      std::remove(json_path.c_str());
      std::remove((json_path + ".config.yaml").c_str());
      nlohmann::json outcome{{"exit_status", r.exit_status},
                             {"tile_cycles", s["tile_cycles"]},
                             {"instructions", s["instructions"]}};
      if (tlm.first.is_null()) tlm.first = outcome;
      if (outcome != tlm.first) {
        std::cerr << "cosim_speed: runs differ: " << outcome.dump() << " (--rtl "
                  << (side == &rtl ? blocks : "none") << ") against " << tlm.first.dump() << " (all TLM)\n";
        return 1;
      }
      side->host.push_back(s["host_seconds"].get<double>());
      side->wall.push_back(r.wall_seconds);
    }
  }
  const double tlm_host = median(tlm.host), rtl_host = median(rtl.host);
  const double tlm_wall = median(tlm.wall), rtl_wall = median(rtl.wall);
  nlohmann::json out{{"bench", "cosim_speed"},
                     {"config", config},
                     {"elf", std::filesystem::path(elf).filename().string()},
                     {"rtl", blocks},
                     {"reps", reps},
                     {"threads", threads},
                     {"tile_cycles", tlm.first["tile_cycles"]},
                     {"instructions", tlm.first["instructions"]},
                     {"tlm_host_seconds", tlm_host},
                     {"rtl_host_seconds", rtl_host},
                     {"slowdown", rtl_host / tlm_host},
                     {"tlm_wall_seconds", tlm_wall},
                     {"rtl_wall_seconds", rtl_wall},
                     {"wall_slowdown", rtl_wall / tlm_wall}};
  std::cout << out.dump() << std::endl;
  return 0;
}
