// The IPU-Link wiring the loader fills in SystemConfig::links (docs/links.md, "Topology"):
// every named topology link by link, the explicit `links:` list, the errors of both
// (each message verbatim with its line), the retired sync.group_latency_cycles, and the
// effective config writing what gives the same links back.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include "config/config_loader.h"
#include "config/config_writer.h"
#include "temp_config.h"
#include "links/topology.h"

namespace ipusim::config {
namespace {

std::string file_with(const std::vector<std::string>& lines, const std::string& tag = "") {
  return test::file_with("ipusim_links_", lines, tag);
}
using test::what_of;

// The tiny4 test chip, by absolute path so that temp files can refer to it.
std::string tiny4() { return std::filesystem::absolute("configs/test/tiny4.yaml").string(); }

// A board of one tiny16 IPU (topology single).
std::string one_ipu_board() { return std::filesystem::absolute("configs/test/tiny16_smem.yaml").string(); }

// A board of `ipus` tiny4 IPUs; `rest` follows from line 5 on.
std::vector<std::string> board(uint32_t ipus, std::vector<std::string> rest) {
  std::vector<std::string> lines = {"kind: board", "name: b", "chip: " + tiny4(), "ipus: " + std::to_string(ipus)};
  lines.insert(lines.end(), rest.begin(), rest.end());
  return lines;
}

// A board of 4 IPUs whose inline chip has `count` IPU-Links; `rest` from line 13 on.
std::vector<std::string> board_with_links(uint32_t count, std::vector<std::string> rest) {
  std::vector<std::string> lines = {"kind: board",   // 1
                                    "name: b",       // 2
                                    "ipus: 4",       // 3
                                    "chip:",         // 4
                                    "  name: c" + std::to_string(count),
                                    "  tiles: 4",    // 6
                                    "  clock_mhz: 100",
                                    "  tile:",       // 8
                                    "    sram_kib: 624",
                                    "    amp_f16_macs_per_cycle: 64",
                                    "    amp_f32_macs_per_cycle: 16",
                                    "  ipu_links: {count: " + std::to_string(count) + "}"};  // 12
  lines.insert(lines.end(), rest.begin(), rest.end());
  return lines;
}

std::string end(uint32_t ipu, uint32_t port) {
  return "{ipu: " + std::to_string(ipu) + ", port: " + std::to_string(port) + "}";
}
std::string item(uint32_t ia, uint32_t pa, uint32_t ib, uint32_t pb) {
  return "  - {a: " + end(ia, pa) + ", b: " + end(ib, pb) + "}";
}

// The ports of `ipu` and what each is wired to: "peer.port" or "-".
std::vector<std::string> ports_of(const SystemConfig& s, uint32_t ipu) {
  std::vector<std::string> out(s.board.chip.ipu_links.count, "-");
  for (const LinkWire& w : s.links()) {
    if (w.ipu_a == ipu) out[w.port_a] = std::to_string(w.ipu_b) + "." + std::to_string(w.port_b);
    if (w.ipu_b == ipu) out[w.port_b] = std::to_string(w.ipu_a) + "." + std::to_string(w.port_a);
  }
  return out;
}

using Ports = std::vector<std::string>;

TEST(LinksConfig, ChipHasNoLinks) {
  const SystemConfig s = load_system("configs/gc200.yaml");
  EXPECT_EQ(s.topology(), "single");
  EXPECT_TRUE(s.links().empty());
  EXPECT_TRUE(s.board.links.empty());
}

TEST(LinksConfig, C2PairHasEightLinksAndTwoFreePorts) {
  const SystemConfig s = load_system("configs/c2.yaml");
  EXPECT_EQ(s.topology(), "pair");
  ASSERT_EQ(s.links().size(), 8u);
  for (uint32_t p = 0; p < 8; ++p) EXPECT_EQ(s.links()[p], (LinkWire{0, p, 1, p}));
  EXPECT_EQ(ports_of(s, 1), (Ports{"0.0", "0.1", "0.2", "0.3", "0.4", "0.5", "0.6", "0.7", "-", "-"}));
}

TEST(LinksConfig, PairOfAChipWithFewPortsUsesThemAll) {
  const SystemConfig s =
      load_system(file_with({"kind: board", "name: p", "ipus: 2", "chip:", "  name: c3", "  tiles: 4", "  clock_mhz: 100",
                             "  tile: {sram_kib: 624, amp_f16_macs_per_cycle: 64, amp_f32_macs_per_cycle: 16}",
                             "  ipu_links: {count: 3}"}));
  EXPECT_EQ(s.links(), (std::vector<LinkWire>{{0, 0, 1, 0}, {0, 1, 1, 1}, {0, 2, 1, 2}}));
}

TEST(LinksConfig, M2000IsARingOfFourWithDiagonals) {
  for (const char* file : {"configs/m2000.yaml", "configs/bow2000.yaml"}) {
    SCOPED_TRACE(file);
    const SystemConfig s = load_system(file);
    EXPECT_EQ(s.topology(), "m2000");
    EXPECT_EQ(s.board.topology, "m2000");
    ASSERT_EQ(s.links().size(), 16u);
    EXPECT_EQ(ports_of(s, 0), (Ports{"1.3", "1.4", "1.5", "3.0", "3.1", "3.2", "2.6", "2.7", "-", "-"}));
    EXPECT_EQ(ports_of(s, 1), (Ports{"2.3", "2.4", "2.5", "0.0", "0.1", "0.2", "3.6", "3.7", "-", "-"}));
    EXPECT_EQ(ports_of(s, 2), (Ports{"3.3", "3.4", "3.5", "1.0", "1.1", "1.2", "0.6", "0.7", "-", "-"}));
    EXPECT_EQ(ports_of(s, 3), (Ports{"0.3", "0.4", "0.5", "2.0", "2.1", "2.2", "1.6", "1.7", "-", "-"}));
  }
}

TEST(LinksConfig, Pod16IsALadderOfFourBoards) {
  const SystemConfig s = load_system("configs/pod16.yaml");
  EXPECT_EQ(s.topology(), "ladder");
  ASSERT_EQ(s.links().size(), 4u * 16 + 3 * 4);
  // Board 0 (IPUs 0-3): port 9 down to board 1, port 8 unbound; board 3: the reverse.
  EXPECT_EQ(ports_of(s, 0)[8], "-");
  EXPECT_EQ(ports_of(s, 0)[9], "4.8");
  EXPECT_EQ(ports_of(s, 5)[8], "1.9");
  EXPECT_EQ(ports_of(s, 5)[9], "9.8");
  EXPECT_EQ(ports_of(s, 15)[8], "11.9");
  EXPECT_EQ(ports_of(s, 15)[9], "-");
  EXPECT_EQ(ports_of(s, 6)[0], "7.3");  // board 1's own wiring, shifted by 4
  EXPECT_EQ(links::Topology::of(s).diameter(), 4u);
}

TEST(LinksConfig, Pod64IsATorusOfSixteenBoards) {
  const SystemConfig s = load_system("configs/pod64.yaml");
  EXPECT_EQ(s.topology(), "torus2d");
  EXPECT_EQ(s.boards, 16u);
  EXPECT_EQ(s.total_ipus(), 64u);
  EXPECT_EQ(s.total_tiles(), 94208u);
  ASSERT_EQ(s.links().size(), 16u * 16 + 16 * 4);
  EXPECT_EQ(ports_of(s, 0)[8], "60.9");  // the ends joined
  EXPECT_EQ(ports_of(s, 63)[9], "3.8");
  const links::Topology t = links::Topology::of(s);
  EXPECT_TRUE(t.connected());
  EXPECT_EQ(t.diameter(), 9u);  // 8 boards round the ring + 1 inside a board
}

TEST(LinksConfig, TorusOfTwoBoardsDoublesTheirLinks) {
  const SystemConfig s =
      load_system(file_with({"kind: system", "name: t2", "board: " + std::filesystem::absolute("configs/m2000.yaml").string(),
                             "boards: 2", "topology: torus2d"}));
  ASSERT_EQ(s.links().size(), 2u * 16 + 2 * 4);
  EXPECT_EQ(ports_of(s, 0)[8], "4.9");
  EXPECT_EQ(ports_of(s, 0)[9], "4.8");
}

TEST(LinksConfig, SystemOfSingleIpuBoardsIsAChain) {
  const SystemConfig s =
      load_system(file_with({"kind: system", "name: chain", "board: " + one_ipu_board(), "boards: 3", "topology: ladder"}));
  EXPECT_EQ(s.links(), (std::vector<LinkWire>{{0, 9, 1, 8}, {1, 9, 2, 8}}));
}

TEST(LinksConfig, BoardListsItsLinks) {
  const SystemConfig s = load_system(file_with(board(3, {"links:", item(0, 0, 1, 0), item(1, 1, 2, 0),
                                                         "  - a: {ipu: 2, port: 1}", "    b: {ipu: 0, port: 1}"})));
  EXPECT_EQ(s.topology(), "");
  EXPECT_EQ(s.board.topology, "");
  EXPECT_EQ(s.links(), (std::vector<LinkWire>{{0, 0, 1, 0}, {1, 1, 2, 0}, {2, 1, 0, 1}}));
  EXPECT_EQ(s.board.links, s.links());
}

TEST(LinksConfig, SystemListReplacesEveryWiring) {
  const SystemConfig s = load_system(file_with({"kind: system", "name: s",
                                                "board: " + std::filesystem::absolute("configs/m2000.yaml").string(),
                                                "boards: 2", "links:", item(0, 0, 4, 0), item(1, 0, 4, 1),
                                                item(2, 0, 4, 2), item(3, 0, 4, 3), item(5, 0, 4, 4),
                                                item(6, 0, 4, 5), item(7, 0, 4, 6)}));
  EXPECT_EQ(s.topology(), "");
  ASSERT_EQ(s.links().size(), 7u);
  EXPECT_EQ(s.links()[4], (LinkWire{5, 0, 4, 4}));
  EXPECT_EQ(s.board.topology, "m2000");  // the board file's own wiring, kept for the writer
  EXPECT_EQ(links::Topology::of(s).diameter(), 2u);
}

// ---- errors -------------------------------------------------------------------------------

TEST(LinksConfigErrors, IpuThatDoesNotExist) {
  const std::string f = file_with(board(4, {"links:", item(0, 0, 1, 0), item(0, 1, 4, 0)}));
  EXPECT_EQ(what_of(f), f + ":7: links[1].b.ipu: IPU 4 does not exist (the board has IPUs 0 to 3)");
}

TEST(LinksConfigErrors, PortThatDoesNotExist) {
  const std::string f = file_with(board(2, {"links:", item(0, 0, 1, 0), "  - a: {ipu: 0, port: 1}",
                                            "    b: {ipu: 1, port: 10}"}));
  EXPECT_EQ(what_of(f), f + ":8: links[1].b.port: IPU 1 has no port 10 (chip 'tiny4' has ipu_links.count 10: "
                            "ports 0 to 9)");
}

TEST(LinksConfigErrors, PortUsedTwiceNamesTheOtherLink) {
  const std::string f = file_with(board(3, {"links:", item(0, 0, 1, 0), item(1, 1, 2, 0), item(2, 1, 1, 0)}));
  EXPECT_EQ(what_of(f), f + ":8: links[2].b.port: port 0 of IPU 1 is already used by links[0].b");
}

TEST(LinksConfigErrors, LinkFromAnIpuToItself) {
  const std::string f = file_with(board(2, {"links:", item(0, 0, 1, 0), item(1, 1, 1, 2)}));
  EXPECT_EQ(what_of(f), f + ":7: links[1].b.ipu: IPU 1 is end a too: a link joins two different IPUs");
}

TEST(LinksConfigErrors, IpuLeftOutOfTheWiring) {
  const std::string f = file_with(board(4, {"links:", item(0, 0, 1, 0), item(1, 1, 2, 0), item(0, 1, 1, 2)}));
  EXPECT_EQ(what_of(f), f + ":5: links: IPU 3 has no path to IPU 0 over these links: every IPU of the board must "
                            "reach every other (a zone-2 sync spans them all)");
}

TEST(LinksConfigErrors, TopologyAndLinksTogether) {
  const std::string f = file_with(board(2, {"topology: pair", "links:", item(0, 0, 1, 0)}));
  EXPECT_EQ(what_of(f), f + ":6: links: give either 'topology' or 'links', not both (the list is the whole wiring)");
}

TEST(LinksConfigErrors, ListShapes) {
  const std::string not_list = file_with(board(2, {"links: {a: 1}"}), "a");
  EXPECT_EQ(what_of(not_list), not_list + ":5: links: expected a list of links, each {a: {ipu: I, port: P}, b: "
                                          "{ipu: J, port: Q}}");
  const std::string not_map = file_with(board(2, {"links:", "  - [0.0, 1.0]"}), "b");
  EXPECT_EQ(what_of(not_map), not_map + ":6: links[0]: expected {a: {ipu: I, port: P}, b: {ipu: J, port: Q}}");
  const std::string no_b = file_with(board(2, {"links:", "  - a: {ipu: 0, port: 0}"}), "c");
  EXPECT_EQ(what_of(no_b), no_b + ":6: links[0].b: missing required key");
  const std::string typo = file_with(board(2, {"links:", "  - {a: {ipu: 0, prt: 0}, b: {ipu: 1, port: 0}}"}), "d");
  EXPECT_EQ(what_of(typo), typo + ":6: links[0].a.prt: unknown key (did you mean 'port'?)");
  const std::string text = file_with(board(2, {"links:", "  - {a: {ipu: one, port: 0}, b: {ipu: 1, port: 0}}"}), "e");
  EXPECT_EQ(what_of(text), text + ":6: links[0].a.ipu: expected a whole number, got 'one'");
}

TEST(LinksConfigErrors, InlineBoardListNamesItsPath) {
  const std::string f = file_with({"kind: system", "name: s", "boards: 1", "board:", "  name: b", "  chip: " + tiny4(),
                                   "  ipus: 2", "  links:", "  - {a: {ipu: 0, port: 0}, b: {ipu: 2, port: 0}}"});
  EXPECT_EQ(what_of(f), f + ":9: board.links[0].b.ipu: IPU 2 does not exist (the board has IPUs 0 to 1)");
}

TEST(LinksConfigErrors, SystemListUsesGlobalIndices) {
  const std::string f = file_with({"kind: system", "name: s", "board: " + std::filesystem::absolute("configs/m2000.yaml").string(),
                                   "boards: 2", "links:", item(0, 0, 8, 0)});
  EXPECT_EQ(what_of(f), f + ":6: links[0].b.ipu: IPU 8 does not exist (the system has IPUs 0 to 7)");
}

TEST(LinksConfigErrors, M2000NeedsTenPorts) {
  const std::string f = file_with(board_with_links(8, {"topology: m2000"}));
  EXPECT_EQ(what_of(f), f + ":13: topology: 'm2000' needs 10 IPU-Link ports per IPU (8 inside the board, 2 to "
                            "other boards), but chip 'c8' has ipu_links.count 8");
  // The default wiring of 4 IPUs is m2000: the count that chose it is named.
  const std::string d = file_with(board_with_links(8, {}), "default");
  EXPECT_EQ(what_of(d), d + ":3: ipus: the default topology 'm2000' needs 10 IPU-Link ports per IPU (8 inside the "
                            "board, 2 to other boards), but chip 'c8' has ipu_links.count 8");
}

TEST(LinksConfigErrors, M2000NeedsFourIpus) {
  const std::string f = file_with(board(2, {"topology: m2000"}));
  EXPECT_EQ(what_of(f), f + ":5: topology: 'm2000' needs exactly 4 IPUs, but the board has 2 IPUs");
}

TEST(LinksConfigErrors, PairNeedsLinks) {
  const std::string f =
      file_with({"kind: board", "name: p", "ipus: 2", "chip:", "  name: c0", "  tiles: 4", "  clock_mhz: 100",
                 "  tile: {sram_kib: 624, amp_f16_macs_per_cycle: 64, amp_f32_macs_per_cycle: 16}",
                 "  ipu_links: {count: 0}"});
  EXPECT_EQ(what_of(f), f + ":3: ipus: the default topology 'pair' needs IPU-Links, but chip 'c0' has "
                            "ipu_links.count 0");
}

TEST(LinksConfigErrors, LadderIsNoBoardWiring) {
  const std::string f = file_with(board(4, {"topology: ladder"}));
  EXPECT_EQ(what_of(f), f + ":5: topology: must be single, pair or m2000 (how a board's own IPUs are linked), got "
                            "'ladder' ('ladder' joins the boards of a system)");
}

TEST(LinksConfigErrors, BoardWithoutDefaultWiring) {
  const std::string f = file_with(board(3, {}));
  EXPECT_EQ(what_of(f), f + ":4: ipus: a board of 3 IPUs has no default wiring: name a topology (single, pair, "
                            "m2000) or list its links");
}

TEST(LinksConfigErrors, LadderNeedsPortsEightAndNine) {
  const std::string f =
      file_with({"kind: system", "name: s", "boards: 2", "board:", "  name: p", "  ipus: 2", "  chip:", "    name: c4",
                 "    tiles: 4", "    clock_mhz: 100",
                 "    tile: {sram_kib: 624, amp_f16_macs_per_cycle: 64, amp_f32_macs_per_cycle: 16}",
                 "    ipu_links: {count: 4}", "topology: ladder"});
  EXPECT_EQ(what_of(f), f + ":13: topology: 'ladder' joins the boards through ports 8 and 9 of every IPU, but chip "
                            "'c4' has ipu_links.count 4");
}

TEST(LinksConfigErrors, LadderPortsTakenByTheBoard) {
  const std::string f = file_with({"kind: system", "name: s", "boards: 2", "board:", "  name: b", "  chip: " + tiny4(),
                                   "  ipus: 2", "  links:", "  - {a: {ipu: 0, port: 0}, b: {ipu: 1, port: 9}}"});
  EXPECT_EQ(what_of(f), f + ":3: boards: the default topology 'ladder' joins the boards through ports 8 and 9 of "
                            "every IPU, but board 'b' links[0] uses port 9 of IPU 1");
}

TEST(LinksConfigErrors, TorusNeedsTwoBoards) {
  const std::string f = file_with({"kind: system", "name: s", "board: " + one_ipu_board(), "boards: 1", "topology: torus2d"});
  EXPECT_EQ(what_of(f), f + ":5: topology: 'torus2d' needs at least 2 boards, but the system has 1");
}

TEST(LinksConfigErrors, GroupLatencyCyclesWasReplaced) {
  const std::string f = file_with({"kind: chip", "name: c", "tiles: 4", "clock_mhz: 100",
                                   "tile: {sram_kib: 624, amp_f16_macs_per_cycle: 64, amp_f32_macs_per_cycle: 16}",
                                   "sync:", "  latency_max_cycles: 80", "  group_latency_cycles: 120"});
  EXPECT_EQ(what_of(f), f + ":8: sync.group_latency_cycles: no longer a key: a zone-2 sync's latency follows the "
                            "IPU-Link hops between the sync group's IPUs; set ipu_links.sync_hop_ns (one hop of the "
                            "external sync) instead (docs/sync.md)");
}

TEST(LinksConfigErrors, SyncHopRange) {
  const std::string f = file_with({"kind: chip", "name: c", "tiles: 4", "clock_mhz: 100",
                                   "tile: {sram_kib: 624, amp_f16_macs_per_cycle: 64, amp_f32_macs_per_cycle: 16}",
                                   "ipu_links:", "  sync_hop_ns: -1"});
  EXPECT_EQ(what_of(f), f + ":7: ipu_links.sync_hop_ns: must be between 0 and 1000000, got -1");
  const std::string ok = file_with({"kind: chip", "name: c", "tiles: 4", "clock_mhz: 100",
                                    "tile: {sram_kib: 624, amp_f16_macs_per_cycle: 64, amp_f32_macs_per_cycle: 16}",
                                    "ipu_links:", "  sync_hop_ns: 12.5"}, "ok");
  EXPECT_DOUBLE_EQ(load_system(ok).board.chip.ipu_links.sync_hop_ns, 12.5);
}

// ---- the effective config -------------------------------------------------------------------

SystemConfig reloaded(const SystemConfig& s, const std::string& tag) {
  const std::string path = ::testing::TempDir() + "ipusim_links_effective_" + tag + ".yaml";
  std::ofstream(path) << to_yaml(s);
  return load_system(path);
}

TEST(LinksConfigWriter, ExplicitListsRoundTrip) {
  const SystemConfig b = load_system(file_with(board(3, {"links:", item(0, 0, 1, 0), item(1, 1, 2, 0)}), "board"));
  const std::string text = to_yaml(b);
  EXPECT_NE(text.find("links:\n  - {a: {ipu: 0, port: 0}, b: {ipu: 1, port: 0}}\n"), std::string::npos) << text;
  const SystemConfig again = reloaded(b, "board");
  EXPECT_EQ(again.links(), b.links());
  EXPECT_EQ(again.topology(), "");
  EXPECT_EQ(again.board.links, b.board.links);
}

TEST(LinksConfigWriter, SystemWithItsLinksListedIsWrittenLinkByLink) {
  SystemConfig s = load_system("configs/pod16.yaml");
  s.system_topology.clear();  // as if the file had listed the ladder's 76 links
  const std::string text = to_yaml(s);
  EXPECT_EQ(text.find("topology: ladder"), std::string::npos) << text;
  const SystemConfig again = reloaded(s, "pod16_listed");
  EXPECT_EQ(again.links(), s.links());
  EXPECT_EQ(again.topology(), "");
  EXPECT_EQ(again.board, [&] { BoardConfig b = s.board; b.source = again.board.source; b.chip.source = again.board.chip.source; return b; }());
}

TEST(LinksConfigWriter, NamedTopologiesAreWrittenByName) {
  const SystemConfig s = load_system("configs/pod64.yaml");
  const std::string text = to_yaml(s);
  EXPECT_NE(text.find("topology: torus2d"), std::string::npos) << text;
  EXPECT_NE(text.find("  topology: m2000"), std::string::npos) << text;
  EXPECT_EQ(text.find(" links:"), std::string::npos) << text;
  EXPECT_EQ(text.find("\nlinks:"), std::string::npos) << text;
  EXPECT_EQ(reloaded(s, "pod64").links(), s.links());
}

// link_faults: one spec for every link, or a mapping of `all` and link indices; each spec
// kept in its canonical text; errors name the line and key; the writer gives it back.
TEST(LinkFaultsConfig, OneSpecForEveryLink) {
  const SystemConfig b = load_system(file_with(board(4, {"topology: m2000", "link_faults: ' seed=7, ber=1e-6 '"})));
  EXPECT_EQ(b.link_faults.every, "ber=1e-06,seed=7");
  EXPECT_TRUE(b.link_faults.links.empty());
  EXPECT_TRUE(b.link_faults.any());
  EXPECT_FALSE(load_system("configs/m2000.yaml").link_faults.any());
}

TEST(LinkFaultsConfig, PerLinkSpecsReplaceAll) {
  const SystemConfig b = load_system(
      file_with(board(4, {"topology: m2000", "link_faults:", "  all: periodic=9", "  3: burst=1:2", "  15: none"})));
  EXPECT_EQ(b.link_faults.every, "periodic=9,seed=1");
  ASSERT_EQ(b.link_faults.links.size(), 2u);
  EXPECT_EQ(b.link_faults.links.at(3), "burst=1:2,seed=1");
  EXPECT_EQ(b.link_faults.links.at(15), "none");
  const SystemConfig again = reloaded(b, "faults");
  EXPECT_EQ(again.link_faults, b.link_faults);
}

TEST(LinkFaultsConfig, SystemFileHoldsThemForTheSystemsLinks) {
  const std::string pod16 = std::filesystem::absolute("configs/test/tiny4_m2000.yaml").string();
  const SystemConfig s = load_system(file_with({"kind: system", "name: s", "board: " + pod16, "boards: 4",
                                                "link_faults: {60: drop_every=4}"}));
  EXPECT_EQ(s.link_faults.links.at(60), "drop_every=4,seed=1");
  EXPECT_EQ(reloaded(s, "system_faults").link_faults, s.link_faults);
}

TEST(LinkFaultsConfigErrors, NameTheLineAndKey) {
  const std::string bad_spec = file_with(board(4, {"topology: m2000", "link_faults: ber=2"}), "spec");
  EXPECT_EQ(what_of(bad_spec), bad_spec + ":6: link_faults: link faults: ber=2: must be a probability in [0, 1)");
  const std::string bad_link = file_with(board(4, {"topology: m2000", "link_faults:", "  all: none", "  16: periodic=3"}), "link");
  EXPECT_EQ(what_of(bad_link), bad_link + ":8: link_faults.16: link 16 does not exist (the system has links 0 to 15)");
  const std::string bad_key = file_with(board(4, {"topology: m2000", "link_faults:", "  every: periodic=3"}), "key");
  EXPECT_EQ(what_of(bad_key),
            bad_key + ":7: link_faults.every: expected 'all' or a link index (`ipusim info --links` numbers them)");
  const std::string in_link = file_with(board(4, {"topology: m2000", "link_faults:", "  2: {ber: 1}"}), "map");
  EXPECT_EQ(what_of(in_link),
            in_link + ":7: link_faults.2: expected a fault SPEC such as 'ber=1e-6,seed=7' (docs/links.md)");
  const std::string twice = file_with(board(4, {"topology: m2000", "link_faults:", "  2: none", "  02: periodic=3"}), "twice");
  EXPECT_EQ(what_of(twice), twice + ":8: link_faults.02: link 02 is given twice");
  const std::string no_links = file_with({"kind: board", "name: b", "chip: " + tiny4(), "ipus: 1", "link_faults: {0: none}"}, "none");
  EXPECT_EQ(what_of(no_links), no_links + ":5: link_faults: this system has no IPU-Links to inject faults on");
}

TEST(LinkFaultsConfigErrors, ABoardOfASystemHasNone) {
  const std::string b = file_with(board(4, {"topology: m2000", "link_faults: periodic=3"}), "board");
  const std::string s = file_with({"kind: system", "name: s", "board: " + b, "boards: 2"}, "system");
  EXPECT_EQ(what_of(s), b + ":6: link_faults: belongs in the system file (" + s +
                            "): link indices are the system's (`ipusim info --links`) (referred to by " + s + ":3)");
}

}  // namespace
}  // namespace ipusim::config
