// The figures consumers derive from several keys, checked by the loader with FILE:LINE:
// KEY (docs/config.md, "Errors"): the IPU-Links' latency and frame time in cycles of the
// tile clock (the link layer's range, whether or not faults are injected now), `cosim:
// {link: rtl}` without links, `cosim: {sync: rtl}` past the RTL sync controller's limits;
// and a `link_faults` written in the command line's LINK:SPEC form shown the config's mapping.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "config/config_loader.h"
#include "temp_config.h"

namespace ipusim::config {
namespace {

std::string file_with(const std::vector<std::string>& lines, const std::string& tag = "") {
  return test::file_with("ipusim_derived_", lines, tag);
}
using test::what_of;

// A chip (lines 1-8) and `rest` from line 9 on.
std::vector<std::string> chip(const std::string& clock_mhz, std::vector<std::string> rest) {
  std::vector<std::string> lines = {"kind: chip",
                                    "name: c",
                                    "tiles: 4",
                                    "clock_mhz: " + clock_mhz,
                                    "tile:",
                                    "  sram_kib: 64",
                                    "  amp_f16_macs_per_cycle: 64",
                                    "  amp_f32_macs_per_cycle: 16"};
  lines.insert(lines.end(), rest.begin(), rest.end());
  return lines;
}

// Found by the hostile user: `latency_ns: 0` loaded, and a run with link faults
// terminated the process ("link layer: latency_cycles: must be at least 1").
TEST(DerivedChecks, ALinkLatencyOfNoWholeCycleIsRefusedAtItsKey) {
  const std::string zero = file_with(chip("1000", {"ipu_links:", "  latency_ns: 0"}), "zero");
  EXPECT_EQ(what_of(zero), zero + ":10: ipu_links.latency_ns: 0 ns is 0 cycle(s) of the 1000 MHz tile clock; the link "
                                  "layer takes a latency of 1 to 2^24 cycles (docs/links.md, \"Link layer\")");
  const std::string half = file_with(chip("1000", {"ipu_links: {latency_ns: 0.4}"}), "half");
  EXPECT_NE(what_of(half).find(half + ":9: ipu_links.latency_ns: 0.4 ns is 0 cycle(s)"), std::string::npos)
      << what_of(half);
  // One cycle is enough; a chip without links has no link layer to feed.
  EXPECT_EQ(what_of(file_with(chip("1000", {"ipu_links: {latency_ns: 1}"}), "one")), "(loaded without error)");
  EXPECT_EQ(what_of(file_with(chip("1000", {"ipu_links: {count: 0, latency_ns: 0}"}), "nolinks")),
            "(loaded without error)");
}

// `clock_mhz: 1e-6` (1 Hz) makes the default 250 ns latency 0 cycles: named at the clock,
// the key the file sets, with the figure it spoils.
TEST(DerivedChecks, AClockTooSlowForTheLinkLatencyIsRefusedAtTheClock) {
  const std::string slow = file_with(chip("0.000001", {}), "slow");
  EXPECT_EQ(what_of(slow), slow + ":4: clock_mhz: ipu_links.latency_ns: 250 ns is 0 cycle(s) of the 0.000001 MHz "
                                  "tile clock; the link layer takes a latency of 1 to 2^24 cycles (docs/links.md, "
                                  "\"Link layer\")");
}

TEST(DerivedChecks, ALinkLatencyOrFrameTimePast2To24CyclesIsRefused) {
  const std::string far = file_with(chip("1000", {"ipu_links: {latency_ns: 1e9}"}), "far");
  EXPECT_NE(what_of(far).find(far + ":9: ipu_links.latency_ns: 1000000000 ns is 1000000000 cycle(s)"),
            std::string::npos)
      << what_of(far);
  const std::string slow = file_with(chip("1000", {"ipu_links: {gbytes_per_s_each_way: 1e-9}"}), "rate");
  EXPECT_NE(what_of(slow).find(slow + ":9: ipu_links.gbytes_per_s_each_way: 1e-9 GB/s sends a frame of 264 "
                                      "bytes in more than 2^24 cycles"),
            std::string::npos)
      << what_of(slow);
}

TEST(DerivedChecks, LinkFaultsInTheCommandLinesFormShowTheMapping) {
  const std::string tiny4 = std::filesystem::absolute("configs/test/tiny4.yaml").string();
  const std::string cli = file_with({"kind: board", "name: b", "chip: " + tiny4, "ipus: 4", "topology: m2000",
                                     "link_faults: \"3:periodic=50\""},
                                    "cli");
  EXPECT_EQ(what_of(cli), cli + ":6: link_faults: link faults: 3:periodic=50: unknown key (known: seed, ber, periodic, "
                                "burst, drop, drop_every, dup, dup_every, ack_drop, ack_drop_every) ('3:' is "
                                "--link-faults' LINK:SPEC form; in a config, faults on one link are a mapping from "
                                "its index: link_faults: {3: 'periodic=50'})");
}

TEST(DerivedChecks, AnRtlLinkWithoutLinksIsRefused) {
  const std::string one = file_with(chip("1000", {"cosim: {link: rtl}"}), "rtl");
  EXPECT_EQ(what_of(one), one + ":9: cosim: link is rtl, but system 'c' has no IPU-Links (1 IPU): no link would run "
                                "as the link RTL");
  EXPECT_EQ(what_of(file_with(chip("1000", {"cosim: {sync: rtl, amp: rtl}"}), "others")), "(loaded without error)");
}

// The RTL sync controller's limits (common/sync_rtl_limits.h), at `cosim` when it chooses
// `sync: rtl`, each at its edge; the TLM controller takes them all.
TEST(DerivedChecks, AnRtlSyncPastItsLimitsIsRefused) {
  auto sync_chip = [](const std::string& tiles, const std::string& sync, const std::string& cosim) {
    std::vector<std::string> lines = chip("1000", {"sync: " + sync, "cosim: " + cosim});
    lines[2] = "tiles: " + tiles;
    return lines;
  };
  auto refused = [&](const std::string& tiles, const std::string& sync, const std::string& tag) {
    const std::string f = file_with(sync_chip(tiles, sync, "{sync: rtl}"), tag);
    EXPECT_EQ(what_of(file_with(sync_chip(tiles, sync, "{sync: tlm}"), tag + "_tlm")), "(loaded without error)") << tag;
    return std::make_pair(f, what_of(f));
  };
  auto fits = [&](const std::string& tiles, const std::string& sync, const std::string& tag) {
    return what_of(file_with(sync_chip(tiles, sync, "{sync: rtl}"), tag));
  };
  const std::string ok = "(loaded without error)";

  auto [tiles, tiles_error] = refused("1473", "{}", "tiles");
  EXPECT_EQ(tiles_error, tiles + ":10: cosim: sync is rtl, but the RTL sync controller serves at most 1472 tiles; the "
                                 "chip has tiles: 1473 (chip 'c' of " + tiles + ")");
  EXPECT_EQ(fits("1472", "{}", "tiles_ok"), ok);

  auto [min0, min0_error] = refused("4", "{latency_min_cycles: 0, latency_max_cycles: 40}", "min0");
  EXPECT_EQ(min0_error, min0 + ":10: cosim: sync is rtl, but the RTL sync controller takes sync.latency_min_cycles "
                               "from 1 to 255; the chip has 0 (chip 'c' of " + min0 + ")");
  auto [min256, min256_error] = refused("4", "{latency_min_cycles: 256, latency_max_cycles: 300}", "min256");
  EXPECT_NE(min256_error.find(min256 + ":10: cosim: sync is rtl, but the RTL sync controller takes "
                                       "sync.latency_min_cycles from 1 to 255; the chip has 256"),
            std::string::npos)
      << min256_error;
  EXPECT_EQ(fits("4", "{latency_min_cycles: 1, latency_max_cycles: 1}", "min1"), ok);
  EXPECT_EQ(fits("4", "{latency_min_cycles: 255, latency_max_cycles: 765}", "min255"), ok);  // max - min = 510

  auto [span, span_error] = refused("4", "{latency_min_cycles: 10, latency_max_cycles: 521}", "span");
  EXPECT_NE(span_error.find(span + ":10: cosim: sync is rtl, but the RTL sync controller takes ways in and out of "
                                   "at most 255 cycles, so sync.latency_max_cycles - sync.latency_min_cycles up to "
                                   "510; the chip has 521 - 10 = 511"),
            std::string::npos)
      << span_error;
  EXPECT_EQ(fits("4", "{latency_min_cycles: 10, latency_max_cycles: 520}", "span_ok"), ok);
  EXPECT_EQ(fits("1", "{latency_min_cycles: 10, latency_max_cycles: 5000}", "one_tile"), ok);  // no way to go
}

}  // namespace
}  // namespace ipusim::config
