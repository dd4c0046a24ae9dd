// The GEMM kernel (firmware/kernels/gemm.c, gemm_small.elf) on the test chip tiny16 with
// the RTL AMP (`ipusim run --rtl amp`): every amp.mac of every tile runs on the Verilated
// array. The output must be the host reference's and the run must print the same console
// and count the same cycles and instructions as the all-TLM run, on one or two host
// threads; with --waves it writes a waveform per tile that gtkwave's fst2vcd reads.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
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

TEST(AmpGemm, RtlAmpGivesTheTlmBytesAndCycles) {
  const auto chip = ipusim::config::load_system(kTiny16).board.chip;
  const kref::IpusimRun tlm = kref::run_ipusim(kTiny16, "gemm_small.elf", "amp_gemm_tlm");
  const kref::IpusimRun rtl = kref::run_ipusim(kTiny16, "gemm_small.elf", "amp_gemm_rtl", "--rtl amp");
  expect_clean(tlm);
  expect_clean(rtl);
  const kref::GemmExpect want = kref::gemm(chip.tiles, chip.tile.amp_f16_macs_per_cycle / 4, 64);
  const auto got = kref::find_line(rtl.console, "gemm", "tiles");
  ASSERT_TRUE(got) << rtl.console << rtl.err;
  EXPECT_EQ(got->at("hash"), hex(want.hash));
  expect_same_run(tlm, rtl);
  std::printf("gemm_small on tiny16: all-TLM %.3f s, --rtl amp %.3f s (host wall time, one run each)\n",
              tlm.host_seconds, rtl.host_seconds);
}

TEST(AmpGemm, RtlAmpIsTheSameOnOneOrTwoHostThreads) {
  const kref::IpusimRun a = kref::run_ipusim(kTiny16, "gemm_small.elf", "amp_gemm_t1", "--rtl amp --threads 1");
  const kref::IpusimRun b = kref::run_ipusim(kTiny16, "gemm_small.elf", "amp_gemm_t2", "--rtl amp --threads 2");
  expect_clean(a);
  expect_clean(b);
  expect_same_run(a, b);
}

TEST(AmpGemm, WavesAreWrittenPerTileAndReadable) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::path(::testing::TempDir()) / ("amp_waves." + std::to_string(::getpid()));
  fs::create_directories(dir);
  const std::string file = (dir / "w.fst").string();
  const kref::IpusimRun r = kref::run_ipusim(kTiny16, "gemm_small.elf", "amp_gemm_waves", "--rtl amp --waves " + file);
  expect_clean(r);
  // 16 tiles, one instance each: w.ipu0.tile<N>.amp.fst.
  const fs::path tile5 = dir / "w.ipu0.tile5.amp.fst";
  ASSERT_TRUE(fs::exists(tile5)) << r.err;
  const std::string vcd = (dir / "tile5.vcd").string();
  ASSERT_EQ(std::system(("fst2vcd " + tile5.string() + " > " + vcd + " 2>/dev/null").c_str()), 0);
  EXPECT_GT(fs::file_size(vcd), 1000u);
  fs::remove_all(dir);
}

}  // namespace
