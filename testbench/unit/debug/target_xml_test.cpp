// The target description, thread ids and monitor commands of the stub.
#include "debug/target_xml.h"

#include <gtest/gtest.h>

#include <map>
#include <regex>

#include "debug/monitor.h"
#include "debug/thread_ids.h"

namespace ipusim::debug {
namespace {

const std::vector<DebugTarget::CsrDesc> kCsrs = {
    {1, "fflags"}, {2, "frm"}, {3, "fcsr"}, {0xc00, "cycle"}, {0xcc0, "tile"}, {0xcc8, "superstep"}};

// Every element opened is closed in order (a small well-formedness check: no DTD, no
// attributes with '>' in them, which this document never has).
bool balanced(const std::string& xml, std::string* why) {
  std::vector<std::string> stack;
  std::regex tag("<(/?)([A-Za-z_][\\w.-]*)([^>]*?)(/?)>");
  for (auto it = std::sregex_iterator(xml.begin(), xml.end(), tag); it != std::sregex_iterator(); ++it) {
    const auto& m = *it;
    if (m[4].length()) continue;  // <x/>
    if (m[1].length() == 0) {
      stack.push_back(m[2]);
    } else if (stack.empty() || stack.back() != m[2]) {
      *why = "unexpected </" + m[2].str() + ">";
      return false;
    } else {
      stack.pop_back();
    }
  }
  if (!stack.empty()) *why = "<" + stack.back() + "> not closed";
  return stack.empty();
}

std::map<std::string, int> regnums(const std::string& xml) {
  std::map<std::string, int> out;
  std::regex reg("<reg name=\"([^\"]+)\" bitsize=\"32\" type=\"([^\"]+)\" regnum=\"(\\d+)\"");
  for (auto it = std::sregex_iterator(xml.begin(), xml.end(), reg); it != std::sregex_iterator(); ++it)
    out[(*it)[1]] = std::stoi((*it)[3]);
  return out;
}

TEST(TargetXml, IsWellFormedAndNamesTheArchitecture) {
  std::string xml = target_xml(kCsrs);
  std::string why;
  EXPECT_TRUE(balanced(xml, &why)) << why;
  EXPECT_NE(xml.find("<architecture>riscv:rv32</architecture>"), std::string::npos);
  for (const char* f : {"org.gnu.gdb.riscv.cpu", "org.gnu.gdb.riscv.fpu", "org.gnu.gdb.riscv.csr"})
    EXPECT_NE(xml.find(std::string("<feature name=\"") + f + "\">"), std::string::npos) << f;
}

TEST(TargetXml, RegisterNumbersFollowGdbsRiscvFeatures) {
  auto r = regnums(target_xml(kCsrs));
  EXPECT_EQ(r.at("zero"), 0);
  EXPECT_EQ(r.at("ra"), 1);
  EXPECT_EQ(r.at("sp"), 2);
  EXPECT_EQ(r.at("fp"), 8);
  EXPECT_EQ(r.at("a0"), 10);
  EXPECT_EQ(r.at("t6"), 31);
  EXPECT_EQ(r.at("pc"), 32);
  EXPECT_EQ(r.at("ft0"), 33);
  EXPECT_EQ(r.at("fs0"), 41);
  EXPECT_EQ(r.at("ft11"), 64);
  EXPECT_EQ(r.at("fflags"), 66);
  EXPECT_EQ(r.at("frm"), 67);
  EXPECT_EQ(r.at("fcsr"), 68);
  EXPECT_EQ(r.at("cycle"), 65 + 0xc00);
  EXPECT_EQ(r.at("tile"), 65 + 0xcc0);
  EXPECT_EQ(r.at("superstep"), 65 + 0xcc8);
  // 33 cpu + 35 fpu + 3 other CSRs; fflags / frm / fcsr described once.
  EXPECT_EQ(r.size(), 33u + 35u + 3u);
  std::string xml = target_xml(kCsrs);
  EXPECT_EQ(xml.find("name=\"fcsr\""), xml.rfind("name=\"fcsr\""));
}

TEST(TargetXml, DescribedRegisters) {
  EXPECT_TRUE(described_register(kCsrs, 0));
  EXPECT_TRUE(described_register(kCsrs, 64));
  EXPECT_FALSE(described_register(kCsrs, 65));  // CSR 0 does not exist
  EXPECT_TRUE(described_register(kCsrs, 68));
  EXPECT_TRUE(described_register(kCsrs, 65 + 0xcc0));
  EXPECT_FALSE(described_register(kCsrs, 65 + 0xcc1));
}

TEST(TargetXml, XferWindows) {
  EXPECT_EQ(xfer_window("abcdef", 0, 4), "mabcd");
  EXPECT_EQ(xfer_window("abcdef", 4, 4), "lef");
  EXPECT_EQ(xfer_window("abcdef", 0, 6), "labcdef");
  EXPECT_EQ(xfer_window("abcdef", 9, 4), "l");
}

TEST(ThreadIds, MultiprocessFormatAndParse) {
  ThreadRef t{0, 7, 1};  // tid = 7 * 8 + 1 + 1 = 58 = 0x3a
  EXPECT_EQ(format_thread_id(t, true), "p1.3a");
  EXPECT_EQ(format_thread_id({1, 0, 0}, true), "p2.1");
  auto p = parse_thread_id("p1.3a");
  ASSERT_TRUE(p);
  EXPECT_EQ(p->ipu, 0u);
  EXPECT_EQ(p->tile, 7u);
  EXPECT_EQ(p->slot, 1u);
  auto all = parse_thread_id("p2.-1");
  ASSERT_TRUE(all);
  EXPECT_EQ(all->ipu, 1u);
  EXPECT_FALSE(all->tile);
  auto any = parse_thread_id("p0.0");
  ASSERT_TRUE(any);
  EXPECT_TRUE(any->any());
  EXPECT_TRUE(parse_thread_id("-1")->any());
  EXPECT_TRUE(parse_thread_id("0")->any());
  EXPECT_FALSE(parse_thread_id("p-1.3a"));  // a thread of every process
  EXPECT_FALSE(parse_thread_id("pz.1"));
}

TEST(ThreadIds, PlainIdsFoldTheIpuIn) {
  EXPECT_EQ(format_thread_id({1, 7, 1}, false), "1003a");
  auto p = parse_thread_id("1003a");
  ASSERT_TRUE(p);
  EXPECT_EQ(p->ipu, 1u);
  EXPECT_EQ(p->tile, 7u);
  EXPECT_EQ(p->slot, 1u);
}

TEST(Monitor, CatchCommands) {
  std::vector<Catch> catches;
  EXPECT_NE(run_monitor_command("help", 0, catches).find("catch sync [TILE]"), std::string::npos);
  EXPECT_EQ(run_monitor_command("catch sync 5", 1, catches), "catch sync of ipu 1 tile 5\n");
  ASSERT_EQ(catches.size(), 1u);
  EXPECT_EQ(catches[0].kind, Catch::Kind::Sync);
  EXPECT_EQ(catches[0].ipu, 1u);
  EXPECT_EQ(catches[0].tile, 5u);
  EXPECT_EQ(run_monitor_command("catch exchange", 0, catches), "catch exchange of any tile\n");
  ASSERT_EQ(catches.size(), 2u);
  EXPECT_FALSE(catches[1].tile);
  EXPECT_EQ(run_monitor_command("catch", 0, catches), "catch sync of ipu 1 tile 5\ncatch exchange of any tile\n");
  EXPECT_EQ(run_monitor_command("catch sync x", 0, catches), "not a tile number: x\n");
  EXPECT_EQ(catches.size(), 2u);
  EXPECT_NE(run_monitor_command("frobnicate", 0, catches).find("unknown monitor command"), std::string::npos);
  EXPECT_EQ(run_monitor_command("catch none", 0, catches), "catches removed\n");
  EXPECT_TRUE(catches.empty());
}

}  // namespace
}  // namespace ipusim::debug
