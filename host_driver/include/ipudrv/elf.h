// A tile program as the driver loads it: the loadable segments, the entry, the
// executable range and the symbols of an rv32 ELF, read on the host.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace ipudrv {

struct ElfSegment {
  uint32_t vaddr = 0;
  uint32_t mem_bytes = 0;          // file bytes, then zeros up to this
  std::vector<uint8_t> bytes;      // file bytes
};

class Elf {
 public:
  // Throw ProgramError naming the file and what is wrong with it.
  static Elf from_file(const std::string& path);
  static Elf from_bytes(const std::vector<uint8_t>& bytes, const std::string& name);

  const std::string& name() const;
  uint32_t entry() const;
  uint32_t code_base() const;   // executable range [code_base, code_base + code_size)
  uint32_t code_size() const;
  const std::vector<ElfSegment>& segments() const;
  std::optional<uint32_t> symbol(const std::string& name) const;
  // The symbol's st_size in bytes (0 for a label without a size); nullopt: no such symbol.
  std::optional<uint32_t> symbol_size(const std::string& name) const;
  uint32_t image_end() const;   // highest address a segment occupies
  // Where `pc` is in the program's source, from the ELF's DWARF (else its symbol table):
  // function "vec_add", source "kernels/vecadd.c:42"; empty what is not known
  // (docs/debugging.md). Built on the first call; safe from any thread.
  struct Location {
    std::string function, source;
  };
  Location locate(uint32_t pc) const;

  struct Data;
 private:
  explicit Elf(std::shared_ptr<const Data> d) : d_(std::move(d)) {}
  std::shared_ptr<const Data> d_;
};

}  // namespace ipudrv
