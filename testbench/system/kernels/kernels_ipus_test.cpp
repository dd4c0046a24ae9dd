// The kernels that cross IPUs, on `ipusim run` with test systems of tiny4 IPUs wired as
// an IPU-M2000 and as a POD16 ladder (configs/test): results bit-exact against the host
// references on every IPU, and the same bytes and cycles for 1, 2 and 3 host threads (the
// IPUs' own exchange phases are planned together across the host threads:
// exchange/plan_batch.h), failed exchanges included.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>

#include "config/config_loader.h"
#include "ipusim_runner.h"
#include "kernels_ref.h"
#include "links/topology.h"
#include "pipeline.h"

#include <map>

namespace {

using kref::pairs;
using kref::to_u64;

std::string hex(uint32_t v) {
  char s[16];
  std::snprintf(s, sizeof s, "0x%08x", v);
  return s;
}

// The test systems of the parameterised cases, named by their wiring.
constexpr const char* kTinyM2000 = "configs/test/tiny4_m2000.yaml";
constexpr const char* kTinyPod16 = "configs/test/tiny4_pod16.yaml";
std::string system_name(const ::testing::TestParamInfo<std::string>& info) {
  return info.param == kTinyPod16 ? "Pod16" : "M2000";
}

class IpuAllreduce : public ::testing::TestWithParam<std::string> {};

TEST_P(IpuAllreduce, EveryIpuHoldsTheHostReferenceSum) {
  const std::string path = GetParam();
  const ipusim::config::SystemConfig sys = ipusim::config::load_system(path);
  const ipusim::config::ChipConfig& chip = sys.board.chip;
  const kref::IpuAllreduceExpect want =
      kref::ipu_allreduce(chip.tiles, uint32_t(chip.tile.sram_bytes), sys.total_ipus());
  ASSERT_NE(want.chunk, 0u);
  std::string console[3];
  uint64_t cycles[3] = {0, 0, 0};
  for (int threads : {1, 2, 3}) {
    const kref::IpusimRun r = kref::run_ipusim(path, "ipu_allreduce.elf", "ipu_allreduce_" + sys.name() + "_" +
                                                   std::to_string(threads),
                                               "--threads " + std::to_string(threads));
    ASSERT_EQ(r.status, 0) << r.err << r.console;
    uint32_t seen = 0;
    for (const std::string& line : kref::lines_of(r.console, "ipu_allreduce")) {
      const auto kv = pairs(line);
      if (!kv.count("hash")) continue;
      EXPECT_EQ(kv.at("hash"), hex(want.hash)) << line;
      EXPECT_EQ(to_u64(kv.at("ipu")), seen) << "one line per IPU, in IPU order";
      EXPECT_EQ(to_u64(kv.at("chunk")), want.chunk);
      ++seen;
    }
    EXPECT_EQ(seen, sys.total_ipus()) << r.console;
    console[threads - 1] = r.console;
    cycles[threads - 1] = r.json["tile_cycles"].get<uint64_t>();
  }
  for (int i : {1, 2}) {
    EXPECT_EQ(console[0], console[i]) << "the same bytes (and the cycles printed) for 1 and " << i + 1 << " threads";
    EXPECT_EQ(cycles[0], cycles[i]);
  }
}

INSTANTIATE_TEST_SUITE_P(TestSystems, IpuAllreduce,
                         ::testing::Values(kTinyM2000, kTinyPod16), system_name);

// The --json summary without its host figures (which differ run by run).
nlohmann::json simulated_figures(nlohmann::json j) {
  for (const char* host : {"host_seconds", "mips", "elaboration_seconds", "jit_regions", "jit_code_bytes",
                           "jit_seconds", "jit_share", "iss_seconds", "kernel_share", "batch_seconds",
                           "serial_share", "host_threads", "batches", "exchange_plan_seconds",
                           "exchange_parallel_seconds", "host_components"})
    j.erase(host);
  return j;
}

// Every IPU's exchange fails in the same cycle, each with a problem of its own
// (xerr_every_ipu.c): the IPUs' plans are made in one batch on the host threads, and the
// run reports the same problems, the first the one of IPU 0 as when they were planned one
// after the other, in the same bytes and JSON for 1, 2 and 3 threads.
TEST_P(IpuAllreduce, ExchangeErrorsOnEveryIpuReportTheSameFirstProblemOnAnyThreadCount) {
  const std::string path = GetParam();
  std::string err[3];
  nlohmann::json json[3];
  for (int threads : {1, 2, 3}) {
    const kref::IpusimRun r = kref::run_ipusim(path, "system/xerr_every_ipu.elf",
                                               "xerr_every_ipu_" + system_name({path, 0}) + "_" +
                                                   std::to_string(threads),
                                               "--threads " + std::to_string(threads));
    EXPECT_NE(r.status, 0) << r.err;
    ASSERT_FALSE(r.json.is_null()) << r.err;
    for (const std::string& line : kref::lines_of(r.err, "ipusim: exchange error")) err[threads - 1] += line + "\n";
    json[threads - 1] = simulated_figures(r.json);
  }
  EXPECT_EQ(err[0].rfind("tile 0 sends 4 bytes to tile 1 (pc 0x", 0), 0u) << "IPU 0's problem first: " << err[0];
  for (int i : {1, 2}) {
    EXPECT_EQ(err[0], err[i]) << "the problems reported on 1 and " << i + 1 << " threads";
    EXPECT_EQ(json[0], json[i]) << "the JSON on 1 and " << i + 1 << " threads";
  }
}

// ipu_allreduce_c4.elf (chunk 4 baked into ipu_allreduce_params) through `ipusim run`: the
// host reference of chunk 4, not of the default (64 on tiny4), on every IPU of the POD16
// (4 floats in 16 ring parts: most parts empty).
TEST(IpuAllreduce, BakedChunkIsTheReferenceOfThatChunk) {
  const std::string path = "configs/test/tiny4_pod16.yaml";
  const ipusim::config::SystemConfig sys = ipusim::config::load_system(path);
  const ipusim::config::ChipConfig& chip = sys.board.chip;
  const kref::IpuAllreduceExpect want =
      kref::ipu_allreduce(chip.tiles, uint32_t(chip.tile.sram_bytes), sys.total_ipus(), 4);
  const kref::IpuAllreduceExpect dflt = kref::ipu_allreduce(chip.tiles, uint32_t(chip.tile.sram_bytes), sys.total_ipus());
  ASSERT_EQ(want.chunk, 4u);
  ASSERT_NE(dflt.chunk, 4u) << "the test needs a chunk other than the default";
  const kref::IpusimRun r = kref::run_ipusim(path, "ipu_allreduce_c4.elf", "ipu_allreduce_c4_pod16");
  ASSERT_EQ(r.status, 0) << r.err << r.console;
  uint32_t seen = 0;
  for (const std::string& line : kref::lines_of(r.console, "ipu_allreduce")) {
    const auto kv = pairs(line);
    if (!kv.count("hash")) continue;
    EXPECT_EQ(kv.at("hash"), hex(want.hash)) << line;
    EXPECT_EQ(to_u64(kv.at("chunk")), 4u) << line;
    EXPECT_EQ(to_u64(kv.at("elements")), 4u * chip.tiles) << line;
    ++seen;
  }
  EXPECT_EQ(seen, sys.total_ipus()) << r.console;
}

}  // namespace

namespace {

// Faults on the links: the same sum, and the exchanges end exactly the cycles later the
// link layer says it lost (a recovery holds the whole exchange phase).
struct FaultCase {
  const char* name;
  const char* spec;
};

class IpuAllreduceWithLinkFaults : public ::testing::TestWithParam<FaultCase> {};

TEST_P(IpuAllreduceWithLinkFaults, SameSumAndExactlyTheCountedReplayCost) {
  const std::string path = "configs/test/tiny4_pod16.yaml";
  const ipusim::config::SystemConfig sys = ipusim::config::load_system(path);
  const kref::IpuAllreduceExpect want =
      kref::ipu_allreduce(sys.board.chip.tiles, uint32_t(sys.board.chip.tile.sram_bytes), sys.total_ipus());
  const kref::IpusimRun clean = kref::run_ipusim(path, "ipu_allreduce.elf", std::string("ipu_allreduce_clean_") + GetParam().name);
  const kref::IpusimRun faulty = kref::run_ipusim(path, "ipu_allreduce.elf", std::string("ipu_allreduce_faults_") + GetParam().name,
                                                  std::string("--link-faults ") + GetParam().spec);
  ASSERT_EQ(clean.status, 0) << clean.err;
  ASSERT_EQ(faulty.status, 0) << faulty.err;
  uint32_t answers = 0;
  for (const std::string& line : kref::lines_of(faulty.console, "ipu_allreduce"))
    if (kref::pairs(line).count("hash")) {
      EXPECT_EQ(kref::pairs(line).at("hash"), hex(want.hash)) << line;
      ++answers;
    }
  EXPECT_EQ(answers, sys.total_ipus()) << faulty.console;
  const uint64_t lost = faulty.json["link_cycles_lost"].get<uint64_t>();
  uint64_t errors = 0, replays = 0;
  for (const auto& l : faulty.json["links"]) {
    errors += l["crc_errors"].get<uint64_t>() + l["seq_errors"].get<uint64_t>();
    replays += l["replays"].get<uint64_t>();
  }
  EXPECT_GT(errors, 0u) << "the spec injected nothing the link layer saw";
  EXPECT_GT(replays, 0u);
  EXPECT_GT(lost, 0u);
  EXPECT_EQ(clean.json["link_cycles_lost"].get<uint64_t>(), 0u);
  // Every IPU reaches its last sync exactly `lost` cycles later. (The run's end may differ
  // by more: the report prints the ring's cycle counts, and other digits take other
  // instructions to format.)
  for (uint32_t i = 0; i < sys.total_ipus(); ++i)
    EXPECT_EQ(kref::last_superstep_begin(faulty.json, i), kref::last_superstep_begin(clean.json, i) + lost) << "IPU " << i;
  // Seeded: the same spec gives the same run.
  const kref::IpusimRun again = kref::run_ipusim(path, "ipu_allreduce.elf", std::string("ipu_allreduce_again_") + GetParam().name,
                                                 std::string("--link-faults ") + GetParam().spec + " --threads 1");
  EXPECT_EQ(again.console, faulty.console);
  EXPECT_EQ(again.json["tile_cycles"], faulty.json["tile_cycles"]);
  EXPECT_EQ(again.json["links"], faulty.json["links"]);
}

INSTANTIATE_TEST_SUITE_P(Specs, IpuAllreduceWithLinkFaults,
                         ::testing::Values(FaultCase{"Ber", "ber=1e-4,seed=3"}, FaultCase{"Periodic", "periodic=7"},
                                           FaultCase{"Burst", "burst=100:3:200"},
                                           FaultCase{"BurstWithRetrains", "burst=3:5"},
                                           FaultCase{"DropsAndDuplicates", "drop=0.01,dup=0.01,seed=5"}),
                         [](const auto& info) { return std::string(info.param.name); });

// Faults on one link, from the config's `link_faults` and from `--link-faults LINK:SPEC`:
// the same run either way, errors only on that link's two directions, the same sum, and
// the exchanges late by exactly the counted cost.
TEST(IpuAllreduceWithLinkFaults, OnOneLinkFromTheConfigOrTheCommandLine) {
  const std::string path = "configs/test/tiny4_m2000.yaml";
  const ipusim::config::SystemConfig sys = ipusim::config::load_system(path);
  const kref::IpuAllreduceExpect want =
      kref::ipu_allreduce(sys.board.chip.tiles, uint32_t(sys.board.chip.tile.sram_bytes), sys.total_ipus());
  const kref::IpusimRun clean = kref::run_ipusim(path, "ipu_allreduce.elf", "ipu_allreduce_one_link_clean");
  ASSERT_EQ(clean.status, 0) << clean.err;
  ASSERT_FALSE(clean.json["links"].empty());
  const uint32_t link = clean.json["links"][0]["link"].get<uint32_t>();  // one that carries the ring
  const std::string spec = "periodic=3,seed=4";
  const std::string config = ::testing::TempDir() + "ipusim_one_link_faults.yaml";
  {
    std::FILE* f = std::fopen(config.c_str(), "w");
    ASSERT_NE(f, nullptr);
    std::fprintf(f, "kind: board\nname: tiny4_m2000\nchip: %s\nipus: 4\ntopology: m2000\nlink_faults: {%u: '%s'}\n",
                 std::filesystem::absolute("configs/test/tiny4.yaml").c_str(), link, spec.c_str());
    std::fclose(f);
  }
  const kref::IpusimRun from_config = kref::run_ipusim(config, "ipu_allreduce.elf", "ipu_allreduce_one_link_config");
  const kref::IpusimRun from_cli = kref::run_ipusim(path, "ipu_allreduce.elf", "ipu_allreduce_one_link_cli",
                                                    "--link-faults " + std::to_string(link) + ":" + spec);
  ASSERT_EQ(from_config.status, 0) << from_config.err;
  ASSERT_EQ(from_cli.status, 0) << from_cli.err;
  EXPECT_EQ(from_config.console, from_cli.console);
  EXPECT_EQ(from_config.json["links"], from_cli.json["links"]);
  uint64_t errors = 0;
  for (const auto& l : from_config.json["links"]) {
    const uint64_t e = l["crc_errors"].get<uint64_t>() + l["seq_errors"].get<uint64_t>();
    if (l["link"].get<uint32_t>() != link) {
      EXPECT_EQ(e, 0u) << l.dump();
    }
    errors += e;
  }
  EXPECT_GT(errors, 0u);
  uint32_t answers = 0;
  for (const std::string& line : kref::lines_of(from_config.console, "ipu_allreduce"))
    if (pairs(line).count("hash")) {
      EXPECT_EQ(pairs(line).at("hash"), hex(want.hash)) << line;
      ++answers;
    }
  EXPECT_EQ(answers, sys.total_ipus());
  const uint64_t lost = from_config.json["link_cycles_lost"].get<uint64_t>();
  EXPECT_GT(lost, 0u);
  for (uint32_t i = 0; i < sys.total_ipus(); ++i)
    EXPECT_EQ(kref::last_superstep_begin(from_config.json, i), kref::last_superstep_begin(clean.json, i) + lost)
        << "IPU " << i;
  // The command line replaces the config's faults: "none" runs clean.
  const kref::IpusimRun replaced = kref::run_ipusim(config, "ipu_allreduce.elf", "ipu_allreduce_one_link_replaced",
                                                    "--link-faults none");
  ASSERT_EQ(replaced.status, 0) << replaced.err;
  EXPECT_EQ(replaced.json["link_cycles_lost"].get<uint64_t>(), 0u);
  EXPECT_EQ(replaced.json["tile_cycles"], clean.json["tile_cycles"]);
}

}  // namespace

namespace {

// mb_link_bw's latency against hop count on the tiny POD16: every further hop adds the
// link's latency (250 ns = 25 cycles at 100 MHz; a 4-byte frame takes under a cycle).
TEST(MbLinkBw, LatencyGrowsByOneLinkLatencyPerHop) {
  const std::string path = "configs/test/tiny4_pod16.yaml";
  const ipusim::config::SystemConfig sys = ipusim::config::load_system(path);
  const ipusim::links::Topology topology = ipusim::links::Topology::of(sys);
  const kref::IpusimRun r = kref::run_ipusim(path, "mb_link_bw.elf", "mb_link_bw_pod16");
  ASSERT_EQ(r.status, 0) << r.err;
  std::map<uint32_t, uint64_t> by_hops;
  uint32_t seen = 0;
  for (const std::string& line : kref::lines_of(r.console, "mb_link_bw")) {
    unsigned ipu = 0;
    unsigned long long cycles = 0;
    const size_t at = line.find("latency ipu ");
    if (at == std::string::npos || std::sscanf(line.c_str() + at, "latency ipu %u cycles %llu", &ipu, &cycles) != 2)
      continue;
    const uint32_t hops = topology.hops(0, ipu);
    if (by_hops.count(hops)) {
      EXPECT_EQ(by_hops[hops], cycles) << "IPU " << ipu << " at " << hops << " hops";
    }
    by_hops[hops] = cycles;
    ++seen;
  }
  EXPECT_EQ(seen, sys.total_ipus() - 1);
  ASSERT_EQ(by_hops.size(), 4u) << "a POD16 ladder spans 1 to 4 hops from IPU 0";
  for (uint32_t h = 2; h <= 4; ++h) EXPECT_EQ(by_hops[h] - by_hops[h - 1], 25u) << h << " hops";
}

}  // namespace

namespace {

// The pipeline over IPUs 0 and 1: both layers bit-exact against the host reference, one
// step line per step on each, the activations crossing the links from IPU 0 to IPU 1
// only (and exactly D x 6 floats per micro-batch), the other IPUs silent; the same bytes
// and cycles on 1 and 2 host threads.
class Pipeline : public ::testing::TestWithParam<std::string> {};

TEST_P(Pipeline, BothLayersMatchTheHostReference) {
  const std::string path = GetParam();
  const ipusim::config::SystemConfig sys = ipusim::config::load_system(path);
  const uint32_t tiles = sys.board.chip.tiles, n = PIPE_DEFAULT_MICRO_BATCHES;
  const kref::PipelineExpect want = kref::pipeline(tiles, n);
  std::string console[2];
  uint64_t cycles[2] = {0, 0};
  for (int threads : {1, 2}) {
    const kref::IpusimRun r = kref::run_ipusim(path, "pipeline.elf", "pipeline_" + sys.name() + "_" + std::to_string(threads),
                                               "--threads " + std::to_string(threads));
    ASSERT_EQ(r.status, 0) << r.err << r.console;
    for (uint32_t ipu = 0; ipu < 2; ++ipu) {
      const auto got = kref::find_line(r.console, "pipeline", "ipu", std::to_string(ipu));
      ASSERT_TRUE(got) << r.console;
      EXPECT_EQ(got->at("hash"), hex(ipu == 0 ? want.hash_y1 : want.hash_y2)) << "IPU " << ipu;
      EXPECT_EQ(kref::to_u64(got->at("dim")), want.dim);
      EXPECT_EQ(kref::to_u64(got->at("ipus")), sys.total_ipus());
    }
    size_t steps = 0;
    for (const std::string& line : kref::lines_of(r.console, "pipeline")) {
      if (line.rfind("step ", 0) != 0) continue;
      const auto kv = pairs(line);
      const uint64_t s = to_u64(kv.at("step")), ipu = to_u64(kv.at("ipu"));
      // IPU 0 computes in steps 0 .. N-1, IPU 1 in 1 .. N; both in the steady state.
      const bool computes = ipu == 0 ? s < n : s >= 1;
      EXPECT_EQ(to_u64(kv.at("compute")) > 0, computes) << line;
      EXPECT_EQ(to_u64(kv.at("link")) > 0, s < n) << line;
      ++steps;
    }
    EXPECT_EQ(steps, 2 * (n + 1)) << r.console;
    for (uint32_t ipu = 2; ipu < sys.total_ipus(); ++ipu)
      EXPECT_EQ(r.console.find("[ipu " + std::to_string(ipu) + " "), std::string::npos) << "IPU " << ipu << " idles";
    uint64_t link_bytes = 0;
    for (const auto& l : r.json["links"]) {
      EXPECT_EQ(l["from_ipu"].get<uint32_t>(), 0u) << l.dump();
      EXPECT_EQ(l["to_ipu"].get<uint32_t>(), 1u) << l.dump();
      link_bytes += l["bytes"].get<uint64_t>();
    }
    EXPECT_EQ(link_bytes, uint64_t(n) * want.dim * PIPE_BATCH * 4);
    console[threads - 1] = r.console;
    cycles[threads - 1] = r.json["tile_cycles"].get<uint64_t>();
  }
  EXPECT_EQ(console[0], console[1]) << "the same bytes (and the cycles printed) for 1 and 2 threads";
  EXPECT_EQ(cycles[0], cycles[1]);
}

INSTANTIATE_TEST_SUITE_P(TestSystems, Pipeline,
                         ::testing::Values(kTinyM2000, kTinyPod16), system_name);

// mb_link_bw on one board: the link rows measure IPU 0 -> IPU 2 with the even tiles (one
// link of the diagonal pair), never faster than those tiles' send ports or the link; the
// per-IPU rows carry every tile's bytes both ways; every message arrived intact.
TEST(MbLinkBw, OneBoardRowsStayWithinThePortsAndLinks) {
  const std::string path = "configs/test/tiny4_m2000.yaml";
  const ipusim::config::SystemConfig sys = ipusim::config::load_system(path);
  const ipusim::config::ChipConfig& chip = sys.board.chip;
  const kref::IpusimRun r = kref::run_ipusim(path, "mb_link_bw.elf", "mb_link_bw_m2000");
  ASSERT_EQ(r.status, 0) << r.err << r.console;
  const double link_rate = chip.ipu_links.bytes_per_second / chip.clock_hz;  // bytes per cycle
  const uint32_t senders = (chip.tiles + 1) / 2;
  uint32_t link_rows = 0, ipu_rows = 0;
  for (const std::string& line : kref::lines_of(r.console, "mb_link_bw")) {
    const auto kv = pairs(line);
    if (line.rfind("link from 0 to 2 ", 0) == 0) {
      const double rate = kref::to_double(kv.at("bytes_per_cycle"));
      EXPECT_EQ(to_u64(kv.at("total_bytes")), senders * to_u64(kv.at("bytes"))) << line;
      EXPECT_LE(rate, std::min<double>(link_rate, senders * chip.tile.exchange_out_bytes_per_cycle)) << line;
      EXPECT_GT(rate, 0.0) << line;
      ++link_rows;
    } else if (line.rfind("ipu ", 0) == 0 && kv.count("total_bytes")) {
      // Every tile takes part on a board (classes 8 and 9, to other boards, have no peer).
      uint64_t takes_part = 0;
      for (uint32_t t = 0; t < chip.tiles; ++t) takes_part += t % 10 < 8;
      EXPECT_EQ(to_u64(kv.at("total_bytes")), 2 * takes_part * to_u64(kv.at("bytes"))) << line;
      ++ipu_rows;
    } else if (kv.count("bad_messages")) {
      EXPECT_EQ(kv.at("bad_messages"), "0") << line;
    }
  }
  EXPECT_EQ(link_rows, 5u) << r.console;
  EXPECT_EQ(ipu_rows, 3u * sys.total_ipus()) << r.console;
}

}  // namespace
