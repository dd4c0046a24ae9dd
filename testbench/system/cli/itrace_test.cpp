// `ipusim run --itrace` end to end: the filters (IPUs, tiles, threads, cycles), what a line
// says (symbol, register written, memory accessed), determinism across host threads, and
// the errors of bad filter values.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cli_run.h"
#include "iss/program.h"

namespace ipusim {
namespace {

const std::string kBin = IPUSIM_BIN;
const std::string kVecadd = std::string(IPUSIM_FIRMWARE_DIR) + "/vecadd.elf";
const std::string kTiny4 = "configs/test/tiny4.yaml";

std::string temp_path(const std::string& name) { return test::temp_path("itrace_", name); }
test::CliResult ipusim_run(const std::string& args) { return test::run_cli(kBin, "itrace_", args); }

// One trace line: ipu tile thread cycle pc <symbol> insn disasm [; effects].
struct Line {
  uint32_t ipu = 0, tile = 0, thread = 0;
  uint64_t cycle = 0;
  uint32_t pc = 0, insn = 0;
  std::string symbol, disasm, effects;
};

std::vector<Line> read_trace(const std::string& path) {
  static const std::regex format(
      R"((\d+) (\d+) (\d+) (\d+) 0x([0-9a-f]{8}) <([^ >]+)> 0x([0-9a-f]{8}) ([^;]+?)(?: ; (.+))?)");
  std::vector<Line> lines;
  std::ifstream in(path);
  for (std::string text; std::getline(in, text);) {
    std::smatch m;
    if (!std::regex_match(text, m, format)) {
      ADD_FAILURE() << "not a trace line: " << text;
      continue;
    }
    Line l;
    l.ipu = uint32_t(std::stoul(m[1]));
    l.tile = uint32_t(std::stoul(m[2]));
    l.thread = uint32_t(std::stoul(m[3]));
    l.cycle = std::stoull(m[4]);
    l.pc = uint32_t(std::stoul(m[5], nullptr, 16));
    l.symbol = m[6];
    l.insn = uint32_t(std::stoul(m[7], nullptr, 16));
    l.disasm = m[8];
    l.effects = m[9];
    lines.push_back(l);
  }
  return lines;
}

// Only the selected tile, threads and cycle window; the run's results as without a trace.
TEST(Itrace, FiltersKeepOnlyTheSelectedTileThreadsAndCycles) {
  const std::string trace = temp_path("trace.txt"), traced_json = temp_path("traced.json"),
                    plain_json = temp_path("plain.json");
  const auto r = ipusim_run("--config " + kTiny4 + " --elf " + kVecadd + " --itrace " + trace +
                            " --itrace-tiles 2 --itrace-threads 0,3 --itrace-cycles 1000:110000 --json " +
                            traced_json + " --quiet");
  ASSERT_EQ(r.status, 0) << r.err;
  const auto plain = ipusim_run("--config " + kTiny4 + " --elf " + kVecadd + " --json " + plain_json + " --quiet");
  ASSERT_EQ(plain.status, 0) << plain.err;
  const std::vector<Line> lines = read_trace(trace);
  ASSERT_FALSE(lines.empty());
  std::set<uint32_t> threads;
  for (const Line& l : lines) {
    EXPECT_EQ(l.ipu, 0u);
    EXPECT_EQ(l.tile, 2u);
    EXPECT_GE(l.cycle, 1000u);
    EXPECT_LT(l.cycle, 110000u);  // worker 3 runs 102246..114588
    threads.insert(l.thread);
  }
  EXPECT_EQ(threads, (std::set<uint32_t>{0, 3}));
  const auto traced = nlohmann::json::parse(test::read_file(traced_json));
  const auto untraced = nlohmann::json::parse(test::read_file(plain_json));
  EXPECT_EQ(traced["tile_cycles"], untraced["tile_cycles"]);
  EXPECT_EQ(traced["instructions"], untraced["instructions"]);
  EXPECT_EQ(traced["per_tile"], untraced["per_tile"]);
}

// vecadd's workers compute c[i] = a[i] + b[i] = 1000 + i / 4: worker 1 starts at i = 0, so
// its first fadd.s writes 1000.0f (0x447a0000) and its first fsw stores it at &c[0]; each
// worker returns its 256 elements in a0 (x10 0x00000100).
TEST(Itrace, LinesNameTheSymbolTheRegisterWrittenAndTheMemoryAccessed) {
  const std::string trace = temp_path("trace.txt");
  const auto r = ipusim_run("--config " + kTiny4 + " --elf " + kVecadd + " --itrace " + trace +
                            " --itrace-tiles 0 --itrace-threads 1 --quiet");
  ASSERT_EQ(r.status, 0) << r.err;
  const auto program = iss::Program::load(kVecadd);
  const std::optional<uint32_t> c = program->symbol("c");
  ASSERT_TRUE(c.has_value());
  const std::vector<Line> lines = read_trace(trace);
  ASSERT_FALSE(lines.empty());
  const Line* fadd = nullptr;
  const Line* fsw = nullptr;
  bool returned_256 = false;
  size_t in_add_slice = 0;
  for (const Line& l : lines) {
    EXPECT_EQ(l.thread, 1u);
    if (l.symbol.rfind("add_slice", 0) == 0) ++in_add_slice;
    if (!fadd && l.disasm.rfind("fadd.s", 0) == 0) fadd = &l;
    if (!fsw && l.disasm.rfind("fsw", 0) == 0) fsw = &l;
    if (l.effects.find("x10 0x00000100") != std::string::npos) returned_256 = true;
  }
  ASSERT_NE(fadd, nullptr);
  EXPECT_NE(fadd->effects.find(" 0x447a0000"), std::string::npos) << fadd->effects;
  EXPECT_EQ(fadd->effects.front(), 'f') << fadd->effects;
  ASSERT_NE(fsw, nullptr);
  EXPECT_EQ(fsw->effects, fmt::format("mem 0x{:08x} 0x447a0000", *c));
  EXPECT_TRUE(returned_256);
  EXPECT_GT(in_add_slice, 256u * 4) << "a loop of a few instructions per element";
  EXPECT_EQ(lines.back().disasm.rfind("wexit", 0), 0u) << "it ends in the runtime's wexit";
  // The function's first instruction is <add_slice>, the others <add_slice+0xOFF>.
  const std::optional<uint32_t> add_slice = program->symbol("add_slice");
  ASSERT_TRUE(add_slice.has_value());
  EXPECT_EQ(lines.front().pc, *add_slice);
  EXPECT_EQ(lines.front().symbol, "add_slice");
  EXPECT_EQ(lines.at(1).symbol, fmt::format("add_slice+0x{:x}", lines.at(1).pc - *add_slice));
}

// Traced tiles compute on the kernel's thread in the batch's order, the others in
// parallel: the same file whatever the host thread count.
TEST(Itrace, SameFileWithOneAndTwoHostThreads) {
  const std::string one = temp_path("1.txt"), two = temp_path("2.txt");
  const std::string args = "--config " + kTiny4 + " --elf " + kVecadd + " --itrace-tiles 1,3 --quiet --itrace ";
  const auto a = ipusim_run(args + one + " --threads 1");
  const auto b = ipusim_run(args + two + " --threads 2");
  ASSERT_EQ(a.status, 0) << a.err;
  ASSERT_EQ(b.status, 0) << b.err;
  const std::string x = test::read_file(one), y = test::read_file(two);
  EXPECT_GT(x.size(), 10000u);
  EXPECT_TRUE(x == y) << "the traces differ";
  std::set<uint32_t> tiles;
  for (const Line& l : read_trace(one)) tiles.insert(l.tile);
  EXPECT_EQ(tiles, (std::set<uint32_t>{1, 3}));
}

// Four IPUs (an IPU-M2000 of tiny4 chips): --itrace-ipus with --itrace-tiles.
TEST(Itrace, IpusAndTilesSelectTogether) {
  const std::string trace = temp_path("trace.txt");
  const auto r = ipusim_run("--config configs/test/tiny4_m2000.yaml --elf " + kVecadd + " --itrace " + trace +
                            " --itrace-ipus 1,3 --itrace-tiles 0 --quiet");
  ASSERT_EQ(r.status, 0) << r.err;
  std::set<std::pair<uint32_t, uint32_t>> seen;
  for (const Line& l : read_trace(trace)) seen.insert({l.ipu, l.tile});
  EXPECT_EQ(seen, (std::set<std::pair<uint32_t, uint32_t>>{{1, 0}, {3, 0}}));
}

TEST(Itrace, BadFilterValuesAreNamedErrors) {
  const std::string base = "--config " + kTiny4 + " --elf " + kVecadd + " --itrace " + temp_path("t.txt") + " ";
  const std::map<std::string, std::string> cases = {
      {"--itrace-tiles 3-1", "--itrace-tiles: range '3-1' is reversed"},
      {"--itrace-tiles 9", "--itrace-tiles: tile 9 is out of range (the IPU has 4 tiles, 0-3)"},
      {"--itrace-ipus 1", "--itrace-ipus: IPU 1 is out of range (the system has 1 IPUs, 0-0)"},
      {"--itrace-threads 7", "--itrace-threads: thread 7 is out of range"},
      {"--itrace-threads x", "--itrace-threads: 'x' is not a thread index or range"},
      {"--itrace-cycles 50:10", "--itrace-cycles: '50:10' is empty"},
      {"--itrace-cycles 50", "--itrace-cycles: '50' is not FROM:TO"},
      {"--itrace-cycles 1k:", "--itrace-cycles: '1k:' has a FROM that is not a cycle number"},
  };
  for (const auto& [option, message] : cases) {
    const auto r = ipusim_run(base + option);
    EXPECT_EQ(r.status, 2) << option;
    EXPECT_NE(r.err.find("ipusim: error: " + message), std::string::npos) << option << ": " << r.err;
  }
  const auto no_trace = ipusim_run("--config " + kTiny4 + " --elf " + kVecadd + " --itrace-tiles 1");
  EXPECT_EQ(no_trace.status, 2);
  EXPECT_NE(no_trace.err.find("give --itrace FILE too"), std::string::npos) << no_trace.err;
}

}  // namespace
}  // namespace ipusim
