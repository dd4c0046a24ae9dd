// The ISS against qemu-riscv32, an independent RV32IMF implementation (docs/iss.md
// "Translator (--iss jit)", Tests): seeded random RV32IMF programs (rv32imf_random_program.h)
// are built twice from the same body, once ending in a tile halt and once ending in the
// Linux write(1, data, size) + exit(0) of firmware/runtime/io_linux.S, linked at the same
// addresses (qemu user mode maps the ELF where it says, like the firmware's qemu twins).
// The bytes qemu writes (the data region, then x0..x31, f0..f31 and fcsr as the epilogue
// stored them) must equal the tile's on the interpreter, on the translator translating
// every region at its first entry, and on the translator at its default hotness (4:
// interpreted entries first, then translated code picking up mid-program).
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>

#include "iss_harness.h"
#include "qemu_user.h"
#include "rv32imf_random_program.h"

namespace {

using namespace isstest;
using namespace rvasm;

// Programs per run: each costs one qemu process (30 .. 80 ms of mostly start-up, kBatch
// of them at once) and three tile runs: 160 take about 10 s on the development machine
// (2 cores) with a CI run loading both (200: 13 s).
constexpr uint32_t kSeeds = 160;
constexpr uint32_t kBatch = 8;
constexpr uint32_t kLinuxWrite = 64, kLinuxExit = 93;

testelf::Image image_of(const Asm& a, const std::vector<uint8_t>& data) {
  testelf::Image img;
  img.code = a.finish();
  img.code_addr = img.entry = a.base();
  img.data = data;
  img.data_addr = kData;
  img.bss_bytes = kDumpBytes - kRandomDataBytes;
  img.page = 4096;  // qemu mmaps the segments
  return img;
}

Asm tile_program(uint32_t seed) {
  Asm a;
  Rv32imfGenerator(seed).body(a, kData);
  a.halt(zero);
  return a;
}

Asm qemu_program(uint32_t seed) {
  Asm a;
  Rv32imfGenerator(seed).body(a, kData);
  a.li(a7, kLinuxWrite);
  a.li(a0, 1);
  a.li(a1, kData);
  a.li(a2, kDumpBytes);
  a.ecall();
  a.li(a7, kLinuxExit);
  a.li(a0, 0);
  a.ecall();
  return a;
}

std::vector<uint8_t> initial_data(uint32_t seed) { return Rv32imfGenerator::initial_data(seed); }

// The dump's bytes on a tile of `core` at `hot`, or empty if it did not halt.
std::vector<uint8_t> run_tile(uint32_t seed, TileParams::Core core, uint32_t hot) {
  TileParams p = test_params();
  p.core = core;
  p.jit_hot_entries = hot;
  Harness h(tile_program(seed), p, image_of(tile_program(seed), initial_data(seed)));
  h.run();
  EXPECT_EQ(h.stop.reason, StopReason::Halted) << h.fault_message();
  if (core == TileParams::Core::jit) {
    EXPECT_TRUE(h.core.jit_stats().active);
  }
  std::vector<uint8_t> out(kDumpBytes);
  EXPECT_TRUE(h.core.read(kData, out));
  return out;
}

uint32_t word_at(const std::vector<uint8_t>& v, uint32_t off) {
  uint32_t w;
  std::memcpy(&w, v.data() + off, 4);
  return w;
}

// Where byte `off` of the dump is, as a name: "x5", "f17", "fcsr" or "data+0x1c".
std::string field_of(uint32_t off) {
  char buf[32];
  if (off >= kDumpFcsr) return "fcsr";
  if (off >= kDumpF) std::snprintf(buf, sizeof buf, "f%u", (off - kDumpF) / 4);
  else if (off >= kDumpX) std::snprintf(buf, sizeof buf, "x%u", (off - kDumpX) / 4);
  else std::snprintf(buf, sizeof buf, "data+0x%x", off & ~3u);
  return buf;
}

// Every word of the dump: qemu's and the engine's, each difference a failure.
void expect_same_dump(uint32_t seed, const char* engine, const std::vector<uint8_t>& qemu,
                      const std::vector<uint8_t>& tile) {
  for (uint32_t off = 0; off < kDumpBytes; off += 4) {
    const uint32_t q = word_at(qemu, off), t = word_at(tile, off);
    if (q == t) continue;
    ADD_FAILURE() << "seed " << seed << " " << engine << ": " << field_of(off) << " qemu 0x" << std::hex << q
                  << " ISS 0x" << t;
  }
}

// The seed's qemu ELF written to `path`, executable.
void write_qemu_elf(uint32_t seed, const std::string& path) {
  const auto bytes = testelf::build(image_of(qemu_program(seed), initial_data(seed)));
  std::ofstream(path, std::ios::binary).write(reinterpret_cast<const char*>(bytes.data()),
                                              static_cast<std::streamsize>(bytes.size()));
  std::filesystem::permissions(path, std::filesystem::perms::owner_all);  // qemu execs it: EACCES otherwise
}

TEST(IssVsQemu, RandomRv32imfProgramsMatchQemu) {
  const auto qemu = find_qemu_riscv32();
  if (!qemu) GTEST_SKIP() << "qemu-riscv32 is not on PATH (Debian qemu-user; scripts/deps.sh installs it)";
  const auto start = std::chrono::steady_clock::now();
  uint32_t programs = 0;
  // kBatch qemu processes at once: most of a qemu run is its start-up, which overlaps.
  for (uint32_t first = 1; first <= kSeeds && !HasFailure(); first += kBatch) {
    std::vector<std::pair<uint32_t, std::unique_ptr<ipusim::proc::Child>>> running;
    for (uint32_t seed = first; seed < first + kBatch && seed <= kSeeds; ++seed) {
      const std::string elf = testing::TempDir() + "/qemu_random_test_" + std::to_string(seed - first) + ".elf";
      write_qemu_elf(seed, elf);
      running.emplace_back(seed, start_qemu(*qemu, elf));
    }
    for (const auto& [seed, qemu_run] : running) {
      const auto interp = run_tile(seed, TileParams::Core::interp, 1);
      // Without the translator a jit tile is an interp tile: nothing more to compare.
      const bool jit = translator_built();
      const auto jit_hot1 = jit ? run_tile(seed, TileParams::Core::jit, 1) : interp;
      const auto jit_hot4 = jit ? run_tile(seed, TileParams::Core::jit, 4) : interp;
      const QemuRun q = finish_qemu(*qemu_run);
      if (HasFailure()) continue;  // collect the rest of the batch's processes
      EXPECT_EQ(q.status, 0) << "seed " << seed << ": qemu-riscv32 did not exit(0)";
      EXPECT_EQ(q.out.size(), kDumpBytes) << "seed " << seed << ": qemu wrote the wrong amount";
      if (HasFailure()) continue;
      ++programs;
      // One seed's differences are enough to read: HasFailure() stops the rest.
      expect_same_dump(seed, "interp", q.out, interp);
      expect_same_dump(seed, "jit (hot 1)", q.out, jit_hot1);
      expect_same_dump(seed, "jit (hot 4)", q.out, jit_hot4);
    }
  }
  EXPECT_EQ(programs, kSeeds);
  std::printf("%u programs in %.1f s\n", programs,
              std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
}

}  // namespace
