// `ipusim info`: the real binary (IPUSIM_BIN) on reference and broken configs.
#include <gtest/gtest.h>

#include "cli_run.h"


#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "config/config_loader.h"

namespace {

using ipusim::test::CliResult;

// Runs `ipusim ARGS` from the project root, capturing stdout and stderr apart.
CliResult ipusim(const std::string& args) { return ipusim::test::run_command(IPUSIM_BIN, "ipusim_info_", args); }

TEST(InfoCli, Gc2Table) {
  CliResult r = ipusim("info --config configs/gc2.yaml");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.err, "");
  for (const char* expected :
       {"name                gc2\n", "tiles               1216 per IPU, 1216 total\n",
        "SRAM                256 KiB per tile, 304 MiB per IPU, 304 MiB total\n",
        "clock               1600 MHz\n",
        "threads per tile    1 supervisor + 6 workers",
        "peak f16 per IPU    124.52 TFLOPS  (published 124.5 TFLOPS, +0.01 %)\n",
        "peak f32 per IPU    31.13 TFLOPS  (published 31.1 TFLOPS, +0.10 %)\n",
        "exchange per tile   4 B/cycle in (6.4 GB/s), 4 B/cycle out (6.4 GB/s)\n",
        "exchange per IPU    7.78 TB/s in, 7.78 TB/s out",
        "IPU-Links per IPU   10 x 16 GB/s each way",
        "IPU-Link bandwidth  320 GB/s per IPU"}) {
    EXPECT_NE(r.out.find(expected), std::string::npos) << "missing: " << expected << "\n" << r.out;
  }
}

TEST(InfoCli, Pod16TableHasSystemTotals) {
  CliResult r = ipusim("info --config configs/pod16.yaml");
  ASSERT_EQ(r.status, 0) << r.err;
  for (const char* expected :
       {"kind                system\n", "boards              4 x m2000 (configs/m2000.yaml)\n",
        "IPUs                4 per board, 16 total\n", "tiles               1472 per IPU, 23552 total\n",
        "peak f16 system     3.99 PFLOPS\n", "streaming memory    256 GiB per board, 1 TiB total",
        "host link           25 GB/s each way per board"}) {
    EXPECT_NE(r.out.find(expected), std::string::npos) << "missing: " << expected << "\n" << r.out;
  }
}

TEST(InfoCli, JsonIsMachineReadable) {
  CliResult r = ipusim("info --config configs/c2.yaml --json");
  ASSERT_EQ(r.status, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["name"], "c2");
  EXPECT_EQ(j["board"]["ipus"], 2);
  EXPECT_EQ(j["board"]["chip"]["tiles"], 1216);
  EXPECT_EQ(j["board"]["chip"]["tile"]["sram_bytes"], 256 * 1024);
  EXPECT_DOUBLE_EQ(j["board"]["chip"]["clock_hz"].get<double>(), 1.6e9);
  EXPECT_DOUBLE_EQ(j["derived"]["exchange_in_bytes_per_second_per_ipu"].get<double>(), 1216.0 * 4 * 1.6e9);
  EXPECT_DOUBLE_EQ(j["derived"]["peak_f16_flops_total"].get<double>(), 2 * 2.0 * 1216 * 32 * 1.6e9);
  EXPECT_LT(std::abs(j["derived"]["peak_f16_vs_published_percent"].get<double>()), 0.5);
  EXPECT_EQ(j["derived"]["tiles_total"], 2432);
}

TEST(InfoCli, YamlIsTheEffectiveConfig) {
  CliResult r = ipusim("info --config configs/pod16.yaml --yaml");
  ASSERT_EQ(r.status, 0) << r.err;
  std::string path = ::testing::TempDir() + "ipusim_info_effective.yaml";
  std::ofstream(path) << r.out;
  auto again = ipusim::config::load_system(path);
  auto original = ipusim::config::load_system("configs/pod16.yaml");
  EXPECT_EQ(again.total_ipus(), 16u);
  EXPECT_EQ(again.board.chip.tiles, original.board.chip.tiles);
  EXPECT_EQ(again.board.chip.clock_hz, original.board.chip.clock_hz);
}

TEST(InfoCli, ConfigErrorExitsWithTwoAndNamesFileLineKey) {
  CliResult r = ipusim("info --config testbench/unit/config/bad/unknown_key.yaml");
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err,
            "ipusim: error: testbench/unit/config/bad/unknown_key.yaml:7: tile.sram_kb: unknown key "
            "(did you mean 'sram_kib'?)\n");
}

TEST(InfoCli, MissingFileExitsWithTwo) {
  CliResult r = ipusim("info --config configs/no_such.yaml");
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.err, "ipusim: error: configs/no_such.yaml: cannot read the file: no such file\n");
}

TEST(InfoCli, ConfigOptionIsRequired) {
  CliResult r = ipusim("info");
  EXPECT_NE(r.status, 0);
  EXPECT_NE(r.err.find("--config"), std::string::npos) << r.err;
}

}  // namespace
