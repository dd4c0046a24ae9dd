// The `cosim` key (docs/cosim.md): which blocks run as RTL. Read from the file given, in
// any kind of file; refused in a part another file refers to; every bad value named with
// its line; written back by the effective config; the `--rtl` list and its text.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include "config/config_loader.h"
#include "config/config_writer.h"
#include "temp_config.h"

namespace ipusim::config {
namespace {

std::string file_with(const std::vector<std::string>& lines) { return test::file_with("ipusim_cosim_", lines); }
using test::what_of;

std::string tiny4() { return std::filesystem::absolute("configs/test/tiny4.yaml").string(); }

std::vector<std::string> chip(std::vector<std::string> rest) {
  std::vector<std::string> lines = {"kind: chip", "name: c", "tiles: 4", "clock_mhz: 100",
                                    "tile: {sram_kib: 64, amp_f16_macs_per_cycle: 0, amp_f32_macs_per_cycle: 0}"};
  lines.insert(lines.end(), rest.begin(), rest.end());
  return lines;
}

TEST(CosimConfig, AbsentMeansEveryBlockTlm) {
  const SystemConfig s = load_system("configs/test/tiny16.yaml");
  EXPECT_EQ(s.cosim, CosimConfig{});
  EXPECT_FALSE(s.cosim.any_rtl());
  EXPECT_EQ(s.cosim.rtl_list(), "none");
}

TEST(CosimConfig, AChipFileChoosesItsBlocks) {
  const SystemConfig s = load_system(file_with(chip({"cosim:", "  sync: rtl", "  amp: tlm"})));
  EXPECT_EQ(s.cosim.sync, BlockModel::Rtl);
  EXPECT_EQ(s.cosim.link, BlockModel::Tlm);
  EXPECT_EQ(s.cosim.amp, BlockModel::Tlm);
  EXPECT_EQ(s.cosim.rtl_list(), "sync");
}

TEST(CosimConfig, BoardAndSystemFilesChooseTheirs) {
  const std::string board = file_with({"kind: board", "name: b", "chip: " + tiny4(), "ipus: 2", "cosim: {link: rtl, sync: rtl}"});
  const SystemConfig b = load_system(board);
  EXPECT_EQ(b.cosim.rtl_list(), "sync,link");
  // The board's own choice does not reach a system that refers to it: it is refused there.
  const std::string plain_board = file_with({"kind: board", "name: b", "chip: " + tiny4(), "ipus: 2"});
  const SystemConfig s =
      load_system(file_with({"kind: system", "name: s", "board: " + plain_board, "boards: 2", "cosim: {amp: rtl}"}));
  EXPECT_EQ(s.cosim.rtl_list(), "amp");
}

TEST(CosimConfig, ANestedPartCannotChoose) {
  const std::string chip_file = file_with(chip({"cosim: {sync: rtl}"}));
  const std::string board = file_with({"kind: board", "name: b", "chip: " + chip_file, "ipus: 1"});
  const std::string what = what_of(board);
  EXPECT_NE(what.find(chip_file + ":6: cosim: belongs in the file given on the command line (" + board + ")"),
            std::string::npos)
      << what;
  EXPECT_NE(what.find("referred to by " + board + ":3"), std::string::npos) << what;
  // Inline too.
  const std::string inline_board =
      file_with({"kind: board", "name: b", "ipus: 1", "chip:", "  name: c", "  tiles: 4", "  clock_mhz: 100",
                 "  tile: {sram_kib: 64, amp_f16_macs_per_cycle: 0, amp_f32_macs_per_cycle: 0}", "  cosim: {sync: rtl}"});
  EXPECT_NE(what_of(inline_board).find(":9: chip.cosim: belongs in the file given on the command line"),
            std::string::npos)
      << what_of(inline_board);
}

TEST(CosimConfig, BadValuesAreNamedWithTheirLine) {
  std::string path = file_with(chip({"cosim:", "  sync: verilog"}));
  EXPECT_EQ(what_of(path), path + ":7: cosim.sync: expected 'tlm' (the SystemC model) or 'rtl' (the Verilated RTL), got 'verilog'");
  path = file_with(chip({"cosim:", "  exchange: rtl"}));
  EXPECT_NE(what_of(path).find(path + ":7: cosim.exchange: unknown key"), std::string::npos) << what_of(path);
  EXPECT_NE(what_of(path).find("sync, link, amp"), std::string::npos) << what_of(path);
  path = file_with(chip({"cosim: rtl"}));
  EXPECT_NE(what_of(path).find(path + ":6: cosim: expected a mapping of keys (sync, link, amp)"), std::string::npos)
      << what_of(path);
}

TEST(CosimConfig, TheEffectiveConfigKeepsTheChoice) {
  const SystemConfig s = load_system(file_with(chip({"cosim: {amp: rtl, link: tlm}"})));
  const std::string yaml = to_yaml(s);
  EXPECT_NE(yaml.find("cosim:"), std::string::npos) << yaml;
  const SystemConfig back = load_system_text("effective.yaml", yaml);
  EXPECT_EQ(back.cosim, s.cosim);
  // All TLM: nothing written, as before the key existed.
  EXPECT_EQ(to_yaml(load_system("configs/test/tiny16.yaml")).find("cosim"), std::string::npos);
}

TEST(CosimConfig, TheRtlListParsesAndPrints) {
  EXPECT_EQ(CosimConfig::parse_rtl_list("none"), CosimConfig{});
  const CosimConfig all = CosimConfig::parse_rtl_list("amp,sync,link");
  EXPECT_EQ(all.rtl_list(), "sync,link,amp");
  EXPECT_TRUE(all.any_rtl());
  EXPECT_EQ(CosimConfig::parse_rtl_list("link").rtl_list(), "link");
  auto what = [](const std::string& list) {
    try {
      CosimConfig::parse_rtl_list(list);
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("(parsed)");
  };
  EXPECT_EQ(what("exchange"), "'exchange' is not a block with RTL (sync, link, amp; or 'none' for none)");
  EXPECT_EQ(what("sync,,amp"), "'' is not a block with RTL (sync, link, amp; or 'none' for none)");
  EXPECT_EQ(what(""), "'' is not a block with RTL (sync, link, amp; or 'none' for none)");
  EXPECT_EQ(what("sync,sync"), "'sync' is given twice");
  EXPECT_EQ(what("sync,none"), "'none' is not a block with RTL (sync, link, amp; or 'none' for none)");
}

}  // namespace
}  // namespace ipusim::config
