// `ipusim run` / `ipusim serve` --rtl and --waves (docs/cosim.md): every bad value refused
// before anything is elaborated, with exit 2 and a message naming the option and the value.
// The RTL runs themselves are the cosim suites' (testbench/cosim/<block>).
#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include "cli_run.h"

namespace ipusim {
namespace {

const std::string kBin = IPUSIM_BIN;
const std::string kHello = std::string(IPUSIM_FIRMWARE_DIR) + "/hello.elf";

test::CliResult ipusim(const std::string& args) { return test::run_command(kBin, "ipusim_cosim_opt_", args); }

TEST(CosimOptions, AnUnknownBlockIsNamed) {
  const auto r = ipusim("run --config configs/test/tiny4.yaml --elf " + kHello + " --rtl sync,exchange");
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_EQ(r.err, "ipusim: error: --rtl 'sync,exchange': 'exchange' is not a block with RTL (sync, link, amp; or "
                   "'none' for none)\n");
  EXPECT_EQ(r.out, "");
}

// Found by the hostile user (issue 37): `--rtl link` on one IPU was accepted and
// ran nothing as RTL, silently.
TEST(CosimOptions, AnRtlLinkWithoutIpuLinksIsRefused) {
  const std::string config = " --config configs/test/tiny4.yaml --rtl sync,link";
  for (const std::string& args : {"run --elf " + kHello + config, "serve --socket /nonexistent/s" + config}) {
    const auto r = ipusim(args);
    EXPECT_EQ(r.status, 2) << args << ": " << r.err;
    EXPECT_NE(r.err.find("--rtl 'sync,link': link is rtl, but system 'tiny4' has no IPU-Links (1 IPU): no link would "
                         "run as the link RTL"),
              std::string::npos)
        << args << ": " << r.err;
  }
}

// The RTL sync controller's limits (issue 37): `--rtl sync` on a chip it cannot take is
// refused before elaboration, naming the key and its value, by `run` and `serve` alike.
TEST(CosimOptions, AnRtlSyncPastItsLimitsIsRefusedBeforeElaboration) {
  const std::string chip = ::testing::TempDir() + "ipusim_cosim_opt_min0.yaml";
  std::ofstream(chip) << "kind: chip\nname: min0\ntiles: 4\nclock_mhz: 100\ntile:\n  sram_kib: 64\n"
                         "  amp_f16_macs_per_cycle: 64\n  amp_f32_macs_per_cycle: 16\n"
                         "sync:\n  latency_min_cycles: 0\n  latency_max_cycles: 40\n";
  EXPECT_EQ(ipusim("run --config " + chip + " --elf " + kHello + " --quiet").status, 0);  // the TLM takes it
  for (const std::string& args :
       {"run --elf " + kHello + " --config " + chip + " --rtl sync",
        "serve --socket /nonexistent/s --config " + chip + " --rtl sync"}) {
    const auto r = ipusim(args);
    EXPECT_EQ(r.status, 2) << args << ": " << r.err;
    EXPECT_EQ(r.err, "ipusim: error: --rtl 'sync': sync is rtl, but the RTL sync controller takes "
                     "sync.latency_min_cycles from 1 to 255; the chip has 0 (chip 'min0' of " + chip + ")\n")
        << args;
    EXPECT_EQ(r.out, "") << args;
  }
}

TEST(CosimOptions, AWaveformFileNeedsAKnownExtension) {
  const auto r = ipusim("run --config configs/test/tiny4.yaml --elf " + kHello + " --rtl sync --waves w.txt");
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_EQ(r.err, "ipusim: error: --waves: the waveform file 'w.txt' must end in .fst (compact) or .vcd (quick to "
                   "write)\n");
}

TEST(CosimOptions, AWaveformFolderThatCannotTakeItIsRefusedBeforeTheRun) {
  const auto r = ipusim("run --config configs/test/tiny4.yaml --elf " + kHello + " --rtl sync --waves /nonexistent/w.fst");
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_EQ(r.err, "ipusim: error: --waves: the waveform file '/nonexistent/w.fst' cannot be written in '/nonexistent': "
                   "No such file or directory\n");
  EXPECT_EQ(r.out, "");
}

TEST(CosimOptions, WavesWithoutAnRtlBlockIsRefused) {
  const auto r = ipusim("run --config configs/test/tiny4.yaml --elf " + kHello + " --waves w.fst");
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_EQ(r.err, "ipusim: error: --waves 'w.fst': no block runs as RTL (choose some with --rtl or the config's "
                   "`cosim`)\n");
  const auto none = ipusim("run --config configs/test/tiny4.yaml --elf " + kHello + " --rtl none --waves w.vcd");
  EXPECT_EQ(none.status, 2) << none.err;
}

TEST(CosimOptions, RtlNoneRunsAllTlm) {
  const auto r = ipusim("run --config configs/test/tiny4.yaml --elf " + kHello + " --rtl none --quiet");
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("hello from tile 3 of 4"), std::string::npos) << r.out;
}

TEST(CosimOptions, ServeRefusesTheSameBeforeElaborating) {
  const auto r = ipusim("serve --config configs/test/tiny4.yaml --socket " + test::temp_path("ipusim_cosim_opt_", "s.sock") +
                        " --rtl amp,amp");
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_EQ(r.err, "ipusim: error: --rtl 'amp,amp': 'amp' is given twice\n");
  const auto w = ipusim("serve --config configs/test/tiny4.yaml --socket " + test::temp_path("ipusim_cosim_opt_", "s.sock") +
                        " --waves w.fst");
  EXPECT_EQ(w.status, 2) << w.err;
  EXPECT_EQ(w.err, "ipusim: error: --waves 'w.fst': no block runs as RTL (choose some with --rtl or the config's "
                   "`cosim`)\n");
}

}  // namespace
}  // namespace ipusim
