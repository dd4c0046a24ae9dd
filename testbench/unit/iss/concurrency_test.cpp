// Thread safety of the ISS (docs/iss.md "Thread safety"): the chip model runs many
// TileCores at once on host threads, each TileCore on one thread at a time, all sharing
// one Program and its decoded-instruction cache. Eight tiles sharing one Program run on
// four std::threads, again and again (reset, run, release every sync and exchange), and
// must give exactly the results of running them one after another: registers, fcsr,
// memory, cycles, stalls, console lines, exchange postings. Programs are also loaded on
// several threads at once (the first load fills the loop's label table).
//
// Built once with -fsanitize=thread (see docs/iss.md) to look for data races.
#include <atomic>
#include <thread>

#include "iss/decoded.h"
#include "iss_harness.h"

namespace {

using namespace isstest;
using namespace rvasm;

constexpr uint32_t kTiles = 8, kHostThreads = 4, kRounds = 40;
constexpr uint32_t kTileCsr = 0xcc0;

// Integer, exact and native FP (two rounding modes, with flags), the AMP, three workers,
// console lines, a sync and an exchange, all depending on the tile's id.
Asm tile_program() {
  Asm a;
  a.csrr(s0, kTileCsr);
  a.li(s1, kData);
  a.addi(s2, s0, 1);                // an integer hash of the tile id
  a.li(t0, 2000);
  a.label("hash");
  a.mul(s2, s2, s2);
  a.addi(s2, s2, 7);
  a.srli(t1, s2, 13);
  a.xor_(s2, s2, t1);
  a.addi(t0, t0, -1);
  a.bne(t0, zero, "hash");
  a.sw(s2, 0, s1);
  a.fcvt_s_w(1, s0);                // f1 = tile
  a.addi(t1, zero, 3);
  a.fcvt_s_w(2, t1);
  a.fdiv(3, 1, 2);                  // native RNE (dyn, frm = 0): inexact
  a.csrrwi(zero, 0x002, 3);         // frm = RUP: the exact path
  a.fdiv(4, 1, 2);
  a.fsqrt(5, 4);
  a.csrrwi(zero, 0x002, 0);
  a.fsw(3, 4, s1);
  a.fsw(4, 8, s1);
  a.fsw(5, 12, s1);
  for (int i = 0; i < 4; ++i) {     // AMP f32 weights: row i = (tile + i) * (1, 2, 3, 4)
    a.addi(t2, s0, i);
    a.fcvt_s_w(6, t2);
    for (int j = 0; j < 4; ++j) {
      a.addi(t3, zero, j + 1);
      a.fcvt_s_w(7, t3);
      a.fmul(8, 6, 7);
      a.fsw(8, 64 + 16 * i + 4 * j, s1);
    }
  }
  a.addi(t4, s1, 64);
  a.amp_ldw(1, t4);
  a.addi(t5, s1, 64);
  a.amp_mac(1, t5, t5);             // x = row 0
  a.amp_mac(1, t5, t5);             // x = row 1
  a.addi(t6, s1, 128);
  a.amp_st(1, t6);
  a.la(t0, "worker");
  for (int w = 0; w < 3; ++w) {
    a.add(a1, s0, s0);
    a.addi(a1, a1, 20 * (w + 1));
    a.run(zero, t0, a1);
  }
  a.join();
  a.addi(a0, s0, 'A');
  a.cputc(a0);
  a.addi(a0, zero, '\n');
  a.cputc(a0);
  a.addi(t0, zero, 1);
  a.sync(t0);
  a.addi(a2, s0, 1);                // send 16 bytes to tile + 1 (mod 8), receive from tile - 1
  a.andi(a2, a2, 7);
  a.addi(a3, zero, 1);
  a.xdst(a2, a3);
  a.addi(a4, zero, 16);
  a.send(s1, a4);
  a.addi(a2, s0, 7);
  a.andi(a2, a2, 7);
  a.xsrc(a2);
  a.addi(a5, s1, 256);
  a.recv(a5, a4);
  a.xwait();
  a.halt(s2);
  a.label("worker");                // sum 1..a0 into kData + 512 + 4 * thread, print it
  a.csrr(t1, 0xcc2);
  a.slli(t1, t1, 2);
  a.li(t2, kData + 512);
  a.add(t1, t1, t2);
  a.addi(t3, zero, 0);
  a.label("sum");
  a.add(t3, t3, a0);
  a.addi(a0, a0, -1);
  a.bne(a0, zero, "sum");
  a.sw(t3, 0, t1);
  a.andi(t4, t3, 15);
  a.addi(t4, t4, 'a');
  a.cputc(t4);
  a.addi(t4, zero, '\n');
  a.cputc(t4);
  a.wexit(t3);
  return a;
}

struct TileResult {
  int32_t exit_code = 0;
  uint64_t cycle = 0, instret = 0;
  std::vector<uint64_t> thread_instret, stall, exchange_stall;
  std::array<uint32_t, 32> x{}, f{};
  uint32_t fcsr = 0;
  std::vector<uint32_t> memory;
  std::vector<ConsoleLine> console;
  std::vector<std::tuple<int, uint32_t, uint32_t, std::vector<uint32_t>, uint32_t, uint64_t>> posts;
  bool operator==(const TileResult&) const = default;
};

TileParams tile_params(uint32_t tile) {
  TileParams p;
  p.id = {tile, 0, kTiles, 1};
  p.sram_bytes = 256 * 1024;
  p.thread_quantum = 64;  // many quanta: the workers and the supervisor interleave often
  p.core = test_core();   // jit (unless IPUSIM_ISS=interp): the tiles share one Program's translations
  p.jit_hot_entries = 2;  // tiles on different threads translating at the same time
  return p;
}

// Runs the tile to its halt: each sync released 7 * (tile + 1) cycles later, each
// exchange 13 cycles later.
TileResult run_tile(TileCore& core, CaptureConsole& console, Sram& sram, const Program& program) {
  console.lines.clear();
  load_image(sram, program);  // a rerun starts from the image, as a host's load leaves it
  core.reset();
  TileResult r;
  for (;;) {
    const StopInfo s = core.run();
    if (s.reason == StopReason::Sync) {
      core.release_sync(core.cycle() + 7 * (core.params().id.tile + 1));
    } else if (s.reason == StopReason::Exchange) {
      for (const ExchangePost& p : core.exchange_posts())
        r.posts.emplace_back(static_cast<int>(p.kind), p.addr, p.len, p.peers, p.pc, p.cycle);
      core.release_exchange(core.cycle() + 13);
    } else {
      EXPECT_EQ(s.reason, StopReason::Halted) << (s.fault ? ipusim::to_text(*s.fault) : "");
      r.exit_code = s.exit_code;
      break;
    }
  }
  r.cycle = core.cycle();
  r.instret = core.instret();
  for (uint32_t t = 0; t <= core.params().workers; ++t) {
    const ThreadStats st = core.thread_stats(t);
    r.thread_instret.push_back(st.instret);
    r.stall.push_back(st.stall_cycles);
    r.exchange_stall.push_back(st.exchange_stall_cycles);
  }
  const ThreadRegisters regs = core.registers(0);
  r.x = regs.x;
  r.f = regs.f;
  r.fcsr = regs.fcsr;
  std::vector<uint8_t> bytes(1024);
  EXPECT_TRUE(core.read(kData, bytes));
  r.memory.resize(bytes.size() / 4);
  std::memcpy(r.memory.data(), bytes.data(), bytes.size());
  r.console = console.lines;
  return r;
}

struct Tile {
  std::unique_ptr<CaptureConsole> console = std::make_unique<CaptureConsole>();
  std::unique_ptr<Sram> sram;
  std::unique_ptr<TileCore> core;
};

std::vector<Tile> make_tiles(const std::shared_ptr<const Program>& program) {
  std::vector<Tile> tiles(kTiles);
  for (uint32_t i = 0; i < kTiles; ++i)
  {
    tiles[i].sram = loaded_sram(tile_params(i).sram_bytes, *program);
    tiles[i].core = std::make_unique<TileCore>(tile_params(i), program, *tiles[i].sram, tiles[i].console.get());
  }
  return tiles;
}

TEST(IssConcurrency, ProgramsLoadOnManyThreadsAtOnce) {
  const Asm a = tile_program();
  std::vector<std::shared_ptr<const Program>> programs(kHostThreads);
  std::vector<std::thread> threads;
  for (uint32_t k = 0; k < kHostThreads; ++k)
    threads.emplace_back([&, k] { programs[k] = make_program(a); });
  for (std::thread& t : threads) t.join();
  for (uint32_t k = 1; k < kHostThreads; ++k) {
    ASSERT_EQ(programs[k]->decoded().words, programs[0]->decoded().words);
    for (uint32_t i = 0; i <= programs[0]->decoded().words; ++i) {
      const DecodedInsn &x = programs[k]->decoded().insns[i], &y = programs[0]->decoded().insns[i];
      ASSERT_EQ(x.handler, y.handler) << i;  // the same fast-loop labels
      ASSERT_EQ(x.imm, y.imm) << i;
    }
  }
}

TEST(IssConcurrency, TilesSharingAProgramOnFourThreadsMatchSequential) {
  const std::shared_ptr<const Program> program = make_program(tile_program());
  // The sequential reference runs on a Program of its own: on the translator the
  // shared one starts without translations, so the host threads translate it at once.
  const std::shared_ptr<const Program> reference = make_program(tile_program());
  std::vector<Tile> reference_tiles = make_tiles(reference);
  std::vector<TileResult> expected(kTiles);
  for (uint32_t i = 0; i < kTiles; ++i)
    expected[i] = run_tile(*reference_tiles[i].core, *reference_tiles[i].console, *reference_tiles[i].sram, *reference);
  std::vector<Tile> tiles = make_tiles(program);

  // Sanity: the tiles differ from each other and did what the program says.
  for (uint32_t i = 0; i < kTiles; ++i) {
    SCOPED_TRACE(i);
    const TileResult& r = expected[i];
    ASSERT_EQ(r.console.size(), 4u);
    EXPECT_EQ(r.console.back(), (ConsoleLine{0, std::string(1, static_cast<char>('A' + i))}));
    ASSERT_EQ(r.posts.size(), 2u);
    EXPECT_EQ(std::get<3>(r.posts[0]), (std::vector<uint32_t>{(i + 1) % kTiles}));
    EXPECT_EQ(std::get<3>(r.posts[1]), (std::vector<uint32_t>{(i + 7) % kTiles}));
    EXPECT_EQ(r.exchange_stall[0], 13u);
    EXPECT_EQ(r.fcsr, i == 0 || i == 3 ? 0u : 1u);  // tile / 3 and its root are exact for 0 and 3 only
    // AMP: acc[r] = sum_j (tile + r)(j + 1) * (x0[j] + x1[j]) with x0 = tile * (1..4),
    // x1 = (tile + 1) * (1..4): (tile + r) * (2 tile + 1) * 30.
    for (uint32_t row = 0; row < 4; ++row)
      EXPECT_EQ(r.memory[32 + row], fbits(static_cast<float>((i + row) * (2 * i + 1) * 30))) << row;
    if (i > 0) {
      EXPECT_NE(r.memory[0], expected[0].memory[0]);
    }
  }

  // Every host thread runs its tiles (k, k + 4) in turn, kRounds times, all at once.
  std::vector<std::vector<TileResult>> got(kTiles);
  std::atomic<uint32_t> ready{0};
  std::vector<std::thread> threads;
  for (uint32_t k = 0; k < kHostThreads; ++k)
    threads.emplace_back([&, k] {
      ++ready;
      while (ready.load() < kHostThreads) std::this_thread::yield();  // start together
      for (uint32_t round = 0; round < kRounds; ++round)
        for (uint32_t i = k; i < kTiles; i += kHostThreads)
          got[i].push_back(run_tile(*tiles[i].core, *tiles[i].console, *tiles[i].sram, *program));
    });
  for (std::thread& t : threads) t.join();
  if (effective_core(test_core()) == TileParams::Core::jit) {
    EXPECT_TRUE(tiles[0].core->jit_stats().active);
    EXPECT_GT(tiles[0].core->jit_stats().program_regions, 0u);
  }
  for (uint32_t i = 0; i < kTiles; ++i) {
    ASSERT_EQ(got[i].size(), kRounds);
    for (uint32_t round = 0; round < kRounds; ++round)
      EXPECT_TRUE(got[i][round] == expected[i]) << "tile " << i << " round " << round;
  }
}

}  // namespace
