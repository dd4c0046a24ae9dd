#include "elf_image.h"

#include <elf.h>

#include <cstring>
#include <stdexcept>

#include "subprocess.h"

namespace ipusim::fwtest {
namespace {

template <typename T>
T read_at(const std::string& data, size_t offset, const std::filesystem::path& path) {
  if (offset + sizeof(T) > data.size())
    throw std::runtime_error(path.string() + ": truncated ELF (offset " +
                             std::to_string(offset) + ")");
  T value;
  std::memcpy(&value, data.data() + offset, sizeof value);
  return value;
}

}  // namespace

ElfImage ElfImage::load(const std::filesystem::path& path) {
  const std::string data = read_file(path);
  const auto eh = read_at<Elf32_Ehdr>(data, 0, path);
  if (std::memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 || eh.e_ident[EI_CLASS] != ELFCLASS32 ||
      eh.e_ident[EI_DATA] != ELFDATA2LSB || eh.e_machine != EM_RISCV)
    throw std::runtime_error(path.string() + ": not a 32-bit little-endian RISC-V ELF");

  ElfImage image;
  image.path_ = path;
  image.entry_ = eh.e_entry;
  for (unsigned i = 0; i < eh.e_phnum; ++i) {
    const auto ph = read_at<Elf32_Phdr>(data, eh.e_phoff + size_t{i} * eh.e_phentsize, path);
    if (ph.p_type != PT_LOAD) continue;
    if (size_t{ph.p_offset} + ph.p_filesz > data.size())
      throw std::runtime_error(path.string() + ": segment " + std::to_string(i) +
                               " extends past the end of the file");
    ElfSegment seg;
    seg.vaddr = ph.p_vaddr;
    seg.mem_size = ph.p_memsz;
    seg.bytes.assign(data.begin() + ph.p_offset, data.begin() + ph.p_offset + ph.p_filesz);
    seg.executable = (ph.p_flags & PF_X) != 0;
    seg.writable = (ph.p_flags & PF_W) != 0;
    image.segments_.push_back(std::move(seg));
  }

  for (unsigned i = 0; i < eh.e_shnum; ++i) {
    const auto sh = read_at<Elf32_Shdr>(data, eh.e_shoff + size_t{i} * eh.e_shentsize, path);
    if (sh.sh_type != SHT_SYMTAB) continue;
    const auto strtab =
        read_at<Elf32_Shdr>(data, eh.e_shoff + size_t{sh.sh_link} * eh.e_shentsize, path);
    for (size_t off = sh.sh_offset; off + sizeof(Elf32_Sym) <= size_t{sh.sh_offset} + sh.sh_size;
         off += sizeof(Elf32_Sym)) {
      const auto sym = read_at<Elf32_Sym>(data, off, path);
      if (sym.st_name == 0 || size_t{strtab.sh_offset} + sym.st_name >= data.size()) continue;
      const char* name = data.c_str() + strtab.sh_offset + sym.st_name;
      if (ELF32_ST_BIND(sym.st_info) == STB_LOCAL && image.symbols_.count(name)) continue;
      image.symbols_[name] = sym.st_value;
    }
  }
  return image;
}

std::optional<uint32_t> ElfImage::symbol(const std::string& name) const {
  auto it = symbols_.find(name);
  if (it == symbols_.end()) return std::nullopt;
  return it->second;
}

uint32_t ElfImage::require_symbol(const std::string& name) const {
  if (auto value = symbol(name)) return *value;
  throw std::runtime_error(path_.string() + ": no symbol '" + name + "'");
}

std::optional<uint32_t> ElfImage::word_at(uint32_t addr) const {
  for (const auto& seg : segments_) {
    if (addr >= seg.vaddr && uint64_t{addr} + 4 <= uint64_t{seg.vaddr} + seg.bytes.size()) {
      uint32_t word;
      std::memcpy(&word, seg.bytes.data() + (addr - seg.vaddr), 4);
      return word;
    }
  }
  return std::nullopt;
}

}  // namespace ipusim::fwtest
