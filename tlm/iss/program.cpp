// Program: loading and validating a tile ELF (ELF32, little-endian, RISC-V, ET_EXEC, single
// or soft float ABI, no compressed code), keeping its symbols, and building the shared
// decoded-instruction cache of its executable range.
#include "iss/program.h"

#include "common/input_file.h"

#include <elf.h>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <iterator>

#include <fmt/format.h>

#include "iss/co_issue.h"
#include "iss/decode.h"
#include "iss/decoded.h"
#include "iss/interp.h"
#include "iss/rpt_copies.h"
#include "iss/sram_image.h"
#include "iss/tile_core.h"

namespace ipusim::iss {
namespace {

class ElfReader {
 public:
  ElfReader(const std::vector<uint8_t>& bytes, const std::string& name) : b_(bytes), name_(name) {}

  [[noreturn]] void fail(const std::string& what) const {
    throw ProgramError(fmt::format("{}: {}", name_, what));
  }

  // A struct at `offset`, checked to lie inside the file.
  template <typename T>
  T at(uint64_t offset, const char* what) const {
    if (offset > b_.size() || b_.size() - offset < sizeof(T))
      fail(fmt::format("{} at file offset {} lies outside the file ({} bytes)", what, offset, b_.size()));
    T v;
    std::memcpy(&v, b_.data() + offset, sizeof(T));
    return v;
  }

  void check_range(uint64_t offset, uint64_t size, const std::string& what) const {
    if (offset > b_.size() || b_.size() - offset < size)
      fail(fmt::format("{} (file offset {}, {} bytes) lies outside the file ({} bytes)", what, offset,
                       size, b_.size()));
  }

  const uint8_t* data() const { return b_.data(); }

 private:
  const std::vector<uint8_t>& b_;
  const std::string& name_;
};

Elf32_Ehdr read_header(const ElfReader& r, size_t size) {
  if (size < EI_NIDENT || std::memcmp(r.data(), ELFMAG, SELFMAG) != 0)
    r.fail("not an ELF file (bad magic)");
  const auto eh = r.at<Elf32_Ehdr>(0, "ELF header");
  if (eh.e_ident[EI_CLASS] != ELFCLASS32) r.fail("not a 32-bit ELF (the tile is RV32)");
  if (eh.e_ident[EI_DATA] != ELFDATA2LSB) r.fail("not a little-endian ELF");
  if (eh.e_ident[EI_VERSION] != EV_CURRENT) r.fail("unknown ELF version");
  if (eh.e_machine != EM_RISCV) r.fail(fmt::format("not a RISC-V ELF (e_machine {})", eh.e_machine));
  if (eh.e_type != ET_EXEC) r.fail(fmt::format("not an executable (e_type {}, want ET_EXEC)", eh.e_type));
  if (eh.e_flags & EF_RISCV_RVC)
    r.fail("built with compressed instructions (EF_RISCV_RVC); the tile has no C extension: use -march=rv32imf");
  const uint32_t abi = eh.e_flags & EF_RISCV_FLOAT_ABI;
  if (abi != EF_RISCV_FLOAT_ABI_SOFT && abi != EF_RISCV_FLOAT_ABI_SINGLE)
    r.fail("float ABI is double or quad; the tile has single-precision F only: use -mabi=ilp32f or ilp32");
  if (eh.e_phnum == 0) r.fail("no program headers");
  if (eh.e_phentsize != sizeof(Elf32_Phdr))
    r.fail(fmt::format("program header size {} (want {})", eh.e_phentsize, sizeof(Elf32_Phdr)));
  r.check_range(eh.e_phoff, uint64_t(eh.e_phnum) * sizeof(Elf32_Phdr), "program header table");
  return eh;
}

// The symbol table (optional: a stripped ELF has none). Globals win over locals of the
// same name; the result is sorted by name for symbol(). Functions and labels whose value
// lies in [code_begin, code_end) also go to `code` (traces name pcs with them).
std::vector<Program::Symbol> read_symbols(const std::vector<uint8_t>& elf, const std::string& name,
                                          uint32_t code_begin, uint32_t code_end,
                                          std::vector<CodeSymbols::Entry>& code) {
  const ElfReader r(elf, name);
  const auto eh = r.at<Elf32_Ehdr>(0, "ELF header");
  std::vector<Program::Symbol> out;
  if (eh.e_shoff == 0 || eh.e_shnum == 0) return out;
  if (eh.e_shentsize != sizeof(Elf32_Shdr))
    r.fail(fmt::format("section header size {} (want {})", eh.e_shentsize, sizeof(Elf32_Shdr)));
  r.check_range(eh.e_shoff, uint64_t(eh.e_shnum) * sizeof(Elf32_Shdr), "section header table");
  auto shdr = [&](uint32_t i) {
    return r.at<Elf32_Shdr>(eh.e_shoff + uint64_t(i) * sizeof(Elf32_Shdr), "section header");
  };
  std::vector<Program::Symbol> locals;
  for (uint32_t i = 0; i < eh.e_shnum; ++i) {
    const Elf32_Shdr sh = shdr(i);
    if (sh.sh_type != SHT_SYMTAB) continue;
    if (sh.sh_entsize != sizeof(Elf32_Sym)) r.fail("symbol table entry size is wrong");
    if (sh.sh_link >= eh.e_shnum) r.fail("symbol table links to a missing string table");
    const Elf32_Shdr strtab = shdr(sh.sh_link);
    if (strtab.sh_type != SHT_STRTAB) r.fail("symbol table links to a section that is not a string table");
    r.check_range(sh.sh_offset, sh.sh_size, "symbol table");
    r.check_range(strtab.sh_offset, strtab.sh_size, "symbol string table");
    const char* strings = reinterpret_cast<const char*>(r.data() + strtab.sh_offset);
    for (uint64_t off = 0; off + sizeof(Elf32_Sym) <= sh.sh_size; off += sizeof(Elf32_Sym)) {
      const auto sym = r.at<Elf32_Sym>(sh.sh_offset + off, "symbol");
      const unsigned type = ELF32_ST_TYPE(sym.st_info);
      if (sym.st_name == 0 || type == STT_SECTION || type == STT_FILE) continue;
      if (sym.st_name >= strtab.sh_size) r.fail("symbol name outside the string table");
      const void* nul = std::memchr(strings + sym.st_name, 0, strtab.sh_size - sym.st_name);
      if (!nul) r.fail("unterminated symbol name");
      const bool local = ELF32_ST_BIND(sym.st_info) == STB_LOCAL;
      auto& dst = local ? locals : out;
      dst.push_back({std::string(strings + sym.st_name), sym.st_value, sym.st_size});
      if ((type == STT_FUNC || type == STT_NOTYPE) && sym.st_value >= code_begin && sym.st_value < code_end)
        code.push_back({dst.back().name, sym.st_value, sym.st_size, type == STT_FUNC, !local});
    }
  }
  auto by_name = [](const auto& a, const auto& b) { return a.name < b.name; };
  std::stable_sort(out.begin(), out.end(), by_name);
  std::stable_sort(locals.begin(), locals.end(), by_name);
  std::vector<Program::Symbol> merged;
  merged.reserve(out.size() + locals.size());
  std::merge(out.begin(), out.end(), locals.begin(), locals.end(), std::back_inserter(merged), by_name);
  // std::merge keeps elements of the first range (globals) before equal ones of the second.
  merged.erase(std::unique(merged.begin(), merged.end(),
                           [](const auto& a, const auto& b) { return a.name == b.name; }),
               merged.end());
  return merged;
}

// The handlers of the seconds of co-issued pairs (interp.cpp): the op's paired variant,
// which counts one slot less unconditionally, except where a block may start by a jump
// the loader sees (a branch, jal or j target, either target of an rpt or rpt_end): there
// the one handler that tests whether the entry was entered by falling through. (The run
// loop itself handles the other block starts: jalr, the quantum's start.)
void set_paired_handlers(DecodedCode& dc, const void* const* labels) {
  const auto n = static_cast<int64_t>(dc.insns.size());
  std::vector<uint8_t> jumped_to(dc.insns.size(), 0);
  auto mark = [&](int64_t i) {
    if (i >= 0 && i < n) jumped_to[static_cast<size_t>(i)] = 1;
  };
  const auto entries = [](int32_t bytes) { return int64_t{bytes} / static_cast<int64_t>(sizeof(DecodedInsn)); };
  for (int64_t i = 0; i < n; ++i) {
    const DecodedInsn& d = dc.insns[static_cast<size_t>(i)];
    switch (dc.ops[static_cast<size_t>(i)]) {
      case Op::beq: case Op::bne: case Op::blt: case Op::bge: case Op::bltu: case Op::bgeu:
      case Op::jal: case Op::j:
        mark(i + entries(d.imm));
        break;
      case Op::rpt:  // the body's copy, or past the original body
        mark(i + entries(d.imm));
        mark(i + 1 + d.rs2);
        break;
      case Op::rpt_end:  // the copy's start, or past the original body
        mark(i - d.rs2);
        mark(i + entries(d.imm));
        break;
      default:
        break;
    }
  }
  for (size_t i = 0; i < dc.insns.size(); ++i)
    if (dc.co_issued[i])
      dc.insns[i].handler = jumped_to[i] ? labels[2 * kOpCount] : labels[kOpCount + static_cast<unsigned>(dc.ops[i])];
}

// Decodes every word of the executable range eagerly. Words not inside an executable
// segment (gaps, or a trailing partial word) and the sentinel after the last word fault
// as fetches outside code. With co_issue, the pairs are marked (co_issue.h).
std::unique_ptr<DecodedCode> build_decoded(const Program& p, bool co_issue) {
  auto dc = std::make_unique<DecodedCode>();
  dc->begin = p.code_begin();
  dc->words = (p.code_end() - p.code_begin()) / 4;
  dc->store_lo = (p.code_end() + 3) & ~3u;
  const DecodeLayout layout{dc->begin, dc->words, dc->store_lo};
  const void* const* labels = fast_loop_labels();
  dc->insns.assign(dc->words + 1, DecodedInsn{labels[static_cast<unsigned>(Op::fetch_fault)], 0, 0, 0, 0, 0});
  dc->ops.assign(dc->words + 1, Op::fetch_fault);
  dc->raw.assign(dc->words + 1, 0);
  for (const Segment& s : p.segments()) {
    if (!s.executable) continue;
    const uint32_t first = (s.vaddr - dc->begin) / 4;
    const uint32_t count = s.mem_size / 4;
    for (uint32_t i = 0; i < count; ++i) {
      uint32_t w = 0;
      if (uint64_t(i) * 4 < s.bytes.size())
        std::memcpy(&w, s.bytes.data() + i * 4, std::min<size_t>(4, s.bytes.size() - i * 4));
      const uint32_t pc = s.vaddr + i * 4;
      Decoded d = decode(w, pc, layout);
      d.insn.handler = labels[static_cast<unsigned>(d.op)];
      dc->insns[first + i] = d.insn;
      dc->ops[first + i] = d.op;
      dc->raw[first + i] = w;
    }
  }
  // An AMP instruction followed by another one is inside a run (amp.cpp restores the
  // host's FP status once, after the run's last instruction).
  for (uint32_t i = 0; i < dc->words; ++i)
    if (is_amp(dc->ops[i])) dc->insns[i].rs3 = is_amp(dc->ops[i + 1]) ? 1 : 0;
  // Co-issue pairs, from the decoded words (the rpt copies inherit them).
  dc->co_issued.assign(dc->words + 1, 0);
  if (co_issue) dc->co_issued = co_issue_seconds(*dc);
  add_rpt_copies(*dc, labels);
  if (co_issue) set_paired_handlers(*dc, labels);
  return dc;
}

}  // namespace

Program::Program() = default;
Program::~Program() = default;

std::shared_ptr<const Program> Program::load(const std::string& path) {
  std::string text;
  try {
    text = read_input_file(path, kMaxElfFileBytes, "firmware ELF");
  } catch (const InputFileError& e) {
    throw ProgramError(fmt::format("{}: cannot read the ELF: {}", path, e.what()));
  }
  return from_bytes(std::vector<uint8_t>(text.begin(), text.end()), path);
}

std::shared_ptr<const Program> Program::from_bytes(const std::vector<uint8_t>& elf,
                                                   const std::string& name) {
  std::shared_ptr<Program> p(new Program());
  p->name_ = name;
  const ElfReader r(elf, name);
  const Elf32_Ehdr eh = read_header(r, elf.size());
  p->entry_ = eh.e_entry;

  for (unsigned i = 0; i < eh.e_phnum; ++i) {
    const auto ph = r.at<Elf32_Phdr>(eh.e_phoff + uint64_t(i) * sizeof(Elf32_Phdr), "program header");
    if (ph.p_type == PT_INTERP || ph.p_type == PT_DYNAMIC)
      r.fail("dynamically linked; a tile program must be static");
    if (ph.p_type != PT_LOAD || ph.p_memsz == 0) continue;
    const std::string what = fmt::format("segment {} (vaddr 0x{:08x})", i, ph.p_vaddr);
    if (ph.p_filesz > ph.p_memsz) r.fail(what + ": file size exceeds memory size");
    r.check_range(ph.p_offset, ph.p_filesz, what);
    if (ph.p_vaddr < kSramBase)
      r.fail(fmt::format("{} lies below the tile SRAM (base 0x{:08x})", what, kSramBase));
    if (uint64_t(ph.p_vaddr) + ph.p_memsz > 0xffffffffull) r.fail(what + ": wraps the address space");
    Segment s;
    s.vaddr = ph.p_vaddr;
    s.mem_size = ph.p_memsz;
    s.bytes.assign(elf.begin() + ph.p_offset, elf.begin() + ph.p_offset + ph.p_filesz);
    s.executable = (ph.p_flags & PF_X) != 0;
    if (s.executable && (s.vaddr & 3) != 0) r.fail(what + ": executable segment not 4-byte aligned");
    if (s.executable && (ph.p_flags & PF_W))
      r.fail(what + " is writable and executable; tile code is read-only: link code and data into separate segments");
    p->segments_.push_back(std::move(s));
  }
  if (p->segments_.empty()) r.fail("no loadable segment");
  std::sort(p->segments_.begin(), p->segments_.end(),
            [](const Segment& a, const Segment& b) { return a.vaddr < b.vaddr; });
  for (size_t i = 1; i < p->segments_.size(); ++i) {
    const Segment& a = p->segments_[i - 1];
    if (uint64_t(a.vaddr) + a.mem_size > p->segments_[i].vaddr)
      r.fail(fmt::format("segments at 0x{:08x} and 0x{:08x} overlap", a.vaddr, p->segments_[i].vaddr));
  }

  bool any_code = false;
  for (const Segment& s : p->segments_) {
    if (!s.executable) continue;
    if (!any_code) p->code_begin_ = s.vaddr;
    p->code_end_ = s.vaddr + s.mem_size;
    any_code = true;
  }
  if (!any_code) r.fail("no executable segment");
  // The decoded cache has an entry per word of the executable range: bounded by the file,
  // which the code comes from, a range of zeros or gaps larger than it cannot make the
  // loader allocate gigabytes (found by tlm/iss/fuzz).
  if (p->code_end_ - p->code_begin_ > elf.size())
    r.fail(fmt::format("executable range 0x{:08x}..0x{:08x} ({} bytes) is larger than the file ({} bytes): "
                       "an executable segment's memory size or the gaps between executable segments are wrong",
                       p->code_begin_, p->code_end_, p->code_end_ - p->code_begin_, elf.size()));
  const bool entry_in_code = std::any_of(p->segments_.begin(), p->segments_.end(), [&](const Segment& s) {
    return s.executable && p->entry_ >= s.vaddr && p->entry_ - s.vaddr < s.mem_size;
  });
  if (!entry_in_code || (p->entry_ & 3) != 0)
    r.fail(fmt::format("entry point 0x{:08x} is not a 4-byte aligned address in an executable segment", p->entry_));

  std::vector<CodeSymbols::Entry> code_symbols;
  p->symbols_ = read_symbols(elf, name, p->code_begin_, p->code_end_, code_symbols);
  p->code_symbols_ = CodeSymbols(std::move(code_symbols));
  p->decoded_ = build_decoded(*p, false);
  p->decoded_co_ = build_decoded(*p, true);
  p->elf_ = elf;
  return p;
}

std::shared_ptr<const Program> Program::from_image(const std::string& name, uint32_t entry,
                                                   uint32_t code_base, std::vector<uint8_t> code) {
  if (code.empty() || code.size() % 4 != 0 || (code_base & 3) != 0)
    throw ProgramError(fmt::format("{}: code range 0x{:08x} + {} bytes is not whole aligned words", name,
                                   code_base, code.size()));
  if (code_base < kSramBase || uint64_t(code_base) + code.size() > 0xffffffffull)
    throw ProgramError(fmt::format("{}: code range 0x{:08x} + {} bytes is outside the tile address space",
                                   name, code_base, code.size()));
  if (entry < code_base || entry - code_base >= code.size() || (entry & 3) != 0)
    throw ProgramError(fmt::format("{}: entry 0x{:08x} is not a 4-byte aligned address in the code range "
                                   "0x{:08x}..0x{:08x}",
                                   name, entry, code_base, uint64_t(code_base) + code.size()));
  std::shared_ptr<Program> p(new Program());
  p->name_ = name;
  p->entry_ = entry;
  Segment s;
  s.vaddr = code_base;
  s.mem_size = uint32_t(code.size());
  s.bytes = std::move(code);
  s.executable = true;
  p->segments_.push_back(std::move(s));
  p->code_begin_ = code_base;
  p->code_end_ = code_base + p->segments_[0].mem_size;
  p->decoded_ = build_decoded(*p, false);
  p->decoded_co_ = build_decoded(*p, true);
  return p;
}

const Program::Symbol* Program::find_symbol(const std::string& name) const {
  auto it = std::lower_bound(symbols_.begin(), symbols_.end(), name,
                             [](const Symbol& s, const std::string& n) { return s.name < n; });
  if (it == symbols_.end() || it->name != name) return nullptr;
  return &*it;
}

std::optional<uint32_t> Program::symbol(const std::string& name) const {
  if (const Symbol* s = find_symbol(name)) return s->value;
  return std::nullopt;
}

std::optional<uint32_t> Program::symbol_size(const std::string& name) const {
  if (const Symbol* s = find_symbol(name)) return s->size;
  return std::nullopt;
}

std::shared_ptr<const SramImage> Program::sram_image(uint32_t sram_bytes) const {
  std::lock_guard lock(images_mutex_);
  for (const auto& [bytes, image] : images_)
    if (bytes == sram_bytes) return image;
  return images_.emplace_back(sram_bytes, SramImage::make(*this, sram_bytes)).second;
}

SourceLocation Program::locate(uint32_t pc) const {
  if (elf_.empty()) return {};
  std::call_once(source_once_, [this] { source_map_ = std::make_unique<const SourceMap>(elf_); });
  SourceLocation at = source_map_->locate(pc);
  // No DWARF for it (built with -g0): the symbol table's function, as the trace reads it.
  if (at.function.empty() && source_map_->in_code(pc))
    if (const auto f = code_symbols_.function_at(pc)) at.function = std::string(*f);
  return at;
}

uint32_t Program::image_end() const {
  uint32_t end = 0;
  for (const Segment& s : segments_) end = std::max(end, s.vaddr + s.mem_size);
  return end;
}

}  // namespace ipusim::iss
