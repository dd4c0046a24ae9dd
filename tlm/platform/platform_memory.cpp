// What the memory watch measured on each loaded tile (docs/memory_report.md): the ISS's
// stacks and buffers, and the runtime's heap break and limit read from the tile's SRAM
// (sbrk.c's ipu_brk and __ipu_heap_limit, located by the program's symbols).
#include <array>

#include "platform/platform.h"

namespace ipusim::platform {

namespace {

std::optional<uint32_t> sram_word(const iss::TileCore& core, const std::optional<uint32_t>& addr) {
  if (!addr) return std::nullopt;
  std::array<uint8_t, 4> b{};
  if (!core.read(*addr, b)) return std::nullopt;
  return uint32_t{b[0]} | uint32_t{b[1]} << 8 | uint32_t{b[2]} << 16 | uint32_t{b[3]} << 24;
}

}  // namespace

std::vector<memreport::TileMemory> Platform::memory_use() const {
  std::vector<memreport::TileMemory> out;
  for (uint32_t i = 0; i < ipus_.size(); ++i)
    for (uint32_t t = 0; t < ipus_[i]->tile_count(); ++t) {
      const tile::Tile& tile = ipus_[i]->tile(t);
      const iss::TileCore* core = tile.core();
      if (!core) continue;
      memreport::TileMemory m;
      m.ipu = i;
      m.tile = t;
      m.sram_bytes = core->params().sram_bytes;
      for (uint32_t h = 0; h <= core->params().workers; ++h) {
        const iss::StackUse s = core->stack_use(h);
        m.stacks.push_back(memreport::ThreadStack{h, s.base, s.top, s.lowest_sp});
      }
      const iss::Program& program = core->program();
      const std::optional<uint32_t> brk = sram_word(*core, program.symbol("ipu_brk"));
      if (brk && *brk != 0) m.heap_break = brk;  // 0: sbrk never ran (the break is __heap_start)
      m.heap_limit = sram_word(*core, program.symbol("__ipu_heap_limit"));
      const iss::BufferUse& b = core->buffer_use();
      m.buffers_in = b.in;
      m.buffers_out = b.out;
      m.posts_in = b.posts_in;
      m.posts_out = b.posts_out;
      m.stack_overflow = tile.fault() && tile.fault()->kind == "stack overflow";
      out.push_back(std::move(m));
    }
  return out;
}

}  // namespace ipusim::platform
