// `ipusim run` on the chip-level firmware (testbench/system/firmware): the same output,
// JSON and trace bytes for every --threads, sync deadlocks, the per-superstep JSON and
// the Perfetto trace file.
#include <gtest/gtest.h>

#include <sys/wait.h>

#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cli_run.h"

namespace ipusim {
namespace {

const std::string kBin = IPUSIM_BIN;
const std::string kSystemFirmware = std::string(IPUSIM_FIRMWARE_DIR) + "/system/";
const std::string kTiny4 = "configs/test/tiny4.yaml";
const std::string kTiny16 = "configs/test/tiny16.yaml";
const std::string kGc200 = "configs/gc200.yaml";

using test::read_file;
using Result = test::CliResult;

std::string temp_path(const std::string& name) { return test::temp_path("chip_cli_", name); }

Result ipusim_run(const std::string& args) { return test::run_cli(kBin, "chip_cli_", args); }

// The JSON summary without the figures that measure the host, not the simulation.
nlohmann::json simulated_part(const std::string& path) {
  nlohmann::json j = nlohmann::json::parse(read_file(path));
  for (const char* key : {"host_seconds", "mips", "elaboration_seconds", "iss_seconds", "kernel_share",
                          "host_threads", "exchange_plan_seconds", "exchange_parallel_seconds", "batch_seconds",
                          "serial_share", "host_components",
                          // which tile reaches a region first, and so where regions start, depends on the threads
                          "jit_regions", "jit_code_bytes", "jit_seconds", "jit_share"}) {
    EXPECT_TRUE(j.contains(key)) << key;
    j.erase(key);
  }
  return j;
}

void expect_same_for_every_thread_count(const std::string& config, const std::string& elf) {
  std::string first_out, first_trace;
  nlohmann::json first_json;
  for (int threads : {1, 2, 3, 8}) {
    const std::string n = std::to_string(threads);
    const std::string json = temp_path("t" + n + ".json"), trace = temp_path("t" + n + ".trace.json");
    const Result r = ipusim_run("--config " + config + " --elf " + elf + " --threads " + n + " --json " + json +
                                " --trace " + trace);
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.err.find("host threads        " + n), std::string::npos) << r.err;
    const nlohmann::json j = simulated_part(json);
    if (threads == 1) {
      first_out = r.out;
      first_json = j;
      first_trace = read_file(trace);
      EXPECT_FALSE(first_out.empty());
      EXPECT_GT(first_trace.size(), 100u);
      continue;
    }
    EXPECT_EQ(r.out, first_out) << "console with " << n << " threads";
    EXPECT_EQ(j.dump(1), first_json.dump(1)) << "JSON with " << n << " threads";
    EXPECT_EQ(read_file(trace), first_trace) << "trace with " << n << " threads";
  }
}

TEST(ChipThreads, UnevenSupersteps16TilesSameForEveryThreadCount) {
  expect_same_for_every_thread_count(kTiny16, kSystemFirmware + "uneven_sync.elf");
}

TEST(ChipThreads, UnevenSupersteps16TilesWithExchangesSameForEveryThreadCount) {
  expect_same_for_every_thread_count(kTiny16, kSystemFirmware + "uneven_xchg.elf");
}

TEST(ChipThreads, ExchangesMoveTheValuesAroundTheRing) {
  const std::string json = temp_path("x.json");
  const Result r = ipusim_run("--config " + kTiny16 + " --elf " + kSystemFirmware + "uneven_xchg.elf --json " + json);
  ASSERT_EQ(r.status, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(read_file(json));
  for (const auto& t : j["per_tile"]) {
    EXPECT_EQ(t["exchanges"], 4);
    EXPECT_EQ(t["exchange_bytes_in"], 16);
    EXPECT_EQ(t["exchange_bytes_out"], 16);
    EXPECT_GT(t["exchange_stall_cycles"].get<uint64_t>(), 0u);
  }
  EXPECT_EQ(j["exchanges"], 4);
  EXPECT_EQ(j["exchange_messages"], 16 * 4);
  EXPECT_EQ(j["exchange_bytes"], 16 * 4 * 4);
  for (size_t k = 0; k < 4; ++k) {
    const auto& ipu = j["supersteps"][k]["ipus"][0];
    EXPECT_EQ(ipu["exchanging_tiles"], 16);
    EXPECT_EQ(ipu["exchange_bytes"], 16 * 4);
    EXPECT_GT(ipu["exchange_cycles"].get<uint64_t>(), 0u);
  }
  // With the exchange, each tile's value depends on its neighbour's: the values differ
  // from the run without it from the second step on.
  const Result plain = ipusim_run("--config " + kTiny16 + " --elf " + kSystemFirmware + "uneven_sync.elf");
  ASSERT_EQ(plain.status, 0);
  EXPECT_EQ(r.out.substr(0, r.out.find("step 1")), plain.out.substr(0, plain.out.find("step 1")));
  EXPECT_NE(r.out, plain.out);
}

TEST(ChipExchange, AllToAllDeliversEveryWord) {
  // Every tile checks every received word and exits 1 if one is wrong.
  const std::string json = temp_path("a.json");
  const Result r = ipusim_run("--config " + kTiny16 + " --elf " + kSystemFirmware + "alltoall.elf --json " + json);
  ASSERT_EQ(r.status, 0) << r.err << r.out;
  EXPECT_NE(r.out.find("[ipu 0 tile 0] alltoall: 16 tiles x 64 bytes, exchange "), std::string::npos) << r.out;
  const nlohmann::json j = nlohmann::json::parse(read_file(json));
  EXPECT_EQ(j["exchange_messages"], 16 * 15);
  EXPECT_EQ(j["exchange_bytes"], 16 * 15 * 64);
  expect_same_for_every_thread_count(kTiny16, kSystemFirmware + "alltoall.elf");
}

TEST(ChipExchange, SyncAndHaltWithPostingsPendingExchangeFirst) {
  const std::string json = temp_path("i.json");
  const Result r = ipusim_run("--config " + kTiny4 + " --elf " + kSystemFirmware + "implicit_xchg.elf --json " + json);
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out,
            "[ipu 0 tile 0] got 1001\n[ipu 0 tile 1] got 1000\n[ipu 0 tile 2] got 1003\n[ipu 0 tile 3] got 1002\n");
  const nlohmann::json j = nlohmann::json::parse(read_file(json));
  EXPECT_EQ(j["exchanges"], 2);
  EXPECT_EQ(j["exchange_messages"], 8);
  for (const auto& t : j["per_tile"]) {
    EXPECT_EQ(t["state"], "halted");
    EXPECT_EQ(t["exchanges"], 2);
    EXPECT_EQ(t["exchange_bytes_in"], 8);
    EXPECT_EQ(t["syncs"], 2);
  }
}

TEST(ChipExchange, ErrorsAreReportedOnePerLineWithStatus3) {
  const Result r = ipusim_run("--config " + kTiny4 + " --elf " + kSystemFirmware + "xerr_length.elf --json " +
                              temp_path("e.json"));
  EXPECT_EQ(r.status, 3) << r.err;
  EXPECT_NE(r.err.find("ipusim: exchange error: tile 0 sends 16 bytes to tile 1 (pc 0x"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("but the matching receive on tile 1 from tile 0 expects 8 bytes"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("), in superstep 1\n"), std::string::npos) << "the line ends with the superstep: " << r.err;
  const nlohmann::json j = nlohmann::json::parse(read_file(temp_path("e.json")));
  ASSERT_EQ(j["exchange_errors"].size(), 1u);
  EXPECT_EQ(j["exit_code"], 3);
  EXPECT_EQ(j["per_tile"][0]["state"], "exchange failed");
}

struct BrokenExchange {
  const char* elf;
  const char* line;   // the start of the stderr line that reports it
  const char* other;  // the peer tile, named in the same line
};

class ChipExchangeErrors : public ::testing::TestWithParam<BrokenExchange> {};

TEST_P(ChipExchangeErrors, EndTheRunWithStatus3NamingBothTiles) {
  const BrokenExchange& b = GetParam();
  const Result r = ipusim_run("--config " + kTiny4 + " --elf " + kSystemFirmware + b.elf + " --threads 3");
  EXPECT_EQ(r.status, 3) << r.err;
  const size_t at = r.err.find(b.line);
  ASSERT_NE(at, std::string::npos) << r.err;
  const std::string line = r.err.substr(at, r.err.find('\n', at) - at);
  EXPECT_NE(line.find(b.other), std::string::npos) << line;
  EXPECT_EQ(r.out.find("[ipu 0 tile"), std::string::npos) << "no tile got past the exchange: " << r.out;
}

INSTANTIATE_TEST_SUITE_P(
    Kinds, ChipExchangeErrors,
    ::testing::Values(BrokenExchange{"xerr_no_recv.elf", "ipusim: exchange error: tile 0 sends", "tile 1 posts no receive"},
                      BrokenExchange{"xerr_no_send.elf", "ipusim: exchange error: tile 1 expects", "tile 0 sends nothing"},
                      BrokenExchange{"xerr_length.elf", "ipusim: exchange error: tile 0 sends", "on tile 1 from tile 0"},
                      BrokenExchange{"xerr_short.elf", "ipusim: exchange error: tile 0 sends 8 bytes to tile 1",
                                     "on tile 1 from tile 0 expects 16 bytes"},
                      BrokenExchange{"xerr_compute.elf", "ipusim: fault: tile 2 (ipu 0)", "to tile 3 outside an exchange phase"},
                      BrokenExchange{"xerr_outside.elf", "ipusim: fault: tile 1 (ipu 0)", "from tile 0"}),
    [](const auto& info) {
      std::string name = info.param.elf;
      return name.substr(0, name.find('.'));
    });

TEST(ChipThreads, UnevenWorkReallyIsUneven) {
  const std::string json = temp_path("s.json");
  const Result r = ipusim_run("--config " + kTiny16 + " --elf " + kSystemFirmware + "uneven_sync.elf --json " + json);
  ASSERT_EQ(r.status, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(read_file(json));
  const auto& tiles = j["per_tile"];
  ASSERT_EQ(tiles.size(), 16u);
  // Tile 15 does 16x tile 0's work; tile 0 spends the difference waiting at syncs.
  EXPECT_GT(tiles[15]["instructions"].get<uint64_t>(), 8 * tiles[0]["instructions"].get<uint64_t>());
  EXPECT_GT(tiles[0]["sync_stall_cycles"].get<uint64_t>(), 8 * tiles[15]["sync_stall_cycles"].get<uint64_t>());
  EXPECT_EQ(tiles[0]["syncs"], 4);
  // 4 supersteps ending in a sync, then the last one, printed step by step in tile order.
  std::istringstream lines(r.out);
  std::vector<std::string> l;
  for (std::string s; std::getline(lines, s);) l.push_back(s);
  ASSERT_EQ(l.size(), 16u * 5);
  EXPECT_EQ(l[0].rfind("[ipu 0 tile 0] step 0 value ", 0), 0u) << l[0];
  EXPECT_EQ(l[15].rfind("[ipu 0 tile 15] step 0 value ", 0), 0u) << l[15];
  EXPECT_EQ(l[16].rfind("[ipu 0 tile 0] step 1 value ", 0), 0u) << l[16];
  EXPECT_EQ(l[79].rfind("[ipu 0 tile 15] done ", 0), 0u) << l[79];
}

TEST(ChipDeadlock, HaltedTileIsNamedAsNeverArriving) {
  const Result r = ipusim_run("--config " + kTiny4 + " --elf " + kSystemFirmware + "halt_early.elf");
  EXPECT_EQ(r.status, 3) << r.err;
  EXPECT_NE(r.err.find("ipusim: fault: sync deadlock: 3 tile(s) wait at a sync that can never complete"),
            std::string::npos)
      << r.err;
  for (const char* waiting : {"ipu 0 tile 0 (zone 1", "ipu 0 tile 2 (zone 1", "ipu 0 tile 3 (zone 1"})
    EXPECT_NE(r.err.find(waiting), std::string::npos) << waiting << "\n" << r.err;
  EXPECT_NE(r.err.find("1 tile(s) never arrive: ipu 0 tile 1 (halted at cycle"), std::string::npos) << r.err;
}

TEST(ChipJson, SuperstepsPerIpuAndPerTile) {
  const std::string json = temp_path("s.json");
  const Result r = ipusim_run("--config " + kTiny4 + " --elf " + kSystemFirmware + "uneven_sync.elf --json " + json);
  ASSERT_EQ(r.status, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(read_file(json));
  EXPECT_GE(j["iss_seconds"].get<double>(), 0.0);
  EXPECT_LE(j["iss_seconds"].get<double>(), j["host_seconds"].get<double>());
  EXPECT_GE(j["kernel_share"].get<double>(), 0.0);
  EXPECT_GE(j["batches"].get<uint64_t>(), 5u);
  EXPECT_EQ(j["exchange_errors"], nlohmann::json::array());
  const auto& steps = j["supersteps"];
  ASSERT_EQ(steps.size(), 5u);
  uint64_t instructions = 0;
  for (size_t k = 0; k < steps.size(); ++k) {
    EXPECT_EQ(steps[k]["superstep"], k);
    ASSERT_EQ(steps[k]["ipus"].size(), 1u);
    const auto& ipu = steps[k]["ipus"][0];
    EXPECT_EQ(ipu["ipu"], 0);
    EXPECT_EQ(ipu["tiles"], 4);
    ASSERT_EQ(ipu["per_tile"].size(), 4u);
    uint64_t compute = 0, sync = 0;
    for (const auto& t : ipu["per_tile"]) {
      EXPECT_EQ(t["compute_cycles"].get<uint64_t>() + t["sync_cycles"].get<uint64_t>() +
                    t["exchange_cycles"].get<uint64_t>(),
                t["end_cycle"].get<uint64_t>() - t["begin_cycle"].get<uint64_t>());
      compute += t["compute_cycles"].get<uint64_t>();
      sync += t["sync_cycles"].get<uint64_t>();
    }
    EXPECT_EQ(ipu["compute_cycles"], compute);
    EXPECT_EQ(ipu["sync_cycles"], sync);
    instructions += ipu["instructions"].get<uint64_t>();
    if (k < 4) {
      EXPECT_GT(sync, 0u) << "superstep " << k << " ends in a sync";
    }
  }
  EXPECT_EQ(instructions, j["instructions"]);
  EXPECT_EQ(j["per_tile"][0]["supersteps"], 5);
}

struct TraceSummary {
  std::map<std::pair<int, int>, std::string> tracks;  // (pid, tid) -> name
  std::map<std::string, int> slices;                  // name -> count ("superstep N" as "superstep")
};

TraceSummary read_trace(const std::string& path) {
  TraceSummary s;
  const nlohmann::json j = nlohmann::json::parse(read_file(path));
  EXPECT_EQ(j["displayTimeUnit"], "ns");
  std::map<std::pair<int, int>, std::pair<double, double>> superstep;  // track -> [begin, end]
  std::map<std::pair<int, int>, double> phase_end;                     // track -> last phase end
  for (const auto& e : j["traceEvents"]) {
    const std::string ph = e["ph"];
    if (ph == "M") {
      if (e["name"] == "thread_name") s.tracks[{e["pid"], e["tid"]}] = e["args"]["name"];
      continue;
    }
    EXPECT_EQ(ph, "X");
    const double ts = e["ts"], dur = e["dur"];
    EXPECT_GE(dur, 0.0);
    std::string name = e["name"];
    const auto key = std::make_pair(int(e["pid"]), int(e["tid"]));
    if (name.rfind("superstep ", 0) == 0) {
      // Supersteps follow each other on a track; their phases nest inside, in order.
      EXPECT_GE(ts + 1e-9, superstep[key].second) << name;
      superstep[key] = {ts, ts + dur};
      phase_end[key] = ts;
      name = "superstep";
      EXPECT_TRUE(e["args"].contains("compute_cycles"));
    } else {
      EXPECT_GE(ts + 1e-9, phase_end[key]) << name << " at " << ts;
      EXPECT_GE(ts + 1e-9, superstep[key].first) << name << " at " << ts;
      EXPECT_LE(ts + dur, superstep[key].second + 1e-9) << name << " at " << ts;
      phase_end[key] = ts + dur;
    }
    ++s.slices[name];
  }
  return s;
}

TEST(ChipTrace, OneTrackPerTileWithSupersteps) {
  const std::string trace = temp_path("trace.json");
  const Result r = ipusim_run("--config " + kTiny4 + " --elf " + kSystemFirmware + "uneven_sync.elf --trace " + trace);
  ASSERT_EQ(r.status, 0) << r.err;
  const TraceSummary s = read_trace(trace);
  ASSERT_EQ(s.tracks.size(), 4u);
  EXPECT_EQ(s.tracks.at({0, 0}), "tile 0");
  EXPECT_EQ(s.tracks.at({0, 3}), "tile 3");
  EXPECT_EQ(s.slices.at("superstep"), 4 * 5);
  EXPECT_EQ(s.slices.at("compute"), 4 * 5);
  // Every tile but the slowest (tile 3, which the others wait for) has sync time.
  EXPECT_GE(s.slices.at("sync"), 4 * 4);
}

TEST(ChipTrace, ExchangesShowAsTheirOwnPhase) {
  const std::string trace = temp_path("trace.json");
  const Result r = ipusim_run("--config " + kTiny4 + " --elf " + kSystemFirmware + "uneven_xchg.elf --trace " + trace);
  ASSERT_EQ(r.status, 0) << r.err;
  const TraceSummary s = read_trace(trace);
  EXPECT_EQ(s.slices.at("exchange"), 4 * 4);
  EXPECT_GE(s.slices.at("compute"), 4 * 5 + 4 * 4) << "posting after each release is compute too";
}

TEST(ChipTrace, GroupsTilesAboveTheTrackLimit) {
  const std::string trace = temp_path("trace.json");
  Result r = ipusim_run("--config " + kTiny16 + " --elf " + kSystemFirmware + "uneven_sync.elf --trace " + trace +
                        " --trace-tiles-max 5");
  ASSERT_EQ(r.status, 0) << r.err;
  TraceSummary s = read_trace(trace);
  ASSERT_EQ(s.tracks.size(), 4u);  // 16 tiles, at most 5 tracks: groups of 4
  EXPECT_EQ(s.tracks.at({0, 0}), "tiles 0-3");
  EXPECT_EQ(s.tracks.at({0, 12}), "tiles 12-15");
  EXPECT_EQ(s.slices.at("superstep"), 4 * 5);

  // A whole GC200 in 64 tracks.
  r = ipusim_run("--config " + kGc200 + " --elf " + std::string(IPUSIM_FIRMWARE_DIR) + "/hello.elf --trace " + trace);
  ASSERT_EQ(r.status, 0) << r.err;
  s = read_trace(trace);
  ASSERT_EQ(s.tracks.size(), 64u);
  EXPECT_EQ(s.tracks.at({0, 0}), "tiles 0-22");
  EXPECT_EQ(s.tracks.at({0, 1449}), "tiles 1449-1471");
  EXPECT_EQ(s.slices.at("superstep"), 64) << "hello never syncs: one superstep";
}

TEST(ChipCli, ThreadsOptionIsChecked) {
  const Result r = ipusim_run("--config " + kTiny4 + " --elf " + kSystemFirmware + "uneven_sync.elf --threads 0");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("--threads"), std::string::npos) << r.err;
}

// The wide load / store intrinsics of ipu/xipu.h, compiled at the firmware's -O2, move
// the right data on every tile (wide_intrinsics.c prints one line per check).
TEST(ChipWide, IntrinsicsMoveTheData) {
  const Result r = ipusim_run("--config " + kTiny4 + " --elf " + kSystemFirmware + "wide_intrinsics.elf");
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_EQ(r.out.find("FAILED"), std::string::npos) << r.out;
  for (const char* check : {"ld128.pi / st128.pi copy ok", "ld64.pi / st64.pi scale ok", "ld128st64.pi streaming ok",
                            "ld64st64.pi pairs ok", "register-pair macros ok",
                            "ld128 / st128 / ld64 / st64 ok"})
    for (int tile = 0; tile < 4; ++tile)
      EXPECT_NE(r.out.find(fmt::format("[ipu 0 tile {}] {}", tile, check)), std::string::npos)
          << check << " on tile " << tile << "\n" << r.out;
}

}  // namespace
}  // namespace ipusim
