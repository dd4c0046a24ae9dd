// to_text() and code_name() of tlm/common/problem.h: what the CLI prints and ERR_TEXT holds.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <utility>

#include "common/problem.h"

namespace ipusim {
namespace {

Problem deadlock(uint32_t waiting, uint32_t absent) {
  Problem p;
  p.code = ProblemCode::Deadlock;
  p.kind = "sync";
  for (uint32_t t = 0; t < waiting; ++t) p.waiters.push_back({0, t, "zone 1, since cycle 30"});
  for (uint32_t t = 0; t < absent; ++t) p.absent.push_back({1, 100 + t, "halted at cycle 24"});
  return p;
}

// A problem of `code` at tile `tile` of IPU 0, thread `thread`, pc `pc`, with `detail`.
Problem located(ProblemCode code, uint32_t tile, uint32_t thread, uint32_t pc, std::string detail) {
  Problem p;
  p.code = code;
  p.ipu = 0;
  p.tile = tile;
  p.thread = thread;
  p.pc = pc;
  p.detail = std::move(detail);
  return p;
}

TEST(ProblemCode, NamesAreTheRegisterMapsAndValuesItsCodes) {
  EXPECT_STREQ(code_name(ProblemCode::TileFault), "TILE_FAULT");
  EXPECT_STREQ(code_name(ProblemCode::StreamOverflow), "STREAM_OVERFLOW");
  EXPECT_STREQ(code_name(ProblemCode(999)), "UNKNOWN");
  // Every code the register map defines, and one it does not: the generated table's name.
  for (uint32_t code : {0u, 1u, 2u, 3u, 4u, 5u, 6u, 7u, 8u, 9u, 10u, 11u, 12u, 13u, 14u})
    EXPECT_STREQ(code_name(ProblemCode(code)), ipu_err_name(code)) << code;
}

TEST(ProblemText, TileFaultNamesTileThreadPcKindDetailAndInstruction) {
  Problem p = located(ProblemCode::TileFault, 12, 3, 0x40a10, "load of 4 bytes at 0x00000002");
  p.kind = "misaligned access";
  p.insn = 0x0025a503;
  p.disasm = "lw a0, 2(a1)";
  EXPECT_EQ(to_text(p),
            "tile 12 (ipu 0) thread 3 pc 0x00040a10: misaligned access: load of 4 bytes at 0x00000002 "
            "[lw a0, 2(a1) = 0x0025a503]");
}

TEST(ProblemText, CopyProblemIsLocatedThenDescribed) {
  Problem p = located(ProblemCode::SmemRange, 1, 0, 0x40120, "smread of 64 bytes: beyond the end");
  EXPECT_EQ(to_text(p), "tile 1 (ipu 0) thread 0 pc 0x00040120: smread of 64 bytes: beyond the end");
  p.code = ProblemCode::Stream;
  p.kind = "no host";
  p.address = 5;
  EXPECT_EQ(to_text(p), "host stream 5: no host connected (use the driver): tile 1 (ipu 0) thread 0 pc 0x00040120: "
                        "smread of 64 bytes: beyond the end");
}

TEST(ProblemText, ExchangeProblemIsItsSentence) {
  Problem p = located(ProblemCode::Exchange, 3, Problem::kNone, 0x40120,
                      "tile 3 sends 64 bytes to tile 7 (pc 0x00040120) but tile 7 posts no receive from tile 3");
  p.peer = Problem::Peer{0, 7};
  EXPECT_EQ(to_text(p), p.detail);
}

TEST(ProblemText, ExchangeProblemNamesItsSuperstep) {
  Problem p = located(ProblemCode::Exchange, 3, Problem::kNone, 0x40120,
                      "tile 3 sends 64 bytes to tile 7 (pc 0x00040120) but tile 7 posts no receive from tile 3");
  p.superstep = 2;
  EXPECT_EQ(to_text(p), p.detail + ", in superstep 2");
  // Cut to fit, the sentence is shortened and the superstep kept.
  const std::string cut = to_text(p, 60);
  EXPECT_EQ(cut.size(), 60u);
  EXPECT_TRUE(cut.ends_with("..., in superstep 2")) << cut;
  EXPECT_EQ(cut.rfind("tile 3 sends 64 bytes", 0), 0u) << cut;
  // Only exchange problems say it (a fault's superstep is in its record and JSON).
  Problem fault = p;
  fault.code = ProblemCode::Reg;
  EXPECT_EQ(to_text(fault), p.detail);
}

TEST(ProblemText, SyncDeadlockListsWaitersAndAbsentTiles) {
  const Problem p = deadlock(2, 1);
  EXPECT_EQ(to_text(p),
            "sync deadlock: 2 tile(s) wait at a sync that can never complete: ipu 0 tile 0 (zone 1, since cycle 30), "
            "ipu 0 tile 1 (zone 1, since cycle 30); 1 tile(s) never arrive: ipu 1 tile 100 (halted at cycle 24)");
}

TEST(ProblemText, LongListsSayHowManyMore) {
  const std::string text = to_text(deadlock(10, 0));
  EXPECT_NE(text.find("ipu 0 tile 7 (zone 1, since cycle 30), and 2 more"), std::string::npos) << text;
}

TEST(ProblemText, FittingSummarisesInsteadOfCutting) {
  const Problem p = deadlock(12, 12);
  const std::string text = to_text(p, 255);
  EXPECT_LE(text.size(), 255u);
  EXPECT_EQ(text.find("..."), std::string::npos) << text;  // not cut
  EXPECT_EQ(text.rfind("sync deadlock: 12 tile(s) wait at a sync that can never complete", 0), 0u) << text;
  EXPECT_NE(text.find("; 12 tile(s) never arrive: ipu 1 tile 100 (halted at cycle 24)"), std::string::npos) << text;
  // Ends with a whole entry or a count, never mid-entry.
  EXPECT_TRUE(text.ends_with(")") || text.ends_with("more")) << text;
}

TEST(ProblemText, FittingATextWithNoListCutsWithAnEllipsis) {
  Problem p;
  p.code = ProblemCode::Reg;
  p.detail = std::string(300, 'x');
  const std::string text = to_text(p, 100);
  EXPECT_EQ(text.size(), 100u);
  EXPECT_TRUE(text.ends_with("...")) << text;
  EXPECT_EQ(to_text(p, 1000), p.detail);
}

// Located pcs (docs/debugging.md): after the pc of a fault; after a producer's sentence
// for an exchange problem, both tiles, before its superstep.
TEST(ProblemText, NamesTheFunctionAndSourceOfItsPcs) {
  Problem f = located(ProblemCode::TileFault, 12, 3, 0x40a10, "load of 4 bytes at 0x00000002");
  f.kind = "misaligned access";
  f.function = "vec_add";
  f.source = "kernels/vecadd.c:42";
  EXPECT_EQ(to_text(f),
            "tile 12 (ipu 0) thread 3 pc 0x00040a10 in vec_add (kernels/vecadd.c:42): misaligned access: "
            "load of 4 bytes at 0x00000002");
  f.source.clear();
  EXPECT_EQ(to_text(f).rfind("tile 12 (ipu 0) thread 3 pc 0x00040a10 in vec_add: ", 0), 0u) << to_text(f);

  Problem x;
  x.code = ProblemCode::Exchange;
  x.ipu = 0, x.tile = 0, x.pc = 0x40040, x.function = "ipu_send", x.source = "ipu/xipu.h:183";
  x.peer = Problem::Peer{0, 1, 0x4009c, "", "k.c:7"};
  x.superstep = 1;
  x.detail = "tile 0 sends 16 bytes to tile 1";
  EXPECT_EQ(to_text(x),
            "tile 0 sends 16 bytes to tile 1 (tile 0 pc 0x00040040 in ipu_send (ipu/xipu.h:183); "
            "tile 1 pc 0x0004009c at k.c:7), in superstep 1");
  x.function.clear(), x.source.clear(), x.peer->source.clear();
  EXPECT_EQ(to_text(x), "tile 0 sends 16 bytes to tile 1, in superstep 1") << "nothing located, nothing added";
}

TEST(ProblemText, RegistersFourToALineWithAbiNames) {
  ThreadRegisters r;
  r.pc = 0x40040;
  for (unsigned i = 0; i < 32; ++i) r.x[i] = i == 0 ? 0 : 0x1000 + i;
  r.f[10] = 0x3f800000;  // fa0 = 1
  r.fcsr = 0x81;         // frm 4, NV
  const std::string t = registers_text(r);
  EXPECT_EQ(t.rfind("pc   0x00040040  fcsr 0x00000081 (frm 4, fflags 0x01)\n", 0), 0u) << t;
  EXPECT_NE(t.find("zero 0x00000000  ra   0x00001001  sp   0x00001002  gp   0x00001003\n"), std::string::npos) << t;
  EXPECT_NE(t.find("t3   0x0000101c  t4   0x0000101d  t5   0x0000101e  t6   0x0000101f\n"), std::string::npos) << t;
  EXPECT_NE(t.find("fa0  0x3f800000 1 "), std::string::npos) << t;
  EXPECT_EQ(std::count(t.begin(), t.end(), '\n'), 1 + 8 + 8);
  EXPECT_EQ(t.find(" \n"), std::string::npos) << "no trailing blanks";
  EXPECT_STREQ(x_abi_name(8), "s0");
  EXPECT_STREQ(f_abi_name(31), "ft11");
}

}  // namespace
}  // namespace ipusim
