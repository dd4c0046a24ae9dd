// The GEMM kernel (firmware/kernels/gemm.c, gemm_small.elf) on the test chip tiny16 with
// the RTL AMP (`ipusim run --rtl amp`): every amp.mac of every tile runs on the Verilated
// array. The output must be the host reference's and the run must print the same console
// and count the same cycles and instructions as the all-TLM run, on one or two host
// threads. With --waves (on xipu_tour, three amp.macs a tile) it writes a complete
// waveform per tile, FST that gtkwave's fst2vcd reads, or VCD.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "config/config_loader.h"
#include "ipusim_runner.h"
#include "kernels_ref.h"

namespace {

const std::string kTiny16 = "configs/test/tiny16.yaml";

std::string hex(uint32_t v) {
  char s[16];
  std::snprintf(s, sizeof s, "0x%08x", v);
  return s;
}

void expect_clean(const kref::IpusimRun& r) {
  EXPECT_EQ(r.status, 0) << r.err << r.console;
  ASSERT_TRUE(r.json.is_object()) << r.err;
  EXPECT_TRUE(r.json["fault"].is_null()) << r.json["fault"];
}

void expect_same_run(const kref::IpusimRun& tlm, const kref::IpusimRun& rtl) {
  EXPECT_EQ(rtl.console, tlm.console);
  EXPECT_EQ(rtl.json["tile_cycles"], tlm.json["tile_cycles"]);
  EXPECT_EQ(rtl.json["instructions"], tlm.json["instructions"]);
  EXPECT_EQ(rtl.json["supersteps"], tlm.json["supersteps"]);
}

TEST(AmpGemm, RtlAmpGivesTheTlmBytesAndCyclesOnOneOrTwoHostThreads) {
  const auto chip = ipusim::config::load_system(kTiny16).board.chip;
  const kref::IpusimRun tlm = kref::run_ipusim(kTiny16, "gemm_small.elf", "amp_gemm_tlm");
  const kref::IpusimRun rtl1 = kref::run_ipusim(kTiny16, "gemm_small.elf", "amp_gemm_rtl1", "--rtl amp --threads 1");
  const kref::IpusimRun rtl2 = kref::run_ipusim(kTiny16, "gemm_small.elf", "amp_gemm_rtl2", "--rtl amp --threads 2");
  expect_clean(tlm);
  expect_clean(rtl1);
  expect_clean(rtl2);
  const kref::GemmExpect want = kref::gemm(chip.tiles, chip.tile.amp_f16_macs_per_cycle / 4, 64);
  const auto got = kref::find_line(rtl1.console, "gemm", "tiles");
  ASSERT_TRUE(got) << rtl1.console << rtl1.err;
  EXPECT_EQ(got->at("hash"), hex(want.hash));
  expect_same_run(tlm, rtl1);
  expect_same_run(tlm, rtl2);
  std::printf("gemm_small on tiny16: all-TLM %.3f s, --rtl amp %.3f s (1 host thread), %.3f s (2)\n",
              tlm.host_seconds, rtl1.host_seconds, rtl2.host_seconds);
}

// The rising edges of `signal` in a VCD file (its id from the header, then "1<id>" lines).
int rising_edges(const std::string& vcd, const std::string& signal) {
  std::ifstream in(vcd);
  std::string line, id;
  int edges = 0;
  while (std::getline(in, line)) {
    std::istringstream words(line);
    std::string w0, w1, w2, w3, w4;
    words >> w0 >> w1 >> w2 >> w3 >> w4;
    if (id.empty() && w0 == "$var" && w4 == signal) id = w3;
    if (!id.empty() && line == "1" + id) ++edges;
  }
  return edges;
}

// xipu_tour does three amp.macs per tile (one f16, two f32): 3 x 6 cycles of the array
// in each tile's file, complete (the files are closed at the end of the run).
void check_waves(const std::string& ext) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::path(::testing::TempDir()) / ("amp_waves_" + ext + "." + std::to_string(::getpid()));
  fs::create_directories(dir);
  const std::string file = (dir / ("w." + ext)).string();
  const kref::IpusimRun r =
      kref::run_ipusim(kTiny16, "xipu_tour.elf", "amp_waves_" + ext, "--rtl amp --waves " + file);
  expect_clean(r);
  const fs::path tile5 = dir / ("w.ipu0.tile5.amp." + ext);
  ASSERT_TRUE(fs::exists(tile5)) << r.err;
  EXPECT_NE(r.err.find("ipusim: waveform " + tile5.string()), std::string::npos) << r.err;
  std::string vcd = tile5.string();
  if (ext == "fst") {
    vcd = (dir / "tile5.vcd").string();
    ASSERT_EQ(std::system(("fst2vcd " + tile5.string() + " > " + vcd + " 2>/dev/null").c_str()), 0);
  }
  EXPECT_EQ(rising_edges(vcd, "clk_i"), 3 * 6);
  EXPECT_EQ(rising_edges(vcd, "out_valid_o"), 3);
  fs::remove_all(dir);
}

TEST(AmpWaves, FstPerTileReadByFst2vcd) { check_waves("fst"); }
TEST(AmpWaves, VcdPerTile) { check_waves("vcd"); }

}  // namespace
