// Builds minimal ELF32 RISC-V executables in memory for the ISS unit tests: an RX code
// segment, an optional RW data segment (with .bss), and an optional symbol table. Fields
// are exposed so tests can break them on purpose.
#pragma once

#include <elf.h>

#include <cstdint>
#include <cstring>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace testelf {

struct Image {
  std::vector<uint32_t> code;
  uint32_t code_addr = 0x40000;
  std::vector<uint8_t> data;
  uint32_t data_addr = 0x50000;
  uint32_t bss_bytes = 0;     // zeros after the data
  uint32_t entry = 0x40000;
  uint32_t e_flags = EF_RISCV_FLOAT_ABI_SINGLE;
  uint32_t code_flags = PF_R | PF_X;
  std::vector<std::pair<std::string, uint32_t>> symbols;  // global symbols
  std::map<std::string, uint32_t> symbol_sizes;           // st_size by name (0 if not named)
  // Nonzero: each segment's file offset congruent to its address modulo this (a page),
  // as a loader that mmaps the file needs (qemu user mode); the tile's loader copies.
  uint32_t page = 0;
};

template <typename T>
void put(std::vector<uint8_t>& out, size_t at, const T& v) {
  if (out.size() < at + sizeof(T)) out.resize(at + sizeof(T));
  std::memcpy(out.data() + at, &v, sizeof(T));
}

inline std::vector<uint8_t> build(const Image& img) {
  const bool has_data = !img.data.empty() || img.bss_bytes != 0;
  const uint32_t nph = has_data ? 2 : 1;
  const size_t phoff = sizeof(Elf32_Ehdr);
  const auto congruent = [&](size_t at, uint32_t addr) {
    return img.page == 0 ? at : at + ((addr - at) % img.page);
  };
  const size_t code_off = congruent(0x100, img.code_addr);
  const size_t code_size = img.code.size() * 4;
  const size_t data_off = congruent(code_off + code_size, img.data_addr);
  std::vector<uint8_t> out(data_off + img.data.size());
  std::memcpy(out.data() + code_off, img.code.data(), code_size);
  if (!img.data.empty()) std::memcpy(out.data() + data_off, img.data.data(), img.data.size());

  Elf32_Ehdr eh{};
  std::memcpy(eh.e_ident, ELFMAG, SELFMAG);
  eh.e_ident[EI_CLASS] = ELFCLASS32;
  eh.e_ident[EI_DATA] = ELFDATA2LSB;
  eh.e_ident[EI_VERSION] = EV_CURRENT;
  eh.e_type = ET_EXEC;
  eh.e_machine = EM_RISCV;
  eh.e_version = EV_CURRENT;
  eh.e_entry = img.entry;
  eh.e_phoff = phoff;
  eh.e_flags = img.e_flags;
  eh.e_ehsize = sizeof(Elf32_Ehdr);
  eh.e_phentsize = sizeof(Elf32_Phdr);
  eh.e_phnum = static_cast<Elf32_Half>(nph);

  Elf32_Phdr code{};
  code.p_type = PT_LOAD;
  code.p_offset = code_off;
  code.p_vaddr = code.p_paddr = img.code_addr;
  code.p_filesz = code.p_memsz = static_cast<Elf32_Word>(code_size);
  code.p_flags = img.code_flags;
  code.p_align = 4;
  put(out, phoff, code);
  if (has_data) {
    Elf32_Phdr data{};
    data.p_type = PT_LOAD;
    data.p_offset = static_cast<Elf32_Off>(data_off);
    data.p_vaddr = data.p_paddr = img.data_addr;
    data.p_filesz = static_cast<Elf32_Word>(img.data.size());
    data.p_memsz = static_cast<Elf32_Word>(img.data.size() + img.bss_bytes);
    data.p_flags = PF_R | PF_W;
    data.p_align = 4;
    put(out, phoff + sizeof(Elf32_Phdr), data);
  }

  if (!img.symbols.empty()) {
    // Sections: [0] null, [1] .symtab, [2] .strtab.
    std::string strtab(1, '\0');
    std::vector<Elf32_Sym> syms(1);
    for (const auto& [name, value] : img.symbols) {
      Elf32_Sym s{};
      s.st_name = static_cast<Elf32_Word>(strtab.size());
      s.st_value = value;
      if (auto it = img.symbol_sizes.find(name); it != img.symbol_sizes.end()) s.st_size = it->second;
      s.st_info = ELF32_ST_INFO(STB_GLOBAL, STT_FUNC);
      s.st_shndx = 1;
      syms.push_back(s);
      strtab += name;
      strtab.push_back('\0');
    }
    const size_t symoff = out.size();
    for (size_t i = 0; i < syms.size(); ++i) put(out, symoff + i * sizeof(Elf32_Sym), syms[i]);
    const size_t stroff = out.size();
    out.insert(out.end(), strtab.begin(), strtab.end());
    while (out.size() % 4) out.push_back(0);
    const size_t shoff = out.size();
    Elf32_Shdr sh[3]{};
    sh[1].sh_type = SHT_SYMTAB;
    sh[1].sh_offset = static_cast<Elf32_Off>(symoff);
    sh[1].sh_size = static_cast<Elf32_Word>(syms.size() * sizeof(Elf32_Sym));
    sh[1].sh_link = 2;
    sh[1].sh_info = 1;
    sh[1].sh_entsize = sizeof(Elf32_Sym);
    sh[2].sh_type = SHT_STRTAB;
    sh[2].sh_offset = static_cast<Elf32_Off>(stroff);
    sh[2].sh_size = static_cast<Elf32_Word>(strtab.size());
    for (int i = 0; i < 3; ++i) put(out, shoff + i * sizeof(Elf32_Shdr), sh[i]);
    eh.e_shoff = static_cast<Elf32_Off>(shoff);
    eh.e_shentsize = sizeof(Elf32_Shdr);
    eh.e_shnum = 3;
  }
  put(out, 0, eh);
  return out;
}

}  // namespace testelf
