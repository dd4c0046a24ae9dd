// A firmware ELF, loaded once and shared (read-only) by every tile that runs it,
// together with its decoded-instruction cache.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "iss/source_map.h"
#include "iss/code_symbols.h"

namespace ipusim::iss {

class SramImage;  // sram_image.h

// Thrown for a file that is not a loadable rv32 tile ELF; the message names the file
// and what is wrong with it.
class ProgramError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct Segment {
  uint32_t vaddr = 0;
  uint32_t mem_size = 0;           // bytes in memory (file bytes, then zeros)
  std::vector<uint8_t> bytes;      // file bytes
  bool executable = false;
};

struct DecodedCode;  // the decoded-instruction cache (iss-internal)

class Program {
 public:
  // Loads a 32-bit little-endian RISC-V ELF executable. Throws ProgramError.
  static std::shared_ptr<const Program> load(const std::string& path);
  // Same, from bytes in memory; `name` is used in error messages.
  static std::shared_ptr<const Program> from_bytes(const std::vector<uint8_t>& elf,
                                                   const std::string& name);
  // A program that is only code: `code` is the executable range at `code_base` (tile
  // addresses, 4-aligned, whole words), started at `entry`. For cores booted over SRAM a
  // host already wrote (the host interface's BOOT_CMD); `name` is used in messages.
  // Throws ProgramError for a misaligned range or an entry outside it.
  static std::shared_ptr<const Program> from_image(const std::string& name, uint32_t entry,
                                                   uint32_t code_base,
                                                   std::vector<uint8_t> code);
  ~Program();

  const std::string& name() const { return name_; }
  uint32_t entry() const { return entry_; }
  const std::vector<Segment>& segments() const { return segments_; }
  uint32_t code_begin() const { return code_begin_; }  // executable range [begin, end)
  uint32_t code_end() const { return code_end_; }
  std::optional<uint32_t> symbol(const std::string& name) const;
  // The symbol's st_size: the bytes it spans (0 for a label, such as an assembler one
  // without .size); nullopt when there is no such symbol.
  std::optional<uint32_t> symbol_size(const std::string& name) const;
  // The code's functions and labels by address (traces: <func+0x1c>); empty for a
  // stripped ELF or a from_image() program.
  const CodeSymbols& code_symbols() const { return code_symbols_; }
  // Highest address any segment occupies (for checking the image fits a tile's SRAM).
  uint32_t image_end() const;

  struct Symbol {  // one symbol-table entry: st_value, st_size
    std::string name;
    uint32_t value = 0, size = 0;
  };

  // The decoded code for tiles with co-issue off or on (docs/xipu.md "Timing"): the pairs
  // are marked in the decoded entries, so tiles share a DecodedCode only with the same
  // co_issue.
  const DecodedCode& decoded(bool co_issue = false) const { return co_issue ? *decoded_co_ : *decoded_; }
  // decoded(co_issue) with hooks (DecodedCode::hooks, profile_hooks.cpp): the profiler's
  // on its calls and returns (`profile`), the stack watch's after every write of sp
  // (`stack`); for hooked tiles only: made on the first call (any thread), shared by the
  // tiles of the Program hooked alike. Neither: decoded(co_issue).
  const DecodedCode& hooked(bool co_issue, bool profile, bool stack) const;
  // Every symbol of the ELF's symbol table (sorted by name; empty for from_image).
  const std::vector<Symbol>& symbols() const { return symbols_; }

  // Where `pc` is in the program's source (function, file:line: iss/source_map.h), from
  // the ELF it was loaded from; the map is built on the first call (any thread, once).
  // Empty for a program made from an image, which has no ELF.
  SourceLocation locate(uint32_t pc) const;
  // The whole ELF file it was loaded from (empty: from_image).
  const std::vector<uint8_t>& elf_bytes() const { return elf_; }
  // The image tiles of `sram_bytes` share (sram_image.h), made on the first call for that
  // size (any thread); nullptr when the host cannot share it (the image is copied).
  std::shared_ptr<const SramImage> sram_image(uint32_t sram_bytes) const;

 private:
  Program();
  std::string name_;
  uint32_t entry_ = 0;
  uint32_t code_begin_ = 0, code_end_ = 0;
  std::vector<Segment> segments_;
  std::vector<Symbol> symbols_;  // sorted by name
  CodeSymbols code_symbols_;
  const Symbol* find_symbol(const std::string& name) const;
  std::unique_ptr<DecodedCode> decoded_, decoded_co_;  // co-issue off, on
  mutable std::mutex hooked_mutex_;
  // [co-issue off, on][profile, stack, both]
  mutable std::unique_ptr<DecodedCode> hooked_[2][3];
  std::vector<uint8_t> elf_;  // kept for the source map (debug sections are never loaded)
  mutable std::once_flag source_once_;
  mutable std::unique_ptr<const SourceMap> source_map_;
  mutable std::mutex images_mutex_;
  // One per SRAM size asked (nullptr: the host could not make it; not asked again).
  mutable std::vector<std::pair<uint32_t, std::shared_ptr<const SramImage>>> images_;
};

}  // namespace ipusim::iss
