// ELF sections and symbols with libelf (gelf: the class-independent view).
#include "memreport/elf_layout.h"

#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <unistd.h>

#include <algorithm>
#include <fmt/format.h>
#include <ipu/xipu_isa.h>
#include <memory>

namespace ipusim::memreport {

const char* kind_name(Kind k) {
  switch (k) {
    case Kind::code: return "code";
    case Kind::rodata: return "rodata";
    case Kind::data: return "data";
    case Kind::bss: return "bss";
    case Kind::heap: return "heap";
    case Kind::stack: return "stack";
    case Kind::free: return "free";
  }
  return "?";
}

uint32_t ElfLayout::bytes_of(Kind k) const {
  uint32_t n = 0;
  for (const Section& s : sections)
    if (s.kind == k) n += s.size;
  return n;
}

namespace {

struct ElfFile {
  int fd = -1;
  Elf* elf = nullptr;
  ~ElfFile() {
    if (elf) elf_end(elf);
    if (fd >= 0) close(fd);
  }
};

Kind section_kind(const GElf_Shdr& h) {
  if (h.sh_flags & SHF_EXECINSTR) return Kind::code;
  if (h.sh_type == SHT_NOBITS) return Kind::bss;
  if (!(h.sh_flags & SHF_WRITE)) return Kind::rodata;
  return Kind::data;
}

}  // namespace

ElfLayout read_elf_layout(const std::string& path) {
  ElfLayout out;
  out.path = path;
  if (elf_version(EV_CURRENT) == EV_NONE) throw ElfLayoutError("libelf: " + std::string(elf_errmsg(-1)));
  ElfFile f;
  f.fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (f.fd < 0) throw ElfLayoutError(fmt::format("{}: cannot open", path));
  f.elf = elf_begin(f.fd, ELF_C_READ, nullptr);
  if (!f.elf || elf_kind(f.elf) != ELF_K_ELF) throw ElfLayoutError(fmt::format("{}: not an ELF file", path));
  if (gelf_getclass(f.elf) != ELFCLASS32) throw ElfLayoutError(fmt::format("{}: not a 32-bit ELF (a tile program is rv32)", path));
  size_t shstrndx = 0;
  if (elf_getshdrstrndx(f.elf, &shstrndx) != 0) throw ElfLayoutError(fmt::format("{}: no section names: {}", path, elf_errmsg(-1)));

  std::vector<std::pair<size_t, Section>> by_index;  // allocated sections, by section index
  for (Elf_Scn* scn = elf_nextscn(f.elf, nullptr); scn; scn = elf_nextscn(f.elf, scn)) {
    GElf_Shdr h;
    if (!gelf_getshdr(scn, &h)) throw ElfLayoutError(fmt::format("{}: bad section header: {}", path, elf_errmsg(-1)));
    const char* name = elf_strptr(f.elf, shstrndx, h.sh_name);
    if (h.sh_type == SHT_SYMTAB) {
      Elf_Data* data = elf_getdata(scn, nullptr);
      const size_t count = h.sh_entsize ? h.sh_size / h.sh_entsize : 0;
      for (size_t i = 0; data && i < count; ++i) {
        GElf_Sym sym;
        if (!gelf_getsym(data, static_cast<int>(i), &sym)) continue;
        const char* sname = elf_strptr(f.elf, h.sh_link, sym.st_name);
        if (!sname || !*sname) continue;
        const std::string n = sname;
        if (sym.st_shndx == SHN_ABS) {
          const auto v = static_cast<uint32_t>(sym.st_value);
          if (n == "__ipu_stack_size") out.stack_bytes = v;
          else if (n == "__ipu_worker_stack_size") out.worker_stack_bytes = v;
          else if (n == "__ipu_image_limit") out.image_limit = v;
        }
        if (n == "__heap_start") out.heap_start = static_cast<uint32_t>(sym.st_value);
        const int type = GELF_ST_TYPE(sym.st_info);
        if ((type == STT_FUNC || type == STT_OBJECT) && sym.st_size > 0 && sym.st_shndx != SHN_UNDEF &&
            sym.st_shndx < SHN_LORESERVE)
          out.symbols.push_back(Symbol{n, static_cast<uint32_t>(sym.st_value), static_cast<uint32_t>(sym.st_size),
                                       type == STT_FUNC, std::to_string(sym.st_shndx)});
      }
      continue;
    }
    if (!(h.sh_flags & SHF_ALLOC) || h.sh_size == 0) continue;
    by_index.push_back({elf_ndxscn(scn), Section{name ? name : "?", static_cast<uint32_t>(h.sh_addr),
                                                 static_cast<uint32_t>(h.sh_size), section_kind(h)}});
  }
  for (Symbol& s : out.symbols) {
    const size_t index = std::stoul(s.section);
    s.section.clear();
    for (const auto& [i, sec] : by_index)
      if (i == index) s.section = sec.name;
  }
  for (auto& [i, sec] : by_index) out.sections.push_back(std::move(sec));
  std::stable_sort(out.sections.begin(), out.sections.end(),
                   [](const Section& a, const Section& b) { return a.address < b.address; });
  std::sort(out.symbols.begin(), out.symbols.end(), [](const Symbol& a, const Symbol& b) {
    return a.size != b.size ? a.size > b.size : a.address != b.address ? a.address < b.address : a.name < b.name;
  });
  return out;
}

std::vector<Region> runtime_regions(const ElfLayout& elf, uint32_t sram_bytes, uint32_t workers) {
  std::vector<Region> regions;
  if (!elf.has_runtime()) return regions;
  for (const Section& s : elf.sections) {
    if (s.address < IPU_SRAM_BASE || s.address >= *elf.heap_start) continue;
    if (!regions.empty() && regions.back().kind == s.kind && regions.back().end >= s.address - 16) {
      regions.back().end = std::max(regions.back().end, s.address + s.size);
      continue;
    }
    regions.push_back(Region{kind_name(s.kind), s.kind, s.address, s.address + s.size});
  }
  const uint64_t top = uint64_t{IPU_SRAM_BASE} + sram_bytes;
  const uint64_t stacks = uint64_t{*elf.stack_bytes} + uint64_t{workers} * *elf.worker_stack_bytes;
  const uint64_t wstackbase = top >= stacks ? top - stacks : 0;
  const uint32_t heap_end = static_cast<uint32_t>(std::max<uint64_t>(wstackbase, *elf.heap_start));
  regions.push_back(Region{"heap", Kind::heap, *elf.heap_start, heap_end});
  for (uint32_t w = 1; w <= workers; ++w) {
    const auto b = static_cast<uint32_t>(wstackbase + uint64_t{w - 1} * *elf.worker_stack_bytes);
    regions.push_back(Region{fmt::format("worker {} stack", w), Kind::stack, b, b + *elf.worker_stack_bytes, int(w)});
  }
  regions.push_back(Region{"supervisor stack", Kind::stack, static_cast<uint32_t>(top - *elf.stack_bytes),
                           static_cast<uint32_t>(top), 0});
  return regions;
}

}  // namespace ipusim::memreport
