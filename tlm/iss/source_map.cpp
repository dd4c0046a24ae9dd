// SourceMap over elfutils: libelf opens the ELF from memory, libdw reads its DWARF. Every
// table is built here, once; nothing of libdw outlives the constructor.
#include "iss/source_map.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <gelf.h>
#include <libelf.h>

#include <algorithm>
#include <filesystem>
#include <memory>
#include <unordered_map>

namespace ipusim::iss {
namespace {

struct ElfCloser {
  void operator()(Elf* e) const { elf_end(e); }
};
struct DwarfCloser {
  void operator()(Dwarf* d) const { dwarf_end(d); }
};
using ElfHandle = std::unique_ptr<Elf, ElfCloser>;
using DwarfHandle = std::unique_ptr<Dwarf, DwarfCloser>;

ElfHandle open_elf(const std::vector<uint8_t>& bytes) {
  if (elf_version(EV_CURRENT) == EV_NONE || bytes.empty()) return nullptr;
  // elf_memory takes a non-const image; opened for reading, it never writes to it.
  return ElfHandle(elf_memory(const_cast<char*>(reinterpret_cast<const char*>(bytes.data())), bytes.size()));
}

std::string string_attr(Dwarf_Die* die, unsigned name) {
  Dwarf_Attribute attr;
  // _integrate follows DW_AT_abstract_origin / DW_AT_specification: an inlined or
  // out-of-line instance has its name on the abstract DIE.
  const char* s = dwarf_formstring(dwarf_attr_integrate(die, name, &attr));
  return s ? s : "";
}

}  // namespace

std::string SourceLocation::source() const {
  if (file.empty() || line == 0) return {};
  return file + ":" + std::to_string(line);
}

std::string SourceMap::short_path(const std::string& file, const std::string& comp_dir) {
  namespace fs = std::filesystem;
  fs::path p(file);
  if (p.is_relative() && !comp_dir.empty()) p = fs::path(comp_dir) / p;
  p = p.lexically_normal();
  if (p.is_relative()) return p.string();  // no compilation directory to place it
  if (!comp_dir.empty()) {
    const fs::path rel = p.lexically_relative(fs::path(comp_dir).lexically_normal());
    if (!rel.empty() && *rel.begin() != "..") return rel.string();
  }
  // CMake compiles absolute paths from a build folder beside the sources: the folder and
  // the file name are what a reader recognises; the rest is this machine's.
  const fs::path parent = p.parent_path().filename();
  return parent.empty() ? p.filename().string() : (parent / p.filename()).string();
}

SourceMap::SourceMap(const std::vector<uint8_t>& elf) {
  read_code(elf);
  read_dwarf(elf);
  index_.clear();  // only building needs it
}

void SourceMap::read_code(const std::vector<uint8_t>& bytes) {
  ElfHandle elf = open_elf(bytes);
  size_t n = 0;
  if (!elf || elf_getphdrnum(elf.get(), &n) != 0) return;
  for (size_t i = 0; i < n; ++i) {
    GElf_Phdr ph;
    if (gelf_getphdr(elf.get(), int(i), &ph) && ph.p_type == PT_LOAD && (ph.p_flags & PF_X) && ph.p_memsz)
      code_.push_back({uint32_t(ph.p_vaddr), ph.p_vaddr + ph.p_memsz});
  }
}

bool SourceMap::in_code(uint64_t addr) const {
  for (const auto& [lo, hi] : code_)
    if (addr >= lo && addr < hi) return true;
  return false;
}

uint32_t SourceMap::intern(const std::string& s) {
  auto [it, fresh] = index_.try_emplace(s, uint32_t(names_.size()));
  if (fresh) names_.push_back(s);
  return it->second;
}

void SourceMap::read_dwarf(const std::vector<uint8_t>& bytes) {
  ElfHandle elf = open_elf(bytes);
  if (!elf) return;
  DwarfHandle dw(dwarf_begin_elf(elf.get(), DWARF_C_READ, nullptr));
  if (!dw) return;  // no debug information

  std::unordered_map<std::string, uint32_t> files;  // DWARF path -> interned short path
  Dwarf_CU* cu = nullptr;
  Dwarf_Die cudie;
  while (dwarf_get_units(dw.get(), cu, &cu, nullptr, nullptr, &cudie, nullptr) == 0) {
    const std::string comp_dir = string_attr(&cudie, DW_AT_comp_dir);
    Dwarf_Lines* lines = nullptr;
    size_t count = 0;
    if (dwarf_getsrclines(&cudie, &lines, &count) == 0) {
      for (size_t i = 0; i < count; ++i) {
        Dwarf_Line* l = dwarf_onesrcline(lines, i);
        Dwarf_Addr addr = 0;
        int line = 0;
        bool end = false;
        if (!l || dwarf_lineaddr(l, &addr) != 0 || dwarf_lineno(l, &line) != 0 ||
            dwarf_lineendsequence(l, &end) != 0 || (!in_code(addr) && !(end && in_code(addr - 1))))
          continue;
        const char* src = dwarf_linesrc(l, nullptr, nullptr);
        const std::string key = src ? src : "";
        auto [it, fresh] = files.try_emplace(key, 0);
        if (fresh) it->second = intern(short_path(key, comp_dir));
        lines_.push_back({uint32_t(addr), it->second, uint32_t(std::max(line, 0)), end});
      }
    }
    // Functions: every subprogram and inlined subroutine with code, at its nesting depth.
    struct Walk {
      SourceMap& map;
      void die(Dwarf_Die* d, uint32_t depth) {
        Dwarf_Die child;
        if (dwarf_child(d, &child) != 0) return;
        do {
          const int tag = dwarf_tag(&child);
          uint32_t inner = depth;
          if (tag == DW_TAG_subprogram || tag == DW_TAG_inlined_subroutine) {
            const std::string name = string_attr(&child, DW_AT_name);
            Dwarf_Addr base = 0, start = 0, end = 0;
            ptrdiff_t off = 0;
            bool any = false;
            while ((off = dwarf_ranges(&child, off, &base, &start, &end)) > 0) {
              if (name.empty() || end <= start || !map.in_code(start)) continue;
              map.functions_.push_back({uint32_t(start), uint32_t(end - 1) + 1, depth, map.intern(name)});
              any = true;
            }
            if (any) inner = depth + 1;
          }
          if (tag == DW_TAG_subprogram || tag == DW_TAG_inlined_subroutine || tag == DW_TAG_lexical_block)
            die(&child, inner);
        } while (dwarf_siblingof(&child, &child) == 0);
      }
    };
    Walk{*this}.die(&cudie, 0);
  }
  // End-of-sequence rows first at an address: the sequence starting there wins.
  std::stable_sort(lines_.begin(), lines_.end(), [](const Row& a, const Row& b) {
    return a.addr != b.addr ? a.addr < b.addr : a.end > b.end;
  });
  std::stable_sort(functions_.begin(), functions_.end(), [](const Range& a, const Range& b) { return a.lo < b.lo; });
}

// The deepest range holding pc (ties: the narrowest). Ranges are few (one per function
// and inlined call), and lookups happen once per problem: a scan up to pc is enough.
const SourceMap::Range* SourceMap::innermost(const std::vector<Range>& ranges, uint32_t pc) {
  const Range* best = nullptr;
  for (const Range& r : ranges) {
    if (r.lo > pc) break;
    if (pc >= r.hi && r.hi != 0) continue;  // hi 0: the range ends at 2^32
    if (!best || r.depth > best->depth || (r.depth == best->depth && r.hi - r.lo < best->hi - best->lo)) best = &r;
  }
  return best;
}

SourceLocation SourceMap::locate(uint32_t pc) const {
  SourceLocation out;
  if (!in_code(pc)) return out;
  const Range* f = innermost(functions_, pc);
  if (f) out.function = names_[f->name];
  auto it = std::upper_bound(lines_.begin(), lines_.end(), pc, [](uint32_t a, const Row& r) { return a < r.addr; });
  if (it != lines_.begin() && !std::prev(it)->end) {
    const Row& r = *std::prev(it);
    out.file = names_[r.file];
    out.line = r.line;
  }
  return out;
}

}  // namespace ipusim::iss
