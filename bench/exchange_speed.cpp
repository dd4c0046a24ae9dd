// exchange_speed: what the exchange planner costs a system run, and how it scales with
// host threads. Prints one JSON line with two parts:
//
//   plan     the planner alone, in this process: a 1472-tile (GC200) all-to-all of
//            128-byte messages (2,165,312 messages, the on-chip reduce-scatter of
//            allreduce / ipu_allreduce) posted as the ISS keeps postings, planned with
//            plan_exchange() on a tile::HostPool of each --threads count: the median
//            wall ns per message of --reps plans.
//   runs     `ipusim run --json` of the runs the planner holds up (docs/exchange.md,
//            "Planning on several host threads"): the m2000 `ipu_allreduce` and the gc200
//            `allreduce`, on each --threads count. Per run: the median host seconds of
//            --reps runs, serial share (host time in which one thread works alone), exchange
//            plan seconds and plan ns per message (exchange_plan_seconds over the
//            messages moved), and the speed-up over the first thread count. Every run
//            also gives its peak resident set (max_rss_kib) and CPU seconds (user +
//            system), medians too. `--runs pod16_ipu_allreduce_c4 pod64_ipu_allreduce_c4`:
//            the POD16 / POD64 `ipu_allreduce` with a chunk of 4 floats (ipu_allreduce_c4.elf:
//            a 2.17 M-message reduce-scatter on every IPU at once), the runs that show the
//            exchange's memory (docs/exchange.md, "Planning cost: host bytes per message";
//            a POD64 needs up to 14 GB: one run at a time).
//
// With --base-ipusim B every run is made with B too, alternating the two binaries run
// by run (the machine may be shared and noisy: both see the same load), and each run
// reports B's medians and `host_ratio` = this binary's median host seconds over B's;
// the runs must end with the same tile cycles, instructions and messages (exit 1 if not).
//
//   exchange_speed [--ipusim I] [--base-ipusim B] [--threads 1 2] [--reps 3] [--runs NAME...]
//                  [--firmware-dir D] [--plan-only]
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <map>
#include <span>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "child_run.h"
#include "exchange/exchange_plan.h"
#include "iss/posting_log.h"
#include "tile/host_pool.h"

namespace {

using ipusim::iss::ExchangePost;

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n == 0 ? 0 : n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

// The planner alone: a GC200 all-to-all, as bench/exchange_memory posts it.
nlohmann::json plan_alone(const std::vector<unsigned>& threads, unsigned reps) {
  constexpr uint32_t kTiles = 1472, kLen = 128, kBase = 0x40000;
  std::vector<ipusim::iss::PostingLog> logs(kTiles);
  for (uint32_t s = 0; s < kTiles; ++s) {
    for (uint32_t k = 1; k < kTiles; ++k) {
      const uint32_t to = (s + k) % kTiles;
      logs[s].add_message(ExchangePost::Kind::Send, kBase, kLen, std::span<const uint32_t>(&to, 1), 0x40100, 0);
    }
    for (uint32_t k = 1; k < kTiles; ++k) {
      const uint32_t from = (s + kTiles - k) % kTiles;
      logs[s].add_message(ExchangePost::Kind::Recv, kBase + kLen * k, kLen, std::span<const uint32_t>(&from, 1),
                          0x40200, 0);
    }
  }
  std::vector<ipusim::exchange::TilePostings> in;
  for (uint32_t t = 0; t < kTiles; ++t) in.push_back({t, 0, nullptr, &logs[t]});
  ipusim::exchange::ExchangeTiming timing;
  timing.tiles_per_ipu = kTiles;
  const double messages = double(kTiles) * (kTiles - 1);

  nlohmann::json out = nlohmann::json::array();
  double first = 0;
  for (unsigned n : threads) {
    ipusim::tile::HostPool pool(n);
    const ipusim::exchange::PlanThreads run = [&pool](size_t count, const std::function<void(size_t)>& body) {
      pool.run(count, body);
    };
    std::vector<double> ns;
    std::vector<ipusim::exchange::Delivery> kept;  // as a fabric does: each plan into the last one's deliveries
    for (unsigned r = 0; r < reps; ++r) {
      const auto begin = std::chrono::steady_clock::now();
      ipusim::exchange::ExchangePlan plan = plan_exchange(in, timing, &run, std::move(kept));
      ns.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count() * 1e9 / messages);
      if (!plan.errors.empty() || plan.deliveries.size() != size_t(messages)) {
        std::cerr << "exchange_speed: the all-to-all's plan is wrong\n";
        std::exit(1);
      }
      kept = std::move(plan.deliveries);
      kept.clear();
    }
    const double m = median(ns);
    if (first == 0) first = m;
    out.push_back({{"threads", n}, {"ns_per_message", m}, {"speedup", first / m}});
  }
  return out;
}

struct RunSpec {
  std::string name, config, elf;
};

struct Sample {
  double host_seconds, serial_share, plan_seconds;
  uint64_t messages, tile_cycles, instructions;
  double cpu_seconds, max_rss_kib, delivery_seconds;
};

// The `exchange_delivery` host component's seconds (0 if the run has none).
double delivery_seconds(const nlohmann::json& j) {
  const auto c = j.find("host_components");
  if (c == j.end() || !c->contains("exchange_delivery")) return 0;
  return (*c)["exchange_delivery"]["seconds"].get<double>();
}

bool run_once(const std::string& ipusim, const RunSpec& spec, unsigned threads, Sample& s) {
  const std::string json_path = "/tmp/exchange_speed." + std::to_string(getpid()) + ".json";
  const ipusim::bench::ChildRun r = ipusim::bench::run_child(
      {ipusim, "run", "--config", spec.config, "--elf", spec.elf, "--threads", std::to_string(threads), "--quiet",
       "--json", json_path},
      true);
  if (r.exit_status != 0) {
    std::cerr << "exchange_speed: " << ipusim << " exited with status " << r.exit_status << " on " << spec.name
              << " --threads " << threads << "\n";
    return false;
  }
  std::ifstream in(json_path);
  const nlohmann::json j = nlohmann::json::parse(in);
  std::remove(json_path.c_str());
  std::remove((json_path + ".config.yaml").c_str());
  s = {j["host_seconds"].get<double>(),
       j["serial_share"].get<double>(),
       j["exchange_plan_seconds"].get<double>(),
       j["exchange_messages"].get<uint64_t>(),
       j["tile_cycles"].get<uint64_t>(),
       j["instructions"].get<uint64_t>(),
       r.cpu_seconds,
       double(r.max_rss_kib),
       delivery_seconds(j)};
  return true;
}

// Medians of the samples' figures.
nlohmann::json summary(const std::vector<Sample>& v) {
  std::vector<double> host, serial, plan, cpu, rss, delivery;
  for (const Sample& s : v) {
    host.push_back(s.host_seconds);
    serial.push_back(s.serial_share);
    plan.push_back(s.plan_seconds);
    cpu.push_back(s.cpu_seconds);
    rss.push_back(s.max_rss_kib);
    delivery.push_back(s.delivery_seconds);
  }
  const double messages = v.empty() ? 0 : double(v.front().messages);
  return {{"host_seconds", median(host)},
          {"host_seconds_all", host},
          {"serial_share", median(serial)},
          {"cpu_seconds", median(cpu)},
          {"max_rss_kib", median(rss)},
          {"exchange_plan_seconds", median(plan)},
          {"exchange_delivery_seconds", median(delivery)},
          {"exchange_messages", uint64_t(messages)},
          {"plan_ns_per_message", messages > 0 ? median(plan) * 1e9 / messages : 0.0}};
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"exchange_speed: the exchange planner's cost in system runs, on 1..N host threads"};
  std::string ipusim = IPUSIM_BINARY, base;
  std::vector<unsigned> threads{1, 2};
  unsigned reps = 3;
  std::vector<std::string> names{"m2000_ipu_allreduce", "gc200_allreduce"};
  bool plan_only = false;
  std::string fw = IPUSIM_FIRMWARE_DIR;
  app.add_option("--ipusim", ipusim, "the ipusim binary")->check(CLI::ExistingFile);
  app.add_option("--base-ipusim", base, "another ipusim binary to run alternately (the build before a change)")
      ->check(CLI::ExistingFile);
  app.add_option("--threads", threads, "host thread counts")->expected(1, 16);
  app.add_option("--reps", reps, "runs of each case; medians are reported")->check(CLI::PositiveNumber);
  app.add_option("--runs", names, "system runs to make")
      ->check(CLI::IsMember({"m2000_ipu_allreduce", "gc200_allreduce", "pod16_ipu_allreduce_c4",
                             "pod64_ipu_allreduce_c4"}))
      ->expected(0, 4);
  app.add_flag("--plan-only", plan_only, "the planner alone, no system run");
  app.add_option("--firmware-dir", fw, "where allreduce.elf and ipu_allreduce.elf are")->check(CLI::ExistingDirectory);
  CLI11_PARSE(app, argc, argv);

  const std::map<std::string, RunSpec> specs{
      {"m2000_ipu_allreduce", {"m2000_ipu_allreduce", "configs/m2000.yaml", fw + "/ipu_allreduce.elf"}},
      {"gc200_allreduce", {"gc200_allreduce", "configs/gc200.yaml", fw + "/allreduce.elf"}},
      {"pod16_ipu_allreduce_c4", {"pod16_ipu_allreduce_c4", "configs/pod16.yaml", fw + "/ipu_allreduce_c4.elf"}},
      {"pod64_ipu_allreduce_c4", {"pod64_ipu_allreduce_c4", "configs/pod64.yaml", fw + "/ipu_allreduce_c4.elf"}}};

  nlohmann::json out{{"bench", "exchange_speed"}, {"ipusim", ipusim}};
  if (!base.empty()) out["base_ipusim"] = base;
  out["plan"] = plan_alone(threads, std::max(reps, 3u));
  out["runs"] = nlohmann::json::array();
  bool same = true;
  for (const std::string& name : plan_only ? std::vector<std::string>{} : names) {
    const RunSpec& spec = specs.at(name);
    double first_host = 0;
    for (unsigned n : threads) {
      std::vector<Sample> mine, theirs;
      for (unsigned r = 0; r < reps; ++r) {
        Sample s{};
        if (!run_once(ipusim, spec, n, s)) return 1;
        mine.push_back(s);
        if (base.empty()) continue;
        Sample b{};
        if (!run_once(base, spec, n, b)) return 1;
        theirs.push_back(b);
        if (b.tile_cycles != s.tile_cycles || b.instructions != s.instructions || b.messages != s.messages) {
          std::cerr << "exchange_speed: " << name << " --threads " << n << " differs from the base run\n";
          same = false;
        }
      }
      nlohmann::json run = summary(mine);
      run["name"] = name;
      run["threads"] = n;
      run["tile_cycles"] = mine.front().tile_cycles;
      if (first_host == 0) first_host = run["host_seconds"].get<double>();
      run["speedup"] = first_host / run["host_seconds"].get<double>();
      if (!base.empty()) {
        run["base"] = summary(theirs);
        run["host_ratio"] = run["host_seconds"].get<double>() / run["base"]["host_seconds"].get<double>();
      }
      out["runs"].push_back(run);
    }
  }
  double load[3] = {0, 0, 0};
  if (getloadavg(load, 3) == 3) out["load_average"] = {load[0], load[1], load[2]};
  std::cout << out.dump() << std::endl;
  return same ? 0 : 1;
}
