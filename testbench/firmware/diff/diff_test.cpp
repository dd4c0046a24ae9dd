// The differential test of the tile ISS against qemu-riscv32 (docs/firmware.md).
//
// Every program in testbench/firmware/progs is built twice from the same objects: for a
// tile (progs/<name>.elf) and as a Linux user-mode program (progs/<name>.qemu.elf). The
// two differ only in their platform layer, linked above __ipu_platform_start. Per program:
//  - QemuGolden:  qemu's stdout and exit status equal the reviewed expected/ files;
//  - TwinLayout:  both ELFs hold the same bytes below the platform range (code and data);
//  - IpusimVsQemu.SameOutput: `ipusim run` prints the same bytes and exits the same;
//  - IpusimVsQemu.SameInstructions: both retire the same sequence of pcs below the
//    platform range (so the same instruction count), from their instruction traces.
#include <gtest/gtest.h>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "elf_image.h"
#include "fwtest_env.h"
#include "trace_reader.h"

namespace ipusim::fwtest {
namespace {

fs::path tile_elf(const std::string& name) { return env().firmware_dir / "progs" / (name + ".elf"); }
fs::path qemu_elf(const std::string& name) {
  return env().firmware_dir / "progs" / (name + ".qemu.elf");
}

ProcessResult run_qemu(const std::string& name, const fs::path& scratch,
                       const std::vector<std::string>& options = {}) {
  return fwtest::run_qemu(qemu_elf(name), scratch, options);
}

class Program : public testing::TestWithParam<std::string> {
 protected:
  const std::string& name() const { return GetParam(); }
  fs::path scratch(const char* suite) { return scratch_dir(suite, name()); }
};

using QemuGolden = Program;
using TwinLayout = Program;
using IpusimVsQemu = Program;

TEST_P(QemuGolden, MatchesReviewedOutput) {
  fs::path dir = scratch("QemuGolden");
  ProcessResult qemu = run_qemu(name(), dir);
  fs::path expected = env().progs_source / "expected";
  ASSERT_TRUE(qemu.exited) << "qemu " << qemu.describe() << "\n" << qemu.err;
  EXPECT_EQ(qemu.out, read_file(expected / (name() + ".stdout")));
  EXPECT_EQ(std::to_string(qemu.exit_status) + "\n", read_file(expected / (name() + ".status")));
  EXPECT_EQ(qemu.err, "");
}

TEST_P(TwinLayout, SameBytesBelowThePlatformRange) {
  ElfImage tile = ElfImage::load(tile_elf(name()));
  ElfImage twin = ElfImage::load(qemu_elf(name()));
  for (const char* sym : {"__ipu_platform_start", "__ipu_platform_end",
                          "__ipu_platform_data_start", "__ipu_platform_data_end", "__bss_start",
                          "__heap_start", "__global_pointer$", "__tls_base", "_exit"})
    EXPECT_EQ(tile.symbol(sym), twin.symbol(sym)) << sym;

  const uint32_t code_limit = tile.require_symbol("__ipu_platform_start");
  const uint32_t data_limit = tile.require_symbol("__ipu_platform_data_start");
  ASSERT_EQ(tile.segments().size(), twin.segments().size());
  for (size_t i = 0; i < tile.segments().size(); ++i) {
    const ElfSegment& a = tile.segments()[i];
    const ElfSegment& b = twin.segments()[i];
    SCOPED_TRACE(fmt::format("segment {} at {:#x}", i, a.vaddr));
    ASSERT_EQ(a.vaddr, b.vaddr);
    EXPECT_EQ(a.executable, b.executable);
    EXPECT_FALSE(a.executable && a.writable) << "a segment is both writable and executable";
    uint32_t limit = a.executable ? code_limit : data_limit;
    ASSERT_GE(limit, a.vaddr);
    size_t common = std::min<size_t>(limit - a.vaddr, a.bytes.size());
    ASSERT_GE(b.bytes.size(), common);
    for (size_t k = 0; k < common; ++k)
      ASSERT_EQ(a.bytes[k], b.bytes[k]) << fmt::format("byte at {:#x} differs", a.vaddr + k);
  }
}

TEST_P(IpusimVsQemu, SameOutputAndExitStatus) {
  fs::path dir = scratch("IpusimVsQemu_output");
  ProcessResult qemu = run_qemu(name(), dir);
  ProcessResult ipusim = run_ipusim(tile_elf(name()), dir);
  ASSERT_TRUE(qemu.exited) << "qemu " << qemu.describe();
  ASSERT_TRUE(ipusim.exited) << "ipusim " << ipusim.describe() << "\n" << ipusim.err;
  EXPECT_EQ(ipusim.out, qemu.out) << "ipusim stderr:\n" << ipusim.err;
  EXPECT_EQ(ipusim.exit_status, qemu.exit_status) << "ipusim stderr:\n" << ipusim.err;
}

TEST_P(IpusimVsQemu, SameInstructionsBelowThePlatformRange) {
  fs::path dir = scratch("IpusimVsQemu_trace");
  ElfImage tile = ElfImage::load(tile_elf(name()));
  const uint32_t platform_start = tile.require_symbol("__ipu_platform_start");

  fs::path qemu_log = dir / "qemu.trace";
  ProcessResult qemu =
      run_qemu(name(), dir, {"-singlestep", "-d", "nochain,exec", "-D", qemu_log.string()});
  ASSERT_TRUE(qemu.exited) << "qemu " << qemu.describe();
  PcTrace expected = read_qemu_trace(qemu_log, platform_start);
  fs::remove(qemu_log);

  fs::path itrace = dir / "ipusim.trace";
  ProcessResult ipusim = run_ipusim(tile_elf(name()), dir, {"--itrace", itrace.string()});
  ASSERT_TRUE(ipusim.exited) << "ipusim " << ipusim.describe() << "\n" << ipusim.err;
  ASSERT_TRUE(fs::exists(itrace)) << "ipusim wrote no trace to " << itrace;
  PcTrace actual = read_ipusim_trace(itrace, platform_start, tile);
  fs::remove(itrace);

  EXPECT_TRUE(expected.errors.empty()) << fmt::format("{}", fmt::join(expected.errors, "\n"));
  EXPECT_TRUE(actual.errors.empty()) << fmt::format("{}", fmt::join(actual.errors, "\n"));
  ASSERT_GT(expected.common_pcs.size(), 1000u) << "qemu traced almost nothing";
  EXPECT_EQ(actual.common_pcs.size(), expected.common_pcs.size())
      << "instructions retired below " << fmt::format("{:#x}", platform_start)
      << " (ipusim vs qemu)";
  EXPECT_EQ(first_divergence(expected.common_pcs, actual.common_pcs), "");
}

std::string param_name(const testing::TestParamInfo<std::string>& info) { return info.param; }

const std::vector<std::string>& programs() {
  static const std::vector<std::string> names = sources_in(env().progs_source);
  return names;
}

INSTANTIATE_TEST_SUITE_P(Progs, QemuGolden, testing::ValuesIn(programs()), param_name);
INSTANTIATE_TEST_SUITE_P(Progs, TwinLayout, testing::ValuesIn(programs()), param_name);
INSTANTIATE_TEST_SUITE_P(Progs, IpusimVsQemu, testing::ValuesIn(programs()), param_name);

TEST(DiffTestSetup, EveryProgramHasReviewedExpectations) {
  ASSERT_FALSE(programs().empty());
  for (const auto& name : programs()) {
    EXPECT_TRUE(fs::exists(env().progs_source / "expected" / (name + ".stdout"))) << name;
    EXPECT_TRUE(fs::exists(env().progs_source / "expected" / (name + ".status"))) << name;
  }
}

}  // namespace
}  // namespace ipusim::fwtest
