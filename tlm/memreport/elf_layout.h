// What a tile program's ELF says about its memory before it runs (docs/memory_report.md):
// its allocated sections, its largest symbols, and the runtime's link-time parameters
// (tile.ld's __ipu_stack_size, __ipu_worker_stack_size, __heap_start, __ipu_image_limit),
// from which runtime_regions() lays out the stacks and the heap as crt0 does for a tile.
// Read with elfutils' libelf; plain C++.
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace ipusim::memreport {

// The file is not a readable 32-bit ELF; the message names the file and why.
class ElfLayoutError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// What a section (or a region) holds.
enum class Kind { code, rodata, data, bss, heap, stack, free };
const char* kind_name(Kind k);

struct Section {
  std::string name;
  uint32_t address = 0, size = 0;
  Kind kind = Kind::data;
};

struct Symbol {
  std::string name;
  uint32_t address = 0, size = 0;
  bool function = false;
  std::string section;  // the section it lies in ("" if none)
};

struct ElfLayout {
  std::string path;
  std::vector<Section> sections;  // allocated, non-empty, by address
  std::vector<Symbol> symbols;    // functions and objects of non-zero size, largest first (then by address)
  // tile.ld's parameters; unset: not linked with the ipusim runtime.
  std::optional<uint32_t> stack_bytes, worker_stack_bytes, heap_start, image_limit;

  uint32_t bytes_of(Kind k) const;  // the sections of that kind, summed
  bool has_runtime() const { return stack_bytes && worker_stack_bytes && heap_start; }
};

// Reads `path`. Throws ElfLayoutError.
ElfLayout read_elf_layout(const std::string& path);

// One region of a tile's SRAM: [begin, end).
struct Region {
  std::string name;  // "code", "rodata", "data", "bss", "heap", "worker 1 stack", ..., "supervisor stack"
  Kind kind = Kind::data;
  uint32_t begin = 0, end = 0;
  int thread = -1;   // a stack's thread (0 = supervisor, 1.. = workers), else -1
  uint32_t size() const { return end - begin; }
};

// The SRAM of a tile of `sram_bytes` with `workers` worker contexts as the runtime lays it
// out (crt0.S, docs/firmware.md "Memory layout"), from the bottom up: the sections by kind
// (neighbouring sections of one kind merged), the heap from __heap_start to the worker
// stacks, worker 1 .. workers, the supervisor's at the top. Empty without the runtime's
// parameters; the heap is empty when the image and stacks do not fit (crt0 halts then).
std::vector<Region> runtime_regions(const ElfLayout& elf, uint32_t sram_bytes, uint32_t workers);

}  // namespace ipusim::memreport
