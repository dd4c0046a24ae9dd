// The ISS against qemu-riscv32, an independent RV32IMF implementation (docs/iss.md
// "Translator (--iss jit)", Tests): seeded random RV32IMF programs (rv32imf_random_program.h)
// are built twice from the same body, once ending in a tile halt and once ending in the
// Linux write(1, data, size) + exit(0) of firmware/runtime/io_linux.S, linked at the same
// addresses (qemu user mode maps the ELF where it says, like the firmware's qemu twins).
// The bytes qemu writes (the data region, then x0..x31, f0..f31 and fcsr as the epilogue
// stored them) must equal the tile's on the interpreter, on the translator translating
// every region at its first entry, and on the translator at its default hotness (4:
// interpreted entries first, then translated code picking up mid-program).
#include <cinttypes>
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

// Programs per run: each costs one qemu process (~30 ms here) and three tile runs; 300
// take about 10 s on the development machine (2 cores, shared).
constexpr uint32_t kSeeds = 300;
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

std::vector<uint8_t> initial_data(uint32_t seed) { return Rv32imfGenerator(seed).initial_data(); }

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

// Every word of the dump: qemu's and the engine's; true if all equal.
bool expect_same_dump(uint32_t seed, const char* engine, const std::vector<uint8_t>& qemu,
                      const std::vector<uint8_t>& tile) {
  bool same = true;
  for (uint32_t off = 0; off < kDumpBytes; off += 4) {
    const uint32_t q = word_at(qemu, off), t = word_at(tile, off);
    if (q == t) continue;
    same = false;
    ADD_FAILURE() << "seed " << seed << " " << engine << ": " << field_of(off) << " qemu 0x" << std::hex << q
                  << " ISS 0x" << t;
  }
  return same;
}

TEST(IssVsQemu, RandomRv32imfProgramsMatchQemu) {
  const auto qemu = find_qemu_riscv32();
  if (!qemu) GTEST_SKIP() << "qemu-riscv32 is not on PATH (Debian qemu-user; scripts/deps.sh installs it)";
  const std::string elf = testing::TempDir() + "/qemu_random_test.elf";
  const auto start = std::chrono::steady_clock::now();
  for (uint32_t seed = 1; seed <= kSeeds; ++seed) {
    {
      const auto bytes = testelf::build(image_of(qemu_program(seed), initial_data(seed)));
      std::ofstream(elf, std::ios::binary).write(reinterpret_cast<const char*>(bytes.data()),
                                                 static_cast<std::streamsize>(bytes.size()));
      std::filesystem::permissions(elf, std::filesystem::perms::owner_all);  // qemu execs it: EACCES otherwise
    }
    const QemuRun q = run_qemu(*qemu, elf);
    ASSERT_EQ(q.status, 0) << "seed " << seed << ": qemu-riscv32 " << elf << " did not exit(0)";
    ASSERT_EQ(q.out.size(), kDumpBytes) << "seed " << seed << ": qemu wrote the wrong amount";
    bool same = expect_same_dump(seed, "interp", q.out, run_tile(seed, TileParams::Core::interp, 1));
    same &= expect_same_dump(seed, "jit (hot 1)", q.out, run_tile(seed, TileParams::Core::jit, 1));
    same &= expect_same_dump(seed, "jit (hot 4)", q.out, run_tile(seed, TileParams::Core::jit, 4));
    if (!same || HasFailure()) break;  // one seed's differences are enough to read
  }
  std::printf("%u programs in %.1f s\n", kSeeds,
              std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
}

}  // namespace
