// write_cores: what of a stopped platform goes into each IPU's core (core_dump.h), and
// where; ElfCore (elf_core.h) lays the file out.
#include "platform/core_dump.h"

#include <csignal>
#include <filesystem>
#include <optional>
#include <stdexcept>
#include <system_error>

#include <fmt/format.h>

#include "iss/tile_core.h"
#include "platform/elf_core.h"
#include "platform/platform.h"

namespace ipusim::platform {
namespace {

constexpr uint32_t kPage = 4096;
constexpr uint32_t kMirrorTilesMax = (0x1'0000'0000ull - kMirrorBase) / kMirrorStride;  // 2048

// The tile's SRAM as the core reads it (the host's view: TileCore::read).
std::vector<uint8_t> sram_of(const iss::TileCore& core) {
  std::vector<uint8_t> bytes(core.params().sram_bytes);
  core.read(iss::kSramBase, bytes);
  return bytes;
}

// The runs of pages that are not all zero, at `base` + their offset: a mirror of a tile
// costs what the program touched, not its whole SRAM (1472 tiles x 624 KiB).
void add_mirror(ElfCore& core, const std::vector<uint8_t>& sram, uint32_t base) {
  auto zero_page = [&](size_t at) {
    const size_t end = std::min(sram.size(), at + kPage);
    for (size_t i = at; i < end; ++i)
      if (sram[i]) return false;
    return true;
  };
  size_t at = 0;
  while (at < sram.size()) {
    if (zero_page(at)) {
      at += kPage;
      continue;
    }
    size_t end = at;
    while (end < sram.size() && !zero_page(end)) end += kPage;
    end = std::min(end, sram.size());
    core.add_memory({uint32_t(base + at), std::vector<uint8_t>(sram.begin() + long(at), sram.begin() + long(end))});
    at = end;
  }
}

bool mirrors_fit(const Ipu& ipu) {
  if (ipu.tile_count() > kMirrorTilesMax) return false;
  for (uint32_t t = 0; t < ipu.tile_count(); ++t)
    if (const iss::TileCore* c = ipu.tile(t).core())
      return uint64_t(iss::kSramBase) + c->params().sram_bytes <= kMirrorStride;
  return true;
}

std::string one_line(const Problem* reason) {
  return reason ? to_text(*reason, 79) : std::string("stopped");
}

}  // namespace

int core_signal(const Problem* reason) {
  if (!reason || reason->code != ProblemCode::TileFault) return SIGSTOP;
  if (reason->kind == "illegal instruction") return SIGILL;
  if (reason->kind == "misaligned access") return SIGBUS;
  if (reason->kind == "access fault") return SIGSEGV;
  return SIGTRAP;
}

std::vector<std::string> write_cores(const std::string& dir, const Platform& platform, const Problem* reason,
                                     const std::string& program_name) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) throw std::runtime_error(fmt::format("--core {}: cannot create the folder: {}", dir, ec.message()));
  std::vector<std::string> written;
  for (uint32_t i = 0; i < platform.ipu_count(); ++i) {
    const Ipu& ipu = platform.ipu(i);
    // The native tile and the first thread: the problem's, when it names a booted tile
    // of this IPU; else the lowest booted tile's supervisor.
    std::optional<uint32_t> native;
    uint32_t first_thread = 0;
    if (reason && reason->ipu == i && reason->tile < ipu.tile_count() && ipu.tile(reason->tile).core()) {
      native = reason->tile;
      if (reason->thread != Problem::kNone) first_thread = reason->thread;
    }
    for (uint32_t t = 0; t < ipu.tile_count() && !native; ++t)
      if (ipu.tile(t).core()) native = t;
    if (!native) continue;  // nothing booted on this IPU

    ElfCore core(std::filesystem::path(program_name).filename().string(),
                 fmt::format("ipu {}: {}", i, one_line(reason)));
    const bool named = reason && reason->ipu == i && reason->tile == *native;
    auto thread_of = [&](const iss::TileCore& c, uint32_t tile, uint32_t thread, bool first) {
      ElfCore::Thread th;
      th.id = core_thread_id(tile, thread);
      // Every thread carries the stop's signal, as Linux writes them: BFD keeps the last
      // NT_PRSTATUS's pr_cursig as the core's signal.
      th.signal = core_signal(reason);
      // The faulting thread: its registers as the fault found them (pc = the faulting
      // instruction); registers() would give the pc after it for some faults.
      th.regs = first && named && reason->registers ? *reason->registers : c.registers(thread);
      return th;
    };
    const iss::TileCore& nc = *ipu.tile(*native).core();
    core.add_thread(thread_of(nc, *native, first_thread, true));
    for (uint32_t t = 0; t < ipu.tile_count(); ++t) {
      const iss::TileCore* c = ipu.tile(t).core();
      if (!c) continue;
      for (uint32_t th = 0; th <= c->params().workers; ++th) {
        if (t == *native && th == first_thread) continue;
        if (th > 0 && c->thread_stats(th).starts == 0) continue;  // a worker that never ran
        core.add_thread(thread_of(*c, t, th, false));
      }
    }
    core.add_memory({iss::kSramBase, sram_of(nc)});
    if (mirrors_fit(ipu))
      for (uint32_t t = 0; t < ipu.tile_count(); ++t)
        if (const iss::TileCore* c = ipu.tile(t).core())
          add_mirror(core, sram_of(*c), kMirrorBase + t * kMirrorStride + iss::kSramBase);
    const std::string path = (std::filesystem::path(dir) / fmt::format("ipu{}.core", i)).string();
    core.write(path);
    written.push_back(path);
  }
  return written;
}

}  // namespace ipusim::platform
