// Per-superstep figures and the superstep trace of a host program, through the driver's
// public API on both transports: the same figures (`RunResult::supersteps`) and the same
// Perfetto trace file as `ipusim run --json / --trace` give for the same firmware and
// config (docs/chip.md "Accounting", "Trace"; docs/host_driver.md).
#include <chrono>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>

#include <ipu/hostif_regs.h>
#include <ipudrv/errors.h>
#include <ipudrv/ipudrv.h>
#include <nlohmann/json.hpp>

#include "cli_run.h"
#include "device_fixture.h"
#include "superstep_json.h"

namespace devapi {
namespace {

using ipusim::test::read_file;

const std::string kXchg = "system/uneven_xchg.elf";  // uneven compute, a ring exchange per superstep

class Profile : public DeviceApiTest {
 protected:
  std::string temp(const std::string& name) { return ipusim::test::temp_path("devapi_profile_", name); }

  // `ipusim run --json J --trace T` of `elf_name` on `config`: the parsed JSON and the trace text.
  std::pair<nlohmann::json, std::string> ipusim_run(const std::string& config, const std::string& elf_name) {
    const std::string json = temp("cli.json"), trace = temp("cli.trace.json");
    const auto r = ipusim::test::run_cli(IPUSIM_BIN, "devapi_profile_",
                                         "--config " + config + " --elf " + firmware(elf_name) + " --threads 1 --json " +
                                             json + " --trace " + trace);
    EXPECT_EQ(r.status, 0) << r.err;
    return {nlohmann::json::parse(read_file(json)), read_file(trace)};
  }

  std::string trace_path() { return temp(serve() ? "serve.trace.json" : "inproc.trace.json"); }

  // A device of `config` that traces to `trace` (Device::set_trace), with kXchg loaded.
  std::unique_ptr<ipudrv::Device> open_traced(const std::string& config, const std::string& trace) {
    auto dev = open(config);
    dev->set_trace(trace);
    dev->load(elf(kXchg));
    return dev;
  }
};

TEST_P(Profile, SuperstepStatsAndTraceEqualIpusimRun) {
  const std::string config = "configs/test/tiny16.yaml";
  const auto [json, cli_trace] = ipusim_run(config, kXchg);
  const std::string trace = trace_path();
  ipudrv::OpenOptions o;
  o.trace_path = trace;
  auto dev = open(config, o);
  dev->load(elf(kXchg));
  const ipudrv::RunResult r = dev->run(0, std::chrono::seconds(60));
  ASSERT_EQ(r.state, ipudrv::RunState::kHalted);
  ASSERT_EQ(r.supersteps.size(), 1u);
  expect_supersteps_equal(json, r.supersteps);
  EXPECT_EQ(r.stats.cycles, json["tile_cycles"].get<uint64_t>());
  EXPECT_EQ(dev->superstep_stats(), r.supersteps);

  // The trace: written when run() returns, valid JSON, byte for byte `ipusim run`'s.
  const std::string text = read_file(trace);
  const nlohmann::json t = nlohmann::json::parse(text);
  ASSERT_TRUE(t.contains("traceEvents"));
  std::set<std::string> tracks, names;
  size_t supersteps = 0;
  for (const auto& e : t["traceEvents"]) {
    if (e["ph"] == "M" && e["name"] == "thread_name") tracks.insert(e["args"]["name"].get<std::string>());
    if (e["ph"] == "X") {
      const std::string name = e["name"].get<std::string>();
      names.insert(name);
      if (name.rfind("superstep ", 0) == 0) ++supersteps;
      EXPECT_EQ(e["pid"], 0);
    }
  }
  EXPECT_EQ(tracks.size(), 16u);  // one track per tile
  EXPECT_TRUE(tracks.count("tile 0") && tracks.count("tile 15"));
  for (const char* n : {"compute", "sync", "exchange"}) EXPECT_TRUE(names.count(n)) << n;
  EXPECT_EQ(supersteps, 16u * r.supersteps[0].size());
  EXPECT_EQ(text, cli_trace);
}

TEST_P(Profile, TwoIpusOfABoardEqualIpusimRun) {
  const std::string config = "configs/test/tiny4x2_smem.yaml";
  const auto [json, cli_trace] = ipusim_run(config, kXchg);
  const std::string trace = trace_path();
  auto dev = open_traced(config, trace);
  const ipudrv::RunResult r = dev->run(0, std::chrono::seconds(60));
  ASSERT_EQ(r.state, ipudrv::RunState::kHalted);
  ASSERT_EQ(r.supersteps.size(), 2u);
  expect_supersteps_equal(json, r.supersteps);
  EXPECT_EQ(read_file(trace), cli_trace);
}

TEST_P(Profile, ARunSplitIntoSuperstepsGrowsToTheSameFigures) {
  const std::string config = "configs/test/tiny16.yaml";
  const auto [json, cli_trace] = ipusim_run(config, kXchg);
  const std::string trace = trace_path();
  auto dev = open_traced(config, trace);
  ipudrv::RunResult r = dev->run(1);
  ASSERT_EQ(r.state, ipudrv::RunState::kPaused);
  const size_t first = r.supersteps.at(0).size();
  EXPECT_LT(first, json["supersteps"].size());
  EXPECT_FALSE(std::filesystem::exists(trace) && !read_file(trace).empty()) << "written only when the run ends";
  while (r.state == ipudrv::RunState::kPaused) r = dev->run(1);
  expect_supersteps_equal(json, r.supersteps);
  EXPECT_EQ(read_file(trace), cli_trace);
  dev->reset();
  EXPECT_TRUE(dev->superstep_stats().at(0).empty()) << "a reset forgets the supersteps";
}

TEST_P(Profile, AnUnwritableTracePathIsAUsageError) {
  auto dev = open("configs/test/tiny4.yaml");
  expect_error<ipudrv::UsageError>([&] { dev->set_trace("/nonexistent-dir/x/trace.json"); }, "cannot open");
  dev->set_trace("");  // none: fine
  dev->load(elf(kXchg));
  EXPECT_EQ(dev->run(0, std::chrono::seconds(60)).state, ipudrv::RunState::kHalted);
}

// A trace that opens but cannot be written (a full device) ends a run that had no problem
// of its own in OutputError (ERR_OUTPUT, kind 'trace', the file and the OS's reason); the
// run's figures are there, and the device runs again (docs/host_driver.md "Errors").
TEST_P(Profile, ATraceThatCannotBeWrittenIsAnOutputErrorAndTheDeviceGoesOn) {
  auto dev = open_traced("configs/test/tiny4.yaml", "/dev/full");
  const auto info = expect_error<ipudrv::OutputError>([&] { dev->run(0, std::chrono::seconds(60)); },
                                                       "writing '/dev/full' failed: No space left on device");
  ASSERT_TRUE(info);
  EXPECT_EQ(info->code, uint32_t{IPU_ERR_OUTPUT});
  EXPECT_EQ(info->kind, "trace");
  EXPECT_FALSE(dev->superstep_stats(0).empty());
  dev->set_trace("");
  dev->reset();
  dev->load(elf(kXchg));
  EXPECT_EQ(dev->run(0, std::chrono::seconds(60)).state, ipudrv::RunState::kHalted);
}

// 100 supersteps: more than one SUPERSTEPS reply holds (14), so the socket client pages
// them in; every page lines up with `ipusim run --json`.
TEST_P(Profile, ManySuperstepsAreReadInPages) {
  const std::string config = "configs/test/tiny4.yaml";
  const std::string spin = "system/spin1k.elf";
  const auto [json, cli_trace] = ipusim_run(config, spin);
  auto dev = open(config);
  dev->load(elf(spin));
  const ipudrv::RunResult r = dev->run(0, std::chrono::seconds(60));
  ASSERT_EQ(r.state, ipudrv::RunState::kHalted);
  ASSERT_GT(r.supersteps.at(0).size(), 3 * 14u);
  expect_supersteps_equal(json, r.supersteps);
  EXPECT_EQ(dev->superstep_stats(0), r.supersteps.at(0));
}

// One IPU's supersteps alone, in C++ and through the C API (two calls: the count, then
// the records), equal to what the run reported for that IPU; an IPU past the board's is
// a usage error.
TEST_P(Profile, OneIpusSuperstepsInCppAndC) {
  const std::string config = "configs/test/tiny4x2_smem.yaml";
  std::vector<ipudrv::SuperstepStats> ipu1;
  {
    auto dev = open(config);
    dev->load(elf(kXchg));
    const ipudrv::RunResult r = dev->run(0, std::chrono::seconds(60));
    ipu1 = dev->superstep_stats(1);
    EXPECT_EQ(ipu1, r.supersteps.at(1));
    EXPECT_FALSE(ipu1.empty());
    expect_error<ipudrv::UsageError>([&] { dev->superstep_stats(2); }, "the device has 2 IPUs");
  }
  ipudrv_device* c = nullptr;
  ASSERT_EQ(ipudrv_open(locator().c_str(), 0, &c), IPUDRV_OK) << ipudrv_last_error();
  ASSERT_EQ(ipudrv_load(c, firmware(kXchg).c_str()), IPUDRV_OK) << ipudrv_last_error();
  ipudrv_run_result rr{};
  ASSERT_EQ(ipudrv_run(c, 0, 60000, &rr), IPUDRV_OK) << ipudrv_last_error();
  size_t count = 0;
  ASSERT_EQ(ipudrv_supersteps(c, 1, nullptr, 0, &count), IPUDRV_OK) << ipudrv_last_error();
  ASSERT_EQ(count, ipu1.size());
  std::vector<ipudrv_superstep> out(count);
  ASSERT_EQ(ipudrv_supersteps(c, 1, out.data(), out.size(), &count), IPUDRV_OK) << ipudrv_last_error();
  for (size_t k = 0; k < count; ++k) {
    SCOPED_TRACE(k);
    EXPECT_EQ(out[k].tiles, ipu1[k].tiles);
    EXPECT_EQ(out[k].exchanging_tiles, ipu1[k].exchanging_tiles);
    EXPECT_EQ(out[k].incomplete_tiles, ipu1[k].incomplete_tiles);
    EXPECT_EQ(out[k].begin_cycle, ipu1[k].begin_cycle);
    EXPECT_EQ(out[k].end_cycle, ipu1[k].end_cycle);
    EXPECT_EQ(out[k].compute_cycles, ipu1[k].compute_cycles);
    EXPECT_EQ(out[k].sync_cycles, ipu1[k].sync_cycles);
    EXPECT_EQ(out[k].exchange_cycles, ipu1[k].exchange_cycles);
    EXPECT_EQ(out[k].instructions, ipu1[k].instructions);
    EXPECT_EQ(out[k].exchange_bytes, ipu1[k].exchange_bytes);
  }
  EXPECT_EQ(ipudrv_supersteps(c, 2, nullptr, 0, &count), IPUDRV_E_USAGE);
  ipudrv_close(c);
}

DEVAPI_TRANSPORTS(Profile);

}  // namespace
}  // namespace devapi
