// ElfCore: the bytes of a riscv32 core file, with glibc's <elf.h> structures.
#include "platform/elf_core.h"

#include <elf.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <stdexcept>

namespace ipusim::platform {
namespace {

void put32(std::vector<uint8_t>& b, size_t at, uint32_t v) {
  for (unsigned i = 0; i < 4; ++i) b[at + i] = uint8_t(v >> (8 * i));
}

size_t align4(size_t n) { return (n + 3) & ~size_t{3}; }

// One note: Elf32_Nhdr, "CORE\0" padded to 4, the descriptor padded to 4.
void add_note(std::vector<uint8_t>& out, uint32_t type, const std::vector<uint8_t>& desc) {
  static constexpr char kName[] = "CORE";
  Elf32_Nhdr h{};
  h.n_namesz = sizeof kName;  // with its NUL
  h.n_descsz = uint32_t(desc.size());
  h.n_type = type;
  const size_t at = out.size();
  out.resize(at + sizeof h + align4(sizeof kName) + align4(desc.size()), 0);
  std::memcpy(out.data() + at, &h, sizeof h);
  std::memcpy(out.data() + at + sizeof h, kName, sizeof kName);
  std::copy(desc.begin(), desc.end(), out.begin() + long(at + sizeof h + align4(sizeof kName)));
}

std::vector<uint8_t> prstatus(const ElfCore::Thread& t) {
  std::vector<uint8_t> d(ElfCore::kPrstatusSize, 0);
  put32(d, 0, uint32_t(t.signal));        // pr_info.si_signo
  d[12] = uint8_t(t.signal);              // pr_cursig (short)
  d[13] = uint8_t(t.signal >> 8);
  put32(d, 24, t.id);                     // pr_pid
  // elf_gregset_t: pc, then x1..x31 (x0 is not stored: it is zero).
  put32(d, ElfCore::kPrstatusRegOffset, t.regs.pc);
  for (unsigned i = 1; i < 32; ++i) put32(d, ElfCore::kPrstatusRegOffset + 4 * i, t.regs.x[i]);
  put32(d, ElfCore::kPrstatusRegOffset + 128, 1);  // pr_fpvalid
  return d;
}

std::vector<uint8_t> fpregset(const ElfCore::Thread& t) {
  std::vector<uint8_t> d(ElfCore::kFpregsetSize, 0);
  for (unsigned i = 0; i < 32; ++i) put32(d, 4 * i, t.regs.f[i]);
  put32(d, 128, t.regs.fcsr);
  return d;
}

std::vector<uint8_t> prpsinfo(const std::string& name, const std::string& args, uint32_t pid) {
  std::vector<uint8_t> d(ElfCore::kPrpsinfoSize, 0);
  d[1] = 'R';            // pr_sname
  put32(d, 16, pid);     // pr_pid
  std::memcpy(d.data() + 32, name.data(), std::min<size_t>(name.size(), 15));  // pr_fname[16]
  std::memcpy(d.data() + 48, args.data(), std::min<size_t>(args.size(), 79));  // pr_psargs[80]
  return d;
}

}  // namespace

std::vector<uint8_t> ElfCore::bytes() const {
  std::vector<uint8_t> notes;
  add_note(notes, NT_PRPSINFO, prpsinfo(name_, args_, threads_.empty() ? 0 : threads_.front().id));
  for (const Thread& t : threads_) {
    add_note(notes, NT_PRSTATUS, prstatus(t));
    add_note(notes, NT_FPREGSET, fpregset(t));
  }

  const size_t phnum = 1 + memory_.size();
  const size_t notes_at = sizeof(Elf32_Ehdr) + phnum * sizeof(Elf32_Phdr);
  std::vector<uint8_t> out(notes_at, 0);
  out.insert(out.end(), notes.begin(), notes.end());

  Elf32_Ehdr eh{};
  std::memcpy(eh.e_ident, ELFMAG, SELFMAG);
  eh.e_ident[EI_CLASS] = ELFCLASS32;
  eh.e_ident[EI_DATA] = ELFDATA2LSB;
  eh.e_ident[EI_VERSION] = EV_CURRENT;
  eh.e_ident[EI_OSABI] = ELFOSABI_NONE;
  eh.e_type = ET_CORE;
  eh.e_machine = EM_RISCV;
  eh.e_version = EV_CURRENT;
  eh.e_phoff = sizeof(Elf32_Ehdr);
  eh.e_flags = EF_RISCV_FLOAT_ABI_SINGLE;
  eh.e_ehsize = sizeof(Elf32_Ehdr);
  eh.e_phentsize = sizeof(Elf32_Phdr);
  eh.e_phnum = uint16_t(phnum);
  std::memcpy(out.data(), &eh, sizeof eh);

  std::vector<Elf32_Phdr> ph(phnum);
  ph[0].p_type = PT_NOTE;
  ph[0].p_offset = uint32_t(notes_at);
  ph[0].p_filesz = uint32_t(notes.size());
  ph[0].p_align = 4;
  for (size_t i = 0; i < memory_.size(); ++i) {
    while (out.size() % 4096 != 0) out.push_back(0);  // page-aligned, as kernels write them
    Elf32_Phdr& p = ph[1 + i];
    p.p_type = PT_LOAD;
    p.p_offset = uint32_t(out.size());
    p.p_vaddr = memory_[i].vaddr;
    p.p_filesz = p.p_memsz = uint32_t(memory_[i].bytes.size());
    p.p_flags = PF_R | PF_W | PF_X;
    p.p_align = 4096;
    out.insert(out.end(), memory_[i].bytes.begin(), memory_[i].bytes.end());
  }
  std::memcpy(out.data() + sizeof(Elf32_Ehdr), ph.data(), phnum * sizeof(Elf32_Phdr));
  return out;
}

void ElfCore::write(const std::string& path) const {
  const std::vector<uint8_t> b = bytes();
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  f.write(reinterpret_cast<const char*>(b.data()), std::streamsize(b.size()));
  f.close();
  if (!f) {
    const int error = errno;
    // A cut-short core would only mislead gdb: it goes (a regular file only, never a device).
    std::error_code ec;
    const bool removed = std::filesystem::is_regular_file(path, ec) && std::filesystem::remove(path, ec);
    throw std::runtime_error("cannot write core file '" + path + "': " + std::strerror(error) +
                             (removed ? " (the partial file is removed)" : ""));
  }
}

}  // namespace ipusim::platform
