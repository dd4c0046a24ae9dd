// The report's figures, JSON and text (tile_map.cpp draws the PNG).
#include "memreport/memory_report.h"

#include <fmt/format.h>
#include <ipu/xipu_isa.h>

#include <algorithm>

namespace ipusim::memreport {

namespace {

std::string thread_name(uint32_t thread) {
  return thread == 0 ? std::string("supervisor") : fmt::format("worker {}", thread);
}

uint64_t range_bytes(const std::vector<std::pair<uint32_t, uint32_t>>& ranges) {
  uint64_t n = 0;
  for (const auto& [b, e] : ranges) n += e - b;
  return n;
}

// "8192 B (8 KiB)" for sizes of a KiB and up.
std::string bytes_text(uint64_t n) {
  if (n < 1024) return fmt::format("{} B", n);
  return fmt::format("{} B ({:.1f} KiB)", n, n / 1024.0);
}

struct Extreme {
  uint64_t value = 0;
  const TileMemory* tile = nullptr;
};

std::string where(const TileMemory* t) { return t ? fmt::format("ipu {} tile {}", t->ipu, t->tile) : "-"; }

nlohmann::ordered_json where_json(const TileMemory* t, uint64_t value) {
  if (!t) return nullptr;
  return {{"ipu", t->ipu}, {"tile", t->tile}, {"bytes", value}};
}

// Per thread over the tiles: the stack's size and its high-water marks' max (first tile
// holding it, in IPU and tile order) and mean over the tiles where the thread wrote sp.
struct ThreadSummary {
  uint32_t thread = 0, size = 0, tiles = 0;
  uint64_t sum = 0;
  Extreme max;
  double mean() const { return tiles ? double(sum) / tiles : 0; }
};

std::vector<ThreadSummary> thread_summaries(const std::vector<TileMemory>& tiles) {
  std::vector<ThreadSummary> out;
  for (const TileMemory& t : tiles)
    for (const ThreadStack& s : t.stacks) {
      if (out.size() <= s.thread) out.resize(s.thread + 1);
      ThreadSummary& sum = out[s.thread];
      sum.thread = s.thread;
      if (s.top) sum.size = std::max(sum.size, s.top - s.base);
      if (!s.lowest_sp) continue;
      sum.tiles += 1;
      sum.sum += s.high_water();
      if (!sum.max.tile || s.high_water() > sum.max.value) sum.max = {s.high_water(), &t};
    }
  return out;
}

}  // namespace

std::string StackWarning::text() const {
  const std::string who = fmt::format("ipu {} tile {} {}", ipu, tile, thread_name(thread));
  if (overflow) return fmt::format("{}: stack overflow: sp went {} bytes below its {}-byte stack", who, high_water - size, size);
  return fmt::format("{}: stack high-water {} of {} bytes, {} from its end", who, high_water, size, size - high_water);
}

TileFigures tile_figures(const ElfLayout& elf, const TileMemory& t) {
  TileFigures f;
  if (elf.heap_start) {
    f.image = *elf.heap_start - IPU_SRAM_BASE;
    if (t.heap_break && *t.heap_break > *elf.heap_start) f.heap_used = *t.heap_break - *elf.heap_start;
    if (t.heap_limit && *t.heap_limit > *elf.heap_start) f.heap_size = *t.heap_limit - *elf.heap_start;
  }
  for (const ThreadStack& s : t.stacks) {
    f.stacks_reserved += s.top - s.base;
    f.stacks_used += s.high_water();
  }
  f.used = f.image + f.heap_used + f.stacks_used;
  const uint64_t claimed = uint64_t{f.image} + f.heap_used + f.stacks_reserved;
  f.free = t.sram_bytes > claimed ? static_cast<uint32_t>(t.sram_bytes - claimed) : 0;
  return f;
}

std::vector<StackWarning> stack_warnings(const std::vector<TileMemory>& tiles, uint32_t margin) {
  std::vector<StackWarning> out;
  for (const TileMemory& t : tiles)
    for (const ThreadStack& s : t.stacks) {
      if (!s.top || !s.lowest_sp) continue;
      const uint32_t size = s.top - s.base;
      const uint64_t hw = s.high_water();
      if (hw + margin < size) continue;
      out.push_back(StackWarning{t.ipu, t.tile, s.thread, static_cast<uint32_t>(hw), size, s.lowest_sp < s.base});
    }
  return out;
}

nlohmann::ordered_json elf_json(const ElfLayout& elf, uint32_t sram_bytes, uint32_t workers) {
  nlohmann::ordered_json sections = nlohmann::ordered_json::array();
  for (const Section& s : elf.sections)
    sections.push_back({{"name", s.name}, {"kind", kind_name(s.kind)}, {"address", s.address}, {"bytes", s.size}});
  nlohmann::ordered_json symbols = nlohmann::ordered_json::array();
  for (size_t i = 0; i < elf.symbols.size() && i < kSymbolsListed; ++i) {
    const Symbol& s = elf.symbols[i];
    symbols.push_back({{"name", s.name}, {"kind", s.function ? "function" : "object"}, {"section", s.section},
                       {"address", s.address}, {"bytes", s.size}});
  }
  nlohmann::ordered_json regions = nlohmann::ordered_json::array();
  for (const Region& r : runtime_regions(elf, sram_bytes, workers))
    regions.push_back({{"name", r.name}, {"kind", kind_name(r.kind)}, {"begin", r.begin}, {"end", r.end}, {"bytes", r.size()}});
  nlohmann::ordered_json runtime = nullptr;
  if (elf.has_runtime())
    runtime = {{"supervisor_stack_bytes", *elf.stack_bytes},
               {"worker_stack_bytes", *elf.worker_stack_bytes},
               {"heap_start", *elf.heap_start},
               {"image_limit", elf.image_limit ? nlohmann::ordered_json(*elf.image_limit) : nlohmann::ordered_json(nullptr)}};
  return {{"elf", elf.path},
          {"sram_bytes", sram_bytes},
          {"workers", workers},
          {"bytes", {{"code", elf.bytes_of(Kind::code)}, {"rodata", elf.bytes_of(Kind::rodata)},
                     {"data", elf.bytes_of(Kind::data)}, {"bss", elf.bytes_of(Kind::bss)}}},
          {"runtime", runtime},
          {"sections", sections},
          {"largest_symbols", symbols},
          {"regions", regions}};
}

std::string elf_text(const ElfLayout& elf, uint32_t sram_bytes, uint32_t workers) {
  std::string out = fmt::format("{}: a tile of {} of SRAM, {} workers\n", elf.path, bytes_text(sram_bytes), workers);
  out += fmt::format("  code {}, rodata {}, data {}, bss {}\n", bytes_text(elf.bytes_of(Kind::code)),
                     bytes_text(elf.bytes_of(Kind::rodata)), bytes_text(elf.bytes_of(Kind::data)),
                     bytes_text(elf.bytes_of(Kind::bss)));
  out += "\nsections\n";
  for (const Section& s : elf.sections)
    out += fmt::format("  {:<22} {:<7} 0x{:08x} {:>9}\n", s.name, kind_name(s.kind), s.address, s.size);
  out += fmt::format("\nlargest symbols (of {})\n", elf.symbols.size());
  for (size_t i = 0; i < elf.symbols.size() && i < kSymbolsListed; ++i) {
    const Symbol& s = elf.symbols[i];
    out += fmt::format("  {:<32} {:<8} {:<14} 0x{:08x} {:>9}\n", s.name, s.function ? "function" : "object",
                       s.section, s.address, s.size);
  }
  const std::vector<Region> regions = runtime_regions(elf, sram_bytes, workers);
  if (regions.empty()) {
    out += "\nno stack or heap layout: the ELF has no __ipu_stack_size / __heap_start (not linked with the ipusim runtime)\n";
    return out;
  }
  out += "\nSRAM as the runtime lays it out (crt0)\n";
  for (const Region& r : regions)
    out += fmt::format("  {:<18} 0x{:08x} .. 0x{:08x} {:>9}\n", r.name, r.begin, r.end, r.size());
  return out;
}

nlohmann::ordered_json report_json(const ElfLayout& elf, const std::vector<TileMemory>& tiles,
                                   const ReportOptions& options) {
  const uint32_t sram = tiles.empty() ? 0 : tiles.front().sram_bytes;
  nlohmann::ordered_json out = elf_json(elf, sram, options.workers);
  out["stack_margin"] = options.stack_margin;
  nlohmann::ordered_json rows = nlohmann::ordered_json::array();
  Extreme largest, smallest, heap_max, in_max, free_min;
  for (const TileMemory& t : tiles) {
    const TileFigures f = tile_figures(elf, t);
    nlohmann::ordered_json stacks = nlohmann::ordered_json::array();
    for (const ThreadStack& s : t.stacks)
      stacks.push_back({{"thread", s.thread}, {"base", s.base}, {"top", s.top}, {"bytes", s.top - s.base},
                        {"high_water", s.high_water()},
                        {"lowest_sp", s.lowest_sp ? nlohmann::ordered_json(s.lowest_sp) : nlohmann::ordered_json(nullptr)}});
    const uint64_t in = range_bytes(t.buffers_in), out_bytes = range_bytes(t.buffers_out);
    rows.push_back({{"ipu", t.ipu}, {"tile", t.tile}, {"sram_bytes", t.sram_bytes}, {"used", f.used}, {"free", f.free},
                    {"image", f.image},
                    {"heap", {{"used", f.heap_used}, {"bytes", f.heap_size},
                              {"break", t.heap_break ? nlohmann::ordered_json(*t.heap_break) : nlohmann::ordered_json(nullptr)}}},
                    {"stacks", stacks},
                    {"exchange", {{"in_bytes", in}, {"in_buffers", t.buffers_in.size()}, {"in_posts", t.posts_in},
                                  {"out_bytes", out_bytes}, {"out_buffers", t.buffers_out.size()}, {"out_posts", t.posts_out}}},
                    {"stack_overflow", t.stack_overflow}});
    if (!largest.tile || f.used > largest.value) largest = {f.used, &t};
    if (!smallest.tile || f.used < smallest.value) smallest = {f.used, &t};
    if (!heap_max.tile || f.heap_used > heap_max.value) heap_max = {f.heap_used, &t};
    if (!in_max.tile || in > in_max.value) in_max = {in, &t};
    if (!free_min.tile || f.free < free_min.value) free_min = {f.free, &t};
  }
  nlohmann::ordered_json threads = nlohmann::ordered_json::array();
  for (const ThreadSummary& s : thread_summaries(tiles))
    threads.push_back({{"thread", s.thread}, {"bytes", s.size}, {"tiles", s.tiles},
                       {"high_water_max", where_json(s.max.tile, s.max.value)}, {"high_water_mean", s.mean()}});
  nlohmann::ordered_json warnings = nlohmann::ordered_json::array();
  for (const StackWarning& w : stack_warnings(tiles, options.stack_margin))
    warnings.push_back({{"ipu", w.ipu}, {"tile", w.tile}, {"thread", w.thread}, {"high_water", w.high_water},
                        {"bytes", w.size}, {"overflow", w.overflow}, {"text", w.text()}});
  out["tiles"] = std::move(rows);
  out["summary"] = {{"tiles", tiles.size()},
                    {"largest", where_json(largest.tile, largest.value)},
                    {"smallest", where_json(smallest.tile, smallest.value)},
                    {"heap_used_max", where_json(heap_max.tile, heap_max.value)},
                    {"exchange_in_max", where_json(in_max.tile, in_max.value)},
                    {"free_min", where_json(free_min.tile, free_min.value)},
                    {"threads", threads}};
  out["warnings"] = std::move(warnings);
  return out;
}

std::string report_text(const ElfLayout& elf, const std::vector<TileMemory>& tiles, const ReportOptions& options) {
  if (tiles.empty()) return "memory report: no tile ran\n";
  const uint32_t sram = tiles.front().sram_bytes;
  std::string out = fmt::format("memory report: {} tile(s) of {} SRAM, {}\n", tiles.size(), bytes_text(sram), elf.path);
  out += fmt::format("  image            code {}, rodata {}, data {}, bss {}\n", bytes_text(elf.bytes_of(Kind::code)),
                     bytes_text(elf.bytes_of(Kind::rodata)), bytes_text(elf.bytes_of(Kind::data)),
                     bytes_text(elf.bytes_of(Kind::bss)));
  Extreme largest, smallest, heap_max, in_max, free_min;
  for (const TileMemory& t : tiles) {
    const TileFigures f = tile_figures(elf, t);
    const uint64_t in = range_bytes(t.buffers_in);
    if (!largest.tile || f.used > largest.value) largest = {f.used, &t};
    if (!smallest.tile || f.used < smallest.value) smallest = {f.used, &t};
    if (!heap_max.tile || f.heap_used > heap_max.value) heap_max = {f.heap_used, &t};
    if (!in_max.tile || in > in_max.value) in_max = {in, &t};
    if (!free_min.tile || f.free < free_min.value) free_min = {f.free, &t};
  }
  out += fmt::format("  heap             used at most {} ({})\n", bytes_text(heap_max.value), where(heap_max.tile));
  for (const ThreadSummary& s : thread_summaries(tiles)) {
    if (!s.tiles) continue;
    out += fmt::format("  {:<16} stack {}: high-water max {} ({}), mean {:.0f} B over {} tile(s)\n",
                       thread_name(s.thread), bytes_text(s.size), bytes_text(s.max.value), where(s.max.tile), s.mean(),
                       s.tiles);
  }
  out += fmt::format("  exchange in      at most {} of buffers ({})\n", bytes_text(in_max.value), where(in_max.tile));
  out += fmt::format("  free             at least {} ({})\n", bytes_text(free_min.value), where(free_min.tile));
  out += fmt::format("  largest tile     {}: {} used ({:.1f}% of SRAM)\n", where(largest.tile), bytes_text(largest.value),
                     100.0 * largest.value / sram);
  out += fmt::format("  smallest tile    {}: {} used\n", where(smallest.tile), bytes_text(smallest.value));
  const std::vector<StackWarning> warnings = stack_warnings(tiles, options.stack_margin);
  constexpr size_t kShown = 10;
  for (size_t i = 0; i < warnings.size() && i < kShown; ++i)
    out += fmt::format("  warning: {} (--stack-margin {})\n", warnings[i].text(), options.stack_margin);
  if (warnings.size() > kShown) out += fmt::format("  ... and {} more stack warnings in the report\n", warnings.size() - kShown);
  return out;
}

}  // namespace ipusim::memreport
