// Every RTL block at once (docs/cosim.md): the IPU all-reduce and the pipeline on a board
// of four IPUs with RTL sync controllers and RTL link layers (with and without link
// faults), and the GEMM on the 16-tile chip with all three blocks as RTL, print the same
// console and the same cycles as the all-TLM runs. On the boards, VCD waves of every
// instance name each block, as the proof that each ran; the GEMM writes none, since its
// AMP waveforms are ~560 MB of VCD per tile (9 GB for the chip: a full CI disk once) and
// AmpWaves already checks them on a short program.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "ipusim_runner.h"

namespace {

void same_with_rtl(const std::string& config, const std::string& elf, const std::string& rtl_blocks,
                   const std::string& extra = "", bool with_waves = true) {
  const std::string tag = elf + "_" + rtl_blocks + (extra.empty() ? "" : "_faults");
  const std::filesystem::path waves_dir = std::filesystem::path(::testing::TempDir()) / ("all_rtl_waves_" + tag);
  std::filesystem::create_directories(waves_dir);
  const std::string waves = (waves_dir / "w.vcd").string();
  const kref::IpusimRun tlm = kref::run_ipusim(config, elf, "all_tlm_" + tag, extra);
  const kref::IpusimRun rtl = kref::run_ipusim(config, elf, "all_rtl_" + tag,
                                                extra + " --rtl " + rtl_blocks + (with_waves ? " --waves " + waves : ""));
  ASSERT_EQ(tlm.status, 0) << tlm.err;
  ASSERT_EQ(rtl.status, 0) << rtl.err;
  EXPECT_EQ(tlm.json["rtl"], "none");
  EXPECT_EQ(rtl.json["rtl"], rtl_blocks);  // the tests list them in the summary's order
  EXPECT_NE(rtl.err.find("  RTL blocks          " + rtl_blocks + "\n"), std::string::npos) << rtl.err;
  ASSERT_FALSE(tlm.console.empty());
  EXPECT_EQ(rtl.console, tlm.console);
  for (const char* key : {"tile_cycles", "instructions", "supersteps", "per_tile_supersteps", "links",
                          "link_cycles_lost", "exit_code"}) {
    ASSERT_TRUE(tlm.json.contains(key)) << key;
    EXPECT_EQ(rtl.json[key], tlm.json[key]) << key;
  }
  if (!with_waves) return;
  // A waveform per instance: the controllers' (ipu0.sync) and the link directions'
  // (link0.a_to_b).
  for (const char* instance : {"ipu0.sync", "link0.a_to_b"}) {
    const std::filesystem::path file = waves_dir / ("w." + std::string(instance) + ".vcd");
    EXPECT_NE(rtl.err.find(file.string()), std::string::npos) << "no waveform of " << instance << ": " << rtl.err;
    EXPECT_GT(std::filesystem::file_size(file), 0u) << file;
  }
  std::filesystem::remove_all(waves_dir);
}

TEST(AllRtlSystem, IpuAllreduceOnABoardWithRtlSyncAndLinks) {
  same_with_rtl("configs/test/tiny4_m2000.yaml", "ipu_allreduce_c4.elf", "sync,link");
}

TEST(AllRtlSystem, PipelineOnABoardWithRtlSyncAndLinksUnderLinkFaults) {
  same_with_rtl("configs/test/tiny4_m2000.yaml", "pipeline.elf", "sync,link", "--link-faults ber=1e-5,seed=3");
}

// Every block a one-IPU chip has as RTL: it has no IPU-Links, so `link` is refused
// (cosim_options_test).
TEST(AllRtlSystem, GemmOnTiny16WithRtlSyncAndAmp) {
  same_with_rtl("configs/test/tiny16.yaml", "gemm_small.elf", "sync,amp", "", /*with_waves=*/false);
}

}  // namespace
