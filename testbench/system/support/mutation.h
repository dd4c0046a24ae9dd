// Seeded mutations of reference inputs, for the tests that check hostile inputs end in a
// named error (cli_fuzz_test) and that every consumer accepts what the loader accepts
// (config_property_test). Deterministic: the same seed gives the same mutants on every
// host (std::mt19937_64's output is fixed by the standard; no std:: distribution is used).
//
// YAML mutations work on the lines of block-style files (the reference configs' style):
// a value becomes an edge value, a key is removed (with its block) or duplicated, so the
// mutant still parses often enough to reach the loader's checks. ELF mutations flip bytes,
// truncate, and set fields of the ELF header, a program header or a section header to edge
// values.
#pragma once

#include <elf.h>

#include <algorithm>
#include <cctype>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

namespace ipusim::test {

class MutationRng {
 public:
  explicit MutationRng(uint64_t seed) : gen_(seed) {}
  uint64_t below(uint64_t n) { return n == 0 ? 0 : gen_() % n; }
  bool chance(unsigned percent) { return below(100) < percent; }
  uint64_t next() { return gen_(); }

 private:
  std::mt19937_64 gen_;
};

// --- YAML -----------------------------------------------------------------------------

// One line of a block-style YAML file: "INDENT[- ]KEY: VALUE  # comment".
struct YamlLine {
  std::string text;
  size_t indent = 0;
  std::string key;    // empty: not a "key:" line (comment, blank, list item)
  std::string value;  // after "key:", comment removed, trimmed; empty for a block's head
};

inline std::vector<YamlLine> split_yaml(const std::string& text) {
  std::vector<YamlLine> lines;
  size_t at = 0;
  while (at <= text.size()) {
    size_t end = text.find('\n', at);
    if (end == std::string::npos) end = text.size();
    YamlLine l;
    l.text = text.substr(at, end - at);
    at = end + 1;
    l.indent = l.text.find_first_not_of(' ');
    if (l.indent == std::string::npos) l.indent = l.text.size();
    const std::string body = l.text.substr(l.indent);
    const size_t colon = body.find(':');
    if (!body.empty() && body[0] != '#' && body[0] != '-' && colon != std::string::npos && colon > 0 &&
        body.find_first_of(" {[\"'") > colon) {
      l.key = body.substr(0, colon);
      std::string v = body.substr(colon + 1);
      if (const size_t hash = v.find(" #"); hash != std::string::npos) v.resize(hash);
      const size_t b = v.find_first_not_of(' '), e = v.find_last_not_of(' ');
      l.value = b == std::string::npos ? "" : v.substr(b, e - b + 1);
    }
    lines.push_back(std::move(l));
    if (end == text.size()) break;
  }
  return lines;
}

inline std::string join_yaml(const std::vector<YamlLine>& lines) {
  std::string out;
  for (size_t i = 0; i < lines.size(); ++i) out += lines[i].text + (i + 1 < lines.size() ? "\n" : "");
  return out;
}

// Values a key may get: numbers at and past every range's edges, other types, nothing.
inline std::string edge_value(MutationRng& rng, const std::string& old) {
  static const char* const kEdges[] = {"0",     "-1",   "1",    "2",          "3",     "5",          "4096",
                                       "4097",  "65536", "4294967295", "4294967296", "18446744073709551616",
                                       "1e300", "1e-300", "0.5", "-0.0",       ".nan",  ".inf",       "1e-6",
                                       "abc",   "\"\"", "~",    "true",       "[1, 2]", "{a: 1}",     "0x10",
                                       "single", "pair", "m2000", "ladder", "ring"};
  const size_t n = sizeof(kEdges) / sizeof(kEdges[0]);
  // A number nearby (halved, doubled, +-1) as often as an edge: plausible values find
  // the rules between the edges.
  if (!old.empty() && (std::isdigit(static_cast<unsigned char>(old[0])) != 0) && rng.chance(40)) {
    const double v = std::strtod(old.c_str(), nullptr);
    switch (rng.below(4)) {
      case 0: return std::to_string(static_cast<uint64_t>(v / 2));
      case 1: return std::to_string(static_cast<uint64_t>(v * 2));
      case 2: return std::to_string(static_cast<uint64_t>(v) + 1);
      default: return v >= 1 ? std::to_string(static_cast<uint64_t>(v) - 1) : "0";
    }
  }
  return kEdges[rng.below(n)];
}

// One YAML-aware mutation of `text`: a value replaced, a key (and its block) removed, or a
// key line duplicated. `values_only`: only value replacements and removals (the property
// test: files that stay well-formed YAML more often).
inline std::string mutate_yaml_once(const std::string& text, MutationRng& rng, bool values_only = false) {
  std::vector<YamlLine> lines = split_yaml(text);
  std::vector<size_t> keyed;
  for (size_t i = 0; i < lines.size(); ++i)
    if (!lines[i].key.empty() && lines[i].key != "kind") keyed.push_back(i);
  if (keyed.empty()) return text;
  const size_t i = keyed[rng.below(keyed.size())];
  YamlLine& l = lines[i];
  const unsigned what = static_cast<unsigned>(rng.below(values_only ? 10 : 12));
  if (what < 7 && !l.value.empty()) {  // a scalar's value
    l.text = std::string(l.indent, ' ') + l.key + ": " + edge_value(rng, l.value);
  } else if (what < 9 || l.value.empty()) {  // remove the key and its block
    size_t end = i + 1;
    while (end < lines.size() && (lines[end].indent > l.indent || lines[end].text.empty())) ++end;
    if (l.value.empty() && what < 7 && end > i + 1) {  // a block's head: replace the block by a scalar
      lines.erase(lines.begin() + long(i) + 1, lines.begin() + long(end));
      l.text = std::string(l.indent, ' ') + l.key + ": " + edge_value(rng, "");
    } else {
      lines.erase(lines.begin() + long(i), lines.begin() + long(end));
    }
  } else {  // a key line duplicated (its block stays once, under the second)
    lines.insert(lines.begin() + long(i), l);
  }
  return join_yaml(lines);
}

// Raw byte mutations of text: a byte flipped, a run deleted, a byte inserted.
inline std::string mutate_bytes(std::string text, MutationRng& rng) {
  const unsigned count = 1 + static_cast<unsigned>(rng.below(4));
  for (unsigned k = 0; k < count && !text.empty(); ++k) {
    const size_t at = rng.below(text.size());
    switch (rng.below(3)) {
      case 0: text[at] = static_cast<char>(text[at] ^ (1u << rng.below(8))); break;
      case 1: text.erase(at, 1 + rng.below(8)); break;
      default: text.insert(at, 1, "{}[]:-#'\"\n\t &*!|>%@`,?0"[rng.below(24)]); break;
    }
  }
  return text;
}

// --- ELF ------------------------------------------------------------------------------

inline uint32_t elf_edge(MutationRng& rng, uint64_t file_size) {
  const uint32_t kEdges[] = {0,          1,          2,          4,          0x20,       0x34,
                             0x7fffffff, 0x80000000, 0xfffffff0, 0xfffffffc, 0xffffffff, uint32_t(file_size),
                             uint32_t(file_size + 1), uint32_t(file_size - 1), 0x80000, 0x40000};
  if (rng.chance(20)) return static_cast<uint32_t>(rng.next());
  return kEdges[rng.below(sizeof(kEdges) / sizeof(kEdges[0]))];
}

// Stores `v` in the `width`-byte little-endian field at `offset`, if it lies in the file.
inline void put_field(std::vector<uint8_t>& b, uint64_t offset, unsigned width, uint32_t v) {
  if (offset > b.size() || b.size() - offset < width) return;
  for (unsigned i = 0; i < width; ++i) b[offset + i] = static_cast<uint8_t>(v >> (8 * i));
}

inline uint32_t get_field(const std::vector<uint8_t>& b, uint64_t offset, unsigned width) {
  uint32_t v = 0;
  if (offset > b.size() || b.size() - offset < width) return 0;
  for (unsigned i = 0; i < width; ++i) v |= uint32_t(b[offset + i]) << (8 * i);
  return v;
}

struct ElfField {
  unsigned offset, width;
};

// 1 to 3 of: byte flips, a truncation, an ELF header field, a program header field, a
// section header field set to an edge value.
inline std::vector<uint8_t> mutate_elf(std::vector<uint8_t> b, MutationRng& rng) {
  static const ElfField kHeader[] = {
      {EI_CLASS, 1}, {EI_DATA, 1}, {EI_VERSION, 1}, {offsetof(Elf32_Ehdr, e_type), 2},
      {offsetof(Elf32_Ehdr, e_machine), 2}, {offsetof(Elf32_Ehdr, e_entry), 4}, {offsetof(Elf32_Ehdr, e_phoff), 4},
      {offsetof(Elf32_Ehdr, e_shoff), 4}, {offsetof(Elf32_Ehdr, e_flags), 4}, {offsetof(Elf32_Ehdr, e_phentsize), 2},
      {offsetof(Elf32_Ehdr, e_phnum), 2}, {offsetof(Elf32_Ehdr, e_shentsize), 2}, {offsetof(Elf32_Ehdr, e_shnum), 2},
      {offsetof(Elf32_Ehdr, e_shstrndx), 2}};
  static const ElfField kPhdr[] = {
      {offsetof(Elf32_Phdr, p_type), 4},  {offsetof(Elf32_Phdr, p_offset), 4}, {offsetof(Elf32_Phdr, p_vaddr), 4},
      {offsetof(Elf32_Phdr, p_filesz), 4}, {offsetof(Elf32_Phdr, p_memsz), 4}, {offsetof(Elf32_Phdr, p_flags), 4}};
  static const ElfField kShdr[] = {
      {offsetof(Elf32_Shdr, sh_type), 4},   {offsetof(Elf32_Shdr, sh_offset), 4}, {offsetof(Elf32_Shdr, sh_size), 4},
      {offsetof(Elf32_Shdr, sh_link), 4},   {offsetof(Elf32_Shdr, sh_entsize), 4}, {offsetof(Elf32_Shdr, sh_name), 4},
      {offsetof(Elf32_Shdr, sh_addr), 4}};
  const unsigned count = 1 + static_cast<unsigned>(rng.below(3));
  for (unsigned k = 0; k < count && !b.empty(); ++k) {
    const uint64_t size = b.size();
    switch (rng.below(5)) {
      case 0: {  // byte flips, anywhere
        const unsigned flips = 1 + static_cast<unsigned>(rng.below(8));
        for (unsigned f = 0; f < flips; ++f) b[rng.below(b.size())] ^= static_cast<uint8_t>(1u << rng.below(8));
        break;
      }
      case 1:  // truncation: mostly inside the headers and tables
        b.resize(rng.chance(50) ? rng.below(std::min<uint64_t>(size, 512)) : rng.below(size));
        break;
      case 2: {
        const ElfField& f = kHeader[rng.below(sizeof(kHeader) / sizeof(kHeader[0]))];
        put_field(b, f.offset, f.width, elf_edge(rng, size));
        break;
      }
      case 3: {  // a program header's field
        const uint32_t phoff = get_field(b, offsetof(Elf32_Ehdr, e_phoff), 4);
        const uint32_t phnum = get_field(b, offsetof(Elf32_Ehdr, e_phnum), 2);
        if (phnum == 0) break;
        const ElfField& f = kPhdr[rng.below(sizeof(kPhdr) / sizeof(kPhdr[0]))];
        put_field(b, uint64_t(phoff) + rng.below(phnum) * sizeof(Elf32_Phdr) + f.offset, f.width, elf_edge(rng, size));
        break;
      }
      default: {  // a section header's field
        const uint32_t shoff = get_field(b, offsetof(Elf32_Ehdr, e_shoff), 4);
        const uint32_t shnum = get_field(b, offsetof(Elf32_Ehdr, e_shnum), 2);
        if (shnum == 0) break;
        const ElfField& f = kShdr[rng.below(sizeof(kShdr) / sizeof(kShdr[0]))];
        put_field(b, uint64_t(shoff) + rng.below(shnum) * sizeof(Elf32_Shdr) + f.offset, f.width, elf_edge(rng, size));
        break;
      }
    }
  }
  return b;
}

}  // namespace ipusim::test
