// `ipusim info` draws the IPU-Link topology: the real binary (IPUSIM_BIN) on m2000 (every
// port and hop), pod16 (the same at 16 IPUs), pod64 (a line per board unless --links) and
// --json's links, hop matrix and zone-2 sync.
#include <gtest/gtest.h>

#include "cli_run.h"


#include <nlohmann/json.hpp>
#include <string>

namespace {

using ipusim::test::CliResult;

// Runs `ipusim ARGS` from the project root, capturing stdout and stderr apart.
CliResult ipusim(const std::string& args) { return ipusim::test::run_command(IPUSIM_BIN, "ipusim_topology_", args); }

// What follows the table: the drawing, from its first heading on.
std::string drawing(const std::string& out) {
  const size_t at = out.find("\nIPU-Link ports");
  const size_t boards = out.find("\nboards (");
  const size_t from = std::min(at, boards);
  return from == std::string::npos ? "" : out.substr(from + 1);
}

TEST(InfoTopology, M2000PortsAndHops) {
  CliResult r = ipusim("info --config configs/m2000.yaml");
  ASSERT_EQ(r.status, 0) << r.err;
  for (const char* row :
       {"IPU-Links wired     16; 8 of 40 ports unbound\n", "IPU hops            diameter 1; IPU pairs at 1 hop: 6\n",
        "zone-2 sync         master IPU 0, 2 x 1 hop x 20 cycles (15 ns) = 40 cycles; farthest tile 120 cycles "
        "(90.57 ns)\n",
        "topology            m2000\n"})
    EXPECT_NE(r.out.find(row), std::string::npos) << "missing: " << row << "\n" << r.out;
  EXPECT_EQ(drawing(r.out),
      "IPU-Link ports (peer IPU.port, - unbound)\n"
      "  IPU   0   1   2   3   4   5   6   7   8   9\n"
      "    0 1.3 1.4 1.5 3.0 3.1 3.2 2.6 2.7   -   -\n"
      "    1 2.3 2.4 2.5 0.0 0.1 0.2 3.6 3.7   -   -\n"
      "    2 3.3 3.4 3.5 1.0 1.1 1.2 0.6 0.7   -   -\n"
      "    3 0.3 0.4 0.5 2.0 2.1 2.2 1.6 1.7   -   -\n"
      "\n"
      "hops (IPU-Links on a shortest path)\n"
      "  IPU 0 1 2 3\n"
      "    0 0 1 1 1\n"
      "    1 1 0 1 1\n"
      "    2 1 1 0 1\n"
      "    3 1 1 1 0\n");
}

TEST(InfoTopology, Pod16PortsAndHops) {
  CliResult r = ipusim("info --config configs/pod16.yaml");
  ASSERT_EQ(r.status, 0) << r.err;
  for (const char* row :
       {"IPU-Links wired     76 (64 inside boards, 12 between boards); 8 of 160 ports unbound\n",
        "IPU hops            diameter 4; IPU pairs at 1 hop: 36, 2 hops: 44, 3 hops: 28, 4 hops: 12\n",
        "zone-2 sync         master IPU 4, 2 x 3 hops x 20 cycles (15 ns) = 120 cycles; farthest tile 200 cycles "
        "(150.94 ns)\n"})
    EXPECT_NE(r.out.find(row), std::string::npos) << "missing: " << row << "\n" << r.out;
  EXPECT_EQ(drawing(r.out),
      "IPU-Link ports (peer IPU.port, - unbound)\n"
      "  IPU    0    1    2    3    4    5    6    7    8    9\n"
      "    0  1.3  1.4  1.5  3.0  3.1  3.2  2.6  2.7    -  4.8\n"
      "    1  2.3  2.4  2.5  0.0  0.1  0.2  3.6  3.7    -  5.8\n"
      "    2  3.3  3.4  3.5  1.0  1.1  1.2  0.6  0.7    -  6.8\n"
      "    3  0.3  0.4  0.5  2.0  2.1  2.2  1.6  1.7    -  7.8\n"
      "    4  5.3  5.4  5.5  7.0  7.1  7.2  6.6  6.7  0.9  8.8\n"
      "    5  6.3  6.4  6.5  4.0  4.1  4.2  7.6  7.7  1.9  9.8\n"
      "    6  7.3  7.4  7.5  5.0  5.1  5.2  4.6  4.7  2.9 10.8\n"
      "    7  4.3  4.4  4.5  6.0  6.1  6.2  5.6  5.7  3.9 11.8\n"
      "    8  9.3  9.4  9.5 11.0 11.1 11.2 10.6 10.7  4.9 12.8\n"
      "    9 10.3 10.4 10.5  8.0  8.1  8.2 11.6 11.7  5.9 13.8\n"
      "   10 11.3 11.4 11.5  9.0  9.1  9.2  8.6  8.7  6.9 14.8\n"
      "   11  8.3  8.4  8.5 10.0 10.1 10.2  9.6  9.7  7.9 15.8\n"
      "   12 13.3 13.4 13.5 15.0 15.1 15.2 14.6 14.7  8.9    -\n"
      "   13 14.3 14.4 14.5 12.0 12.1 12.2 15.6 15.7  9.9    -\n"
      "   14 15.3 15.4 15.5 13.0 13.1 13.2 12.6 12.7 10.9    -\n"
      "   15 12.3 12.4 12.5 14.0 14.1 14.2 13.6 13.7 11.9    -\n"
      "\n"
      "hops (IPU-Links on a shortest path)\n"
      "  IPU  0  1  2  3  4  5  6  7  8  9 10 11 12 13 14 15\n"
      "    0  0  1  1  1  1  2  2  2  2  3  3  3  3  4  4  4\n"
      "    1  1  0  1  1  2  1  2  2  3  2  3  3  4  3  4  4\n"
      "    2  1  1  0  1  2  2  1  2  3  3  2  3  4  4  3  4\n"
      "    3  1  1  1  0  2  2  2  1  3  3  3  2  4  4  4  3\n"
      "    4  1  2  2  2  0  1  1  1  1  2  2  2  2  3  3  3\n"
      "    5  2  1  2  2  1  0  1  1  2  1  2  2  3  2  3  3\n"
      "    6  2  2  1  2  1  1  0  1  2  2  1  2  3  3  2  3\n"
      "    7  2  2  2  1  1  1  1  0  2  2  2  1  3  3  3  2\n"
      "    8  2  3  3  3  1  2  2  2  0  1  1  1  1  2  2  2\n"
      "    9  3  2  3  3  2  1  2  2  1  0  1  1  2  1  2  2\n"
      "   10  3  3  2  3  2  2  1  2  1  1  0  1  2  2  1  2\n"
      "   11  3  3  3  2  2  2  2  1  1  1  1  0  2  2  2  1\n"
      "   12  3  4  4  4  2  3  3  3  1  2  2  2  0  1  1  1\n"
      "   13  4  3  4  4  3  2  3  3  2  1  2  2  1  0  1  1\n"
      "   14  4  4  3  4  3  3  2  3  2  2  1  2  1  1  0  1\n"
      "   15  4  4  4  3  3  3  3  2  2  2  2  1  1  1  1  0\n");
}

TEST(InfoTopology, Pod64IsSummarisedPerBoard) {
  CliResult r = ipusim("info --config configs/pod64.yaml");
  ASSERT_EQ(r.status, 0) << r.err;
  const std::string d = drawing(r.out);
  EXPECT_EQ(d.rfind("boards (IPU-Links inside, and to each other board)\n"
                    "board  IPUs         inside  to other boards\n"
                    "    0  0-3              16  board 1: 4, board 15: 4\n"
                    "    1  4-7              16  board 0: 4, board 2: 4\n",
                    0),
            0u)
      << d;
  EXPECT_NE(d.find("   15  60-63            16  board 0: 4, board 14: 4\n"), std::string::npos) << d;
  EXPECT_EQ(d.find("IPU-Link ports"), std::string::npos) << d;
  for (const char* row : {"IPU hops            diameter 9; IPU pairs at 1 hop: 160,",
                          "zone-2 sync         master IPU 0, 2 x 9 hops x 20 cycles (15 ns) = 360 cycles; farthest "
                          "tile 440 cycles (332.08 ns)\n"})
    EXPECT_NE(r.out.find(row), std::string::npos) << "missing: " << row << "\n" << r.out;
}

TEST(InfoTopology, LinksOptionDrawsEveryPort) {
  CliResult r = ipusim("info --config configs/pod64.yaml --links");
  ASSERT_EQ(r.status, 0) << r.err;
  const std::string d = drawing(r.out);
  EXPECT_NE(d.find("\n    0  1.3  1.4  1.5  3.0  3.1  3.2  2.6  2.7 60.9  4.8\n"), std::string::npos) << d;
  EXPECT_NE(d.find("hops (IPU-Links on a shortest path)\n"), std::string::npos) << d;
  EXPECT_EQ(d.find("boards ("), std::string::npos) << d;
}

TEST(InfoTopology, ChipDrawsNothing) {
  CliResult r = ipusim("info --config configs/gc200.yaml");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(drawing(r.out), "");
  EXPECT_NE(r.out.find("IPU-Links wired     none\n"), std::string::npos) << r.out;
}

TEST(InfoTopology, JsonHasLinksHopsAndSync) {
  CliResult r = ipusim("info --config configs/pod16.yaml --json");
  ASSERT_EQ(r.status, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j["links"].size(), 76u);
  EXPECT_EQ(j["links"][64], (nlohmann::json{{"ipu_a", 0}, {"port_a", 9}, {"ipu_b", 4}, {"port_b", 8}}));
  EXPECT_EQ(j["board"]["topology"], "m2000");
  EXPECT_EQ(j["board"]["links"].size(), 16u);
  EXPECT_EQ(j["board"]["chip"]["ipu_links"]["sync_hop_ns"], 15);
  EXPECT_EQ(j["wiring"]["diameter"], 4);
  EXPECT_EQ(j["wiring"]["connected"], true);
  EXPECT_EQ(j["wiring"]["hop_histogram"], (nlohmann::json{0, 36, 44, 28, 12}));
  EXPECT_EQ(j["wiring"]["hops"][0][15], 4);
  EXPECT_EQ(j["wiring"]["hops"][15][0], 4);
  EXPECT_EQ(j["wiring"]["sync"]["master_ipu"], 4);
  EXPECT_EQ(j["wiring"]["sync"]["radius_hops"], 3);
  EXPECT_EQ(j["wiring"]["sync"]["hop_cycles"], 20);
  EXPECT_EQ(j["wiring"]["sync"]["group_latency_cycles"], 120);
  EXPECT_EQ(j["wiring"]["sync"]["farthest_tile_cycles"], 200);
}

TEST(InfoTopology, LinksOptionExcludesJson) {
  CliResult r = ipusim("info --config configs/m2000.yaml --links --json");
  EXPECT_NE(r.status, 0);
  EXPECT_NE(r.err.find("--json excludes --links"), std::string::npos) << r.err;
}

}  // namespace
