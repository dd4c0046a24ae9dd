// The effective config: to_yaml() then load_system() gives the same struct (only the
// `source` names change), for every reference file and for awkward values.
#include <gtest/gtest.h>

#include <fstream>
#include <functional>
#include <sstream>
#include <string>

#include "config/config_loader.h"
#include "config/config_writer.h"

namespace ipusim::config {
namespace {

// Writes `text` to a temp file named after `tag` and loads it.
SystemConfig reload(const std::string& text, const std::string& tag) {
  std::string path = ::testing::TempDir() + "ipusim_effective_" + tag + ".yaml";
  std::ofstream(path) << text;
  return load_system(path);
}

SystemConfig without_sources(SystemConfig s) {
  s.source.clear();
  s.board.source.clear();
  s.board.chip.source.clear();
  return s;
}

// The YAML without comment lines and trailing comments (no value here holds a '#').
std::string without_comments(const std::string& text) {
  std::istringstream in(text);
  std::string out, line;
  while (std::getline(in, line)) {
    if (line.rfind("#", 0) == 0) continue;
    out += line.substr(0, line.find("  #")) + "\n";
  }
  return out;
}

class RoundTrip : public ::testing::TestWithParam<std::string> {};

TEST_P(RoundTrip, WritingThenLoadingGivesTheSameStruct) {
  SystemConfig original = load_system(GetParam());
  std::string text = to_yaml(original);
  std::string tag = std::to_string(std::hash<std::string>()(GetParam()));
  SystemConfig again = reload(text, tag);
  EXPECT_EQ(without_sources(again), without_sources(original)) << text;
  EXPECT_EQ(again.kind, original.kind);
  // And the text is a fixed point: writing the reloaded struct gives the same bytes
  // except for the comments, which name the sources.
  EXPECT_EQ(without_comments(to_yaml(again)), without_comments(text));
}

INSTANTIATE_TEST_SUITE_P(Config, RoundTrip,
                         ::testing::Values("configs/gc2.yaml", "configs/gc200.yaml", "configs/bow.yaml",
                                           "configs/c2.yaml", "configs/m2000.yaml", "configs/bow2000.yaml",
                                           "configs/pod16.yaml", "configs/pod64.yaml", "configs/test/tiny4.yaml",
                                           "configs/test/tiny4x2_smem.yaml", "configs/test/tiny16_smem.yaml",
                                           "configs/test/tiny16.yaml", "configs/test/tile1.yaml"),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           std::string name = info.param.substr(info.param.rfind('/') + 1);
                           return name.substr(0, name.find('.'));
                         });

TEST(ConfigWriter, AwkwardValuesSurviveExactly) {
  SystemConfig s = load_system("configs/pod16.yaml");
  ChipConfig& c = s.board.chip;
  c.clock_hz = 1234567890.123456;     // not a whole number of MHz
  c.ipu_links.bytes_per_second = 1e10 / 3;
  c.ipu_links.latency_ns = 1.1;        // not exact in binary; at least one cycle (the link layer's)
  c.published_f16_tflops = 249.65;
  s.board.streaming_memory_bytes = (uint64_t(3) << 30) / 4 * 3;  // a fraction of a GiB
  s.board.host_link_bytes_per_second = 31.5e9 * (1 + 1e-15);
  s.board.streaming_memory_latency_ns = 1e-7;
  s.system_name = "null";              // would read back as no value if written plain
  SystemConfig again = reload(to_yaml(s), "awkward");
  EXPECT_EQ(without_sources(again), without_sources(s)) << to_yaml(s);
}

TEST(ConfigWriter, ChipWithChangedBoardFieldsIsWrittenAsABoard) {
  SystemConfig s = load_system("configs/test/tiny4.yaml");
  s.board.streaming_memory_bytes = uint64_t(1) << 30;
  std::string text = to_yaml(s);
  EXPECT_NE(text.find("kind: board"), std::string::npos) << text;
  SystemConfig again = reload(text, "chip_as_board");
  EXPECT_EQ(again.kind, "board");
  again.kind = s.kind;
  EXPECT_EQ(without_sources(again), without_sources(s));
}

// A system built in code from a board file: its own name and joining are written, and
// loading the file wires the boards again.
TEST(ConfigWriter, BoardMadeASystemInCodeIsWrittenAsASystem) {
  SystemConfig s = load_system("configs/m2000.yaml");
  s.kind = "system";
  s.system_name = "two";
  s.boards = 2;
  s.system_topology = "ladder";  // a system's boards are joined by a system topology
  std::string text = to_yaml(s);
  EXPECT_NE(text.find("kind: system"), std::string::npos) << text;
  SystemConfig again = reload(text, "board_as_system");
  EXPECT_EQ(again.kind, "system");
  EXPECT_EQ(again.name(), "two");
  EXPECT_EQ(again.topology(), "ladder");
  EXPECT_EQ(again.total_ipus(), 8u);
  EXPECT_EQ(again.links().size(), 2u * 16 + 4);  // each board's m2000 wiring and the ladder's rung
  EXPECT_EQ(again.board, [&] { BoardConfig b = s.board; b.source = again.board.source; b.chip.source = again.board.chip.source; return b; }());
}

TEST(ConfigWriter, OutputNamesItsSourceAndIsDeterministic) {
  SystemConfig s = load_system("configs/pod16.yaml");
  std::string text = to_yaml(s);
  EXPECT_EQ(text.rfind("# ipusim effective configuration, resolved from configs/pod16.yaml\n", 0), 0u) << text;
  EXPECT_NE(text.find("# from configs/m2000.yaml"), std::string::npos) << text;
  EXPECT_NE(text.find("# from configs/gc200.yaml"), std::string::npos) << text;
  EXPECT_EQ(text, to_yaml(load_system("configs/pod16.yaml")));
}

}  // namespace
}  // namespace ipusim::config
