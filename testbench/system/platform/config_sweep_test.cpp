// Every numeric config key against every consumer (docs/config.md "Checks"): each key of
// tlm/config/schema.yaml with a number type (u32, u64, f64) is set, one at a time, in a
// small system (one board of two IPUs of two tiles, link faults on) to 0, 1, -1, its limits,
// just past them, huge values (1e300, 2^32, 2^64 - 1, 2^64) and the non-finite ones
// (.nan, .inf, -.inf, nan, inf). Each value must either
//   - be refused by the loader with "FILE:LINE: KEY: problem" that names the key, or
//   - load, and run a tiny program (tile 0 of each IPU sends 1 KiB to the next IPU over the
//     IPU-Links, through the faulty link layer) to its end, in a child process (one
//     platform per process), without a signal, an abort or a hang; a system too large to
//     simulate here is refused by the memory estimate (a named error) or not run (above
//     64 tiles), and counted.
// The keys come from the schema, so a key added there is swept without touching this file.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>
#include <yaml-cpp/yaml.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <map>
#include <regex>
#include <string>
#include <thread>
#include <vector>

#include "config/config_loader.h"
#include "platform/memory_estimate.h"
#include "platform/platform.h"
#include "test_system.h"

namespace ipusim {
namespace {

constexpr double kChildSeconds = 30;
constexpr uint64_t kMaxRunTiles = 64;

// The base system: every required key, and link faults so the link layer runs.
const char* kBase = R"(kind: system
name: sweep
boards: 1
link_faults: "ber=1e-4,seed=7"
board:
  name: sweepboard
  ipus: 2
  chip:
    name: sweepchip
    tiles: 2
    clock_mhz: 1000
    tile:
      sram_kib: 64
      amp_f16_macs_per_cycle: 64
      amp_f32_macs_per_cycle: 16
)";

struct NumericKey {
  std::vector<std::string> path;  // the mappings that hold it, from the file's top
  std::string key, type;
  YAML::Node min, max;
  bool min_exclusive = false;
  std::string dotted() const {
    std::string s;
    for (const auto& p : path) s += p + ".";
    return s + key;
  }
};

// The numeric keys of the schema, each where the base file puts its section: a system at
// the top, its board under `board`, the board's chip under `chip`, and every other section
// under the key that names it (`section: NAME`).
std::vector<NumericKey> numeric_keys() {
  const YAML::Node schema = YAML::LoadFile("tlm/config/schema.yaml");  // the tests run from the project root
  std::map<std::string, std::vector<std::string>> where{{"system", {}}, {"board", {"board"}}, {"chip", {"board", "chip"}}};
  for (bool grew = true; grew;) {
    grew = false;
    for (const YAML::Node& section : schema["sections"]) {
      const std::string name = section["name"].as<std::string>();
      if (!where.count(name)) continue;
      for (const YAML::Node& k : section["keys"])
        if (k["section"] && !where.count(k["section"].as<std::string>())) {
          std::vector<std::string> path = where[name];
          path.push_back(k["key"].as<std::string>());
          where[k["section"].as<std::string>()] = path;
          grew = true;
        }
    }
  }
  std::vector<NumericKey> keys;
  for (const YAML::Node& section : schema["sections"]) {
    const std::string name = section["name"].as<std::string>();
    for (const YAML::Node& k : section["keys"]) {
      if (!k["type"]) continue;
      const std::string type = k["type"].as<std::string>();
      if (type != "u32" && type != "u64" && type != "f64") continue;
      EXPECT_TRUE(where.count(name)) << "schema section '" << name << "' is not reachable from system/board/chip";
      NumericKey n{where[name], k["key"].as<std::string>(), type, k["min"], k["max"]};
      n.min_exclusive = k["min_exclusive"] && k["min_exclusive"].as<bool>();
      keys.push_back(n);
    }
  }
  return keys;
}

std::string integer_text(unsigned __int128 v) {
  std::string s;
  do {
    s.insert(s.begin(), char('0' + int(v % 10)));
    v /= 10;
  } while (v);
  return s;
}

std::string real_text(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

// The values to try for `k`: the limits and just past them, then the common edge values.
std::vector<std::string> values_for(const NumericKey& k) {
  std::vector<std::string> v = {"0", "1", "-1", "1.5", "1e300", "-1e300", "1e-300", "4294967296", "18446744073709551615",
                                "18446744073709551616", "99999999999999999999999", ".nan", ".inf", "-.inf", "nan", "inf",
                                "-0"};
  if (k.min) v.push_back(k.min.Scalar());
  if (k.max) v.push_back(k.max.Scalar());
  if (k.type == "f64") {
    if (k.min) v.push_back(real_text(k.min.as<double>() - std::max(1e-9, std::fabs(k.min.as<double>()) * 1e-9)));
    if (k.max) v.push_back(real_text(k.max.as<double>() * (1 + 1e-9)));
  } else {
    const auto as_int = [](const YAML::Node& n) {
      unsigned __int128 x = 0;
      for (char c : n.Scalar()) x = x * 10 + unsigned(c - '0');
      return x;
    };
    if (k.min && as_int(k.min) > 0) v.push_back(integer_text(as_int(k.min) - 1));
    if (k.max) v.push_back(integer_text(as_int(k.max) + 1));
  }
  return v;
}

std::string with_value(const NumericKey& k, const std::string& value) {
  YAML::Node root = YAML::Load(kBase);
  YAML::Node node = root;
  for (const std::string& p : k.path) {
    if (!node[p]) node[p] = YAML::Node(YAML::NodeType::Map);
    node.reset(node[p]);
  }
  node[k.key] = value;
  YAML::Emitter out;
  out << root;
  return std::string(out.c_str()) + "\n";
}

// The tiny program: tile 0 of IPU i sends 1 KiB to tile 0 of IPU i + 1 (mod the IPUs) and
// receives 1 KiB from IPU i - 1, after a sync of every IPU; alone, it just halts.
std::shared_ptr<const iss::Program> ring_program() {
  using namespace test;
  Asm a;
  a.csrr(s0, IPU_CSR_IPU);
  a.csrr(s1, IPU_CSR_NTILES);
  a.csrr(s2, IPU_CSR_NIPUS);
  a.addi(t0, zero, IPU_SYNC_GROUP);
  a.sync(t0);
  a.addi(t0, zero, 2);
  a.blt(s2, t0, "done");
  a.addi(t1, s0, 1);  // next IPU's tile 0: ((ipu + 1) % ipus) * tiles
  a.remu(t1, t1, s2);
  a.mul(t1, t1, s1);
  a.addi(t2, zero, 1);
  a.xdst(t1, t2);
  a.li(a0, test::Asm::kDataBase);
  a.li(a1, 1024);
  a.send(a0, a1);
  a.add(t1, s0, s2);  // previous IPU's tile 0
  a.addi(t1, t1, -1);
  a.remu(t1, t1, s2);
  a.mul(t1, t1, s1);
  a.xsrc(t1);
  a.li(a2, test::Asm::kDataBase + 2048);
  a.recv(a2, a1);
  a.xwait();
  a.label("done");
  a.halt(zero);
  a.bytes(std::string(4096, 'x'));
  return test::program(a, "ring.elf");
}

enum ChildStatus { kHalted = 0, kOtherEnd = 10, kThrew = 11, kTooLarge = 12 };

// In the child: elaborate, load tile 0 of every IPU, run. Never returns.
[[noreturn]] void run_in_child(const config::SystemConfig& system) {
  try {
    const auto program = ring_program();
    platform::check_fits_memory(system, platform::estimate_memory(system, platform::footprint_of(*program),
                                                                  system.total_ipus(), 1),
                                platform::memory_limits(uint64_t(1) << 30, "the test"));
    platform::PlatformOptions options = test::quiet_options();
    options.host_threads = 1;
    platform::Platform p(system, options);
    p.load(program, platform::TileSelection::parse("0", system.board.chip.tiles));
    const platform::RunResult r = p.run();
    if (r.end.kind != RunEndKind::Halted) {
      std::fprintf(stderr, "the run ended %s: %s\n", kind_name(r.end.kind),
                   r.end.problem() ? r.end.problem()->detail.c_str() : "");
      std::fflush(stderr);
      std::_Exit(kOtherEnd);
    }
    std::_Exit(kHalted);
  } catch (const platform::SystemTooLarge&) {
    std::_Exit(kTooLarge);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "exception: %s\n", e.what());
    std::fflush(stderr);
    std::_Exit(kThrew);
  }
}

// Runs `system` in a child; "" when it halted, else what happened.
std::string run_isolated(const config::SystemConfig& system, bool& too_large) {
  std::fflush(nullptr);
  const pid_t pid = ::fork();
  if (pid == 0) run_in_child(system);
  const auto start = std::chrono::steady_clock::now();
  int status = 0;
  while (::waitpid(pid, &status, WNOHANG) == 0) {
    if (std::chrono::steady_clock::now() - start > std::chrono::duration<double>(kChildSeconds)) {
      ::kill(pid, SIGKILL);
      ::waitpid(pid, &status, 0);
      return "hung (killed after " + std::to_string(int(kChildSeconds)) + " s)";
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  if (WIFSIGNALED(status)) return "killed by signal " + std::to_string(WTERMSIG(status));
  const int code = WEXITSTATUS(status);
  too_large = code == kTooLarge;
  if (code == kHalted || code == kTooLarge) return "";
  return code == kOtherEnd ? "the run did not end halted (its stderr says how)"
                           : "exit status " + std::to_string(code) + " (see its stderr)";
}

TEST(ConfigSweep, EveryNumericKeyIsRefusedWithFileLineKeyOrRunsToItsEnd) {
  const std::vector<NumericKey> keys = numeric_keys();
  ASSERT_GE(keys.size(), 20u) << "the schema's numeric keys were not found";
  const std::regex located(R"(^sweep\.yaml:([1-9][0-9]*): ([A-Za-z0-9_.\[\]]+): (.*)$)");
  size_t refused = 0, ran = 0, too_large = 0, not_run = 0;
  const auto t0 = std::chrono::steady_clock::now();
  for (const NumericKey& k : keys) {
    for (const std::string& value : values_for(k)) {
      const std::string text = with_value(k, value);
      const std::string what = k.dotted() + " = " + value;
      config::SystemConfig system;
      try {
        system = config::load_system_text("sweep.yaml", text);
      } catch (const config::ConfigError& e) {
        std::smatch m;
        const std::string msg = e.what();
        EXPECT_TRUE(std::regex_match(msg, m, located)) << what << ": not FILE:LINE: KEY: " << msg;
        EXPECT_NE(msg.find(k.key), std::string::npos) << what << ": the error does not name " << k.key << ": " << msg;
        ++refused;
        continue;
      } catch (const std::exception& e) {
        ADD_FAILURE() << what << ": the loader threw something other than a ConfigError: " << e.what();
        continue;
      }
      if (system.total_tiles() > kMaxRunTiles) {
        ++not_run;
        continue;
      }
      bool large = false;
      const std::string bad = run_isolated(system, large);
      EXPECT_EQ(bad, "") << what << " loads, and then the run: " << bad << "\n" << text;
      ++(large ? too_large : ran);
    }
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("%zu numeric keys: %zu values refused with FILE:LINE: KEY, %zu ran to their end, %zu refused as too "
              "large to simulate here, %zu loaded but not run (over %llu tiles); %.1f s\n",
              keys.size(), refused, ran, too_large, not_run, static_cast<unsigned long long>(kMaxRunTiles), seconds);
  EXPECT_GT(ran, keys.size()) << "hardly anything ran";
}

}  // namespace
}  // namespace ipusim
