// `ipusim run --core DIR` on a faulting kernel, read back by gdb-multiarch (docs/
// debugging.md, "Core files"): the backtrace names the faulting function, every alive
// thread is listed, and another tile's SRAM is reachable at its mirror window; the core's
// first NT_PRSTATUS is the faulting thread, numbered tile * 8 + thread + 1.
#include <gtest/gtest.h>

#include <elf.h>
#include <fmt/format.h>

#include <cstring>
#include <fstream>
#include <regex>

#include <nlohmann/json.hpp>

#include "elf_image.h"
#include "fwtest_env.h"

namespace ipusim::fwtest {
namespace {

// tiny4: four GC200 tiles; every tile's worker executes `halt` (a fault), the first one
// in simulated time ends the run.
struct CoreRun {
  fs::path dir, elf, core;
  nlohmann::json error;
  ProcessResult run;
};

CoreRun run_with_core(const std::string& name) {
  CoreRun r;
  r.dir = scratch_dir("CoreFile", name);
  r.elf = env().firmware_dir / "faults" / "fault_worker_halt.elf";
  const fs::path json = r.dir / "run.json";
  r.run = run_process({env().ipusim.string(), "run", "--config", (env().config.parent_path() / "tiny4.yaml").string(),
                       "--elf", r.elf.string(), "--quiet", "--json", json.string(), "--core", (r.dir / "cores").string()},
                      r.dir / "ipusim.stdout", r.dir / "ipusim.stderr");
  r.core = r.dir / "cores" / "ipu0.core";
  std::ifstream in(json);
  if (in) r.error = nlohmann::json::parse(in)["error"];
  return r;
}

TEST(CoreFile, GdbBacktracesTheFaultingThreadAndListsEveryThread) {
  if (std::string(IPUSIM_GDB).empty()) GTEST_SKIP() << "gdb-multiarch not found (scripts/deps.sh installs it)";
  const CoreRun r = run_with_core("gdb");
  SCOPED_TRACE("ipusim stderr:\n" + r.run.err);
  ASSERT_TRUE(r.run.exited && r.run.exit_status == 3) << r.run.describe();
  ASSERT_TRUE(fs::exists(r.core)) << "no core at " << r.core;
  EXPECT_NE(r.run.err.find("ipusim: core file " + r.core.string()), std::string::npos);
  ASSERT_TRUE(r.error.is_object());
  const uint32_t tile = r.error["tile"], thread = r.error["thread"];

  ElfImage elf = ElfImage::load(r.elf);
  const uint32_t site = elf.require_symbol("fault_site");
  // Tile 3's code at its mirror window: a word of it, as the ELF has it.
  const uint32_t mirror = 0x8000'0000u + 3 * 0x10'0000u + site;
  const ProcessResult gdb = run_process(
      {IPUSIM_GDB, "-batch", "-nx", "-ex", "bt", "-ex", "info threads", "-ex", fmt::format("x/1wx {:#x}", mirror),
       r.elf.string(), r.core.string()},
      r.dir / "gdb.stdout", r.dir / "gdb.stderr");
  SCOPED_TRACE("gdb stdout:\n" + gdb.out + "\ngdb stderr:\n" + gdb.err);
  ASSERT_TRUE(gdb.exited) << gdb.describe();
  EXPECT_NE(gdb.out.find("#0  halt_from_worker ()"), std::string::npos) << "the backtrace misses the faulting function";
  EXPECT_NE(gdb.out.find("fault_worker_halt.c:"), std::string::npos);
  EXPECT_NE(gdb.out.find("in worker ("), std::string::npos) << "the backtrace does not unwind to the caller";
  EXPECT_NE(gdb.out.find("Program terminated with signal SIGILL"), std::string::npos);
  // The faulting thread is gdb's thread 1 and selected; the four supervisors and the four
  // workers that ran are listed.
  EXPECT_NE(gdb.out.find(fmt::format("* 1    LWP {} ", tile * 8 + thread + 1)), std::string::npos);
  for (uint32_t t = 0; t < 4; ++t)
    for (uint32_t th : {0u, 1u})
      EXPECT_NE(gdb.out.find(fmt::format("LWP {} ", t * 8 + th + 1)), std::string::npos) << "tile " << t << " thread " << th;
  EXPECT_NE(gdb.out.find(fmt::format("{:#x}:\t{:#010x}", mirror, elf.word_at(site).value())), std::string::npos)
      << "tile 3's SRAM is not at its mirror window";
}

TEST(CoreFile, FirstThreadIsTheFaultingOneWithItsPc) {
  const CoreRun r = run_with_core("layout");
  ASSERT_TRUE(r.error.is_object()) << r.run.err;
  std::ifstream in(r.core, std::ios::binary);
  const std::string b((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  ASSERT_GE(b.size(), sizeof(Elf32_Ehdr));
  Elf32_Ehdr eh;
  std::memcpy(&eh, b.data(), sizeof eh);
  EXPECT_EQ(eh.e_ident[EI_CLASS], ELFCLASS32);
  EXPECT_EQ(eh.e_type, ET_CORE);
  EXPECT_EQ(eh.e_machine, EM_RISCV);
  Elf32_Phdr note;
  std::memcpy(&note, b.data() + eh.e_phoff, sizeof note);
  ASSERT_EQ(note.p_type, PT_NOTE);
  // Notes: NT_PRPSINFO, then the first thread's NT_PRSTATUS.
  size_t at = note.p_offset;
  std::vector<std::pair<uint32_t, size_t>> notes;  // type, descriptor offset
  while (at + sizeof(Elf32_Nhdr) <= note.p_offset + note.p_filesz) {
    Elf32_Nhdr h;
    std::memcpy(&h, b.data() + at, sizeof h);
    const size_t desc = at + sizeof h + ((h.n_namesz + 3) & ~3u);
    notes.push_back({h.n_type, desc});
    at = desc + ((h.n_descsz + 3) & ~3u);
  }
  ASSERT_GE(notes.size(), 3u);
  EXPECT_EQ(notes[0].first, uint32_t(NT_PRPSINFO));
  ASSERT_EQ(notes[1].first, uint32_t(NT_PRSTATUS));
  EXPECT_EQ(notes[2].first, uint32_t(NT_FPREGSET));
  uint32_t pid = 0, pc = 0;
  std::memcpy(&pid, b.data() + notes[1].second + 24, 4);
  std::memcpy(&pc, b.data() + notes[1].second + 72, 4);
  EXPECT_EQ(pid, r.error["tile"].get<uint32_t>() * 8 + r.error["thread"].get<uint32_t>() + 1);
  EXPECT_EQ(pc, r.error["pc"].get<uint32_t>());
  // 4 tiles x (supervisor + the worker that ran), each NT_PRSTATUS + NT_FPREGSET.
  EXPECT_EQ(notes.size(), 1u + 2u * 8u);
}

}  // namespace
}  // namespace ipusim::fwtest
