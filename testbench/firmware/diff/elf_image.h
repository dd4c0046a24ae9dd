// A read-only view of a 32-bit RISC-V ELF executable: its loadable segments and its
// symbol table. Just enough for the firmware tests to compare a program with its qemu
// twin and to find fault sites; the simulator has its own loader (tlm/iss/program.h).
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace ipusim::fwtest {

struct ElfSegment {
  uint32_t vaddr = 0;
  uint32_t mem_size = 0;
  std::vector<uint8_t> bytes;  // file contents (mem_size may be larger: zeros follow)
  bool executable = false;
  bool writable = false;
};

class ElfImage {
 public:
  // Throws std::runtime_error naming the file and the problem.
  static ElfImage load(const std::filesystem::path& path);

  uint32_t entry() const { return entry_; }
  const std::vector<ElfSegment>& segments() const { return segments_; }
  std::optional<uint32_t> symbol(const std::string& name) const;
  uint32_t require_symbol(const std::string& name) const;  // throws if absent
  // The 32-bit little-endian word at `addr` from the file bytes of a segment.
  std::optional<uint32_t> word_at(uint32_t addr) const;
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
  uint32_t entry_ = 0;
  std::vector<ElfSegment> segments_;
  std::map<std::string, uint32_t> symbols_;
};

}  // namespace ipusim::fwtest
