// The config schema (tlm/config/schema.yaml) as configgen reads it, and what it generates
// from it: the C++ the loader, the writer, config.h and `ipusim info` include, and the
// key tables of docs/config.md.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace ipusim::configgen {

// One key of a section (schema.yaml's header says what each field means).
struct Key {
  enum class Kind { Value, Section, Hand, Retired };
  Kind kind = Kind::Value;
  std::string key;
  std::string section;  // Kind::Section: the nested section's name
  std::string retired;  // Kind::Retired: what the error says
  // Kind::Value:
  std::string type;        // u32, u64, f64, bool, name
  std::string field;       // member of the section's struct
  std::string field_type;  // the member's type where it is not `type` (an f64 read into a u64)
  std::string unit, doc, source, range_doc, default_doc, check, at_least, max_expr;
  std::string min, max, default_value;  // as written in the schema, in the file's unit
  bool min_exclusive = false;
  bool required = false;
  int pow10 = 0, pow2 = 0;
  uint64_t scale = 1;
};

struct Section {
  std::string name;      // chip, tile, ipu_links, ...
  std::string type;      // the C++ struct its keys fill
  std::string member;    // the parent's member holding it; "" = the parent's own fields
  std::string title;     // top-level sections: the docs heading
  bool required = false;
  std::vector<Key> keys;
};

struct RtlBlock {
  std::string name, doc;
};

struct Schema {
  std::vector<Section> sections;
  std::vector<RtlBlock> rtl_blocks;

  const Section& section(const std::string& name) const;
};

Schema parse_schema(const std::string& path);

// "ipu_links" -> "IpuLinks"
std::string camel(const std::string& name);
// The C++ type of a value key's member.
std::string cpp_type(const Key& k);

std::string emit_defaults_header(const Schema& s, const std::string& source);
std::string emit_reader(const Schema& s, const std::string& source);
std::string emit_writer(const Schema& s, const std::string& source);
std::string emit_info_json(const Schema& s, const std::string& source);
// `current` with the text between its generated markers replaced by the key tables.
std::string emit_doc(const Schema& s, const std::string& source, const std::string& path, const std::string& current);

}  // namespace ipusim::configgen
