// `ipusim run` end to end: the real binary, the test configs, the firmware ELFs (and a
// few ELFs written here for faults and exit codes). Checks console lines, exit
// statuses, the JSON summary, raw console, determinism, and the GC200 acceptance run.
#include <gtest/gtest.h>

#include <sys/wait.h>

#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "test_program.h"

#include "cli_run.h"

namespace ipusim {
namespace {

const std::string kBin = IPUSIM_BIN;
const std::string kFirmware = IPUSIM_FIRMWARE_DIR;

using test::read_file;
using Result = test::CliResult;

std::string temp_path(const std::string& name) { return test::temp_path("ipusim_run_", name); }

Result ipusim_run(const std::string& args) { return test::run_cli(kBin, "ipusim_run_", args); }

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) lines.push_back(l);
  return lines;
}

std::string write_elf(const test::Asm& a, const std::string& name) {
  const std::string path = temp_path(name);
  const std::vector<uint8_t> bytes = a.elf();
  std::ofstream(path, std::ios::binary).write(reinterpret_cast<const char*>(bytes.data()),
                                             std::streamsize(bytes.size()));
  return path;
}

const std::string kHello = kFirmware + "/hello.elf";
const std::string kVecadd = kFirmware + "/vecadd.elf";
const std::string kTiny4 = "configs/test/tiny4.yaml";
const std::string kTiny16 = "configs/test/tiny16.yaml";

TEST(IpusimRun, HelloOnTiny4) {
  const Result r = ipusim_run("--config " + kTiny4 + " --elf " + kHello);
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out,
            "[ipu 0 tile 0] hello from tile 0 of 4 on ipu 0\n"
            "[ipu 0 tile 1] hello from tile 1 of 4 on ipu 0\n"
            "[ipu 0 tile 2] hello from tile 2 of 4 on ipu 0\n"
            "[ipu 0 tile 3] hello from tile 3 of 4 on ipu 0\n");
  for (const char* key : {"tile cycles", "simulated time", "instructions", "host seconds",
                          "simulated MIPS", "elaboration seconds"})
    EXPECT_NE(r.err.find(key), std::string::npos) << key << " missing from\n" << r.err;
  EXPECT_NE(r.err.find("4 tile(s) on 1 IPU(s)"), std::string::npos) << r.err;
}

TEST(IpusimRun, VecaddOnTiny16) {
  const Result r = ipusim_run("--config " + kTiny16 + " --elf " + kVecadd);
  EXPECT_EQ(r.status, 0) << r.err;
  const std::vector<std::string> lines = lines_of(r.out);
  ASSERT_EQ(lines.size(), 16u) << r.out;
  const std::regex line(
      R"(\[ipu 0 tile (\d+)\] vecadd: 1536 elements on 6 workers, checksum (0x[0-9a-f]{8}), sum [0-9.]+, 0 wrong)");
  std::set<std::string> checksums;
  for (size_t i = 0; i < lines.size(); ++i) {
    std::smatch m;
    ASSERT_TRUE(std::regex_match(lines[i], m, line)) << lines[i];
    EXPECT_EQ(std::stoul(m[1]), i);
    checksums.insert(m[2]);
  }
  EXPECT_EQ(checksums.size(), 1u) << "every tile computes the same vectors";
}

TEST(IpusimRun, TileRangeRunsOnlyThoseTiles) {
  Result r = ipusim_run("--config " + kTiny16 + " --elf " + kHello + " --tiles 2-4");
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out,
            "[ipu 0 tile 2] hello from tile 2 of 16 on ipu 0\n"
            "[ipu 0 tile 3] hello from tile 3 of 16 on ipu 0\n"
            "[ipu 0 tile 4] hello from tile 4 of 16 on ipu 0\n");
  r = ipusim_run("--config " + kTiny16 + " --elf " + kHello + " --tiles 9,1");
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(lines_of(r.out),
            (std::vector<std::string>{"[ipu 0 tile 1] hello from tile 1 of 16 on ipu 0",
                                      "[ipu 0 tile 9] hello from tile 9 of 16 on ipu 0"}));
}

TEST(IpusimRun, RawConsoleHasNoTags) {
  const Result r = ipusim_run("--config " + kTiny4 + " --elf " + kHello + " --console raw");
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out,
            "hello from tile 0 of 4 on ipu 0\nhello from tile 1 of 4 on ipu 0\n"
            "hello from tile 2 of 4 on ipu 0\nhello from tile 3 of 4 on ipu 0\n");
}

TEST(IpusimRun, FaultStopsTheRunWithStatus3) {
  test::Asm a;  // tile 1 loads from address 0; the others spin, then halt
  a.csrr(test::a1, IPU_CSR_TILE);
  a.addi(test::a2, test::zero, 1);
  a.bne(test::a1, test::a2, "skip");
  a.lw(test::a3, 0, test::zero);
  a.label("skip");
  a.li(test::a2, 50000);
  a.spin(test::a2);
  a.halt(test::zero);
  const Result r = ipusim_run("--config " + kTiny4 + " --elf " + write_elf(a, "fault.elf"));
  EXPECT_EQ(r.status, 3) << r.err;
  EXPECT_NE(r.err.find("ipusim: fault: tile 1 (ipu 0) thread 0 pc 0x0004000c: access fault"),
            std::string::npos)
      << r.err;
}

TEST(IpusimRun, ExitStatusIsTheLowestTilesNonZeroCode) {
  test::Asm a;  // tile t halts with 5 * t
  a.csrr(test::a1, IPU_CSR_TILE);
  a.slli(test::a2, test::a1, 2);
  a.add(test::a2, test::a2, test::a1);
  a.halt(test::a2);
  const std::string elf = write_elf(a, "codes.elf");
  EXPECT_EQ(ipusim_run("--config " + kTiny4 + " --elf " + elf).status, 5);
  EXPECT_EQ(ipusim_run("--config " + kTiny4 + " --elf " + elf + " --tiles 2-3").status, 10);
  EXPECT_EQ(ipusim_run("--config " + kTiny4 + " --elf " + elf + " --tiles 0").status, 0);
}

TEST(IpusimRun, JsonSummaryAndEffectiveConfig) {
  const std::string json_path = temp_path("run.json");
  std::remove((json_path + ".config.yaml").c_str());
  const Result r =
      ipusim_run("--config " + kTiny4 + " --elf " + kHello + " --json " + json_path + " --quiet");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.err, "") << "--quiet prints no summary";
  const nlohmann::json j = nlohmann::json::parse(read_file(json_path));
  for (const char* key : {"config", "elf", "tiles", "ipus", "instructions", "tile_cycles",
                          "simulated_us", "host_seconds", "mips", "elaboration_seconds",
                          "exit_code", "fault", "per_tile"})
    EXPECT_TRUE(j.contains(key)) << key;
  EXPECT_EQ(j["config"], kTiny4);
  EXPECT_EQ(j["elf"], kHello);
  EXPECT_EQ(j["tiles"], 4);
  EXPECT_EQ(j["exit_code"], 0);
  EXPECT_TRUE(j["fault"].is_null());
  ASSERT_EQ(j["per_tile"].size(), 4u);
  uint64_t instructions = 0, max_cycles = 0;
  for (const auto& t : j["per_tile"]) {
    EXPECT_EQ(t["state"], "halted");
    EXPECT_EQ(t["exit_code"], 0);
    instructions += t["instructions"].get<uint64_t>();
    max_cycles = std::max(max_cycles, t["cycles"].get<uint64_t>());
  }
  EXPECT_GT(instructions, 100u);
  EXPECT_EQ(j["instructions"].get<uint64_t>(), instructions);
  EXPECT_EQ(j["tile_cycles"].get<uint64_t>(), max_cycles);
  // tiny4 runs at 100 MHz: 100 cycles per µs.
  EXPECT_DOUBLE_EQ(j["simulated_us"].get<double>(), double(max_cycles) / 100.0);
  const std::string effective = read_file(json_path + ".config.yaml");
  EXPECT_NE(effective.find("tiny4"), std::string::npos) << effective;
  EXPECT_NE(effective.find("tiles: 4"), std::string::npos) << effective;
}

// Where the host time goes (docs/platform.md): the nine components in their order, each
// at least 0 with a serial share in [0, 1]; their seconds add up to host_seconds and their
// serial shares to serial_share; an exchanging run shows its ISS, plan and delivery time.
TEST(IpusimRun, HostTimeByComponentAddsUp) {
  const std::string json_path = temp_path("components.json");
  const Result r = ipusim_run("--config " + kTiny16 + " --elf " + kFirmware + "/allreduce.elf --threads 2 --json " +
                              json_path);
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.err.find("  host by component   iss "), std::string::npos) << r.err;
  const nlohmann::json j = nlohmann::json::parse(read_file(json_path));
  ASSERT_TRUE(j.contains("host_components"));
  const nlohmann::json& c = j["host_components"];
  std::vector<std::string> names;
  double seconds = 0, serial = 0;
  for (auto it = c.begin(); it != c.end(); ++it) {
    names.push_back(it.key());
    const double s = it.value()["seconds"].get<double>(), share = it.value()["serial_share"].get<double>();
    EXPECT_GE(s, 0.0) << it.key();
    EXPECT_GE(share, 0.0) << it.key();
    EXPECT_LE(share, 1.0) << it.key();
    seconds += s;
    serial += share;
  }
  // nlohmann::json keeps keys sorted; the file's order is checked on its text.
  const std::string text = read_file(json_path);
  size_t at = text.find("\"host_components\"");
  for (const char* name : {"iss", "stops", "exchange_plan", "links", "exchange_delivery", "sync", "console",
                           "run_control", "other"}) {
    const size_t next = text.find(std::string("\"") + name + "\":", at);
    EXPECT_NE(next, std::string::npos) << name;
    at = next;
  }
  EXPECT_EQ(names.size(), 9u);
  const double host = j["host_seconds"].get<double>();
  EXPECT_NEAR(seconds, host, 0.05 * host + 0.002);
  EXPECT_NEAR(serial, j["serial_share"].get<double>(), 0.05);
  EXPECT_GT(c["iss"]["seconds"].get<double>(), 0.0);
  EXPECT_GT(c["exchange_plan"]["seconds"].get<double>(), 0.0);
  EXPECT_GT(c["exchange_delivery"]["seconds"].get<double>(), 0.0);
  EXPECT_EQ(c["iss"]["serial_share"].get<double>(), 0.0);
}

std::set<std::string> keys_of(const nlohmann::json& j) {
  std::set<std::string> keys;
  for (auto it = j.begin(); it != j.end(); ++it) keys.insert(it.key());
  return keys;
}

// One JSON shape for every tile count: 4 tiles and 100 tiles (above the 64 whose
// superstep records are kept) have the same keys at every level, `per_tile` lists every
// tile and `tile_summary` is there for both.
TEST(IpusimRun, JsonHasTheSameKeysForFewAndManyTiles) {
  const std::string few_path = temp_path("few.json"), many_path = temp_path("many.json");
  const Result few = ipusim_run("--config " + kTiny4 + " --elf " + kHello + " --json " + few_path + " --quiet");
  const Result many = ipusim_run("--config configs/gc200.yaml --elf " + kHello + " --tiles 0-99 --json " +
                                 many_path + " --quiet");
  ASSERT_EQ(few.status, 0) << few.err;
  ASSERT_EQ(many.status, 0) << many.err;
  const nlohmann::json f = nlohmann::json::parse(read_file(few_path));
  const nlohmann::json j = nlohmann::json::parse(read_file(many_path));
  EXPECT_EQ(keys_of(f), keys_of(j));
  ASSERT_EQ(f["per_tile"].size(), 4u);
  ASSERT_EQ(j["per_tile"].size(), 100u);
  EXPECT_EQ(keys_of(f["per_tile"][0]), keys_of(j["per_tile"][99]));
  EXPECT_EQ(j["per_tile"][99]["tile"], 99);
  EXPECT_EQ(keys_of(f["tile_summary"]), keys_of(j["tile_summary"]));
  ASSERT_FALSE(f["supersteps"].empty());
  ASSERT_FALSE(j["supersteps"].empty());
  EXPECT_EQ(keys_of(f["supersteps"][0]["ipus"][0]), keys_of(j["supersteps"][0]["ipus"][0]));
  // Few tiles: every tile's superstep records; many: none (the flag says which).
  EXPECT_EQ(f["per_tile_supersteps"], true);
  EXPECT_EQ(f["supersteps"][0]["ipus"][0]["per_tile"].size(), 4u);
  EXPECT_EQ(j["per_tile_supersteps"], false);
  EXPECT_TRUE(j["supersteps"][0]["ipus"][0]["per_tile"].empty());
  EXPECT_EQ(j["tiles"], 100);
  EXPECT_EQ(j["tile_summary"]["states"]["halted"], 100);
  EXPECT_EQ(j["tile_summary"]["exit_codes"]["0"], 100);
  EXPECT_LE(j["tile_summary"]["cycles_min"], j["tile_summary"]["cycles_max"]);
  EXPECT_EQ(j["tile_summary"]["cycles_max"], j["tile_cycles"]);
}

TEST(IpusimRun, TwoRunsGiveIdenticalBytesAndCycles) {
  const std::string j1 = temp_path("1.json"), j2 = temp_path("2.json");
  const Result a = ipusim_run("--config " + kTiny16 + " --elf " + kVecadd + " --json " + j1);
  const Result b = ipusim_run("--config " + kTiny16 + " --elf " + kVecadd + " --json " + j2);
  ASSERT_EQ(a.status, 0) << a.err;
  EXPECT_EQ(a.out, b.out);
  const nlohmann::json x = nlohmann::json::parse(read_file(j1));
  const nlohmann::json y = nlohmann::json::parse(read_file(j2));
  EXPECT_EQ(x["tile_cycles"], y["tile_cycles"]);
  EXPECT_EQ(x["instructions"], y["instructions"]);
  EXPECT_EQ(x["per_tile"], y["per_tile"]);
}

// --iss lockstep (docs/iss.md "Lockstep"): a kernel that exchanges and prints gives the
// plain run's output, cycles, instructions and bytes (every tile checked all along).
TEST(IpusimRun, LockstepGivesThePlainRunsBytesAndCycles) {
  const std::string kAllreduce = kFirmware + "/allreduce.elf";
  const std::string j1 = temp_path("plain.json"), j2 = temp_path("lockstep.json");
  const Result a = ipusim_run("--config " + kTiny4 + " --elf " + kAllreduce + " --json " + j1);
  const Result b = ipusim_run("--config " + kTiny4 + " --elf " + kAllreduce + " --iss lockstep --json " + j2);
  ASSERT_EQ(a.status, 0) << a.err;
  ASSERT_EQ(b.status, 0) << b.err;
  EXPECT_FALSE(a.out.empty());
  EXPECT_EQ(a.out, b.out);
  const nlohmann::json x = nlohmann::json::parse(read_file(j1));
  const nlohmann::json y = nlohmann::json::parse(read_file(j2));
  EXPECT_GT(x["exchange_bytes"].get<uint64_t>(), 0u);
  for (const char* key : {"tile_cycles", "instructions", "exchange_bytes", "per_tile"}) EXPECT_EQ(x[key], y[key]) << key;
}

TEST(IpusimRun, BadInputExitsWithStatus2) {
  Result r = ipusim_run("--config configs/test/no_such.yaml --elf " + kHello);
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("ipusim: error: "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("no_such.yaml"), std::string::npos) << r.err;

  const std::string not_elf = temp_path("not.elf");
  std::ofstream(not_elf) << "this is not an ELF file\n";
  r = ipusim_run("--config " + kTiny4 + " --elf " + not_elf);
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("ipusim: error: "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(not_elf), std::string::npos) << r.err;

  r = ipusim_run("--config " + kTiny4 + " --elf " + kHello + " --tiles 3-9");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("ipusim: error: --tiles: tile 9 is out of range"), std::string::npos) << r.err;

  r = ipusim_run("--config " + kTiny4 + " --elf " + kHello + " --console fancy");
  EXPECT_EQ(r.status, 2) << r.err;
  r = ipusim_run("--config " + kTiny4);
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_NE(r.err.find("--elf"), std::string::npos) << r.err;
}

TEST(IpusimRun, ImageLargerThanSramIsRejected) {
  test::Asm a;
  a.halt(test::zero);
  a.bytes(std::string(700 * 1024, 'x'));  // 700 KiB of data: tiny4 tiles have 624 KiB
  const Result r = ipusim_run("--config " + kTiny4 + " --elf " + write_elf(a, "big.elf"));
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("does not fit the tile SRAM"), std::string::npos) << r.err;
}

uint32_t elf_entry(const std::string& path) {
  const std::string bytes = read_file(path);
  uint32_t entry = 0;
  for (int i = 3; i >= 0; --i) entry = (entry << 8) | uint8_t(bytes.at(24 + i));
  return entry;
}

TEST(IpusimRun, InstructionTraceHasTheContractFormat) {
  const std::string trace = temp_path("itrace.txt"), json_path = temp_path("run.json");
  const Result r = ipusim_run("--config " + kTiny4 + " --elf " + kVecadd + " --tiles 1-2 --itrace " +
                              trace + " --json " + json_path + " --quiet");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(lines_of(r.out).size(), 2u) << "tracing does not change the console";
  const nlohmann::json j = nlohmann::json::parse(read_file(json_path));
  // ipu tile thread cycle pc <symbol> insn disasm [; effects]
  const std::regex format(R"((\d+) (\d+) (\d+) (\d+) 0x([0-9a-f]{8}) <[^ >]+> 0x([0-9a-f]{8}) ([^;]+)( ; .*)?)");
  std::ifstream in(trace);
  uint64_t count = 0;
  std::set<std::string> tiles, threads;
  // Per tile/thread: cycles only grow, except that the second of a co-issued pair (the
  // instruction at the next pc) shows its first's cycle (docs/xipu.md "Timing").
  std::map<std::string, uint64_t> last_cycle, last_pc;
  uint64_t shared_cycles = 0;
  bool saw_halt = false;
  for (std::string line; std::getline(in, line); ++count) {
    std::smatch m;
    ASSERT_TRUE(std::regex_match(line, m, format)) << line;
    EXPECT_EQ(m[1], "0");
    tiles.insert(m[2]);
    threads.insert(m[3]);
    const std::string who = std::string(m[2]) + "/" + std::string(m[3]);
    const uint64_t cycle = std::stoull(m[4]);
    const uint64_t pc = std::stoull(m[5], nullptr, 16);
    if (last_cycle.count(who)) {
      if (cycle == last_cycle[who] && pc == last_pc[who] + 4)
        ++shared_cycles;
      else
        EXPECT_GT(cycle, last_cycle[who]) << line;
    }
    last_cycle[who] = cycle;
    last_pc[who] = pc;
    if (count == 0) {
      EXPECT_EQ(std::stoul(m[5], nullptr, 16), elf_entry(kVecadd)) << "first line is the entry";
      EXPECT_EQ(m[4], "0");
    }
    saw_halt = saw_halt || std::string(m[7]).rfind("halt", 0) == 0;
  }
  EXPECT_EQ(count, j["instructions"].get<uint64_t>());
  EXPECT_GT(shared_cycles, 0u) << "vecadd's float loop co-issues (co_issue is on by default)";
  EXPECT_EQ(tiles, (std::set<std::string>{"1", "2"}));
  EXPECT_EQ(threads.size(), 7u) << "the supervisor and six workers";
  EXPECT_TRUE(saw_halt);
}

// The acceptance check: hello on every tile of a full GC200.
TEST(IpusimRun, HelloOnEveryGc200TilePrints1472DistinctLines) {
  const Result r = ipusim_run("--config configs/gc200.yaml --elf " + kHello);
  ASSERT_EQ(r.status, 0) << r.err;
  const std::vector<std::string> lines = lines_of(r.out);
  ASSERT_EQ(lines.size(), 1472u);
  EXPECT_EQ(std::set<std::string>(lines.begin(), lines.end()).size(), 1472u);
  EXPECT_EQ(lines.front(), "[ipu 0 tile 0] hello from tile 0 of 1472 on ipu 0");
  EXPECT_EQ(lines.back(), "[ipu 0 tile 1471] hello from tile 1471 of 1472 on ipu 0");
  EXPECT_NE(r.err.find("1472 tile(s) on 1 IPU(s)"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace ipusim
