// regmap_gen: turns a register map source (hw/<block>/registers.yaml) into the C / C++
// header the model, the driver and the firmware include, and the register table of docs/.
//
//   regmap_gen --yaml hw/host_if/registers.yaml --target regmap --header OUT.h --doc OUT.md
//              [--source-name NAME] [--check]
//
// With --check nothing is written: the exit status is 1 (and the file is named) if an
// output differs from what the source generates, so a test keeps the checked-in copies
// current. Errors in the source name the file, line and key, exit status 2.
#include <yaml-cpp/yaml.h>

#include <fmt/format.h>

#include <cstdint>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "args.h"
#include "generated_files.h"
#include "reader.h"
#include "text.h"

namespace {

using ipusim::gen::lower;
using ipusim::gen::md_escape;
using ipusim::gen::Reader;
using ipusim::gen::upper;

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

Field parse_field(const Reader& r, const YAML::Node& n) {
  Field f;
  f.name = r.text(n, "name");
  f.doc = r.optional_text(n, "doc");
  f.enum_name = r.optional_text(n, "enum");
  std::string bits = r.text(n, "bits");
  unsigned hi = 0, lo = 0;
  if (auto colon = bits.find(':'); colon != std::string::npos) {
    hi = unsigned(std::stoul(bits.substr(0, colon)));
    lo = unsigned(std::stoul(bits.substr(colon + 1)));
  } else {
    hi = lo = unsigned(std::stoul(bits));
  }
  if (hi < lo || hi > 31) r.fail(n["bits"], "bits", fmt::format("'{}' is not hi:lo within 31:0", bits));
  f.lsb = lo;
  f.width = hi - lo + 1;
  return f;
}

unsigned type_bytes(const Reader& r, const YAML::Node& n, const std::string& type) {
  if (type == "u8") return 1;
  if (type == "u16") return 2;
  if (type == "u32") return 4;
  if (type == "u64") return 8;
  r.fail(n, "type", fmt::format("'{}' is not u8, u16, u32 or u64", type));
}

Map parse(const std::string& path) {
  const YAML::Node root = ipusim::gen::load_source(path);
  const Reader r(path);
  Map m;
  m.name = r.text(root, "name");
  m.prefix = r.text(root, "prefix");
  m.major = uint32_t(r.number(r.need(root, "version"), "major"));
  m.minor = uint32_t(r.number(r.need(root, "version"), "minor"));
  auto value = [&](const YAML::Node& n) { return Value{r.text(n, "name"), r.optional_text(n, "doc"), r.number(n, "value")}; };
  for (const auto& n : root["constants"]) m.constants.push_back(value(n));
  for (const auto& n : root["flags"]) m.flags.push_back(value(n));
  for (const auto& n : root["imports"]) {
    Import im{r.text(n, "header"), r.text(n, "source"), r.text(n, "doc"), {}};
    for (const auto& name : r.need(n, "names")) im.names.push_back(name.as<std::string>());
    m.imports.push_back(std::move(im));
  }
  for (const auto& n : root["enums"]) {
    Enum e{r.text(n, "name"), r.optional_text(n, "doc"), {}};
    for (const auto& v : r.need(n, "values")) e.values.push_back(value(v));
    m.enums.push_back(std::move(e));
  }
  std::set<std::string> names;
  std::map<uint32_t, std::string> used;  // 4-byte word -> register or window
  auto claim = [&](const YAML::Node& n, const std::string& name, uint32_t offset, uint32_t bytes) {
    if (!names.insert(name).second) r.fail(n, "name", fmt::format("'{}' defined twice", name));
    if (offset % 4 || bytes % 4 || bytes == 0) r.fail(n, "offset", fmt::format("{}: offset and size must be multiples of 4", name));
    for (uint32_t a = offset; a < offset + bytes; a += 4) {
      auto [it, fresh] = used.emplace(a, name);
      if (!fresh) r.fail(n, "offset", fmt::format("{}: offset 0x{:03X} already belongs to {}", name, a, it->second));
    }
  };
  static const std::set<std::string> kAccess{"ro", "rw", "wo", "w1c", "cmd"};
  for (const auto& n : root["registers"]) {
    Reg reg;
    reg.name = r.text(n, "name");
    reg.offset = uint32_t(r.number(n, "offset"));
    reg.access = r.text(n, "access");
    reg.doc = r.optional_text(n, "doc");
    reg.enum_name = r.optional_text(n, "enum");
    if (!kAccess.count(reg.access))
      r.fail(n["access"], "access", fmt::format("'{}' is not ro, rw, wo, w1c or cmd", reg.access));
    claim(n, reg.name, reg.offset, 4);
    uint32_t seen = 0;
    for (const auto& fn : n["fields"]) {
      Field f = parse_field(r, fn);
      uint32_t mask = uint32_t(((uint64_t(1) << f.width) - 1) << f.lsb);
      if (seen & mask) r.fail(fn, "bits", fmt::format("{}.{}: bits overlap another field", reg.name, f.name));
      seen |= mask;
      reg.fields.push_back(f);
    }
    m.regs.push_back(std::move(reg));
  }
  for (const auto& n : root["windows"]) {
    Window w{r.text(n, "name"), r.text(n, "access"), r.optional_text(n, "doc"), uint32_t(r.number(n, "offset")),
             uint32_t(r.number(n, "bytes"))};
    claim(n, w.name, w.offset, w.bytes);
    m.windows.push_back(w);
  }
  for (const auto& n : root["structs"]) {
    Struct s{r.text(n, "name"), r.optional_text(n, "doc"), uint32_t(r.number(n, "size")), {}};
    uint32_t at = 0;
    for (const auto& fn : r.need(n, "fields")) {
      StructField f{r.text(fn, "name"), r.text(fn, "type"), r.optional_text(fn, "doc")};
      unsigned b = type_bytes(r, fn["type"], f.type);
      if (at % b) r.fail(fn, "type", fmt::format("{}.{}: offset {} is not aligned to {} (add padding)", s.name, f.name, at, b));
      at += b;
      s.fields.push_back(f);
    }
    if (at != s.size) r.fail(n, "size", fmt::format("{}: fields add up to {} bytes, size says {}", s.name, at, s.size));
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
  std::string guard = fmt::format("{}_{}_REGS_H", P, upper(m.name));
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
  const std::string lower_prefix = lower(P);
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
      fields += ": " + md_escape(f.doc);
    }
    o << fmt::format("| 0x{:03X} | `{}_REG_{}` | {} | {} | {} |\n", r.offset, P, r.name, r.access, fields, md_escape(r.doc));
  }
  o << "\n## Windows\n\n| offset | bytes | name | access | description |\n|---|---|---|---|---|\n";
  for (const auto& w : m.windows) o << fmt::format("| 0x{:03X} | {} | `{}_WIN_{}` | {} | {} |\n", w.offset, w.bytes, P, w.name, w.access, md_escape(w.doc));
  o << "\n## Constants\n\n| name | value | description |\n|---|---|---|\n";
  for (const auto& c : m.constants) o << fmt::format("| `{}_{}` | 0x{:X} | {} |\n", P, c.name, c.value, md_escape(c.doc));
  for (const auto& c : m.flags) o << fmt::format("| `{}_{}` | 0x{:X} | {} |\n", P, c.name, c.value, md_escape(c.doc));
  for (const auto& im : m.imports) {
    std::string link = im.doc;
    if (link.rfind("docs/", 0) == 0) link = link.substr(5);  // this table lives in docs/ too
    for (const auto& n : im.names)
      o << fmt::format("| `{}_{}` | [{}]({}) | from `{}` (`{}`) |\n", P, n, im.doc, link, im.source, im.header);
  }
  for (const auto& e : m.enums) {
    o << fmt::format("\n## {}_{}_*: {}\n\n| value | name | meaning |\n|---|---|---|\n", P, e.name, md_escape(e.doc));
    for (const auto& v : e.values) o << fmt::format("| {} | `{}_{}_{}` | {} |\n", v.value, P, e.name, v.name, md_escape(v.doc));
  }
  const std::string lower_prefix = lower(P);
  for (const auto& s : m.structs) {
    o << fmt::format("\n## struct {}_{} ({} bytes): {}\n\n| offset | field | type | description |\n|---|---|---|---|\n", lower_prefix, s.name, s.size, md_escape(s.doc));
    uint32_t at = 0;
    for (const auto& f : s.fields) {
      o << fmt::format("| {} | `{}` | {} | {} |\n", at, f.name, f.type, md_escape(f.doc));
      at += f.type == "u64" ? 8 : f.type == "u32" ? 4 : f.type == "u16" ? 2 : 1;
    }
  }
  return o.str();
}

}  // namespace

int main(int argc, char** argv) {
  const auto args = ipusim::gen::parse_args(argc, argv, "regmap_gen", "regmap_gen", {{"--header", "OUT.h"}, {"--doc", "OUT.md"}});
  if (!args) return 2;
  const std::string& source = args->source;
  return ipusim::gen::run_generator("regmap_gen", args->yaml, [&] {
    const Map m = parse(args->yaml);
    return ipusim::gen::write_generated("regmap_gen", source, args->target,
                                        {{(*args)["--header"], header(m, source)}, {(*args)["--doc"], doc(m, source)}},
                                        args->check);
  });
}
