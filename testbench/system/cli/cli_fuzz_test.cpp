// Mutation fuzzing of `ipusim run` end to end (docs/platform.md, "Tests"): seeded
// mutations of reference ELFs (byte flips, truncation, header, program header and section
// header fields set to edge values) and of reference configs (values to edge values, keys
// removed or duplicated, raw bytes) each go through the real binary with a run budget, in
// a child with a hard deadline of the test's own. A run must end normally or with a named
// error: a non-zero exit with stderr starting with "ipusim" or naming the input file. A
// signal (an uncaught exception's SIGABRT too), a non-zero exit with nothing on stderr or
// with a message that names nothing, and a hang (killed at the deadline) fail the test,
// which lists every such input; each is kept under build/test-tmp/cli_fuzz_failures/ to
// replay.
//
// IPUSIM_CLI_FUZZ_MUTANTS=N runs N mutants of each kind (the suite runs 100, 60 of the
// linked systems under `--rtl`);
// IPUSIM_CLI_FUZZ_SEED=S changes the seed (default 1). The counts are printed.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "child_run.h"
#include "mutation.h"

namespace ipusim {
namespace {

namespace fs = std::filesystem;

const std::string kBin = IPUSIM_BIN;
const std::string kFirmware = IPUSIM_FIRMWARE_DIR;
// Budgets a valid mutant cannot outrun; the harness kills at kDeadline.
const char* const kMaxCycles = "2000000";
const char* const kTimeout = "10";
constexpr double kDeadline = 60;

const std::vector<std::string> kElfs = {"hello.elf", "vecadd.elf", "matmul_small.elf", "xipu_tour.elf",
                                        "supersteps_1k.elf", "pipeline.elf"};
// The test configs (small systems: runs of a few hundred milliseconds), copied together so
// that the board and system files find the chip files they name.
const std::vector<std::string> kConfigs = {"tile1.yaml",       "tiny4.yaml",        "tiny16.yaml",
                                           "tiny16_smem.yaml", "tiny4_m2000.yaml",  "tiny4x2_smem.yaml",
                                           "tiny4_pod16.yaml"};

size_t env_count(const char* name, size_t fallback) {
  const char* v = std::getenv(name);
  return v && *v ? std::stoul(v) : fallback;
}

std::vector<uint8_t> read_bytes(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void write_bytes(const fs::path& p, const std::string& bytes) {
  std::ofstream(p, std::ios::binary).write(bytes.data(), long(bytes.size()));
}

struct Case {
  std::string input;              // the mutant's path
  std::vector<std::string> argv;  // the command
  std::vector<fs::path> beside;   // files the input refers to (kept with it)
};

struct Tally {
  std::mutex m;
  size_t normal = 0, hung = 0;
  std::map<int, size_t> named_by_code, signals;
  std::vector<std::string> failures;
};

// Named: stderr starts with the program's name or names the input file.
bool is_named(const std::string& err, const std::string& input) {
  return err.rfind("ipusim", 0) == 0 || err.find(input) != std::string::npos;
}

void run_case(const Case& c, Tally& t, const fs::path& failures) {
  const test::ChildOutcome r = test::run_child(c.argv, c.input + ".stderr", kDeadline);
  std::string why;
  if (r.end == test::ChildOutcome::End::kHung) why = "hung (killed after " + std::to_string(int(kDeadline)) + " s)";
  else if (r.end == test::ChildOutcome::End::kSignalled) why = "signal " + std::to_string(r.signal);
  else if (r.code != 0 && r.err.empty()) why = "exit " + std::to_string(r.code) + " with nothing on stderr";
  else if (r.code != 0 && !is_named(r.err, c.input))
    why = "exit " + std::to_string(r.code) + " with an error that names neither ipusim nor the file";
  std::lock_guard lock(t.m);
  if (why.empty()) {
    if (r.code == 0) ++t.normal;
    else ++t.named_by_code[r.code];
    return;
  }
  if (r.end == test::ChildOutcome::End::kHung) ++t.hung;
  if (r.end == test::ChildOutcome::End::kSignalled) ++t.signals[r.signal];
  fs::create_directories(failures);
  const fs::path kept = failures / fs::path(c.input).filename();
  fs::copy_file(c.input, kept, fs::copy_options::overwrite_existing);
  for (const fs::path& f : c.beside) fs::copy_file(f, failures / f.filename(), fs::copy_options::overwrite_existing);
  std::string cmd;
  for (const auto& a : c.argv) cmd += (cmd.empty() ? "" : " ") + (a == c.input ? kept.string() : a);
  t.failures.push_back(kept.string() + ": " + why + "\n    " + cmd + "\n    stderr: " + r.err.substr(0, 400));
}

std::string report(const Tally& t, size_t cases, double seconds) {
  std::string s = std::to_string(cases) + " runs in " + std::to_string(int(seconds)) + " s: " +
                  std::to_string(t.normal) + " normal exits";
  for (const auto& [code, n] : t.named_by_code) s += ", " + std::to_string(n) + " named errors exit " + std::to_string(code);
  for (const auto& [sig, n] : t.signals) s += ", " + std::to_string(n) + " signal " + std::to_string(sig);
  s += ", " + std::to_string(t.hung) + " hangs";
  return s;
}

void run_all(const std::vector<Case>& cases, const std::string& what) {
  Tally t;
  const fs::path failures = fs::path(::testing::TempDir()) / "cli_fuzz_failures";
  const auto start = std::chrono::steady_clock::now();
  test::run_parallel(cases.size(), 2, [&](size_t i) { run_case(cases[i], t, failures); });
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("cli fuzz, %s: %s\n", what.c_str(), report(t, cases.size(), seconds).c_str());
  std::string list;
  for (const auto& f : t.failures) list += f + "\n";
  EXPECT_TRUE(t.failures.empty()) << t.failures.size() << " failing input(s):\n" << list;
  size_t named = 0;
  for (const auto& [code, n] : t.named_by_code) named += n;
  EXPECT_EQ(t.normal + named + t.failures.size(), cases.size());
}

fs::path fresh_dir(const std::string& name) {
  const fs::path dir = fs::path(::testing::TempDir()) / name;
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

TEST(CliFuzz, MutatedElfsEndNormallyOrWithANamedError) {
  const size_t count = env_count("IPUSIM_CLI_FUZZ_MUTANTS", 100);
  test::MutationRng rng(env_count("IPUSIM_CLI_FUZZ_SEED", 1));
  const fs::path dir = fresh_dir("cli_fuzz_elf");
  std::vector<Case> cases;
  for (size_t i = 0; i < count; ++i) {
    const std::string& ref = kElfs[i % kElfs.size()];
    const std::vector<uint8_t> mutant = test::mutate_elf(read_bytes(kFirmware + "/" + ref), rng);
    const std::string path = (dir / ("m" + std::to_string(i) + "_" + ref)).string();
    write_bytes(path, std::string(mutant.begin(), mutant.end()));
    cases.push_back({path, {kBin, "run", "--config", "configs/test/tiny4.yaml", "--elf", path, "--max-cycles",
                            kMaxCycles, "--timeout", kTimeout},
                     {}});
  }
  run_all(cases, "mutated ELFs");
}

TEST(CliFuzz, MutatedConfigsEndNormallyOrWithANamedError) {
  const size_t count = env_count("IPUSIM_CLI_FUZZ_MUTANTS", 100);
  test::MutationRng rng(env_count("IPUSIM_CLI_FUZZ_SEED", 1) + 1000);
  const fs::path dir = fresh_dir("cli_fuzz_config");
  std::map<std::string, std::string> refs;
  std::vector<fs::path> beside;
  for (const auto& name : kConfigs) {
    beside.push_back(dir / name);
    const std::vector<uint8_t> b = read_bytes("configs/test/" + name);
    refs[name] = std::string(b.begin(), b.end());
    fs::copy_file("configs/test/" + name, dir / name);  // what the mutants' references name
  }
  std::vector<Case> cases;
  for (size_t i = 0; i < count; ++i) {
    const std::string& ref = kConfigs[i % kConfigs.size()];
    std::string mutant = refs[ref];
    const unsigned edits = 1 + static_cast<unsigned>(rng.below(3));
    for (unsigned k = 0; k < edits; ++k) mutant = test::mutate_yaml_once(mutant, rng);
    if (rng.chance(25)) mutant = test::mutate_bytes(mutant, rng);
    const std::string path = (dir / ("m" + std::to_string(i) + "_" + ref)).string();
    write_bytes(path, mutant);
    cases.push_back({path, {kBin, "run", "--config", path, "--elf", kFirmware + "/hello.elf", "--max-cycles",
                            kMaxCycles, "--timeout", kTimeout},
                     beside});
  }
  run_all(cases, "mutated configs");
}

// Multi-IPU systems with IPU-Links and the RTL blocks: mutants of the linked test configs
// and of the ELFs that use the links, each run with a choice of `--rtl` (and sometimes
// link faults), so the link layer, the sync controller and the AMP as RTL meet hostile
// systems and programs too.
const std::vector<std::string> kLinkedConfigs = {"tiny4x2_smem.yaml", "tiny4_m2000.yaml", "tiny4_pod16.yaml"};
const std::vector<std::string> kLinkedElfs = {"ipu_allreduce.elf", "pipeline.elf", "xipu_tour.elf"};
const std::vector<std::string> kRtl = {"sync", "link", "amp", "sync,link", "sync,link,amp", "none"};

const std::string kInlineChip =
    "chip:\n  name: tiny4\n  tiles: 4\n  clock_mhz: 100\n  tile:\n    sram_kib: 624\n    workers: 6\n"
    "    amp_f16_macs_per_cycle: 64\n    amp_f32_macs_per_cycle: 16\n  ipu_links:\n    count: 10\n"
    "    gbytes_per_s_each_way: 16\n    latency_ns: 250\n    sync_hop_ns: 0\n  sync:\n"
    "    latency_min_cycles: 16\n    latency_max_cycles: 80\n";

std::vector<std::string> rtl_args(test::MutationRng& rng) {
  std::vector<std::string> args = {"--rtl", kRtl[rng.below(kRtl.size())]};
  if (rng.chance(25)) args.insert(args.end(), {"--link-faults", "ber=1e-5,drop=0.01,seed=" + std::to_string(rng.below(100))});
  return args;
}

TEST(CliFuzz, MutatedLinkedConfigsUnderRtlEndNormallyOrWithANamedError) {
  const size_t count = env_count("IPUSIM_CLI_FUZZ_MUTANTS", 60);
  test::MutationRng rng(env_count("IPUSIM_CLI_FUZZ_SEED", 1) + 2000);
  const fs::path dir = fresh_dir("cli_fuzz_linked_config");
  std::map<std::string, std::string> refs;
  std::vector<fs::path> beside;
  for (const auto& name : kConfigs) {  // the chip files the linked configs name
    beside.push_back(dir / name);
    fs::copy_file("configs/test/" + name, dir / name);
  }
  for (const auto& name : kLinkedConfigs) {
    const std::vector<uint8_t> b = read_bytes("configs/test/" + name);
    refs[name] = std::string(b.begin(), b.end());
    // A board's chip inline, with its links' and sync controller's figures written out,
    // so that mutations reach what the link layer and the RTL take too.
    const std::string named = "chip: tiny4.yaml\n";
    if (const size_t at = refs[name].find(named); at != std::string::npos)
      refs[name].replace(at, named.size(), kInlineChip);
  }
  std::vector<Case> cases;
  for (size_t i = 0; i < count; ++i) {
    const std::string& ref = kLinkedConfigs[i % kLinkedConfigs.size()];
    std::string mutant = refs[ref];
    // Fewer edits than above: more mutants are systems that run, through the RTL.
    const unsigned edits = 1 + static_cast<unsigned>(rng.below(2));
    for (unsigned k = 0; k < edits; ++k) mutant = test::mutate_yaml_once(mutant, rng);
    if (rng.chance(10)) mutant = test::mutate_bytes(mutant, rng);
    const std::string path = (dir / ("m" + std::to_string(i) + "_" + ref)).string();
    write_bytes(path, mutant);
    std::vector<std::string> argv = {kBin, "run", "--config", path, "--elf",
                                     kFirmware + "/" + kLinkedElfs[rng.below(kLinkedElfs.size())],
                                     "--max-cycles", kMaxCycles, "--timeout", kTimeout, "--quiet"};
    for (std::string& a : rtl_args(rng)) argv.push_back(std::move(a));
    cases.push_back({path, argv, beside});
  }
  run_all(cases, "mutated linked configs under --rtl");
}

TEST(CliFuzz, MutatedLinkedElfsUnderRtlEndNormallyOrWithANamedError) {
  const size_t count = env_count("IPUSIM_CLI_FUZZ_MUTANTS", 60);
  test::MutationRng rng(env_count("IPUSIM_CLI_FUZZ_SEED", 1) + 3000);
  const fs::path dir = fresh_dir("cli_fuzz_linked_elf");
  std::vector<Case> cases;
  for (size_t i = 0; i < count; ++i) {
    const std::string& ref = kLinkedElfs[i % kLinkedElfs.size()];
    const std::vector<uint8_t> mutant = test::mutate_elf(read_bytes(kFirmware + "/" + ref), rng);
    const std::string path = (dir / ("m" + std::to_string(i) + "_" + ref)).string();
    write_bytes(path, std::string(mutant.begin(), mutant.end()));
    const std::string config = "configs/test/" + kLinkedConfigs[rng.below(kLinkedConfigs.size())];
    std::vector<std::string> argv = {kBin,         "run",     "--config",  config,    "--elf", path,
                                     "--max-cycles", kMaxCycles, "--timeout", kTimeout, "--quiet"};
    for (std::string& a : rtl_args(rng)) argv.push_back(std::move(a));
    cases.push_back({path, argv, {}});
  }
  run_all(cases, "mutated ELFs on linked systems under --rtl");
}

}  // namespace
}  // namespace ipusim
