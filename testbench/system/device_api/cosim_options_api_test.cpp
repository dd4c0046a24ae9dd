// OpenOptions::rtl and OpenOptions::waves refused as the CLI refuses them (docs/cosim.md,
// docs/host_driver.md): a UsageError naming the option and the value, before anything is
// elaborated; for a unix: device, which takes `ipusim serve --rtl / --waves`. The RTL runs
// through the driver are the cosim suites'.
#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include "ipudrv/device.h"
#include "ipudrv/errors.h"
#include "serve_child.h"

namespace {

std::string refusal(const std::string& locator, const ipudrv::OpenOptions& options) {
  try {
    ipudrv::open(locator, 0, options);
  } catch (const ipudrv::UsageError& e) {
    return e.what();
  }
  return "(opened)";
}

TEST(CosimOpenOptions, ABadRtlListIsNamed) {
  ipudrv::OpenOptions o;
  o.rtl = "sync,exchange";
  EXPECT_EQ(refusal("config:configs/test/tiny4.yaml", o),
            "OpenOptions::rtl 'sync,exchange': 'exchange' is not a block with RTL (sync, link, amp; or 'none' for none)");
}

TEST(CosimOpenOptions, WavesNeedAnRtlBlockAndAKnownFormat) {
  ipudrv::OpenOptions o;
  o.waves = "w.fst";
  EXPECT_EQ(refusal("config:configs/test/tiny4.yaml", o),
            "OpenOptions::waves 'w.fst': no block runs as RTL (choose some with OpenOptions::rtl or the config's "
            "`cosim`)");
  o.rtl = "sync";
  o.waves = "w.gz";
  EXPECT_EQ(refusal("config:configs/test/tiny4.yaml", o),
            "OpenOptions::waves: the waveform file 'w.gz' must end in .fst (compact) or .vcd (quick to write)");
}

// The RTL sync controller's limits, before anything is elaborated (issue 37).
TEST(CosimOpenOptions, AnRtlSyncPastItsLimitsIsNamed) {
  const std::string chip = ::testing::TempDir() + "ipusim_cosim_api_span.yaml";
  std::ofstream(chip) << "kind: chip\nname: span\ntiles: 4\nclock_mhz: 100\ntile:\n  sram_kib: 64\n"
                         "  amp_f16_macs_per_cycle: 64\n  amp_f32_macs_per_cycle: 16\n"
                         "sync:\n  latency_min_cycles: 1\n  latency_max_cycles: 600\n";
  ipudrv::OpenOptions o;
  o.rtl = "sync";
  EXPECT_EQ(refusal("config:" + chip, o),
            "OpenOptions::rtl 'sync': sync is rtl, but the RTL sync controller takes ways in and out of at most 255 "
            "cycles, so sync.latency_max_cycles - sync.latency_min_cycles up to 510; the chip has 600 - 1 = 599 "
            "(chip 'span' of " + chip + ")");
}

TEST(CosimOpenOptions, RtlNoneOpensInProcess) {
  ipudrv::OpenOptions o;
  o.rtl = "none";
  auto dev = ipudrv::open("config:configs/test/tiny4.yaml", 0, o);
  EXPECT_TRUE(dev->info().in_process);
}

TEST(CosimOpenOptions, AUnixDeviceTakesThemFromItsServer) {
  const std::string socket = ::testing::TempDir() + "ipusim_cosim_open.sock";
  devapi::ServeChild server("configs/test/tiny4.yaml", socket);
  ipudrv::OpenOptions o;
  o.rtl = "sync";
  EXPECT_EQ(refusal("unix:" + socket, o),
            "open unix:" + socket + ": rtl is for config: devices; serve this one with `ipusim serve --rtl LIST`");
  o.rtl.reset();
  o.waves = "w.vcd";
  EXPECT_EQ(refusal("unix:" + socket, o),
            "open unix:" + socket + ": waves is for config: devices; serve this one with `ipusim serve --waves FILE`");
}

}  // namespace
