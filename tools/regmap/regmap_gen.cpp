// regmap_gen: turns a register map source (hw/<block>/registers.yaml) into the C / C++
// header the model, the driver and the firmware include, and the register table of docs/.
//
//   regmap_gen --yaml hw/host_if/registers.yaml --header OUT.h --doc OUT.md [--check]
//
// With --check nothing is written: the exit status is 1 (and the file is named) if an
// output differs from what the source generates, so a test keeps the checked-in copies
// current. Errors in the source name the file, line and key, exit status 2.
#include <yaml-cpp/yaml.h>

#include "generated_files.h"

#include <fmt/format.h>

#include <cstdint>
#include <fstream>
#include <iostream>
#include <map>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

using ipusim::gen::SourceError;

std::string g_file;

[[noreturn]] void fail(const YAML::Node& node, const std::string& what) {
  throw SourceError(fmt::format("{}:{}: {}", g_file, node.Mark().line + 1, what));
}

const YAML::Node need(const YAML::Node& node, const char* key) {
  YAML::Node child = node[key];
  if (!child) fail(node, fmt::format("missing key '{}'", key));
  return child;
}

std::string text(const YAML::Node& node, const char* key) {
  return need(node, key).as<std::string>();
}

uint64_t number(const YAML::Node& node, const char* key) {
  YAML::Node child = need(node, key);
  try {
    return child.as<uint64_t>();
  } catch (const YAML::Exception&) {
    fail(child, fmt::format("{}: not an unsigned number", key));
  }
}

std::string optional_text(const YAML::Node& node, const char* key) {
  return node[key] ? node[key].as<std::string>() : std::string();
}

struct Field {
  std::string name, doc, enum_name;
  unsigned lsb = 0, width = 1;
};
struct Reg {
  std::string name, access, doc, enum_name;
  uint32_t offset = 0;
  std::vector<Field> fields;
};
struct Window {
  std::string name, access, doc;
  uint32_t offset = 0, bytes = 0;
};
struct Value {
  std::string name, doc;
  uint64_t value = 0;
};
struct Enum {
  std::string name, doc;
  std::vector<Value> values;
};
struct StructField {
  std::string name, type, doc;
};
struct Struct {
  std::string name, doc;
  uint32_t size = 0;
  std::vector<StructField> fields;
};
// Constants another generated header (the ISA's) defines: included, never redefined.
struct Import {
  std::string header, source, doc;
  std::vector<std::string> names;
};
struct Map {
  std::string name, prefix;
  uint32_t major = 0, minor = 0;
  std::vector<Import> imports;
  std::vector<Value> constants, flags;
  std::vector<Enum> enums;
  std::vector<Reg> regs;
  std::vector<Window> windows;
  std::vector<Struct> structs;
};

Field parse_field(const YAML::Node& n) {
  Field f;
  f.name = text(n, "name");
  f.doc = optional_text(n, "doc");
  f.enum_name = optional_text(n, "enum");
  std::string bits = text(n, "bits");
  unsigned hi = 0, lo = 0;
  if (auto colon = bits.find(':'); colon != std::string::npos) {
    hi = unsigned(std::stoul(bits.substr(0, colon)));
    lo = unsigned(std::stoul(bits.substr(colon + 1)));
  } else {
    hi = lo = unsigned(std::stoul(bits));
  }
  if (hi < lo || hi > 31) fail(n["bits"], fmt::format("bits: '{}' is not hi:lo within 31:0", bits));
  f.lsb = lo;
  f.width = hi - lo + 1;
  return f;
}

unsigned type_bytes(const YAML::Node& n, const std::string& type) {
  if (type == "u8") return 1;
  if (type == "u16") return 2;
  if (type == "u32") return 4;
  if (type == "u64") return 8;
  fail(n, fmt::format("type: '{}' is not u8, u16, u32 or u64", type));
}

Map parse(const std::string& path) {
  g_file = path;
  const YAML::Node root = ipusim::gen::load_source(path);
  Map m;
  m.name = text(root, "name");
  m.prefix = text(root, "prefix");
  m.major = uint32_t(number(need(root, "version"), "major"));
  m.minor = uint32_t(number(need(root, "version"), "minor"));
  for (const auto& n : root["constants"]) m.constants.push_back({text(n, "name"), optional_text(n, "doc"), number(n, "value")});
  for (const auto& n : root["flags"]) m.flags.push_back({text(n, "name"), optional_text(n, "doc"), number(n, "value")});
  for (const auto& n : root["imports"]) {
    Import im{text(n, "header"), text(n, "source"), text(n, "doc"), {}};
    for (const auto& name : need(n, "names")) im.names.push_back(name.as<std::string>());
    m.imports.push_back(std::move(im));
  }
  for (const auto& n : root["enums"]) {
    Enum e{text(n, "name"), optional_text(n, "doc"), {}};
    for (const auto& v : need(n, "values")) e.values.push_back({text(v, "name"), optional_text(v, "doc"), number(v, "value")});
    m.enums.push_back(std::move(e));
  }
  std::set<std::string> names;
  std::map<uint32_t, std::string> used;  // 4-byte word -> register or window
  auto claim = [&](const YAML::Node& n, const std::string& name, uint32_t offset, uint32_t bytes) {
    if (!names.insert(name).second) fail(n, fmt::format("name: '{}' defined twice", name));
    if (offset % 4 || bytes % 4 || bytes == 0) fail(n, fmt::format("{}: offset and size must be multiples of 4", name));
    for (uint32_t a = offset; a < offset + bytes; a += 4) {
      auto [it, fresh] = used.emplace(a, name);
      if (!fresh) fail(n, fmt::format("{}: offset 0x{:03X} already belongs to {}", name, a, it->second));
    }
  };
  static const std::set<std::string> kAccess{"ro", "rw", "wo", "w1c", "cmd"};
  for (const auto& n : root["registers"]) {
    Reg r;
    r.name = text(n, "name");
    r.offset = uint32_t(number(n, "offset"));
    r.access = text(n, "access");
    r.doc = optional_text(n, "doc");
    r.enum_name = optional_text(n, "enum");
    if (!kAccess.count(r.access)) fail(n["access"], fmt::format("access: '{}' is not ro, rw, wo, w1c or cmd", r.access));
    claim(n, r.name, r.offset, 4);
    uint32_t seen = 0;
    for (const auto& fn : n["fields"]) {
      Field f = parse_field(fn);
      uint32_t mask = uint32_t(((uint64_t(1) << f.width) - 1) << f.lsb);
      if (seen & mask) fail(fn, fmt::format("{}.{}: bits overlap another field", r.name, f.name));
      seen |= mask;
      r.fields.push_back(f);
    }
    m.regs.push_back(std::move(r));
  }
  for (const auto& n : root["windows"]) {
    Window w{text(n, "name"), text(n, "access"), optional_text(n, "doc"), uint32_t(number(n, "offset")), uint32_t(number(n, "bytes"))};
    claim(n, w.name, w.offset, w.bytes);
    m.windows.push_back(w);
  }
  for (const auto& n : root["structs"]) {
    Struct s{text(n, "name"), optional_text(n, "doc"), uint32_t(number(n, "size")), {}};
    uint32_t at = 0;
    for (const auto& fn : need(n, "fields")) {
      StructField f{text(fn, "name"), text(fn, "type"), optional_text(fn, "doc")};
      unsigned b = type_bytes(fn["type"], f.type);
      if (at % b) fail(fn, fmt::format("{}.{}: offset {} is not aligned to {} (add padding)", s.name, f.name, at, b));
      at += b;
      s.fields.push_back(f);
    }
    if (at != s.size) fail(n, fmt::format("{}: fields add up to {} bytes, size says {}", s.name, at, s.size));
    m.structs.push_back(std::move(s));
  }
  return m;
}

// For each enum, a C function from value to name ("TILE_FAULT" for IPU_ERR_TILE_FAULT),
// "UNKNOWN" for any other value: the one table of the names the model and driver print.
std::string enum_name_functions(const Map& m) {
  const std::string P = m.prefix;
  std::string lower_prefix;
  for (char c : P) lower_prefix += char(std::tolower(static_cast<unsigned char>(c)));
  std::ostringstream o;
  for (const auto& e : m.enums) {
    std::string lower_name;
    for (char c : e.name) lower_name += char(std::tolower(static_cast<unsigned char>(c)));
    o << fmt::format("\n/* {}_{}_* by name (\"{}\", ...); \"UNKNOWN\" for any other value */\n", P, e.name,
                     e.values.empty() ? std::string() : e.values.front().name);
    o << fmt::format("static inline const char* {}_{}_name(uint32_t value) {{\n  switch (value) {{\n", lower_prefix, lower_name);
    for (const auto& v : e.values) o << fmt::format("    case {}_{}_{}: return \"{}\";\n", P, e.name, v.name, v.name);
    o << "    default: return \"UNKNOWN\";\n  }\n}\n";
  }
  return o.str();
}

std::string header(const Map& m, const std::string& source) {
  const std::string P = m.prefix;
  std::ostringstream o;
  std::string guard = fmt::format("{}_{}_REGS_H", P, [&] {
    std::string up;
    for (char c : m.name) up += char(std::toupper(static_cast<unsigned char>(c)));
    return up;
  }());
  o << "/* Generated by tools/regmap from " << source << ". Do not edit: change the\n"
    << " * source and rebuild (cmake --build build --target regmap). C99 / C++. */\n";
  o << "#ifndef " << guard << "\n#define " << guard << "\n\n#include <stdint.h>\n#include <stddef.h>\n\n";
  o << "#ifdef __cplusplus\n#define " << P << "_STATIC_ASSERT(c, m) static_assert(c, m)\n#else\n#define " << P
    << "_STATIC_ASSERT(c, m) _Static_assert(c, m)\n#endif\n\n";
  for (const auto& im : m.imports) {
    std::string names;
    for (const auto& n : im.names) names += (names.empty() ? "" : ", ") + P + "_" + n;
    o << fmt::format("#include <{}> /* {} (generated from {}) */\n", im.header, names, im.source);
    for (const auto& n : im.names)
      o << fmt::format("#ifndef {0}_{1}\n#error \"{2} does not define {0}_{1}\"\n#endif\n", P, n, im.header);
  }
  if (!m.imports.empty()) o << "\n";
  o << fmt::format("#define {}_VERSION_MAJOR {}u\n#define {}_VERSION_MINOR {}u\n\n", P, m.major, P, m.minor);
  o << "/* constants */\n";
  for (const auto& c : m.constants) o << fmt::format("#define {}_{} 0x{:X}u /* {} */\n", P, c.name, c.value, c.doc);
  for (const auto& c : m.flags) o << fmt::format("#define {}_{} 0x{:X}u /* {} */\n", P, c.name, c.value, c.doc);
  for (const auto& e : m.enums) {
    o << fmt::format("\n/* {}_{}_*: {} */\n", P, e.name, e.doc);
    for (const auto& v : e.values) o << fmt::format("#define {}_{}_{} {}u /* {} */\n", P, e.name, v.name, v.value, v.doc);
  }
  o << "\n/* registers (BAR0 byte offsets) and their fields */\n";
  for (const auto& r : m.regs) {
    o << fmt::format("#define {}_REG_{} 0x{:03X}u /* {}: {} */\n", P, r.name, r.offset, r.access, r.doc);
    for (const auto& f : r.fields) {
      uint32_t mask = uint32_t(((uint64_t(1) << f.width) - 1) << f.lsb);
      o << fmt::format("#define {}_{}_{}_SHIFT {}u\n#define {}_{}_{}_MASK 0x{:08X}u /* {} */\n", P, r.name, f.name, f.lsb, P, r.name, f.name, mask, f.doc);
    }
  }
  o << "\n/* windows (byte ranges of BAR0) */\n";
  for (const auto& w : m.windows)
    o << fmt::format("#define {}_WIN_{} 0x{:03X}u /* {}: {} */\n#define {}_WIN_{}_BYTES {}u\n", P, w.name, w.offset, w.access, w.doc, P, w.name, w.bytes);
  static const std::map<std::string, std::string> kC{{"u8", "uint8_t"}, {"u16", "uint16_t"}, {"u32", "uint32_t"}, {"u64", "uint64_t"}};
  std::string lower_prefix;
  for (char c : P) lower_prefix += char(std::tolower(static_cast<unsigned char>(c)));
  for (const auto& s : m.structs) {
    std::string type = lower_prefix + "_" + s.name;
    o << fmt::format("\n/* {} */\nstruct {} {{\n", s.doc, type);
    for (const auto& f : s.fields) o << fmt::format("  {} {}; /* {} */\n", kC.at(f.type), f.name, f.doc);
    o << "};\n";
    o << fmt::format("{}_STATIC_ASSERT(sizeof(struct {}) == {}, \"{} layout\");\n", P, type, s.size, type);
    uint32_t at = 0;
    for (const auto& f : s.fields) {
      o << fmt::format("{}_STATIC_ASSERT(offsetof(struct {}, {}) == {}, \"{}.{} offset\");\n", P, type, f.name, at, type, f.name);
      at += kC.at(f.type) == "uint64_t" ? 8 : kC.at(f.type) == "uint32_t" ? 4 : kC.at(f.type) == "uint16_t" ? 2 : 1;
    }
  }
  o << enum_name_functions(m);
  o << "\n#endif /* " << guard << " */\n";
  return o.str();
}

std::string escape(std::string s) {
  std::string out;
  for (char c : s) out += c == '|' ? std::string("\\|") : std::string(1, c);
  return out;
}

std::string doc(const Map& m, const std::string& source) {
  const std::string P = m.prefix;
  std::ostringstream o;
  o << "# Host interface registers\n\n"
    << "Generated by tools/regmap from `" << source << "` (register map version " << m.major << "." << m.minor
    << "); do not edit, change the source and run `cmake --build build --target regmap`. "
    << "The C / C++ names are those of `hw/host_if/include/ipu/hostif_regs.h`. The design is in docs/host_if.md.\n\n";
  o << "## Registers\n\n| offset | name | access | fields | description |\n|---|---|---|---|---|\n";
  for (const auto& r : m.regs) {
    std::string fields;
    for (const auto& f : r.fields) {
      if (!fields.empty()) fields += "<br>";
      fields += f.width == 1 ? fmt::format("[{}] {}", f.lsb, f.name) : fmt::format("[{}:{}] {}", f.lsb + f.width - 1, f.lsb, f.name);
      fields += ": " + escape(f.doc);
    }
    o << fmt::format("| 0x{:03X} | `{}_REG_{}` | {} | {} | {} |\n", r.offset, P, r.name, r.access, fields, escape(r.doc));
  }
  o << "\n## Windows\n\n| offset | bytes | name | access | description |\n|---|---|---|---|---|\n";
  for (const auto& w : m.windows) o << fmt::format("| 0x{:03X} | {} | `{}_WIN_{}` | {} | {} |\n", w.offset, w.bytes, P, w.name, w.access, escape(w.doc));
  o << "\n## Constants\n\n| name | value | description |\n|---|---|---|\n";
  for (const auto& c : m.constants) o << fmt::format("| `{}_{}` | 0x{:X} | {} |\n", P, c.name, c.value, escape(c.doc));
  for (const auto& c : m.flags) o << fmt::format("| `{}_{}` | 0x{:X} | {} |\n", P, c.name, c.value, escape(c.doc));
  for (const auto& im : m.imports) {
    std::string link = im.doc;
    if (link.rfind("docs/", 0) == 0) link = link.substr(5);  // this table lives in docs/ too
    for (const auto& n : im.names)
      o << fmt::format("| `{}_{}` | [{}]({}) | from `{}` (`{}`) |\n", P, n, im.doc, link, im.source, im.header);
  }
  for (const auto& e : m.enums) {
    o << fmt::format("\n## {}_{}_*: {}\n\n| value | name | meaning |\n|---|---|---|\n", P, e.name, escape(e.doc));
    for (const auto& v : e.values) o << fmt::format("| {} | `{}_{}_{}` | {} |\n", v.value, P, e.name, v.name, escape(v.doc));
  }
  std::string lower_prefix;
  for (char c : P) lower_prefix += char(std::tolower(static_cast<unsigned char>(c)));
  for (const auto& s : m.structs) {
    o << fmt::format("\n## struct {}_{} ({} bytes): {}\n\n| offset | field | type | description |\n|---|---|---|---|\n", lower_prefix, s.name, s.size, escape(s.doc));
    uint32_t at = 0;
    for (const auto& f : s.fields) {
      o << fmt::format("| {} | `{}` | {} | {} |\n", at, f.name, f.type, escape(f.doc));
      at += f.type == "u64" ? 8 : f.type == "u32" ? 4 : f.type == "u16" ? 2 : 1;
    }
  }
  return o.str();
}

}  // namespace

int main(int argc, char** argv) {
  std::string yaml, header_path, doc_path, source_name;
  bool check = false;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto value = [&](std::string& into) {
      if (i + 1 >= argc) {
        std::cerr << "regmap_gen: " << a << " needs a value\n";
        std::exit(2);
      }
      into = argv[++i];
    };
    if (a == "--yaml") value(yaml);
    else if (a == "--header") value(header_path);
    else if (a == "--doc") value(doc_path);
    else if (a == "--source-name") value(source_name);
    else if (a == "--check") check = true;
    else {
      std::cerr << "regmap_gen: unknown argument '" << a << "'\n"
                << "usage: regmap_gen --yaml SRC --header OUT.h --doc OUT.md [--source-name NAME] [--check]\n";
      return 2;
    }
  }
  if (yaml.empty() || header_path.empty() || doc_path.empty()) {
    std::cerr << "usage: regmap_gen --yaml SRC --header OUT.h --doc OUT.md [--source-name NAME] [--check]\n";
    return 2;
  }
  if (source_name.empty()) source_name = yaml;
  return ipusim::gen::run_generator("regmap_gen", yaml, [&] {
    const Map m = parse(yaml);
    return ipusim::gen::write_generated("regmap_gen", source_name, "regmap",
                                        {{header_path, header(m, source_name)}, {doc_path, doc(m, source_name)}}, check);
  });
}
