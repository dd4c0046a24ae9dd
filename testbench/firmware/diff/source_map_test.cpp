// iss::SourceMap on the test firmware's ELFs (docs/debugging.md): a pc -> function and
// file:line from DWARF, the function alone from the symbol table without it, nothing for
// a program made from an image; and ipu_add_firmware's debug information changes no
// loadable byte (the same kernel built with and without -g).
#include <gtest/gtest.h>

#include <fstream>
#include <thread>

#include "fwtest_env.h"
#include "iss/program.h"
#include "iss/source_map.h"

namespace ipusim::fwtest {
namespace {

std::shared_ptr<const iss::Program> load(const std::string& relative) {
  return iss::Program::load((env().firmware_dir / relative).string());
}

TEST(SourceMap, LocatesAFaultSiteInItsFunctionAndLine) {
  const auto p = load("faults/fault_misaligned.elf");
  const uint32_t site = p->symbol("fault_site").value();
  const uint32_t line = line_of(env().faults_source / "fault_misaligned.c", "FAULT_SITE \"lw");
  ASSERT_NE(line, 0u);
  const iss::SourceLocation at = p->locate(site);
  // DWARF names the C function, not the label `fault_site` the symbol table has there.
  EXPECT_EQ(at.function, "trigger");
  EXPECT_EQ(at.file, "faults/fault_misaligned.c");
  EXPECT_EQ(at.line, line);
  EXPECT_EQ(at.source(), "faults/fault_misaligned.c:" + std::to_string(line));
}

TEST(SourceMap, WithoutDebugInformationTheSymbolTableNamesTheFunction) {
  const auto with = load("debuginfo/vecadd_g.elf");
  const auto without = load("debuginfo/vecadd_g0.elf");
  const uint32_t main_pc = with->symbol("main").value();
  EXPECT_EQ(with->locate(main_pc).function, "main");
  EXPECT_EQ(with->locate(main_pc).file, "vecadd/vecadd.c");
  EXPECT_GT(with->locate(main_pc).line, 0u);
  const iss::SourceLocation bare = without->locate(without->symbol("main").value());
  EXPECT_EQ(bare.function, "main");
  EXPECT_EQ(bare.file, "") << "vecadd.c was built with -g0: no line of it is known";
  EXPECT_EQ(bare.source(), "");
}

TEST(SourceMap, NothingOutsideCodeOrForAProgramFromAnImage) {
  const auto p = load("faults/fault_misaligned.elf");
  EXPECT_TRUE(p->locate(0x10).empty());
  const auto image = iss::Program::from_image("image", 0x40000, 0x40000, std::vector<uint8_t>(16, 0));
  EXPECT_TRUE(image->locate(0x40000).empty());
}

TEST(SourceMap, LocatesFromManyThreadsAtOnce) {
  const auto p = load("faults/fault_misaligned.elf");
  const uint32_t site = p->symbol("fault_site").value();
  std::vector<std::string> seen(8);
  std::vector<std::thread> threads;
  for (size_t i = 0; i < seen.size(); ++i)
    threads.emplace_back([&, i] { seen[i] = p->locate(site).function + " " + p->locate(site).source(); });
  for (auto& t : threads) t.join();
  for (const std::string& s : seen) EXPECT_EQ(s, seen.front());
  EXPECT_NE(seen.front().find("trigger faults/fault_misaligned.c:"), std::string::npos) << seen.front();
}

TEST(SourceMap, ShortensPaths) {
  EXPECT_EQ(iss::SourceMap::short_path("/src/k/main.c", "/src/k"), "main.c");
  EXPECT_EQ(iss::SourceMap::short_path("/src/k/sub/a.c", "/src/k"), "sub/a.c");
  EXPECT_EQ(iss::SourceMap::short_path("../../tb/faults/f.c", "/b/fw-build"), "faults/f.c");
  EXPECT_EQ(iss::SourceMap::short_path("/usr/include/stdio.h", "/b"), "include/stdio.h");
  EXPECT_EQ(iss::SourceMap::short_path("a.c", ""), "a.c");
}

// ipu_add_firmware(DEBUG_INFO ON / OFF) of one source: every PT_LOAD segment's bytes and
// the entry point are the same, so debug information is free on the tile.
TEST(DebugInfo, LoadableBytesDoNotDependOnIt) {
  const auto g = load("debuginfo/vecadd_g.elf");
  const auto g0 = load("debuginfo/vecadd_g0.elf");
  EXPECT_EQ(g->entry(), g0->entry());
  ASSERT_EQ(g->segments().size(), g0->segments().size());
  for (size_t i = 0; i < g->segments().size(); ++i) {
    const iss::Segment& a = g->segments()[i];
    const iss::Segment& b = g0->segments()[i];
    EXPECT_EQ(a.vaddr, b.vaddr) << "segment " << i;
    EXPECT_EQ(a.mem_size, b.mem_size) << "segment " << i;
    EXPECT_EQ(a.executable, b.executable) << "segment " << i;
    EXPECT_TRUE(a.bytes == b.bytes) << "segment " << i << " at 0x" << std::hex << a.vaddr << " differs";
  }
  // ... while the files differ: one of them really has the kernel's debug information.
  EXPECT_GT(g->elf_bytes().size(), g0->elf_bytes().size());
  EXPECT_NE(g->locate(g->symbol("main").value()).file, g0->locate(g0->symbol("main").value()).file);
}

}  // namespace
}  // namespace ipusim::fwtest
