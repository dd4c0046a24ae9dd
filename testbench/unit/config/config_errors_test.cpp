// Every kind of bad configuration gives a ConfigError that names the file, the line
// and the key: the files under bad/ (one per error kind), and range checks on a
// generated chip file with one value changed.
#include <gtest/gtest.h>

#include <fstream>
#include <functional>
#include <string>

#include "config/config_loader.h"

namespace ipusim::config {
namespace {

const std::string kBad = "testbench/unit/config/bad/";

struct BadFile {
  std::string file;     // under bad/
  std::string where;    // the file the error must name (usually `file`)
  int line;
  std::string key;
  std::string problem;  // a part of the problem text
};

ConfigError error_of(const std::string& path) {
  try {
    load_system(path);
  } catch (const ConfigError& e) {
    return e;
  }
  ADD_FAILURE() << path << " loaded without error";
  return ConfigError(path, 0, "", "no error");
}

void expect_error(const ConfigError& e, const std::string& file, int line, const std::string& key,
                  const std::string& problem) {
  std::string what = e.what();
  EXPECT_EQ(e.file(), file) << what;
  EXPECT_EQ(e.line(), line) << what;
  EXPECT_EQ(e.key(), key) << what;
  std::string prefix = file + (line > 0 ? ":" + std::to_string(line) : "") + ": " + (key.empty() ? "" : key + ": ");
  EXPECT_EQ(what.rfind(prefix, 0), 0u) << "'" << what << "' should start with '" << prefix << "'";
  EXPECT_NE(what.find(problem), std::string::npos) << "'" << what << "' should contain '" << problem << "'";
}

class BadFiles : public ::testing::TestWithParam<BadFile> {};

TEST_P(BadFiles, NameFileLineAndKey) {
  const BadFile& b = GetParam();
  expect_error(error_of(kBad + b.file), kBad + (b.where.empty() ? b.file : b.where), b.line, b.key,
               b.problem);
}

INSTANTIATE_TEST_SUITE_P(
    Config, BadFiles,
    ::testing::Values(
        BadFile{"unknown_key.yaml", "", 7, "tile.sram_kb", "unknown key (did you mean 'sram_kib'?)"},
        BadFile{"unknown_key_far.yaml", "", 6, "frequency", "unknown key (known here: kind, name, tiles"},
        BadFile{"wrong_type.yaml", "", 7, "tile.sram_kib", "expected a whole number, got 'lots'"},
        BadFile{"wrong_type_quoted.yaml", "", 4, "tiles", "got the quoted text \"16\""},
        BadFile{"wrong_type_section.yaml", "", 6, "tile", "expected a mapping"},
        BadFile{"out_of_range.yaml", "", 7, "tile.sram_kib", "multiple of 4 KiB, got 622"},
        BadFile{"missing_key.yaml", "", 3, "tiles", "missing required key"},
        BadFile{"missing_nested_key.yaml", "", 6, "tile.sram_kib", "missing required key"},
        BadFile{"missing_kind.yaml", "", 2, "kind", "missing required key"},
        BadFile{"bad_kind.yaml", "", 2, "kind", "must be chip, board or system, got 'gpu'"},
        BadFile{"missing_chip_file.yaml", "", 4, "chip",
                "cannot read 'testbench/unit/config/bad/no_such_chip.yaml': no such file"},
        BadFile{"syntax_error.yaml", "", 5, "", "YAML syntax error"},
        BadFile{"cycle_system.yaml", "cycle_board.yaml", 4, "chip",
                "reference cycle: testbench/unit/config/bad/cycle_system.yaml -> "
                "testbench/unit/config/bad/cycle_board.yaml -> testbench/unit/config/bad/cycle_system.yaml"},
        BadFile{"self_reference.yaml", "", 4, "chip", "reference cycle"},
        BadFile{"cycle_board.yaml", "", 4, "chip", "is a system file (kind: system), expected a chip file"},
        BadFile{"wrong_kind.yaml", "", 4, "chip",
                "'configs/m2000.yaml' is a board file (kind: board), expected a chip file"},
        BadFile{"wrong_kind_system.yaml", "", 4, "board", "is a chip file (kind: chip), expected a board file"},
        BadFile{"duplicate_key.yaml", "", 5, "tiles", "duplicate key"},
        BadFile{"not_a_mapping.yaml", "", 2, "", "expected a mapping"},
        BadFile{"empty.yaml", "", 1, "", "expected a mapping"},
        BadFile{"two_documents.yaml", "", 5, "", "more than one YAML document"},
        BadFile{"comma_document.yaml", "", 1, "", "expected a mapping"},
        BadFile{"comma_after_node.yaml", "", 2, "", "expected a mapping"},
        BadFile{"bad_topology.yaml", "", 6, "topology", "must be ladder or torus2d (how the boards of a system are joined), got 'pair'"},
        BadFile{"inline_chip_error.yaml", "", 11, "chip.tile.workers", "must be between 1 and 6, got 7"},
        BadFile{"board_of_bad_chip.yaml", "wrong_type.yaml", 7, "tile.sram_kib",
                "(referred to by testbench/unit/config/bad/board_of_bad_chip.yaml:4)"},
        BadFile{"latency_order.yaml", "", 12, "exchange.latency_max_cycles", "less than latency_min_cycles"}),
    [](const ::testing::TestParamInfo<BadFile>& info) {
      std::string name = info.param.file.substr(0, info.param.file.find('.'));
      return name;
    });

TEST(ConfigErrors, MissingFileOnTheCommandLine) {
  ConfigError e = error_of("configs/no_such_config.yaml");
  EXPECT_STREQ(e.what(), "configs/no_such_config.yaml: cannot read the file: no such file");
  EXPECT_EQ(e.line(), 0);
}

// load_system_text (the config fuzzer's entry): the text is the named file's, its
// references resolve next to it, its errors name it.
TEST(ConfigErrors, TextLoadsAsTheFileItNames) {
  const SystemConfig sys =
      load_system_text("configs/test/in_memory.yaml", "kind: board\nname: b\nchip: tiny4.yaml\nipus: 1\n");
  EXPECT_EQ(sys.board.chip.name, "tiny4");
  EXPECT_EQ(sys.board.chip.tiles, 4u);
  try {
    load_system_text("configs/test/in_memory.yaml", "kind: chip\nname: c\ntiles: 0\n");
    ADD_FAILURE() << "loaded 0 tiles";
  } catch (const ConfigError& e) {
    expect_error(e, "configs/test/in_memory.yaml", 3, "tiles", "");
  }
}

TEST(ConfigErrors, DirectoryIsNotAFile) {
  ConfigError e = error_of("configs");
  EXPECT_NE(std::string(e.what()).find("configs: cannot read the file: it is a directory"), std::string::npos)
      << e.what();
}

TEST(ConfigErrors, MessageFormat) {
  EXPECT_STREQ(ConfigError("a.yaml", 3, "tile.sram_kib", "bad").what(), "a.yaml:3: tile.sram_kib: bad");
  EXPECT_STREQ(ConfigError("a.yaml", 0, "", "bad").what(), "a.yaml: bad");
  EXPECT_STREQ(ConfigError("a.yaml", 5, "", "bad").what(), "a.yaml:5: bad");
  EXPECT_EQ(ConfigError("a.yaml", 3, "k", "bad").problem(), "bad");
}

// A valid chip file with `line` (1-based, see kChip) replaced, written to a temp file.
const char* const kChip[] = {
    "kind: chip",                      // 1
    "name: range",                     // 2
    "tiles: 4",                        // 3
    "clock_mhz: 100",                  // 4
    "tile:",                           // 5
    "  sram_kib: 624",                 // 6
    "  workers: 6",                    // 7
    "  thread_quantum: 1024",          // 8
    "  amp_f16_macs_per_cycle: 64",    // 9
    "  amp_f32_macs_per_cycle: 16",    // 10
    "ipu_links:",                      // 11
    "  count: 10",                     // 12
    "  gbytes_per_s_each_way: 16",     // 13
};

std::string chip_with(int line, const std::string& text) {
  // One file per case: ctest may run cases in parallel processes.
  std::string path = ::testing::TempDir() + "ipusim_range_" + std::to_string(line) + "_" +
                     std::to_string(std::hash<std::string>()(text)) + ".yaml";
  std::ofstream out(path);
  for (int i = 1; i <= int(std::size(kChip)); ++i) out << (i == line ? text : kChip[i - 1]) << "\n";
  return path;
}

TEST(ConfigErrors, BaseOfRangeTestsIsValid) {
  std::string path = chip_with(0, "");
  EXPECT_NO_THROW(load_system(path));
}

struct RangeCase {
  int line;
  std::string text;
  std::string key;
  std::string problem;
};

class OutOfRange : public ::testing::TestWithParam<RangeCase> {};

TEST_P(OutOfRange, IsRejectedAtItsKey) {
  const RangeCase& r = GetParam();
  std::string path = chip_with(r.line, r.text);
  expect_error(error_of(path), path, r.line, r.key, r.problem);
}

INSTANTIATE_TEST_SUITE_P(
    Config, OutOfRange,
    ::testing::Values(
        RangeCase{3, "tiles: 0", "tiles", "must be between 1 and 65536, got 0"},
        RangeCase{3, "tiles: 65537", "tiles", "must be between 1 and 65536, got 65537"},
        RangeCase{3, "tiles: -4", "tiles", "expected a whole number, got '-4'"},
        RangeCase{3, "tiles: 4.5", "tiles", "expected a whole number, got '4.5'"},
        RangeCase{3, "tiles: [4]", "tiles", "expected a whole number, got a list"},
        RangeCase{3, "tiles:", "tiles", "expected a whole number, got nothing"},
        RangeCase{4, "clock_mhz: 0", "clock_mhz", "must be greater than 0"},
        RangeCase{4, "clock_mhz: -100", "clock_mhz", "must be greater than 0"},
        RangeCase{4, "clock_mhz: fast", "clock_mhz", "expected a number, got 'fast'"},
        RangeCase{4, "clock_mhz: .inf", "clock_mhz", "expected a number"},
        RangeCase{6, "  sram_kib: 12", "tile.sram_kib", "must be at least 16 KiB, got 12"},
        RangeCase{3, "tiles: 99999999999999999999", "tiles", "must be at most 65536, got 99999999999999999999"},
        RangeCase{6, "  sram_kib: 18014398509481984", "tile.sram_kib", "4 GiB minus the SRAM base"},
        RangeCase{6, "  sram_kib: 626", "tile.sram_kib", "must be a multiple of 4 KiB"},
        // 4 GiB - 256 KiB is the first size whose end no longer fits in 32 bits.
        RangeCase{6, "  sram_kib: 4194048", "tile.sram_kib", "4 GiB minus the SRAM base"},
        RangeCase{7, "  workers: 0", "tile.workers", "must be between 1 and 6, got 0"},
        RangeCase{7, "  workers: 7", "tile.workers", "must be between 1 and 6, got 7"},
        RangeCase{8, "  thread_quantum: 0", "tile.thread_quantum", "must be between 1 and"},
        RangeCase{8, "  load_bytes_per_cycle: 2", "tile.load_bytes_per_cycle", "must be between 4 and 64, got 2"},
        RangeCase{8, "  load_bytes_per_cycle: 12", "tile.load_bytes_per_cycle",
                  "must be a power of two (4, 8, 16, 32 or 64), got 12"},
        RangeCase{8, "  store_bytes_per_cycle: 128", "tile.store_bytes_per_cycle", "must be between 4 and 64, got 128"},
        RangeCase{8, "  store_bytes_per_cycle: 24", "tile.store_bytes_per_cycle", "must be a power of two"},
        RangeCase{8, "  co_issue: yes", "tile.co_issue", "expected true or false, got 'yes'"},
        RangeCase{8, "  co_issue: 1", "tile.co_issue", "expected true or false, got '1'"},
        RangeCase{8, "  co_issue: \"true\"", "tile.co_issue", "expected true or false, got the quoted text"},
        RangeCase{12, "  count: 65", "ipu_links.count", "must be between 0 and 64"},
        RangeCase{13, "  gbytes_per_s_each_way: 0", "ipu_links.gbytes_per_s_each_way", "greater than 0"},
        RangeCase{2, "name: two words", "name", "must be up to 64 letters"},
        // What the ISS and the clock would refuse later, refused here with FILE:LINE:KEY.
        RangeCase{9, "  amp_f16_macs_per_cycle: 5", "tile.amp_f16_macs_per_cycle", "must be a multiple of 4"},
        RangeCase{9, "  amp_f16_macs_per_cycle: 260", "tile.amp_f16_macs_per_cycle", "must be between 0 and 256, got 260"},
        RangeCase{9, "  amp_f16_macs_per_cycle: 4096", "tile.amp_f16_macs_per_cycle", "must be between 0 and"},
        RangeCase{10, "  amp_f32_macs_per_cycle: 6", "tile.amp_f32_macs_per_cycle", "must be a multiple of 4"},
        RangeCase{4, "clock_mhz: 1e-300", "clock_mhz", "must be at least 0.000001 (1 Hz)"}),
    [](const ::testing::TestParamInfo<RangeCase>& info) { return "case" + std::to_string(info.index); });

TEST(ConfigErrors, MemoryPathsAndCoIssueHaveDefaults) {
  // Absent: 16 / 8 / on, the published chips' figures (docs/config.md).
  const TileConfig dflt = load_system(chip_with(0, "")).board.chip.tile;
  EXPECT_EQ(dflt.load_bytes_per_cycle, 16u);
  EXPECT_EQ(dflt.store_bytes_per_cycle, 8u);
  EXPECT_TRUE(dflt.co_issue);
  EXPECT_FALSE(load_system(chip_with(8, "  co_issue: false")).board.chip.tile.co_issue);
  EXPECT_EQ(load_system(chip_with(8, "  load_bytes_per_cycle: 64")).board.chip.tile.load_bytes_per_cycle, 64u);
  EXPECT_EQ(load_system(chip_with(8, "  store_bytes_per_cycle: 4")).board.chip.tile.store_bytes_per_cycle, 4u);
}

TEST(ConfigErrors, LargestSramIsAccepted) {
  // 4 GiB - 256 KiB - 4 KiB: the last multiple of 4 KiB below the limit.
  SystemConfig s = load_system(chip_with(6, "  sram_kib: 4194044"));
  EXPECT_EQ(s.board.chip.tile.sram_bytes, 4194044ull * 1024);
  EXPECT_EQ(load_system(chip_with(6, "  sram_kib: 16")).board.chip.tile.sram_bytes, 16u * 1024);
}

}  // namespace
}  // namespace ipusim::config
