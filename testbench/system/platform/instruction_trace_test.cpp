// InstructionTrace (--itrace's sink) on hand-made records: the exact line format, the
// thread and cycle filters, and fcsr shown only when it changed (also across lines
// the filters drop).
#include <gtest/gtest.h>

#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "iss/program.h"
#include "platform/platform_trace.h"

namespace ipusim {
namespace {

using iss::RetiredInsn;

RetiredInsn insn(uint32_t thread, uint64_t cycle, uint32_t fcsr = 0) {
  RetiredInsn r;
  r.thread = thread;
  r.cycle = cycle;
  r.pc = 0x40004;
  r.insn = 0x00000013;
  r.fcsr = fcsr;
  return r;
}

RetiredInsn with_dest(RetiredInsn r, RetiredInsn::Dest kind, uint8_t reg, uint32_t value) {
  r.dest = kind;
  r.dest_reg = reg;
  r.dest_value = value;
  return r;
}

RetiredInsn with_mem(RetiredInsn r, uint8_t size, uint32_t addr, std::optional<uint32_t> stored = {}) {
  r.mem_size = size;
  r.mem_addr = addr;
  r.mem_store = stored.has_value();
  r.mem_value = stored.value_or(0);
  return r;
}

TEST(InstructionTrace, WritesTheDocumentedLinesOfTheSelectedThreadsAndCycles) {
  const std::string path = ::testing::TempDir() + "instruction_trace_test.txt";
  platform::TraceFilter filter;
  filter.threads = platform::TileSelection::parse("1", 7, "--itrace-threads", "thread", "a tile");
  filter.parse_cycles("10:100");
  platform::InstructionTrace trace(path, [](uint32_t, uint32_t) { return std::string("disasm"); }, filter);
  const auto program = iss::Program::from_image("image", 0x40000, 0x40000, std::vector<uint8_t>(16, 0));
  const iss::TileIdentity tile{3, 1, 4, 2};

  trace.retire(tile, *program, insn(0, 12, 0x01));  // thread 0: dropped
  trace.retire(tile, *program, insn(1, 5, 0x20));   // before the window: dropped, fcsr seen
  using Dest = RetiredInsn::Dest;
  trace.retire(tile, *program, with_dest(insn(1, 12, 0x20), Dest::X, 10, 0x2a));  // fcsr as last seen
  trace.retire(tile, *program, with_mem(insn(1, 18, 0x21), 1, 0x41009, 0xff));
  trace.retire(tile, *program, with_mem(with_dest(insn(1, 24, 0x21), Dest::X, 12, 0xdeadbeef), 4, 0x41000));
  trace.retire(tile, *program, with_dest(insn(1, 30, 0x21), Dest::F, 3, 0x3f800000));
  trace.retire(tile, *program, with_mem(insn(1, 36, 0x21), 2, 0x41002, 0x7));
  trace.retire(tile, *program, insn(1, 42, 0x21));  // nothing changed: no " ;"
  trace.retire(tile, *program, insn(1, 100, 0x21)); // the window is [10, 100)
  EXPECT_EQ(trace.lines(), 6u);
  trace.close();

  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  EXPECT_EQ(text.str(),
            "1 3 1 12 0x00040004 <?> 0x00000013 disasm ; x10 0x0000002a\n"
            "1 3 1 18 0x00040004 <?> 0x00000013 disasm ; mem 0x00041009 0xff fcsr 0x21\n"
            "1 3 1 24 0x00040004 <?> 0x00000013 disasm ; x12 0xdeadbeef mem 0x00041000\n"
            "1 3 1 30 0x00040004 <?> 0x00000013 disasm ; f3 0x3f800000\n"
            "1 3 1 36 0x00040004 <?> 0x00000013 disasm ; mem 0x00041002 0x0007\n"
            "1 3 1 42 0x00040004 <?> 0x00000013 disasm\n");
}

// Wide loads and stores: every register written, a wide store's bytes as one
// little-endian number, and a load-and-store's load then store.
TEST(InstructionTrace, WideAccessesListEveryRegisterAndByte) {
  const std::string path = ::testing::TempDir() + "instruction_trace_wide_test.txt";
  platform::InstructionTrace trace(path, [](uint32_t, uint32_t) { return std::string("disasm"); }, {});
  const auto program = iss::Program::from_image("image", 0x40000, 0x40000, std::vector<uint8_t>(16, 0));
  const iss::TileIdentity tile{3, 1, 4, 2};
  using Dest = RetiredInsn::Dest;

  RetiredInsn ld = with_mem(with_dest(insn(1, 6), Dest::F, 4, 0x3f800000), 16, 0x41000);
  ld.more_count = 2;
  ld.more[0] = {Dest::F, 5, 0x40000000};
  ld.more[1] = {Dest::X, 10, 0x41010};
  trace.retire(tile, *program, ld);

  RetiredInsn st = with_mem(insn(1, 12), 16, 0x41100, 0x03020100);
  for (uint8_t b = 0; b < 16; ++b) st.mem_data[b] = b;
  trace.retire(tile, *program, st);

  RetiredInsn pair = with_mem(with_dest(insn(1, 24), Dest::F, 8, 1), 8, 0x41000);
  pair.store2_size = 8;
  pair.store2_addr = 0x41200;
  for (uint8_t b = 0; b < 8; ++b) pair.store2_data[b] = static_cast<uint8_t>(0xa0 + b);
  trace.retire(tile, *program, pair);
  trace.close();

  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  EXPECT_EQ(text.str(),
            "1 3 1 6 0x00040004 <?> 0x00000013 disasm ; f4 0x3f800000 f5 0x40000000 x10 0x00041010 mem 0x00041000\n"
            "1 3 1 12 0x00040004 <?> 0x00000013 disasm ; mem 0x00041100 0x0f0e0d0c0b0a09080706050403020100\n"
            "1 3 1 24 0x00040004 <?> 0x00000013 disasm ; f8 0x00000001 mem 0x00041000 mem 0x00041200 "
            "0xa7a6a5a4a3a2a1a0\n");
}

}  // namespace
}  // namespace ipusim
