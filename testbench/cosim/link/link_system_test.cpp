// The many-IPU firmware with the link RTL carrying every exchange phase over the IPU-Links
// (`ipusim run --rtl link`): the same console output, the same cycles and the same link
// counters as all-TLM, without faults and with injected link faults (--link-faults).
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <ostream>
#include <map>
#include <sstream>
#include <string>

#include "ipusim_runner.h"

namespace {

struct Case {
  const char* name;
  const char* config;
  const char* elf;
  const char* faults;  // --link-faults, or empty
};

void PrintTo(const Case& c, std::ostream* os) { *os << c.name; }

class LinkRtlSystem : public ::testing::TestWithParam<Case> {};

TEST_P(LinkRtlSystem, SameOutputCyclesAndLinkCountersAsTlm) {
  const Case& c = GetParam();
  const std::string faults = *c.faults ? std::string(" --link-faults ") + c.faults : "";
  const kref::IpusimRun tlm = kref::run_ipusim(c.config, c.elf, std::string("link_tlm_") + c.name, "--rtl none" + faults);
  const kref::IpusimRun rtl = kref::run_ipusim(c.config, c.elf, std::string("link_rtl_") + c.name, "--rtl link" + faults);
  ASSERT_EQ(tlm.status, 0) << tlm.err;
  ASSERT_EQ(rtl.status, 0) << rtl.err;
  // The firmware printed its results (one line per IPU at least), and the same ones.
  EXPECT_NE(rtl.console.find(c.elf == std::string("pipeline.elf") ? "pipeline" : "ipu_allreduce"), std::string::npos)
      << rtl.console;
  EXPECT_EQ(tlm.console, rtl.console);
  EXPECT_EQ(tlm.json["tile_cycles"], rtl.json["tile_cycles"]);
  EXPECT_EQ(tlm.json["instructions"], rtl.json["instructions"]);
  EXPECT_EQ(tlm.json["link_cycles_lost"], rtl.json["link_cycles_lost"]);
  EXPECT_EQ(tlm.json["links"], rtl.json["links"]);
  ASSERT_TRUE(rtl.json["links"].is_array());
  EXPECT_FALSE(rtl.json["links"].empty()) << "nothing crossed an IPU-Link";
  uint64_t replays = 0;
  for (const auto& l : rtl.json["links"]) replays += l["replays"].get<uint64_t>();
  if (*c.faults) {
    EXPECT_GT(replays, 0u) << "the faults cost nothing";
    EXPECT_GT(rtl.json["link_cycles_lost"].get<uint64_t>(), 0u);
  } else {
    EXPECT_EQ(replays, 0u);
  }
}

// `ipusim run --rtl link --waves w.fst`: every direction that carried frames has its FST
// file, finished when the run ends (the writer's side file w.*.fst.hier, which it removes
// on closing, is gone) and read by fst2vcd, with the link's ports in it; a direction that
// carried nothing has none (docs/cosim.md "Waveforms").
TEST(LinkRtlWaves, EveryCarryingDirectionsFstFileIsClosedAtTheEndAndIdleOnesHaveNone) {
  const std::string dir = ::testing::TempDir() + "link_waves/";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  const kref::IpusimRun rtl =
      kref::run_ipusim("configs/test/tiny4_m2000.yaml", "pipeline.elf", "link_waves", "--rtl link --waves " + dir + "w.fst");
  ASSERT_EQ(rtl.status, 0) << rtl.err;
  // The directions that carried frames, by link (the --json links list only those).
  std::map<std::string, int> carried, written;
  for (const auto& l : rtl.json["links"]) ++carried["link" + std::to_string(l["link"].get<int>())];
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    const std::string path = e.path().string();
    EXPECT_EQ(path.find(".hier"), std::string::npos) << "left unfinished: " << path;
    if (e.path().extension() != ".fst") continue;
    const std::string instance = e.path().stem().string().substr(2);  // w.<link>.<direction>.fst
    ++written[instance.substr(0, instance.find('.'))];
    const std::string vcd = path + ".vcd";
    ASSERT_EQ(std::system(("fst2vcd " + path + " > " + vcd + " 2>/dev/null").c_str()), 0) << path;
    std::ifstream in(vcd);
    std::stringstream text;
    text << in.rdbuf();
    EXPECT_NE(text.str().find(" clk_i "), std::string::npos) << path;
  }
  EXPECT_EQ(written, carried);
  EXPECT_LT(rtl.json["links"].size(), 32u);  // of an M2000's 16 links x 2 directions, some idle
}

constexpr const char* kFaults = "ber=1e-4,drop=0.005,dup=0.005,ack_drop=0.01,burst=40:3:300,seed=13";

INSTANTIATE_TEST_SUITE_P(
    Firmware, LinkRtlSystem,
    ::testing::Values(Case{"AllreduceM2000", "configs/test/tiny4_m2000.yaml", "ipu_allreduce.elf", ""},
                      Case{"AllreduceM2000Faults", "configs/test/tiny4_m2000.yaml", "ipu_allreduce.elf", kFaults},
                      Case{"AllreducePod16Faults", "configs/test/tiny4_pod16.yaml", "ipu_allreduce.elf", kFaults},
                      Case{"PipelineM2000", "configs/test/tiny4_m2000.yaml", "pipeline.elf", ""},
                      Case{"PipelineM2000Faults", "configs/test/tiny4_m2000.yaml", "pipeline.elf", kFaults}),
    [](const auto& info) { return std::string(info.param.name); });

}  // namespace
