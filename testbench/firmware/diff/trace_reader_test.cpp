// Tests of the harness itself: the qemu and ipusim trace readers and the divergence
// report, on small hand-written traces against a real tile ELF. They make sure the
// ipusim half of the differential test parses the --itrace contract before (and after)
// the CLI lands.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <algorithm>
#include <fstream>

#include "elf_image.h"
#include "fwtest_env.h"
#include "trace_reader.h"

namespace ipusim::fwtest {
namespace {

fs::path write_lines(const fs::path& dir, const char* name, const std::vector<std::string>& lines) {
  fs::path path = dir / name;
  std::ofstream out(path);
  for (const auto& l : lines) out << l << "\n";
  return path;
}

class TraceReader : public testing::Test {
 protected:
  void SetUp() override {
    dir_ = scratch_dir("TraceReader", testing::UnitTest::GetInstance()->current_test_info()->name());
    elf_ = std::make_unique<ElfImage>(ElfImage::load(env().firmware_dir / "progs" / "loops.elf"));
    platform_ = elf_->require_symbol("__ipu_platform_start");
    main_ = elf_->require_symbol("main");
  }
  std::string ipusim_line(uint32_t pc, std::optional<uint32_t> insn = {}) const {
    return fmt::format("0 0 0 {} {:#010x} <main+0x4> {:#010x} addi a0, a0, 1 ; x10 0x00000001", pc * 6, pc,
                       insn ? *insn : *elf_->word_at(pc));
  }
  fs::path dir_;
  std::unique_ptr<ElfImage> elf_;
  uint32_t platform_ = 0, main_ = 0;
};

TEST_F(TraceReader, QemuKeepsPcsBelowThePlatformInOrder) {
  auto path = write_lines(dir_, "q.log", {
      fmt::format("Trace 0: 0x7f0000000040 [00000000/{:08x}/00107600/00000201] _start", platform_ + 8),
      fmt::format("Trace 0: 0x7f0000000140 [00000000/{:08x}/00107600/00000201] main", main_),
      fmt::format("Trace 0: 0x7f0000000240 [00000000/{:08x}/00107600/00000201] main", main_ + 4),
      "some other qemu log line",
  });
  PcTrace t = read_qemu_trace(path, platform_);
  EXPECT_TRUE(t.errors.empty());
  EXPECT_EQ(t.total, 3u);
  EXPECT_EQ(t.common_pcs, (std::vector<uint32_t>{main_, main_ + 4}));
}

TEST_F(TraceReader, QemuReportsAMalformedTraceLine) {
  auto path = write_lines(dir_, "q.log", {"Trace 0: 0x7f00 [garbage]"});
  PcTrace t = read_qemu_trace(path, platform_);
  ASSERT_EQ(t.errors.size(), 1u);
  EXPECT_NE(t.errors[0].find("q.log:1"), std::string::npos) << t.errors[0];
}

TEST_F(TraceReader, IpusimParsesTheItraceContract) {
  auto path = write_lines(dir_, "i.trace",
                          {ipusim_line(main_), ipusim_line(platform_), ipusim_line(main_ + 4)});
  PcTrace t = read_ipusim_trace(path, platform_, *elf_);
  EXPECT_TRUE(t.errors.empty()) << (t.errors.empty() ? "" : t.errors[0]);
  EXPECT_EQ(t.total, 3u);
  EXPECT_EQ(t.common_pcs, (std::vector<uint32_t>{main_, main_ + 4}));
}

TEST_F(TraceReader, IpusimFlagsAnInstructionWordThatIsNotInTheElf) {
  uint32_t wrong = *elf_->word_at(main_) ^ 0x100u;
  auto path = write_lines(dir_, "i.trace", {ipusim_line(main_, wrong)});
  PcTrace t = read_ipusim_trace(path, platform_, *elf_);
  ASSERT_EQ(t.errors.size(), 1u);
  EXPECT_NE(t.errors[0].find("but the ELF has"), std::string::npos) << t.errors[0];
}

TEST_F(TraceReader, IpusimFlagsLinesWithoutHexPcAndInsn) {
  auto path = write_lines(dir_, "i.trace", {"0 0 0 12 40000 13 nop", "0 0 0 12"});
  PcTrace t = read_ipusim_trace(path, platform_, *elf_);
  EXPECT_EQ(t.errors.size(), 2u);
  EXPECT_EQ(t.total, 0u);
}

// The real qemu log format, end to end: a traced run of a twin starts in its platform
// code (crt0), reaches main, and every line parses.
TEST_F(TraceReader, ReadsARealQemuTrace) {
  fs::path log = dir_ / "qemu.trace";
  ProcessResult run = run_qemu(env().firmware_dir / "progs" / "loops.qemu.elf", dir_,
                               {"-singlestep", "-d", "nochain,exec", "-D", log.string()});
  ASSERT_TRUE(run.exited && run.exit_status == 0) << run.describe();
  PcTrace t = read_qemu_trace(log, platform_);
  fs::remove(log);
  EXPECT_TRUE(t.errors.empty()) << (t.errors.empty() ? "" : t.errors[0]);
  EXPECT_GT(t.common_pcs.size(), 100000u);
  EXPECT_GT(t.total, t.common_pcs.size()) << "crt0 and the console are platform code";
  EXPECT_NE(std::find(t.common_pcs.begin(), t.common_pcs.end(), main_), t.common_pcs.end());
  for (uint32_t pc : t.common_pcs) ASSERT_TRUE(elf_->word_at(pc).has_value()) << pc;
}

TEST(FirstDivergence, NamesTheFirstDifferentInstruction) {
  EXPECT_EQ(first_divergence({1, 2, 3}, {1, 2, 3}), "");
  std::string d = first_divergence({0x40000, 0x40004, 0x40008}, {0x40000, 0x40004, 0x4000c});
  EXPECT_NE(d.find("#2"), std::string::npos) << d;
  EXPECT_NE(d.find("0x00040008"), std::string::npos) << d;
  EXPECT_NE(d.find("0x0004000c"), std::string::npos) << d;
  EXPECT_NE(first_divergence({1, 2, 3}, {1, 2}).find("prefix"), std::string::npos);
}

}  // namespace
}  // namespace ipusim::fwtest
