// libFuzzer entry for the ELF loader: any bytes, loaded as a tile program with
// Program::from_bytes. Checks what must hold for every input: the loader returns a program
// or throws ProgramError naming the input (any other exception escapes and libFuzzer
// reports it), and a program it returns is one a tile can run: sorted, non-overlapping
// segments in the tile address space, an aligned entry in the executable range, a
// decoded-instruction cache of that range, symbols sorted by name, and a source map
// (DWARF, read with libdw) that answers for the entry point.
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "iss/decoded.h"
#include "iss/program.h"
#include "iss/tile_core.h"

namespace iss = ipusim::iss;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const std::string name = "fuzz.elf";
  std::shared_ptr<const iss::Program> p;
  try {
    p = iss::Program::from_bytes(std::vector<uint8_t>(data, data + size), name);
  } catch (const iss::ProgramError& e) {
    if (std::string(e.what()).rfind(name + ": ", 0) != 0) std::abort();
    return 0;
  }
  const auto& segs = p->segments();
  if (segs.empty()) std::abort();
  for (size_t i = 0; i < segs.size(); ++i) {
    const iss::Segment& s = segs[i];
    if (s.vaddr < iss::kSramBase || s.bytes.size() > s.mem_size) std::abort();
    if (uint64_t(s.vaddr) + s.mem_size > 0xffffffffull) std::abort();
    if (i > 0 && uint64_t(segs[i - 1].vaddr) + segs[i - 1].mem_size > s.vaddr) std::abort();
  }
  if (p->code_begin() >= p->code_end() || p->entry() < p->code_begin() || p->entry() >= p->code_end() ||
      (p->entry() & 3) != 0)
    std::abort();
  if (p->decoded().words != (p->code_end() - p->code_begin()) / 4) std::abort();
  for (size_t i = 1; i < p->symbols().size(); ++i)
    if (!(p->symbols()[i - 1].name < p->symbols()[i].name)) std::abort();
  if (p->image_end() < p->code_end()) std::abort();
  (void)p->locate(p->entry());
  return 0;
}
