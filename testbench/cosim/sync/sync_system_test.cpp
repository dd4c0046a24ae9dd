// `ipusim run --rtl sync` on real firmware prints the same console and the same cycles as
// the all-TLM run: the all-reduce on the 16-tile test chip, the IPU all-reduce and the
// pipeline on a board of four 4-tile IPUs (RTL controllers on every IPU, zone-2 syncs
// across them). `--waves` writes a waveform per controller instance that gtkwave's
// fst2vcd reads (FST) or that is VCD text, with the controller's signals in it. A config
// the RTL cannot take is refused naming the value and the limit.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "ipusim_runner.h"

namespace {

constexpr const char* kTiny16 = "configs/test/tiny16.yaml";
constexpr const char* kTinyM2000 = "configs/test/tiny4_m2000.yaml";

std::string tmp(const std::string& name) { return ::testing::TempDir() + "sync_system_" + name; }

std::string read(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// The same console, the same cycles (total, per tile, per superstep) with --rtl sync. The
// RTL run writes VCD waves too (quick to write), as the proof that the RTL ran.
void same_with_rtl(const std::string& config, const std::string& elf) {
  const std::string waves = tmp("same_" + elf + ".vcd");
  const kref::IpusimRun tlm = kref::run_ipusim(config, elf, "tlm_" + elf);
  const kref::IpusimRun rtl = kref::run_ipusim(config, elf, "rtl_" + elf, "--rtl sync --waves " + waves);
  ASSERT_EQ(tlm.status, 0) << tlm.err;
  ASSERT_EQ(rtl.status, 0) << rtl.err;
  ASSERT_FALSE(tlm.console.empty());
  EXPECT_EQ(rtl.console, tlm.console);
  for (const char* key : {"tile_cycles", "instructions", "supersteps", "per_tile", "per_tile_supersteps",
                          "tile_summary", "links", "exit_code"}) {
    ASSERT_TRUE(tlm.json.contains(key)) << key;
    EXPECT_EQ(rtl.json[key], tlm.json[key]) << key;
  }
  EXPECT_NE(rtl.err.find("ipusim: waveform "), std::string::npos) << rtl.err;
  EXPECT_EQ(tlm.err.find("ipusim: waveform "), std::string::npos) << tlm.err;
}

TEST(SyncSystem, AllreduceOnTiny16SameWithRtl) { same_with_rtl(kTiny16, "allreduce.elf"); }
TEST(SyncSystem, IpuAllreduceOnABoardSameWithRtl) { same_with_rtl(kTinyM2000, "ipu_allreduce.elf"); }
TEST(SyncSystem, PipelineOnABoardSameWithRtl) { same_with_rtl(kTinyM2000, "pipeline.elf"); }

// The controller's ports in the waveform's text (VCD), each its own $var.
void has_controller_signals(const std::string& vcd) {
  for (const char* signal : {"clk_i", "arrive_i", "zone2_i", "release_o", "gathered_o", "group_release_i", "idle_o"})
    EXPECT_NE(vcd.find(std::string(" ") + signal + " "), std::string::npos) << signal;
  EXPECT_NE(vcd.find("$enddefinitions"), std::string::npos);
  EXPECT_NE(vcd.find("\n#"), std::string::npos) << "no time step";
}

TEST(SyncSystem, WavesFstReadByFst2vcd) {
  const std::string w = tmp("w.fst"), lane0 = tmp("w.ipu0.sync.fst"), lane1 = tmp("w.ipu0.sync.odd.fst");
  std::filesystem::remove(lane0);
  std::filesystem::remove(lane1);
  const kref::IpusimRun r = kref::run_ipusim(kTiny16, "allreduce.elf", "waves_fst", "--rtl sync --waves " + w);
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.err.find("waveform " + lane0), std::string::npos) << r.err;
  for (const std::string& f : {lane0, lane1}) {
    ASSERT_TRUE(std::filesystem::exists(f)) << f;
    const std::string vcd = tmp("from_fst.vcd");
    ASSERT_EQ(std::system(("fst2vcd -f " + f + " -o " + vcd + " > /dev/null 2>&1").c_str()), 0) << f;
    has_controller_signals(read(vcd));
  }
}

TEST(SyncSystem, WavesVcd) {
  const std::string w = tmp("w.vcd"), lane0 = tmp("w.ipu0.sync.vcd");
  std::filesystem::remove(lane0);
  const kref::IpusimRun r = kref::run_ipusim(kTiny16, "allreduce.elf", "waves_vcd", "--rtl sync --waves " + w);
  ASSERT_EQ(r.status, 0) << r.err;
  has_controller_signals(read(lane0));
}

TEST(SyncSystem, ConfigTheRtlCannotTakeIsRefused) {
  const std::string chip = tmp("min0.yaml");
  ASSERT_EQ(read(kTiny16).find("\nsync:"), std::string::npos) << "tiny16 has its own sync section now";
  std::ofstream(chip) << read(kTiny16) << "sync:\n  latency_min_cycles: 0\n  latency_max_cycles: 40\n";
  const kref::IpusimRun tlm = kref::run_ipusim(chip, "allreduce.elf", "min0_tlm");
  EXPECT_EQ(tlm.status, 0) << tlm.err;
  const kref::IpusimRun rtl = kref::run_ipusim(chip, "allreduce.elf", "min0_rtl", "--rtl sync");
  EXPECT_NE(rtl.status, 0);
  EXPECT_NE(rtl.err.find("sync.latency_min_cycles from 1 to 255; the chip has 0"), std::string::npos) << rtl.err;
}

}  // namespace
