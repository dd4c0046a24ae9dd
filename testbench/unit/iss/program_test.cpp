// Program: ELF loading, validation errors (each names the file and the problem),
// symbols, and the decoded-instruction cache's shape.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <fstream>

#include "iss/program.h"
#include "iss_harness.h"

namespace {

using namespace isstest;
using rvasm::Asm;

testelf::Image simple_image() {
  Asm a;
  a.addi(rvasm::a0, rvasm::zero, 7);
  a.halt(rvasm::a0);
  testelf::Image img;
  img.code = a.finish();
  img.data = {1, 2, 3, 4};
  img.bss_bytes = 12;
  img.symbols = {{"main", 0x40000}, {"counter", 0x50000}};
  img.symbol_sizes = {{"counter", 16}};
  return img;
}

std::string load_error(const std::vector<uint8_t>& bytes) {
  try {
    Program::from_bytes(bytes, "bad.elf");
  } catch (const ProgramError& e) {
    return e.what();
  }
  return "(loaded)";
}

TEST(IssProgram, LoadsSegmentsEntryAndSymbols) {
  auto p = Program::from_bytes(testelf::build(simple_image()), "ok.elf");
  EXPECT_EQ(p->name(), "ok.elf");
  EXPECT_EQ(p->entry(), 0x40000u);
  ASSERT_EQ(p->segments().size(), 2u);
  EXPECT_TRUE(p->segments()[0].executable);
  EXPECT_FALSE(p->segments()[1].executable);
  EXPECT_EQ(p->segments()[1].mem_size, 16u);
  EXPECT_EQ(p->segments()[1].bytes, (std::vector<uint8_t>{1, 2, 3, 4}));
  EXPECT_EQ(p->code_begin(), 0x40000u);
  EXPECT_EQ(p->code_end(), 0x40008u);
  EXPECT_EQ(p->image_end(), 0x50010u);
  EXPECT_EQ(p->symbol("main"), 0x40000u);
  EXPECT_EQ(p->symbol("counter"), 0x50000u);
  EXPECT_FALSE(p->symbol("missing").has_value());
  EXPECT_EQ(p->symbol_size("counter"), 16u);
  EXPECT_EQ(p->symbol_size("main"), 0u) << "no st_size: a label";
  EXPECT_FALSE(p->symbol_size("missing").has_value());
}

TEST(IssProgram, LoadsFromFileAndNamesMissingFile) {
  const std::string path = ::testing::TempDir() + "/iss_program_test.elf";
  const auto bytes = testelf::build(simple_image());
  std::ofstream(path, std::ios::binary).write(reinterpret_cast<const char*>(bytes.data()), bytes.size());
  EXPECT_EQ(Program::load(path)->entry(), 0x40000u);
  std::remove(path.c_str());
  try {
    Program::load(path);
    FAIL() << "loaded a missing file";
  } catch (const ProgramError& e) {
    EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("cannot read the ELF: no such file"), std::string::npos) << e.what();
  }
}

struct BadElfCase {
  const char* name;
  void (*mutate)(std::vector<uint8_t>&, testelf::Image&);
  bool rebuild;  // mutate the Image and rebuild (true) or patch bytes (false)
  const char* expected;
};

void set_byte(std::vector<uint8_t>& b, size_t at, uint8_t v) { b[at] = v; }
template <typename T>
void set_at(std::vector<uint8_t>& b, size_t at, T v) { std::memcpy(b.data() + at, &v, sizeof(T)); }

const BadElfCase kBadElves[] = {
    {"magic", [](auto& b, auto&) { set_byte(b, 1, 'X'); }, false, "bad magic"},
    {"class64", [](auto& b, auto&) { set_byte(b, EI_CLASS, ELFCLASS64); }, false, "not a 32-bit ELF"},
    {"bigendian", [](auto& b, auto&) { set_byte(b, EI_DATA, ELFDATA2MSB); }, false, "little-endian"},
    {"machine", [](auto& b, auto&) { set_at<uint16_t>(b, offsetof(Elf32_Ehdr, e_machine), EM_ARM); }, false, "not a RISC-V ELF"},
    {"type", [](auto& b, auto&) { set_at<uint16_t>(b, offsetof(Elf32_Ehdr, e_type), ET_REL); }, false, "not an executable"},
    {"rvc", [](auto&, auto& i) { i.e_flags |= EF_RISCV_RVC; }, true, "compressed"},
    {"double", [](auto&, auto& i) { i.e_flags = EF_RISCV_FLOAT_ABI_DOUBLE; }, true, "double or quad"},
    {"truncated", [](auto& b, auto&) { b.resize(20); }, false, "outside the file"},
    {"phoff", [](auto& b, auto&) { set_at<uint32_t>(b, offsetof(Elf32_Ehdr, e_phoff), 0x100000); }, false, "program header table"},
    {"segment", [](auto& b, auto&) { set_at<uint32_t>(b, sizeof(Elf32_Ehdr) + offsetof(Elf32_Phdr, p_offset), 0x100000); }, false, "outside the file"},
    {"below_sram", [](auto&, auto& i) { i.code_addr = 0x1000; i.entry = 0x1000; }, true, "below the tile SRAM"},
    {"rwx", [](auto&, auto& i) { i.code_flags = PF_R | PF_W | PF_X; }, true, "writable and executable"},
    {"no_code", [](auto&, auto& i) { i.code_flags = PF_R; }, true, "no executable segment"},
    {"entry", [](auto&, auto& i) { i.entry = 0x50000; }, true, "entry point 0x00050000"},
    {"entry_misaligned", [](auto&, auto& i) { i.entry = 0x40002; }, true, "entry point"},
    {"overlap", [](auto&, auto& i) { i.data_addr = 0x40004; }, true, "overlap"},
};

TEST(IssProgram, RejectsBadElvesWithClearMessages) {
  for (const BadElfCase& c : kBadElves) {
    testelf::Image img = simple_image();
    std::vector<uint8_t> bytes;
    if (c.rebuild) {
      std::vector<uint8_t> unused;
      c.mutate(unused, img);
      bytes = testelf::build(img);
    } else {
      bytes = testelf::build(img);
      c.mutate(bytes, img);
    }
    const std::string msg = load_error(bytes);
    EXPECT_NE(msg.find("bad.elf: "), std::string::npos) << c.name << ": " << msg;
    EXPECT_NE(msg.find(c.expected), std::string::npos) << c.name << ": " << msg;
  }
}

// Found by the ELF fuzzer (tlm/iss/fuzz): an executable segment whose memory size is far
// larger than the file (here 1.6 GB) made the loader allocate a decoded entry per word
// (6.7 GB) before anything checked the program against a tile's SRAM.
TEST(IssProgram, RejectsAnExecutableRangeLargerThanTheFile) {
  testelf::Image img = simple_image();
  img.data.clear();
  img.bss_bytes = 0;
  std::vector<uint8_t> bytes = testelf::build(img);
  set_at<uint32_t>(bytes, sizeof(Elf32_Ehdr) + offsetof(Elf32_Phdr, p_memsz), 0x642e8020);
  const std::string msg = load_error(bytes);
  EXPECT_NE(msg.find("bad.elf: executable range 0x00040000..0x64328020 (1680769056 bytes) is larger than the "
                     "file ("),
            std::string::npos)
      << msg;
  // Two executable segments far apart: the gap counts, whatever each segment's size.
  std::vector<uint8_t> two = testelf::build(img);
  Elf32_Phdr second{};
  std::memcpy(&second, two.data() + sizeof(Elf32_Ehdr), sizeof second);
  second.p_vaddr = second.p_paddr = 0x10000000;
  const size_t phoff = two.size();
  two.resize(phoff + 2 * sizeof(Elf32_Phdr));
  std::memcpy(two.data() + phoff, two.data() + sizeof(Elf32_Ehdr), sizeof(Elf32_Phdr));
  std::memcpy(two.data() + phoff + sizeof(Elf32_Phdr), &second, sizeof second);
  set_at<uint32_t>(two, offsetof(Elf32_Ehdr, e_phoff), uint32_t(phoff));
  set_at<uint16_t>(two, offsetof(Elf32_Ehdr, e_phnum), 2);
  const std::string gap = load_error(two);
  EXPECT_NE(gap.find("executable range 0x00040000..0x10000008"), std::string::npos) << gap;
}

TEST(IssProgram, AcceptsSoftFloatAbi) {
  testelf::Image img = simple_image();
  img.e_flags = EF_RISCV_FLOAT_ABI_SOFT;
  EXPECT_NO_THROW(Program::from_bytes(testelf::build(img), "soft.elf"));
}

TEST(IssProgram, RejectsImageLargerThanTileSram) {
  testelf::Image img = simple_image();
  img.bss_bytes = 300 * 1024;  // data at 0x50000 + 300 KiB > 0x40000 + 256 KiB
  auto p = Program::from_bytes(testelf::build(img), "big.elf");
  try {
    Sram sram(test_params().sram_bytes);  // as a host left it: the image did not fit
    TileCore core(test_params(), p, sram);
    FAIL() << "accepted an image beyond SRAM";
  } catch (const ProgramError& e) {
    EXPECT_NE(std::string(e.what()).find("big.elf: image ends at"), std::string::npos) << e.what();
  }
}

TEST(IssProgram, RejectsBadTileParams) {
  auto p = Program::from_bytes(testelf::build(simple_image()), "ok.elf");
  TileParams params = test_params();
  params.workers = 7;
  auto sram = loaded_sram(test_params().sram_bytes, *p);
  EXPECT_THROW(TileCore(params, p, *sram), std::invalid_argument);
  params = test_params();
  params.thread_quantum = 0;
  EXPECT_THROW(TileCore(params, p, *sram), std::invalid_argument);
  params = test_params();
  params.sram_bytes = 1001;
  Sram odd(1001);
  EXPECT_THROW(TileCore(params, p, odd), std::invalid_argument);
}

}  // namespace
