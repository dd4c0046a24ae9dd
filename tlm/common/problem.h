// The one problem record: a fault, a failed exchange, a deadlock, a bad copy, a DMA or
// register error, as fields from where it is found (the ISS, the exchange plan, the
// gateway, the sync controller, the host interface) to where it is shown (the CLI's
// text and JSON, the ERR_* registers, the driver's exceptions). Text is made only at
// those edges, by to_text(); nothing ever parses it back.
//
// Plain C++ (no SystemC): the ISS builds these for its faults.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include <ipu/hostif_regs.h>

namespace ipusim {

// The classes of problem: exactly the register map's ERR_* codes (one list).
enum class ProblemCode : uint32_t {
  None = IPU_ERR_NONE,
  TileFault = IPU_ERR_TILE_FAULT,
  Exchange = IPU_ERR_EXCHANGE,
  Deadlock = IPU_ERR_DEADLOCK,
  SmemRange = IPU_ERR_SMEM_RANGE,
  SmemAlign = IPU_ERR_SMEM_ALIGN,
  Stream = IPU_ERR_STREAM,
  DmaHostAddr = IPU_ERR_DMA_HOST_ADDR,
  DmaDesc = IPU_ERR_DMA_DESC,
  DmaTile = IPU_ERR_DMA_TILE,
  Boot = IPU_ERR_BOOT,
  Reg = IPU_ERR_REG,
  State = IPU_ERR_STATE,
  StreamOverflow = IPU_ERR_STREAM_OVERFLOW,
  Budget = IPU_ERR_BUDGET,
  Interrupted = IPU_ERR_INTERRUPTED,
  Model = IPU_ERR_MODEL,
  Output = IPU_ERR_OUTPUT,
};

// "TILE_FAULT", "EXCHANGE", ... (the register map's names without IPU_ERR_); "UNKNOWN":
// the generated ipu_err_name() of ipu/hostif_regs.h.
const char* code_name(ProblemCode code);

// A tile of a deadlock: one that never arrived ("halted at cycle 24", "waits at zone 2",
// "did not arrive") or one that waits ("zone 1, since cycle 30").
struct SyncTile {
  uint32_t ipu = 0, tile = 0;
  std::string why;
  bool operator==(const SyncTile&) const = default;
};

// A thread's architectural state: a fault's registers (the ISS fills them where it raises
// the fault), the core files' and debuggers' view of a thread.
struct ThreadRegisters {
  uint32_t pc = 0;                // the next instruction (a fault: the faulting one)
  std::array<uint32_t, 32> x{};
  std::array<uint32_t, 32> f{};   // raw IEEE bit patterns
  uint32_t fcsr = 0;              // frm << 5 | fflags
  bool operator==(const ThreadRegisters&) const = default;
};

struct Problem {
  static constexpr uint32_t kNone = 0xFFFF'FFFFu;  // an id or pc the problem does not name

  ProblemCode code = ProblemCode::None;
  std::string kind;              // within the class: "misaligned access", "send without receive",
                                 // "length mismatch", "beyond streaming memory", ...
  uint32_t ipu = kNone;          // system-wide IPU of the tile named first
  uint32_t tile = kNone;         // its index in that IPU
  uint32_t thread = kNone;       // 0 = supervisor
  uint32_t pc = kNone;
  // Where pc lies in the program's source, from its ELF (DWARF, else the symbol table):
  // filled at the platform edge (the run's outcome) or by the driver, empty when unknown.
  std::string function;          // "vec_add"
  std::string source;            // "kernels/vecadd.c:42" (docs/debugging.md: how the path is shortened)
  std::optional<uint64_t> address;    // tile, streaming-memory or host address; stream id
  std::optional<uint64_t> superstep;  // syncs the tile (or IPU) had completed
  std::optional<uint64_t> cycle;      // tile cycle it was found at
  // The second tile of a problem between two (the receiver of a send, the sender of a
  // receive).
  struct Peer {
    uint32_t ipu = kNone, tile = kNone, pc = kNone;
    std::string function, source;  // pc located, as Problem::function / source
    bool operator==(const Peer&) const = default;
  };
  std::optional<Peer> peer;
  std::string detail;            // what happened, e.g. "load of 4 bytes at 0x00000002"
  uint32_t insn = 0;             // faults: the instruction word
  std::string disasm;            // faults: it disassembled (empty: none)
  // Deadlocks: every tile that never arrived and every one that waits ((ipu, tile) order).
  std::vector<SyncTile> absent;
  std::vector<SyncTile> waiters;
  // Faults: the faulting thread's registers at the fault (pc = the faulting instruction).
  std::optional<ThreadRegisters> registers;

  bool has_tile() const { return tile != kNone; }
  bool operator==(const Problem&) const = default;
};

// The text of a problem, e.g.
//   "tile 12 (ipu 0) thread 3 pc 0x00040a10 in vec_add (kernels/vecadd.c:42): misaligned
//    access: load ... [lw a0, 2(a1) = 0x0025a503]"
//   "sync deadlock: 2 tile(s) wait at a sync that can never complete: ipu 0 tile 1 (zone 1,
//    since cycle 30), ...; 1 tile(s) never arrive: ipu 0 tile 0 (halted at cycle 24)"
//   "tile 0 sends 16 bytes to tile 1 (pc 0x00040010) but tile 1 posts no receive from
//    tile 0, in superstep 1" (an exchange problem: its detail, then its superstep if set)
std::string to_text(const Problem& p);
// The same, at most max_bytes long: a long list of tiles is summarised ("..., and N more")
// rather than cut mid-sentence; only a text with nothing left to summarise is cut (with
// "..."; an exchange problem's superstep is kept, the sentence before it cut).
std::string to_text(const Problem& p, size_t max_bytes);
// A fault's registers as `ipusim run` prints them after the fault line: pc, then x0..x31
// with their ABI names, f0..f31 (bits and value) and fcsr, four per line, e.g.
//   "zero 0x00000000  ra   0x00040124  sp   0x0009fff0  gp   0x00041800"
std::string registers_text(const ThreadRegisters& r);
// The ABI name of x<i> ("zero", "ra", ..., "t6") and of f<i> ("ft0", ..., "ft11").
const char* x_abi_name(unsigned i);
const char* f_abi_name(unsigned i);
// to_text(p), for test failure messages and logs.
std::ostream& operator<<(std::ostream& out, const Problem& p);

}  // namespace ipusim
