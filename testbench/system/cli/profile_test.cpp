// `ipusim run --profile` end to end on profile_kernel.elf (testbench/system/firmware): the
// functions' exclusive and inclusive cycles and instructions and their calls, exactly as
// derived from the kernel's code (its header lists the counts); the same file from the
// interpreter and the translator; every profiled tile's threads adding up to its cycles
// and instructions in --json; the tile selection; callgrind_annotate and `go tool pprof`
// reading the files; FILE.tiles, each function over the tiles.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <tuple>
#include <utility>

#include <nlohmann/json.hpp>

#include "cli_run.h"

namespace ipusim {
namespace {

const std::string kBin = IPUSIM_BIN;
const std::string kKernel = std::string(IPUSIM_FIRMWARE_DIR) + "/system/profile_kernel.elf";
const std::string kTiny4 = "configs/test/tiny4.yaml";

std::string temp_path(const std::string& name) { return test::temp_path("profile_", name); }
test::CliResult ipusim_run(const std::string& args) { return test::run_cli(kBin, "profile_", args); }

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

struct Cost {
  uint64_t cycles = 0, instructions = 0;
  bool operator==(const Cost&) const = default;
};
std::ostream& operator<<(std::ostream& o, const Cost& c) { return o << c.cycles << " cycles, " << c.instructions << " insns"; }

struct Call {
  uint64_t calls = 0;
  Cost inclusive;
};

// One file: its functions' exclusive costs and calls, and its summary line.
struct Part {
  std::map<std::string, Cost> self;
  std::map<std::pair<std::string, std::string>, Call> calls;  // (caller, callee)
  Cost summary;
  Cost total() const {
    Cost t;
    for (const auto& [f, c] : self) {
      t.cycles += c.cycles;
      t.instructions += c.instructions;
    }
    return t;
  }
};

// Reads a callgrind file: header (summary:), then fl= / fn= / cost lines and
// cfl= / cfn= / calls= / cost lines.
Part read_profile(const std::string& path) {
  Part part;
  std::ifstream in(path);
  EXPECT_TRUE(in.good()) << path;
  std::string fn, cfn;
  uint64_t pending_calls = 0;
  bool call_cost = false;
  for (std::string line; std::getline(in, line);) {
    unsigned long long pos = 0, cycles = 0, insns = 0;
    if (line.rfind("summary: ", 0) == 0) {
      EXPECT_EQ(std::sscanf(line.c_str(), "summary: %llu %llu", &cycles, &insns), 2) << line;
      part.summary = Cost{cycles, insns};
    } else if (line.rfind("fn=", 0) == 0) {
      fn = line.substr(3);
    } else if (line.rfind("cfn=", 0) == 0) {
      cfn = line.substr(4);
    } else if (line.rfind("calls=", 0) == 0) {
      pending_calls = std::stoull(line.substr(6));
      call_cost = true;
    } else if (!line.empty() && std::isdigit(static_cast<unsigned char>(line[0]))) {
      EXPECT_EQ(std::sscanf(line.c_str(), "%llu %llu %llu", &pos, &cycles, &insns), 3) << line;
      if (call_cost) {
        Call& c = part.calls[{fn, cfn}];
        c.calls += pending_calls;
        c.inclusive.cycles += cycles;
        c.inclusive.instructions += insns;
        call_cost = false;
      } else {
        Cost& c = part.self[fn];
        c.cycles += cycles;
        c.instructions += insns;
      }
    }
  }
  return part;
}

std::string thread_file(const std::string& path, uint32_t tile, uint32_t thread) {
  return path + ".ipu0.tile" + std::to_string(tile) + ".thread" + std::to_string(thread);
}

// The counts of profile_kernel.c's header: the supervisor runs alone, 6 tile cycles an
// instruction; the worker 1 a instruction (its issue slot).
constexpr uint64_t kSup = 6, kWorker = 1;
constexpr uint64_t loop_insns(uint64_t n) { return 2 * n + 2; }
constexpr uint64_t rec_insns(uint64_t n) { return 8 * n + 2; }

void expect_kernel_figures(const Part& sup, const Part& worker) {
  auto cost = [](uint64_t insns, uint64_t per) { return Cost{insns * per, insns}; };
  // prof_loop: main's prof_loop(100) and prof_tail's prof_loop(20).
  EXPECT_EQ(sup.self.at("prof_loop"), cost(loop_insns(100) + loop_insns(20), kSup));
  EXPECT_EQ(sup.calls.at({"main", "prof_loop"}).calls, 1u);
  EXPECT_EQ(sup.calls.at({"main", "prof_loop"}).inclusive, cost(loop_insns(100), kSup));
  // prof_rec(5): 5 recursive calls under one from main; the inner calls' inclusive costs
  // are those of prof_rec(4) .. prof_rec(0).
  EXPECT_EQ(sup.self.at("prof_rec"), cost(rec_insns(5), kSup));
  EXPECT_EQ(sup.calls.at({"main", "prof_rec"}).calls, 1u);
  EXPECT_EQ(sup.calls.at({"main", "prof_rec"}).inclusive, cost(rec_insns(5), kSup));
  EXPECT_EQ(sup.calls.at({"prof_rec", "prof_rec"}).calls, 5u);
  uint64_t inner = 0;
  for (uint64_t n = 0; n < 5; ++n) inner += rec_insns(n);
  EXPECT_EQ(sup.calls.at({"prof_rec", "prof_rec"}).inclusive, cost(inner, kSup));
  // prof_outer(7) and its helper.
  EXPECT_EQ(sup.self.at("prof_outer"), cost(8 + 3 * 7, kSup));
  EXPECT_EQ(sup.self.at("prof_helper"), cost(2 * 7, kSup));
  EXPECT_EQ(sup.calls.at({"prof_outer", "prof_helper"}).calls, 7u);
  EXPECT_EQ(sup.calls.at({"prof_outer", "prof_helper"}).inclusive, cost(2 * 7, kSup));
  EXPECT_EQ(sup.calls.at({"main", "prof_outer"}).inclusive, cost(8 + 3 * 7 + 2 * 7, kSup));
  // prof_tail(20): its j, then prof_loop(20) as a tail call inside it.
  EXPECT_EQ(sup.self.at("prof_tail"), cost(1, kSup));
  EXPECT_EQ(sup.calls.at({"prof_tail", "prof_loop"}).calls, 1u);
  EXPECT_EQ(sup.calls.at({"prof_tail", "prof_loop"}).inclusive, cost(loop_insns(20), kSup));
  EXPECT_EQ(sup.calls.at({"main", "prof_tail"}).inclusive, cost(1 + loop_insns(20), kSup));
  // The worker's prof_loop(50), one cycle of its slot an instruction.
  EXPECT_EQ(worker.self.at("prof_loop"), cost(loop_insns(50), kWorker));
  EXPECT_EQ(worker.calls.at({"worker", "prof_loop"}).calls, 1u);
  EXPECT_EQ(worker.calls.at({"worker", "prof_loop"}).inclusive, cost(loop_insns(50), kWorker));
}

test::CliResult profile_run(const std::string& iss, const std::string& profile, const std::string& json,
                            const std::string& more = "") {
  return ipusim_run("--config " + kTiny4 + " --elf " + kKernel + " --iss " + iss + " --profile " + profile +
                    " --json " + json + " --quiet --threads 2 " + more);
}

// The kernel profiled on the interpreter into INTERP, then on the translator into JIT (the
// same --json file, the translator's run last): both runs succeed and write the same bytes.
void profile_on_both_engines(const std::string& interp, const std::string& jit, const std::string& json,
                             const std::string& more) {
  for (const auto& [iss, out] : {std::pair{"interp", interp}, std::pair{"jit", jit}}) {
    const auto r = profile_run(iss, out, json, more);
    ASSERT_EQ(r.status, 0) << r.err;
  }
  EXPECT_EQ(slurp(interp), slurp(jit)) << "the interpreter's and the translator's profiles differ";
}

TEST(Profile, KernelCostsAreExactOnBothEnginesAndAddUpToTheTiles) {
  const std::string interp = temp_path("interp.out"), jit = temp_path("jit.out"), json = temp_path("run.json");
  ASSERT_NO_FATAL_FAILURE(profile_on_both_engines(interp, jit, json, "--profile-split"));
  const std::string lockstep = temp_path("lockstep.out");
  const auto r = profile_run("lockstep", lockstep, temp_path("lockstep.json"));
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(slurp(interp), slurp(lockstep)) << "a profiled tile in lockstep gives another profile";

  const nlohmann::json j = nlohmann::json::parse(slurp(json));
  ASSERT_EQ(j["per_tile"].size(), 4u);
  Cost tiles;
  for (const auto& tile : j["per_tile"]) {
    const uint32_t t = tile["tile"];
    ASSERT_EQ(tile["ipu"], 0);
    for (uint32_t th = 0; th < 2; ++th)
      EXPECT_EQ(slurp(thread_file(interp, t, th)), slurp(thread_file(jit, t, th))) << "tile " << t << " thread " << th;
    const Part sup = read_profile(thread_file(jit, t, 0)), worker = read_profile(thread_file(jit, t, 1));
    EXPECT_EQ(sup.summary, sup.total());
    EXPECT_EQ(worker.summary, worker.total());
    const Cost json_tile{tile["cycles"].get<uint64_t>(), tile["instructions"].get<uint64_t>()};
    EXPECT_EQ((Cost{sup.total().cycles + worker.total().cycles, sup.total().instructions + worker.total().instructions}),
              json_tile)
        << tile;
    tiles.cycles += json_tile.cycles;
    tiles.instructions += json_tile.instructions;
    expect_kernel_figures(sup, worker);
  }
  // The file itself: every tile and thread summed.
  const Part all = read_profile(jit);
  EXPECT_EQ(all.summary, tiles);
  EXPECT_EQ(all.total(), tiles);
  EXPECT_EQ(all.self.at("prof_rec"), (Cost{4 * 6 * rec_insns(5), 4 * rec_insns(5)}));
  EXPECT_EQ(all.calls.at({"prof_rec", "prof_rec"}).calls, 4u * 5u);
}

// A kernel with six workers a tile, syncs, exchanges and AMP work: the same file from both
// engines, and the tiles' cycles and instructions in it are --json's.
TEST(Profile, GemmOnBothEnginesAddsUpToTheTiles) {
  const std::string gemm = std::string(IPUSIM_FIRMWARE_DIR) + "/gemm.elf";
  const std::string interp = temp_path("gemm_interp.out"), jit = temp_path("gemm_jit.out"), json = temp_path("gemm.json");
  for (const auto& [iss, out] : {std::pair{"interp", interp}, std::pair{"jit", jit}}) {
    const auto r = ipusim_run("--config configs/test/tiny16.yaml --elf " + gemm + " --iss " + iss + " --profile " + out +
                              " --json " + json + " --quiet --threads 2");
    ASSERT_EQ(r.status, 0) << r.err;
  }
  EXPECT_EQ(slurp(interp), slurp(jit)) << "the interpreter's and the translator's profiles differ";
  const nlohmann::json j = nlohmann::json::parse(slurp(json));
  Cost tiles;
  for (const auto& tile : j["per_tile"]) {
    tiles.cycles += tile["cycles"].get<uint64_t>();
    tiles.instructions += tile["instructions"].get<uint64_t>();
  }
  const Part all = read_profile(jit);
  EXPECT_EQ(all.summary, tiles);
  EXPECT_EQ(all.total(), tiles);
  EXPECT_GT(all.self.at("gemm_rows16").instructions, 0u);
}

TEST(Profile, TileSelectionKeepsOnlyThoseTiles) {
  const std::string out = temp_path("sel.out"), json = temp_path("sel.json");
  const auto r = profile_run("jit", out, json, "--profile-tiles 1,3 --profile-split");
  ASSERT_EQ(r.status, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(slurp(json));
  Cost selected;
  for (const auto& tile : j["per_tile"]) {
    const uint32_t t = tile["tile"];
    const bool kept = t == 1 || t == 3;
    EXPECT_EQ(std::ifstream(thread_file(out, t, 0)).good(), kept) << t;
    if (!kept) continue;
    selected.cycles += tile["cycles"].get<uint64_t>();
    selected.instructions += tile["instructions"].get<uint64_t>();
  }
  EXPECT_EQ(read_profile(out).summary, selected);
  const auto bad = ipusim_run("--config " + kTiny4 + " --elf " + kKernel + " --profile " + out + " --profile-tiles 9");
  EXPECT_EQ(bad.status, 2);
  EXPECT_NE(bad.err.find("--profile-tiles"), std::string::npos) << bad.err;
  const auto alone = ipusim_run("--config " + kTiny4 + " --elf " + kKernel + " --profile-tiles 1");
  EXPECT_EQ(alone.status, 2);
  EXPECT_NE(alone.err.find("give --profile FILE too"), std::string::npos) << alone.err;
}

TEST(Profile, CallgrindAnnotateNamesTheFunctions) {
  if (std::system("command -v callgrind_annotate >/dev/null 2>&1") != 0)
    GTEST_SKIP() << "callgrind_annotate is not on PATH (Debian valgrind; scripts/deps.sh installs it)";
  const std::string out = temp_path("annotate.out"), json = temp_path("annotate.json"),
                    text = temp_path("annotate.txt");
  const auto r = profile_run("jit", out, json, "--profile-tiles 0");
  ASSERT_EQ(r.status, 0) << r.err;
  ASSERT_EQ(std::system(("callgrind_annotate --inclusive=yes " + out + " > " + text + " 2>&1").c_str()), 0)
      << slurp(text);
  const std::string annotated = slurp(text);
  EXPECT_EQ(annotated.find("WARNING"), std::string::npos) << annotated;
  for (const char* f : {"prof_loop", "prof_rec", "prof_outer", "prof_helper", "prof_tail", "main", "worker"})
    EXPECT_NE(annotated.find(f), std::string::npos) << f << " not in:\n" << annotated;
}

}  // namespace
}  // namespace ipusim

namespace ipusim {
namespace {

// `go tool pprof -top` of `file` for one sample type: each function's flat (exclusive)
// and cum (inclusive) value, and the total of the "Showing nodes accounting for" line.
struct PprofTop {
  std::map<std::string, std::pair<uint64_t, uint64_t>> functions;  // name -> (flat, cum)
  uint64_t total = 0;
  std::string text;
};

PprofTop pprof_top(const std::string& file, const std::string& sample_index) {
  // pprof wants a writable HOME and Go's cache (CI may have neither).
  const std::string home = temp_path("gohome_" + sample_index);
  std::filesystem::create_directories(home);
  const auto r = test::run_command("env HOME=" + home + " GOCACHE=" + home + "/cache GOFLAGS= go", "pprof_",
                                   "tool pprof -top -nodecount=1000 -nodefraction=0 -sample_index=" + sample_index + " " + file);
  PprofTop top;
  top.text = r.out + r.err;
  EXPECT_EQ(r.status, 0) << "go tool pprof (Debian golang-go, installed by scripts/deps.sh) failed:\n" << top.text;
  std::istringstream lines(r.out);
  bool table = false;
  for (std::string line; std::getline(lines, line);) {
    unsigned long long shown = 0, total = 0;
    if (std::sscanf(line.c_str(), "Showing nodes accounting for %llu, %*s of %llu total", &shown, &total) == 2) {
      top.total = total;
    } else if (line.find("flat%") != std::string::npos) {
      table = true;
    } else if (table) {
      std::istringstream row(line);
      std::string flat_pct, sum_pct, cum_pct, name;
      uint64_t flat = 0, cum = 0;
      if (row >> flat >> flat_pct >> sum_pct >> cum >> cum_pct >> name) top.functions[name] = {flat, cum};
    }
  }
  return top;
}

// The pprof file: go tool pprof names the kernel's functions with their exclusive and
// inclusive cycles and instructions, exactly (recursion counted once in cum), and its
// total is the tiles' cycles; both engines write the same bytes.
TEST(Profile, GoToolPprofReadsTheKernelsCostsExactly) {
  const std::string interp = temp_path("interp.pb.gz"), jit = temp_path("jit.pb.gz"), json = temp_path("run.json");
  ASSERT_NO_FATAL_FAILURE(profile_on_both_engines(interp, jit, json, "--profile-tiles 0"));
  ASSERT_EQ(slurp(jit).substr(0, 2), std::string("\x1f\x8b")) << "a .pb.gz file is gzipped";
  const nlohmann::json j = nlohmann::json::parse(slurp(json));
  const nlohmann::json& tile0 = j["per_tile"][0];
  ASSERT_EQ(tile0["tile"], 0);

  for (const auto& [index, per_insn_sup, per_insn_worker] :
       {std::tuple{"cycles", kSup, kWorker}, std::tuple{"instructions", uint64_t{1}, uint64_t{1}}}) {
    const PprofTop top = pprof_top(jit, index);
    SCOPED_TRACE(top.text);
    EXPECT_EQ(top.total, tile0[index].get<uint64_t>()) << "the file adds up to tile 0's " << index;
    auto sup = [&](uint64_t insns) { return insns * per_insn_sup; };
    using Costs = std::pair<uint64_t, uint64_t>;  // flat, cum
    EXPECT_EQ(top.functions.at("prof_loop"),
              (Costs{sup(loop_insns(100) + loop_insns(20)) + loop_insns(50) * per_insn_worker,
                     sup(loop_insns(100) + loop_insns(20)) + loop_insns(50) * per_insn_worker}));
    EXPECT_EQ(top.functions.at("prof_rec"), (Costs{sup(rec_insns(5)), sup(rec_insns(5))}));
    EXPECT_EQ(top.functions.at("prof_outer"), (Costs{sup(8 + 3 * 7), sup(8 + 3 * 7 + 2 * 7)}));
    EXPECT_EQ(top.functions.at("prof_helper"), (Costs{sup(2 * 7), sup(2 * 7)}));
    EXPECT_EQ(top.functions.at("prof_tail"), (Costs{sup(1), sup(1 + loop_insns(20))}));
    EXPECT_EQ(top.functions.at("worker").second, loop_insns(50) * per_insn_worker + top.functions.at("worker").first);
    // main's own cost is the runtime's setup around the calls: its cum holds the calls.
    EXPECT_EQ(top.functions.at("main").second,
              top.functions.at("main").first +
                  sup(loop_insns(100) + rec_insns(5) + 8 + 3 * 7 + 2 * 7 + 1 + loop_insns(20)));
  }
}

// .pb is the same profile uncompressed; the split files are pprof files too.
TEST(Profile, PprofUncompressedAndSplit) {
  const std::string out = temp_path("p.pb"), gz = temp_path("p.pb.gz"), json = temp_path("run.json");
  auto r = profile_run("jit", out, json, "--profile-tiles 2 --profile-split");
  ASSERT_EQ(r.status, 0) << r.err;
  r = profile_run("jit", gz, json, "--profile-tiles 2");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(slurp(out).substr(0, 2), std::string("\x1f\x8b"));
  const PprofTop plain = pprof_top(out, "cycles"), zipped = pprof_top(gz, "cycles");
  EXPECT_EQ(plain.functions, zipped.functions);
  const PprofTop worker = pprof_top(thread_file(out, 2, 1), "cycles");
  EXPECT_EQ(worker.functions.at("prof_loop").first, loop_insns(50) * kWorker) << worker.text;
  EXPECT_EQ(worker.functions.count("main"), 0u) << worker.text;
}

}  // namespace
}  // namespace ipusim

namespace ipusim {
namespace {

// FILE.tiles: per function, (sum, min, max, max tile) of self cycles, inclusive cycles
// and self instructions over the program's tiles.
struct Spread {
  uint64_t sum = 0, min = 0, max = 0;
  std::string max_tile;
  bool operator==(const Spread&) const = default;
};
std::ostream& operator<<(std::ostream& o, const Spread& s) {
  return o << "sum " << s.sum << " min " << s.min << " max " << s.max << " at " << s.max_tile;
}
struct OverTiles {
  std::map<std::string, std::array<Spread, 3>> functions;  // self_cycles, inclusive_cycles, self_instructions
  uint64_t programs = 0;
};

OverTiles read_over_tiles(const std::string& path) {
  OverTiles o;
  std::istringstream lines(slurp(path));
  EXPECT_FALSE(lines.str().empty()) << path;
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind("program ", 0) == 0) ++o.programs;
    if (line.empty() || line[0] == '#' || line.rfind("program ", 0) == 0 || line.rfind("function\t", 0) == 0) continue;
    std::istringstream row(line);
    std::string function, file;
    row >> function >> file;
    std::array<Spread, 3>& f = o.functions[function];
    for (Spread& s : f) EXPECT_TRUE(row >> s.sum >> s.min >> s.max >> s.max_tile) << line;
  }
  return o;
}

// Spread of per-tile values, as the file defines it: the first tile with the max.
Spread spread_of(const std::vector<std::pair<std::string, uint64_t>>& per_tile) {
  Spread s{0, per_tile.at(0).second, 0, per_tile.at(0).first};
  for (const auto& [tile, v] : per_tile) {
    s.sum += v;
    s.min = std::min(s.min, v);
    if (v > s.max) {
      s.max = v;
      s.max_tile = tile;
    }
  }
  return s;
}

// The kernel of known costs: every tile runs the same, so min = max = a tile's figure,
// and the max is the first tile.
TEST(Profile, OverTilesHasSumMinMaxOfTheKernel) {
  const std::string out = temp_path("k.out"), json = temp_path("k.json");
  const auto r = profile_run("jit", out, json);
  ASSERT_EQ(r.status, 0) << r.err;
  const OverTiles o = read_over_tiles(out + ".tiles");
  EXPECT_EQ(o.programs, 1u);
  const uint64_t loop = kSup * (loop_insns(100) + loop_insns(20)) + kWorker * loop_insns(50);
  EXPECT_EQ(o.functions.at("prof_loop")[0], (Spread{4 * loop, loop, loop, "0.0"}));
  EXPECT_EQ(o.functions.at("prof_loop")[1], (Spread{4 * loop, loop, loop, "0.0"}));
  const uint64_t outer = kSup * (8 + 3 * 7), outer_incl = kSup * (8 + 3 * 7 + 2 * 7);
  EXPECT_EQ(o.functions.at("prof_outer")[0], (Spread{4 * outer, outer, outer, "0.0"}));
  EXPECT_EQ(o.functions.at("prof_outer")[1], (Spread{4 * outer_incl, outer_incl, outer_incl, "0.0"}));
  EXPECT_EQ(o.functions.at("prof_rec")[2], (Spread{4 * rec_insns(5), rec_insns(5), rec_insns(5), "0.0"}));
}

// gemm on tiny16, where the tiles differ: each function's sum, min, max and max tile are
// those of the per-tile split files (threads summed per tile).
TEST(Profile, OverTilesMatchesTheSplitFilesOfGemm) {
  const std::string gemm = std::string(IPUSIM_FIRMWARE_DIR) + "/gemm.elf";
  const std::string out = temp_path("gemm.out");
  const auto r = ipusim_run("--config configs/test/tiny16.yaml --elf " + gemm + " --profile " + out +
                            " --profile-split --quiet --threads 2");
  ASSERT_EQ(r.status, 0) << r.err;
  std::map<std::string, std::vector<std::pair<std::string, uint64_t>>> self_cycles;  // function -> per tile
  std::vector<Part> tiles;
  for (uint32_t t = 0; t < 16; ++t) {
    Part tile;
    for (uint32_t th = 0; th < 7; ++th) {
      if (!std::ifstream(thread_file(out, t, th)).good()) continue;
      for (const auto& [f, c] : read_profile(thread_file(out, t, th)).self) tile.self[f].cycles += c.cycles;
    }
    tiles.push_back(tile);
  }
  const OverTiles o = read_over_tiles(out + ".tiles");
  EXPECT_EQ(o.programs, 1u);
  ASSERT_FALSE(o.functions.empty());
  bool differ = false;
  for (const auto& [function, spreads] : o.functions) {
    std::vector<std::pair<std::string, uint64_t>> per_tile;
    for (uint32_t t = 0; t < 16; ++t) {
      const auto it = tiles[t].self.find(function);
      per_tile.push_back({"0." + std::to_string(t), it == tiles[t].self.end() ? 0 : it->second.cycles});
    }
    EXPECT_EQ(spreads[0], spread_of(per_tile)) << function;
    differ |= spreads[0].min != spreads[0].max;
  }
  EXPECT_TRUE(differ) << "gemm's tiles all cost the same: the test shows nothing";
}

}  // namespace
}  // namespace ipusim
