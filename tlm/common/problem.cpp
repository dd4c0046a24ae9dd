// to_text() and code_name(): the only place a Problem becomes words (docs/architecture.md,
// "Problems"). Each class reads as it did when its producers wrote strings, so logs and
// scripts that read the CLI's stderr keep working.
#include "common/problem.h"

#include <algorithm>
#include <cstring>
#include <ostream>

#include <fmt/format.h>

namespace ipusim {
namespace {

constexpr size_t kListed = 8;  // tiles named per deadlock list in the full text

// " in vec_add (kernels/vecadd.c:42)", " in vec_add", " at kernels/vecadd.c:42" or "":
// as much of a pc's source as was located.
std::string located(const std::string& function, const std::string& source) {
  if (!function.empty() && !source.empty()) return fmt::format(" in {} ({})", function, source);
  if (!function.empty()) return " in " + function;
  if (!source.empty()) return " at " + source;
  return {};
}

// "tile 3 (ipu 0) thread 0 pc 0x00040120 in main (hello.c:7)": as much as the problem names.
std::string where(const Problem& p) {
  std::string s = fmt::format("tile {} (ipu {})", p.tile, p.ipu);
  if (p.thread != Problem::kNone) s += fmt::format(" thread {}", p.thread);
  if (p.pc != Problem::kNone) s += fmt::format(" pc 0x{:08x}", p.pc) + located(p.function, p.source);
  return s;
}

// A problem whose sentence its producer wrote (an exchange plan's, a deadlock's stream
// wait) names its pcs in numbers only: their located source follows the sentence, e.g.
// " (pc 0x00040010 in send_halo (jacobi.c:88); tile 1 pc 0x00040200 in main (jacobi.c:120))".
std::string located_pcs(const Problem& p) {
  std::string out;
  if (p.pc != Problem::kNone && !located(p.function, p.source).empty())
    out = fmt::format("tile {} pc 0x{:08x}{}", p.tile, p.pc, located(p.function, p.source));
  if (p.peer && p.peer->pc != Problem::kNone && !located(p.peer->function, p.peer->source).empty())
    out += fmt::format("{}tile {} pc 0x{:08x}{}", out.empty() ? "" : "; ", p.peer->tile, p.peer->pc,
                       located(p.peer->function, p.peer->source));
  return out.empty() ? out : " (" + out + ")";
}

std::string tiles(const std::vector<SyncTile>& list, size_t listed) {
  std::string out;
  const size_t shown = std::min(list.size(), listed);
  for (size_t i = 0; i < shown; ++i)
    out += fmt::format("{}ipu {} tile {} ({})", i ? ", " : "", list[i].ipu, list[i].tile, list[i].why);
  if (list.size() > shown) out += fmt::format("{}and {} more", shown ? ", " : "", list.size() - shown);
  return out;
}

// `waiters` / `absent`: how many of each list to name.
std::string deadlock(const Problem& p, size_t waiters, size_t absent) {
  if (!p.waiters.empty()) {
    std::string out = fmt::format("sync deadlock: {} tile(s) wait at a sync that can never complete", p.waiters.size());
    out += ": " + tiles(p.waiters, waiters);
    if (!p.absent.empty()) out += fmt::format("; {} tile(s) never arrive: {}", p.absent.size(), tiles(p.absent, absent));
    return out;
  }
  // The run starved with tiles neither halted nor waiting at a sync.
  if (!p.absent.empty()) return fmt::format("deadlock: {} tile(s) never finished: {}", p.absent.size(), tiles(p.absent, absent));
  return p.detail;
}

// An exchange problem's sentence ends with the superstep it failed in (the syncs its tile
// had completed), when the tile has said it.
std::string superstep_suffix(const Problem& p) {
  if (p.code != ProblemCode::Exchange || !p.superstep) return {};
  return fmt::format(", in superstep {}", *p.superstep);
}

std::string body(const Problem& p) {
  switch (p.code) {
    case ProblemCode::TileFault: {
      std::string out = p.has_tile() ? where(p) + ": " + p.kind : p.kind;
      if (!p.detail.empty()) out += ": " + p.detail;
      if (!p.disasm.empty()) out += fmt::format(" [{} = 0x{:08x}]", p.disasm, p.insn);
      return out;
    }
    case ProblemCode::Deadlock: return deadlock(p, kListed, kListed) + (p.waiters.empty() && p.absent.empty() ? located_pcs(p) : "");
    default: break;
  }
  // A host stream nobody serves in a run without a host: the stream leads.
  if (p.kind == "no host" && p.address)
    return fmt::format("host stream {}: no host connected (use the driver): {}: {}", *p.address, where(p), p.detail);
  // A tile's posting (a copy): located, then what. Exchange plan problems and the host
  // interface's own errors are sentences naming their tiles themselves.
  if (p.has_tile() && p.thread != Problem::kNone) return where(p) + ": " + p.detail;
  return p.detail + located_pcs(p);
}

std::string text(const Problem& p) { return body(p) + superstep_suffix(p); }

}  // namespace

// The register map's table (tools/regmap generates ipu_err_name from registers.yaml).
const char* code_name(ProblemCode code) { return ipu_err_name(uint32_t(code)); }

std::string to_text(const Problem& p) { return text(p); }

std::string to_text(const Problem& p, size_t max_bytes) {
  std::string out = text(p);
  if (out.size() <= max_bytes) return out;
  if (p.code == ProblemCode::Deadlock) {
    // Fewer waiters named first (the tiles that never arrive matter more), then fewer
    // absent ones, down to the counts alone.
    for (size_t w = std::min(p.waiters.size(), kListed) + 1; w-- > 0;) {
      out = deadlock(p, w, kListed);
      if (out.size() <= max_bytes) return out;
    }
    for (size_t a = std::min(p.absent.size(), kListed) + 1; a-- > 0;) {
      out = deadlock(p, 0, a);
      if (out.size() <= max_bytes) return out;
    }
  }
  // An exchange problem keeps its superstep: the sentence is cut before it.
  const std::string suffix = superstep_suffix(p);
  if (!suffix.empty() && max_bytes >= suffix.size() + 3)
    return body(p).substr(0, max_bytes - suffix.size() - 3) + "..." + suffix;
  if (max_bytes < 3) return out.substr(0, max_bytes);
  return out.substr(0, max_bytes - 3) + "...";
}

const char* x_abi_name(unsigned i) {
  static constexpr const char* kNames[32] = {
      "zero", "ra", "sp", "gp", "tp",  "t0",  "t1", "t2", "s0", "s1", "a0",
      "a1",   "a2", "a3", "a4", "a5",  "a6",  "a7", "s2", "s3", "s4", "s5",
      "s6",   "s7", "s8", "s9", "s10", "s11", "t3", "t4", "t5", "t6"};
  return i < 32 ? kNames[i] : "?";
}

const char* f_abi_name(unsigned i) {
  static constexpr const char* kNames[32] = {
      "ft0", "ft1", "ft2",  "ft3",  "ft4", "ft5", "ft6",  "ft7",  "fs0",  "fs1", "fa0",
      "fa1", "fa2", "fa3",  "fa4",  "fa5", "fa6", "fa7",  "fs2",  "fs3",  "fs4", "fs5",
      "fs6", "fs7", "fs8",  "fs9",  "fs10", "fs11", "ft8", "ft9", "ft10", "ft11"};
  return i < 32 ? kNames[i] : "?";
}

std::string registers_text(const ThreadRegisters& r) {
  // Four to a line, in columns (the QEMU / gdb `info registers` habit): the integer
  // registers by ABI name, then the float ones with their value, as gdb shows both.
  std::string out = fmt::format("pc   0x{:08x}  fcsr 0x{:08x} (frm {}, fflags 0x{:02x})\n", r.pc, r.fcsr,
                                (r.fcsr >> 5) & 7, r.fcsr & 0x1f);
  for (unsigned i = 0; i < 32; ++i)
    out += fmt::format("{:<4} 0x{:08x}{}", x_abi_name(i), r.x[i], i % 4 == 3 ? "\n" : "  ");
  for (unsigned i = 0; i < 32; ++i) {
    float v;
    static_assert(sizeof v == sizeof r.f[i]);
    std::memcpy(&v, &r.f[i], sizeof v);
    const std::string cell = fmt::format("{:<4} 0x{:08x} {:g}", f_abi_name(i), r.f[i], v);
    out += i % 4 == 3 ? cell + "\n" : fmt::format("{:<31}", cell);
  }
  return out;
}

std::ostream& operator<<(std::ostream& out, const Problem& p) { return out << to_text(p); }

}  // namespace ipusim
