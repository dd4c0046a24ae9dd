// record_gen: turns the host records' source (hw/host_if/records.yaml) into the C++
// structs, the C API's mirror structs and their copies, the Python classes and stubs, and
// the docs table, so that a record is declared once however many layers it crosses.
//
//   record_gen --yaml hw/host_if/records.yaml --target recordgen --header H --c-header C
//              --c-copies CC --python PY --pyi PYI --doc MD [--source-name NAME] [--check]
//
// --pyi is a hand-written stub file with one generated region between two marker lines:
// only that region is rewritten. With --check nothing is written: the exit status is 1
// (and the file is named) if an output differs from what the source generates. Errors in
// the source name the file, line and key, exit status 2.
#include <yaml-cpp/yaml.h>

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "args.h"
#include "generated_files.h"
#include "reader.h"
#include "text.h"
#include "wire_gen.h"

namespace {

using recordgen::generated_by;

using ipusim::gen::md_escape;
using ipusim::gen::Reader;
using ipusim::gen::SourceError;

struct Record;

// An enumeration a record's field takes (RunResult::state): the C++ enum class, the
// Python enum and the docs' table of its values.
struct Enum {
  std::string name, doc;
  std::vector<std::pair<std::string, std::string>> values;  // NAME (Python), doc; C++: kName
};

struct Field {
  std::string name, type, doc, c_prefix;
  const Record* record = nullptr;   // a record-typed field's record, or a list's element
  const Enum* enumeration = nullptr;
  std::string enum_default;         // an enum field's default value (NAME)
  int list_depth = 0;               // list<...> nesting: a std::vector per level
  bool c_flat = false;              // a record field flattened into the C struct (c_prefix given, "" allowed)
  bool in_c = true;                 // false (c: false): no member in any C struct
  bool optional = false;            // u32: default kNone; Python None for kNone (a text: for "")
  std::string c_length;             // a text of a C struct as a borrowed pointer: the member of its length
  size_t c_chars = 0;               // a text of a C struct as char[c_chars], truncated, NUL-terminated
  size_t c_max = 0;                 // a list of a C struct as parallel arrays of c_max (its first c_max)
  std::string c_flag, c_when;       // an enum of a C struct: int32_t c_flag, 1 when the field is c_when
  bool text() const { return type == "text"; }
  bool list() const { return list_depth > 0; }
  bool scalar() const { return !record && !enumeration && !text(); }
};

struct Record {
  std::string name, doc, c_name;
  bool numpy = false;
  bool tuple = false;                 // python: tuple: no class; Python sees a tuple of its fields
  std::vector<std::string> py_extra;  // stub lines of members the hand-written bindings add
  std::vector<Field> fields;
  // A record with a text has no fixed size: it travels on no wire as a record, and its C
  // struct's text is a borrowed pointer (valid while the C++ record lives) or its chars.
  bool has_text() const {
    for (const Field& f : fields)
      if (f.text()) return true;
    return false;
  }
  bool has_none() const {
    for (const Field& f : fields)
      if (f.optional && f.type == "u32") return true;
    return false;
  }
  // What the wire can carry: fixed-size unsigned fields and records of them.
  bool on_wire() const {
    for (const Field& f : fields)
      if (f.list() || f.text() || f.enumeration || f.type == "i32" || (f.record && !f.record->on_wire())) return false;
    return true;
  }
};

struct Schema {
  std::vector<Enum> enums;
  std::vector<Record> records;  // in source order: a field's record comes first
};

// Bytes of a scalar type; 0 for a record.
size_t scalar_bytes(const std::string& type) { return type == "u32" || type == "i32" ? 4 : type == "u64" ? 8 : 0; }

size_t wire_bytes(const Record& r) {
  size_t n = 0;
  for (const Field& f : r.fields) n += f.record ? wire_bytes(*f.record) : scalar_bytes(f.type);
  return n;
}

// "list<list<X>>" -> X, with its depth.
std::string element_type(std::string type, int& depth) {
  depth = 0;
  while (type.size() > 6 && type.compare(0, 5, "list<") == 0 && type.back() == '>') {
    type = type.substr(5, type.size() - 6);
    ++depth;
  }
  return type;
}

// "PAUSED" -> "kPaused", "STREAM_WAIT" -> "kStreamWait".
std::string enumerator(const std::string& name) {
  std::string out = "k";
  bool upper = true;
  for (char c : name) {
    if (c == '_') {
      upper = true;
      continue;
    }
    out += upper ? char(std::toupper(static_cast<unsigned char>(c))) : char(std::tolower(static_cast<unsigned char>(c)));
    upper = false;
  }
  return out;
}

Enum parse_enum(const Reader& r, const YAML::Node& n) {
  r.keys(n, "enum", {"name", "doc", "values"});
  Enum e{r.text(n, "name"), r.text(n, "doc"), {}};
  for (const auto& v : r.list(n, "values")) {
    r.keys(v, e.name + " value", {"name", "doc"});
    e.values.emplace_back(r.cname(v, "name"), r.text(v, "doc"));
  }
  return e;
}

Field parse_field(const Reader& r, const YAML::Node& fn, const Record& rec, const Schema& s) {
  r.keys(fn, rec.name + " field",
         {"name", "type", "doc", "c_prefix", "c_length", "c_chars", "c_max", "c", "optional", "c_flag", "c_when",
          "default"});
  Field f;
  f.name = r.text(fn, "name"), f.type = r.text(fn, "type"), f.doc = r.text(fn, "doc");
  f.c_prefix = r.optional_text(fn, "c_prefix"), f.c_length = r.optional_text(fn, "c_length");
  f.c_flat = bool(fn["c_prefix"]);
  f.in_c = !fn["c"] || r.flag(fn, "c");
  f.optional = r.flag(fn, "optional");
  if (fn["c_chars"]) f.c_chars = r.number(fn, "c_chars", 1u << 16);
  if (fn["c_max"]) f.c_max = r.number(fn, "c_max", 1u << 16);
  f.c_flag = r.optional_text(fn, "c_flag"), f.c_when = r.optional_text(fn, "c_when");
  const std::string where = rec.name + "." + f.name;
  const bool c = !rec.c_name.empty() && f.in_c;
  auto only = [&](bool allowed, const char* key, const char* what) {
    if (!allowed && fn[key]) r.fail(fn[key], key, fmt::format("{}: only {} takes {}", where, what, key));
  };
  const std::string elem = element_type(f.type, f.list_depth);
  if (!scalar_bytes(elem) && elem != "text") {
    for (const Record& other : s.records)
      if (other.name == elem) f.record = &other;
    for (const Enum& e : s.enums)
      if (e.name == elem) f.enumeration = &e;
    if (!f.record && !f.enumeration)
      r.fail(fn["type"], "type", fmt::format("{}: '{}' is not u32, i32, u64, text, list<...>, an enum or a record declared above",
                                             where, elem));
  }
  if (f.list() && !f.record)
    r.fail(fn["type"], "type", fmt::format("{}: a list holds records ('{}' is not one)", where, elem));
  if (f.record && f.record->has_text() && !f.list())
    r.fail(fn["type"], "type", fmt::format("{}: '{}' has a text; a record field has a fixed size", where, f.type));
  if (f.record && f.record->tuple && f.list_depth > 1)
    r.fail(fn["type"], "type", fmt::format("{}: a tuple record is a field or a list of one level", where));
  only(f.text(), "c_length", "a text");
  only(f.text(), "c_chars", "a text");
  only(f.list(), "c_max", "a list");
  only(f.type == "u32" || f.text(), "optional", "a u32 or a text");
  only(bool(f.enumeration), "c_flag", "an enum");
  only(bool(f.enumeration), "c_when", "an enum");
  only(bool(f.enumeration), "default", "an enum");
  only(bool(f.record), "c_prefix", "a record-typed field or a list");
  if (f.enumeration) {
    f.enum_default = fn["default"] ? r.text(fn, "default") : f.enumeration->values.front().first;
    for (const char* key : {"default", "c_when"}) {
      const std::string v = key == std::string("default") ? f.enum_default : f.c_when;
      bool known = v.empty();
      for (const auto& [name, doc] : f.enumeration->values) known = known || name == v;
      if (!known) r.fail(fn[key], key, fmt::format("{}: '{}' is not a value of {}", where, v, f.enumeration->name));
    }
  }
  if (c) {
    if (f.text() && f.c_length.empty() == (f.c_chars == 0))
      r.fail(fn, "c_length", fmt::format("{}: a text of a C struct needs c_length (its length member) or c_chars", where));
    if (f.record && !f.c_flat)
      r.fail(fn, "c_prefix", fmt::format("{}: a record field of a C struct needs c_prefix", where));
    bool u32s = f.record != nullptr;
    if (f.record)
      for (const Field& e : f.record->fields) u32s = u32s && e.type == "u32";
    if (f.list() && (f.list_depth > 1 || f.c_max == 0 || !u32s))
      r.fail(fn, "c_max", fmt::format("{}: a list of a C struct is a list of u32 records with c_max (or c: false)", where));
    if (f.enumeration && (f.c_flag.empty() || f.c_when.empty()))
      r.fail(fn, "c_flag", fmt::format("{}: an enum of a C struct needs c_flag and c_when (or c: false)", where));
  }
  if (rec.numpy && !f.scalar())
    r.fail(fn["type"], "type", fmt::format("{}: a numpy record has scalar fields only", where));
  if (rec.numpy && f.optional) r.fail(fn["optional"], "optional", fmt::format("{}: a numpy record has no optional", where));
  return f;
}

Schema parse(const std::string& path) {
  const YAML::Node root = ipusim::gen::load_source(path);
  const Reader r(path);
  r.keys(root, "records.yaml", {"enums", "records"});
  Schema s;
  if (root["enums"]) {
    s.enums.reserve(r.list(root, "enums").size());  // fields point into it
    for (const auto& n : r.list(root, "enums")) s.enums.push_back(parse_enum(r, n));
  }
  s.records.reserve(r.list(root, "records").size());  // fields point into it
  std::set<std::string> c_names;
  for (const auto& n : r.list(root, "records")) {
    r.keys(n, "record", {"name", "doc", "c_name", "numpy", "python", "py_extra", "fields"});
    Record rec{r.text(n, "name"), r.text(n, "doc"), r.optional_text(n, "c_name"), r.flag(n, "numpy"), false, {}, {}};
    for (const Record& other : s.records)
      if (other.name == rec.name) r.fail(n["name"], "name", fmt::format("record '{}' declared twice", rec.name));
    if (!rec.c_name.empty() && !c_names.insert(rec.c_name).second)
      r.fail(n["c_name"], "c_name", fmt::format("'{}' is another record's C struct", rec.c_name));
    if (n["python"]) {
      if (r.text(n, "python") != "tuple") r.fail(n["python"], "python", "the one choice is 'tuple'");
      rec.tuple = true;
    }
    if (n["py_extra"])
      for (const auto& line : r.list(n, "py_extra")) rec.py_extra.push_back(line.as<std::string>());
    std::set<std::string> names;
    for (const auto& fn : r.list(n, "fields")) {
      Field f = parse_field(r, fn, rec, s);
      if (!names.insert(f.name).second) r.fail(fn["name"], "name", fmt::format("{}.{} declared twice", rec.name, f.name));
      rec.fields.push_back(f);
    }
    s.records.push_back(std::move(rec));
  }
  return s;
}

std::string cpp_type(const Field& f) {
  std::string t = f.record ? f.record->name : f.enumeration ? f.enumeration->name : f.text() ? "std::string"
                  : f.type == "u32" ? "uint32_t" : f.type == "i32" ? "int32_t" : "uint64_t";
  for (int i = 0; i < f.list_depth; ++i) t = "std::vector<" + t + ">";
  return t;
}

// A field's default member initializer.
std::string cpp_default(const Field& f) {
  if (f.enumeration) return fmt::format(" = {}::{}", f.enumeration->name, enumerator(f.enum_default));
  if (f.record || f.text() || f.list()) return "";
  return f.optional ? " = kNone" : " = 0";
}

std::string header(const Schema& s, const std::string& source) {
  bool lists = false;
  for (const Record& r : s.records)
    for (const Field& f : r.fields) lists = lists || f.list();
  std::ostringstream o;
  o << generated_by(source, "//")
    << "// The host records (docs/host_records.md): one struct per record, which the model's host\n"
    << "// interface fills, the wire carries and the driver returns. kWireBytes: the record on\n"
    << "// the wire (fields in order, little-endian, no padding). Fields<R>::each(v) calls\n"
    << "// v(name, &R::field) for every field in that order, for the codecs that walk them.\n"
    << "#pragma once\n\n#include <cstddef>\n#include <cstdint>\n#include <string>\n" << (lists ? "#include <vector>\n" : "")
    << "\nnamespace ipusim::records {\n\n"
    << "template <class R>\nstruct Fields;  // specialised for every record below\n\n"
    << "template <class T>\nconcept Record = requires { Fields<T>::kName; };\n";
  for (const Enum& e : s.enums) {
    o << fmt::format("\n// {}\nenum class {} {{\n", e.doc, e.name);
    for (const auto& [name, doc] : e.values) o << fmt::format("  {},  // {}: {}\n", enumerator(name), name, doc);
    o << "};\n";
  }
  for (const Record& r : s.records) {
    o << fmt::format("\n// {}\nstruct {} {{\n", r.doc, r.name);
    if (r.has_none()) o << "  static constexpr uint32_t kNone = 0xFFFFFFFFu;  // an optional field the record does not name\n";
    for (const Field& f : r.fields) o << fmt::format("  {} {}{};  // {}\n", cpp_type(f), f.name, cpp_default(f), f.doc);
    if (r.on_wire()) o << fmt::format("\n  static constexpr size_t kWireBytes = {};\n", wire_bytes(r));
    o << fmt::format("  bool operator==(const {}&) const = default;\n}};\n\n", r.name);
    o << fmt::format("template <>\nstruct Fields<{}> {{\n  static constexpr const char* kName = \"{}\";\n", r.name, r.name);
    o << "  template <class V>\n  static constexpr void each(V&& v) {\n";
    for (const Field& f : r.fields) o << fmt::format("    v(\"{}\", &{}::{});\n", f.name, r.name, f.name);
    o << "  }\n};\n";
  }
  o << "\n}  // namespace ipusim::records\n";
  return o.str();
}

// The C struct's members: a record-typed field flattened with its prefix, a list as
// parallel arrays of its element's fields. A text is two members (its bytes,
// NUL-terminated and borrowed, and its length) or one char array.
struct CMember {
  std::string name, type, doc;
  size_t count = 0;        // an array's elements (0: not an array)
  size_t bytes = 0;        // of one element; 0: a pointer or size_t, whose size is the platform's
  std::string copy;        // the statement that fills it from `r`, into `c`
  std::string declarator() const { return count ? fmt::format("{}[{}]", name, count) : name; }
};
size_t scalar_c_bytes(const std::string& type) {
  return type == "char" ? 1 : type == "uint64_t" ? 8 : type == "uint32_t" || type == "int32_t" ? 4 : 0;
}
std::string c_scalar(const std::string& type) {
  return type == "u32" ? "uint32_t" : type == "i32" ? "int32_t" : "uint64_t";
}
void c_members(const Record& r, const std::string& prefix, const std::string& path, std::vector<CMember>& out) {
  for (const Field& f : r.fields) {
    const std::string name = prefix + f.name, value = "r." + path + f.name;
    if (!f.in_c) continue;
    if (f.list()) {
      for (const Field& e : f.record->fields)
        out.push_back({prefix + f.c_prefix + e.name, "uint32_t",
                       fmt::format("{}: {} of the first min(n, {})", f.name, e.name, f.c_max), f.c_max, 4,
                       fmt::format("for (size_t i = 0; i < {}.size() && i < {}; ++i) c.{}[i] = {}[i].{};", value, f.c_max,
                                   prefix + f.c_prefix + e.name, value, e.name)});
    } else if (f.record) {
      c_members(*f.record, prefix + f.c_prefix, path + f.name + ".", out);
    } else if (f.enumeration) {
      out.push_back({prefix + f.c_flag, "int32_t", fmt::format("1: {} is {}", f.name, f.c_when), 0, 4,
                     fmt::format("c.{} = {} == ipusim::records::{}::{};", prefix + f.c_flag, value, f.enumeration->name,
                                 enumerator(f.c_when))});
    } else if (f.text() && f.c_chars) {
      out.push_back({name, "char", fmt::format("{}, NUL-terminated (truncated to {} bytes)", f.doc, f.c_chars - 1),
                     f.c_chars, 1, fmt::format("copy_text(c.{}, {});", name, value)});
    } else if (f.text()) {
      out.push_back({name, "const char*", f.doc + ", NUL-terminated", 0, 0, fmt::format("c.{} = {}.c_str();", name, value)});
      out.push_back({prefix + f.c_length, "size_t", "bytes of " + f.name + " before the NUL", 0, 0,
                     fmt::format("c.{} = {}.size();", prefix + f.c_length, value)});
    } else {
      out.push_back({name, c_scalar(f.type), f.optional ? f.doc + " (0xFFFFFFFF: not named)" : f.doc, 0,
                     scalar_c_bytes(c_scalar(f.type)), fmt::format("c.{} = {};", name, value)});
    }
  }
}

std::string c_header(const Schema& s, const std::string& source) {
  std::ostringstream o;
  o << "/*" << generated_by(source, " *").substr(2)
    << " *\n * The C API's host records (ipudrv.h includes this file): mirrors of the C++ API's\n"
    << " * records (ipudrv::SuperstepStats, ...) with the same fields, in natural C layout. */\n"
    << "#ifndef IPUDRV_IPUDRV_RECORDS_H\n#define IPUDRV_IPUDRV_RECORDS_H\n\n#include <stddef.h>\n#include <stdint.h>\n\n"
    << "#ifdef __cplusplus\n#define IPUDRV_RECORD_ASSERT(c, m) static_assert(c, m)\n#else\n"
    << "#define IPUDRV_RECORD_ASSERT(c, m) _Static_assert(c, m)\n#endif\n";
  for (const Record& r : s.records) {
    if (r.c_name.empty()) continue;
    std::vector<CMember> members;
    c_members(r, "", "", members);
    o << fmt::format("\n/* {} (ipudrv::{}) */\ntypedef struct {} {{\n", r.doc, r.name, r.c_name);
    for (const CMember& m : members) o << fmt::format("  {} {}; /* {} */\n", m.type, m.declarator(), m.doc);
    o << fmt::format("}} {};\n", r.c_name);
    // The layout is pinned up to the first pointer, whose size is the platform's: natural
    // C layout, each member at a multiple of its element's size, the struct padded to
    // its largest.
    size_t at = 0, align = 1;
    bool fixed = true;
    for (const CMember& m : members) {
      if (!m.bytes) {
        fixed = false;
        break;
      }
      at = (at + m.bytes - 1) / m.bytes * m.bytes;
      align = std::max(align, m.bytes);
      o << fmt::format("IPUDRV_RECORD_ASSERT(offsetof({}, {}) == {}, \"{}.{} offset\");\n", r.c_name, m.name, at,
                       r.c_name, m.name);
      at += m.bytes * std::max<size_t>(m.count, 1);
    }
    if (fixed)
      o << fmt::format("IPUDRV_RECORD_ASSERT(sizeof({}) == {}, \"{} size\");\n", r.c_name, (at + align - 1) / align * align,
                       r.c_name);
  }
  o << "\n#endif /* IPUDRV_IPUDRV_RECORDS_H */\n";
  return o.str();
}

std::string c_copies(const Schema& s, const std::string& source) {
  bool chars = false;
  for (const Record& r : s.records)
    for (const Field& f : r.fields) chars = chars || (f.c_chars && !r.c_name.empty());
  std::ostringstream o;
  o << generated_by(source, "//")
    << "// The C API's copies of the host records (c_api.cpp): ipusim::records -> ipudrv_*.\n"
    << "#pragma once\n\n#include <ipu/host_records.h>\n\n" << (chars ? "#include <algorithm>\n#include <cstring>\n\n" : "")
    << "#include \"ipudrv/ipudrv.h\"\n\nnamespace ipudrv::detail {\n";
  if (chars)
    o << "\n// A text into a char array: its first N - 1 bytes at most, NUL-terminated.\n"
      << "template <size_t N>\nvoid copy_text(char (&out)[N], const std::string& text) {\n"
      << "  const size_t n = std::min(text.size(), N - 1);\n  std::memcpy(out, text.data(), n);\n  out[n] = '\\0';\n}\n";
  for (const Record& r : s.records) {
    if (r.c_name.empty()) continue;
    std::vector<CMember> members;
    c_members(r, "", "", members);
    bool borrowed = false;
    for (const CMember& m : members) borrowed = borrowed || m.type == "const char*";
    o << fmt::format("\n{}inline {} to_c(const ipusim::records::{}& r) {{\n  {} c{{}};\n",
                     borrowed ? "// Its text points into `r`: valid while `r` lives.\n" : "", r.c_name, r.name, r.c_name);
    for (const CMember& m : members) o << "  " << m.copy << "\n";
    o << "  return c;\n}\n";
  }
  o << "\n}  // namespace ipudrv::detail\n";
  return o.str();
}

std::string cpp_string(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

// A field's value as Python sees it, from `r`, when def_readonly will not do (else "").
std::string py_value(const Field& f) {
  const std::string v = "r." + f.name;
  if (f.record && f.record->tuple) {
    auto tuple = [&](const std::string& of) {
      std::string t = "py::make_tuple(";
      for (size_t i = 0; i < f.record->fields.size(); ++i) t += (i ? ", " : "") + of + "." + f.record->fields[i].name;
      return t + ")";
    };
    if (!f.list()) return "py::object(" + tuple(v) + ")";
    return fmt::format("[&] {{\n            py::list out;\n            for (const auto& e : {}) out.append({});\n"
                       "            return py::object(out);\n          }}()", v, tuple("e"));
  }
  if (f.optional && f.text()) return fmt::format("{}.empty() ? py::none() : py::object(py::str({}))", v, v);
  if (f.optional) return fmt::format("{} == R::kNone ? py::none() : py::object(py::int_({}))", v, v);
  return "";
}

std::string python(const Schema& s, const std::string& source) {
  std::ostringstream o;
  o << generated_by(source, "//")
    << "// The host records as Python classes (read-only attributes, ==, a repr of every field)\n"
    << "// and, for the records that have one, their numpy structured dtype.\n"
    << "#include <pybind11/numpy.h>\n#include <pybind11/operators.h>\n#include <pybind11/pybind11.h>\n\n"
    << "#include <string>\n\n#include \"bindings.h\"\n\nnamespace ipusim_py {\n\n"
    << "namespace py = pybind11;\n\nvoid bind_records(py::module_& m) {\n";
  for (const Enum& e : s.enums) {
    o << fmt::format("  py::enum_<ipusim::records::{}>(m, \"{}\", {})", e.name, e.name, cpp_string(e.doc));
    for (const auto& [name, doc] : e.values)
      o << fmt::format("\n      .value(\"{}\", ipusim::records::{}::{}, {})", name, e.name, enumerator(name), cpp_string(doc));
    o << ";\n";
  }
  for (const Record& r : s.records) {
    if (!r.numpy) continue;
    std::string names;
    for (const Field& f : r.fields) names += ", " + f.name;
    o << fmt::format("  PYBIND11_NUMPY_DTYPE(ipusim::records::{}{});\n", r.name, names);
  }
  for (const Record& r : s.records) {
    if (r.tuple) continue;
    o << fmt::format("  {{\n    using R = ipusim::records::{};\n    py::class_<R>(m, \"{}\", {})\n", r.name, r.name,
                     cpp_string(r.doc));
    for (const Field& f : r.fields) {
      const std::string value = py_value(f);
      if (value.empty())
        o << fmt::format("        .def_readonly(\"{}\", &R::{}, {})\n", f.name, f.name, cpp_string(f.doc));
      else
        o << fmt::format("        .def_property_readonly(\n            \"{}\", [](const R& r) {{ return {}; }},\n"
                         "            {})\n", f.name, value, cpp_string(f.doc));
    }
    o << "        .def(py::self == py::self)\n        .def(\"__repr__\", [](const R& r) {\n";
    o << fmt::format("          return std::string(\"<{}\")", r.name);
    for (const Field& f : r.fields) {
      const std::string value = py_value(f);
      if (f.list() && !f.record->tuple)  // its length: a run's supersteps may be thousands
        o << fmt::format(" +\n                 \" {}=[\" + std::to_string(r.{}.size()) + \" items]\"", f.name, f.name);
      else if (!value.empty())
        o << fmt::format(" +\n                 \" {}=\" + py::repr({}).cast<std::string>()", f.name, value);
      else if (f.record || f.text() || f.enumeration)
        o << fmt::format(" +\n                 \" {}=\" + py::repr(py::cast(r.{})).cast<std::string>()", f.name, f.name);
      else
        o << fmt::format(" +\n                 \" {}=\" + std::to_string(r.{})", f.name, f.name);
    }
    o << " + \">\";\n        });\n  }\n";
  }
  o << "}\n\n}  // namespace ipusim_py\n";
  return o.str();
}

constexpr const char* kPyiBegin = "# --- host records: generated by tools/recordgen from ";
constexpr const char* kPyiEnd = "# --- end of the generated host records ---";

std::string pyi_type(const Field& f) {
  std::string t;
  if (f.record && f.record->tuple) {
    t = "Tuple[";
    for (size_t i = 0; i < f.record->fields.size(); ++i) t += i ? ", int" : "int";
    t += "]";
  } else {
    t = f.record ? f.record->name : f.enumeration ? f.enumeration->name : f.text() ? "str" : "int";
  }
  for (int i = 0; i < f.list_depth; ++i) t = "List[" + t + "]";
  return f.optional ? "Optional[" + t + "]" : t;
}

std::string pyi_region(const Schema& s, const std::string& source) {
  std::ostringstream o;
  o << kPyiBegin << source << "; do not edit ---\n";
  for (const Enum& e : s.enums) {
    o << fmt::format("\nclass {}:\n    \"\"\"{}\"\"\"\n", e.name, e.doc);
    for (const auto& [name, doc] : e.values) o << fmt::format("    {}: {}\n    \"\"\"{}\"\"\"\n", name, e.name, doc);
    o << "    name: str\n    value: int\n    def __init__(self, value: int) -> None: ...\n"
      << "    def __int__(self) -> int: ...\n    def __index__(self) -> int: ...\n";
  }
  for (const Record& r : s.records) {
    if (r.tuple) continue;
    o << fmt::format("\nclass {}:\n    \"\"\"{}\"\"\"\n", r.name, r.doc);
    for (const Field& f : r.fields) o << fmt::format("    {}: {}\n    \"\"\"{}\"\"\"\n", f.name, pyi_type(f), f.doc);
    for (const std::string& line : r.py_extra) o << "    " << line << "\n";
  }
  o << "\n" << kPyiEnd << "\n";
  return o.str();
}

// The stub file with its generated region replaced.
std::string pyi(const Schema& s, const std::string& source, const std::string& path) {
  return ipusim::gen::splice_region(ipusim::gen::read_text(path), path, kPyiBegin, kPyiEnd, pyi_region(s, source));
}

std::string doc(const Schema& s, const std::string& source) {
  std::ostringstream o;
  o << "# Host records\n\n"
    << "Generated by tools/recordgen from `" << source << "`; do not edit, change the source and run "
    << "`cmake --build build --target recordgen`. Each record is declared once there and is the same "
    << "struct in the model's host interface (`ipu/host_records.h`, namespace `ipusim::records`), on the "
    << "wire (docs/host_driver.md \"The wire protocol\"), in the C++ API (`ipudrv::SuperstepStats`, "
    << "`ipudrv::DeviceErrorInfo`, `ipudrv::RunResult`, ...), the C API (its C struct) and Python "
    << "(`ipusim.SuperstepStats`, ...). The wire carries a record's fields in this order, little-endian, "
    << "with no padding. The kinds of field (a number, optional or not; a text, in C a pointer or a char "
    << "array; a record, flattened in C; a list of records, in C parallel arrays or nothing; an enum, in C a "
    << "flag; a field C does not have) are described at the top of the source.\n\n"
    << "## Add a field to a host record\n\n"
    << "1. Add it to its record in `" << source << "` (name, type, doc, and its C form: the source's header), "
    << "in the place it is to take on the wire. A member of a C struct changes the C ABI (appended, the older "
    << "members keep their offsets; `c: false`: no member): `testbench/system/driver/c_abi_layout.c` pins "
    << "`ipudrv_device_error`'s and `ipudrv_run_result`'s layout and takes the new member on purpose.\n"
    << "2. `cmake --build build --target recordgen`: the C++ struct, its wire size, the C struct and its layout "
    << "checks, the C copy, the Python class and stub, and this table follow.\n"
    << "3. Fill it where the model computes the record (for `LinkStats`: `tlm/host_if/run_domain.cpp`; "
    << "`SuperstepStats`: `tlm/host_if/host_interface_profile.cpp`) or the driver does (`DeviceErrorInfo`: "
    << "`read_error_registers` in `host_driver/src/dma_channel.cpp`, from a new ERR_* register of "
    << "`hw/host_if/registers.yaml`; `RunStats`: `host_driver/src/run.cpp`; `RunResult`: `DeviceImpl::run_loop` "
    << "there).\n"
    << "4. A record that travels on the wire (`SuperstepStats`, `LinkStats`) changes the bytes of its reply: "
    << "bump `wire::kVersionMajor` (`host_driver/wire/wire_limits.h`) and the version in docs/host_driver.md "
    << "\"The wire protocol\", and update what pins the bytes: `wire_protocol_test` "
    << "(`RecordsTravelAsTheirFieldsInOrder`, the records per reply) and the golden frames of the replies "
    << "(`testbench/unit/driver/wire_golden.hex`: `wire_golden_test` names the frames that differ); the "
    << "replies' record counts (`kMaxSuperstepsPerReply`, ...) follow from the new size.\n\n"
    << "Files touched: the source and the model's file that fills the field (2), plus four for a wire record "
    << "(the major, its doc, the layout test, the golden frames), plus the C layout pin for a member of a C "
    << "struct (`c_abi_layout.c`); the generated files (six of the records, and the wire's codec for a wire "
    << "record) are rewritten by the build target. Before the schema the same field took twelve hand edits "
    << "(the model's, the wire's, the C++, C and Python records and their copies, the stubs and three docs "
    << "and tests); a field of the problem record took seven (`errors.h`, `ipudrv.h`, the C copy in "
    << "`c_api.cpp`, the Python class and the exceptions' attribute list in `python/src/errors.cpp`, the "
    << "stub, docs/host_driver.md) beside the register that feeds it, and one of `RunResult` six (`device.h`, "
    << "`ipudrv.h`, the C copy, `python/src/stats.cpp`, the stub, the docs).\n\n"
    << "## Add a wire message\n\n"
    << "1. Declare it in `hw/host_if/messages.yaml`: name, the next type code, direction, the minor that adds it, "
    << "doc, reply (a request's), fields in wire order (a board first, a list last), each of a kind whose checks "
    << "the decoder runs (the file's \"Types\"; a check of the whole message is a `check_<name>` in "
    << "`host_driver/wire/wire_fields.cpp`).\n"
    << "2. `cmake --build build --target recordgen`: its struct, `Type` code, place in `Body`, encoder, validating "
    << "decoder, name, its place in the server's dispatch and its row of the table in docs/host_driver.md follow.\n"
    << "3. A request: its handler `on(uint32_t seq, const wire::NewRequest&)` in "
    << "`host_driver/server/device_server.cpp` (the server does not compile without it), and the client's call "
    << "in `host_driver/src/transports/socket_transport.cpp`, sent only to a server whose HELLO_REPLY announced "
    << "the message's minor.\n"
    << "4. A compatible addition: `wire::kVersionMinor` (`host_driver/wire/wire_limits.h`) and the version in "
    << "docs/host_driver.md \"The wire protocol\"; a change of an existing message's bytes bumps "
    << "`kVersionMajor` instead.\n"
    << "5. A sample of it in `testbench/unit/driver/wire_samples.h` (appended): `wire_golden_test` fails for a "
    << "message type without one and prints the frame of a new sample, to append to `wire_golden.hex`.\n\n"
    << "Files touched: 7 by hand (the source, the server's handler, the client's call, `wire_limits.h` and its "
    << "doc for the version, the sample and its golden frame), one line or one function each, beside what the "
    << "message does in the device; the build target rewrites the generated three (`wire_messages.h`, "
    << "`wire_codec.cpp`, the table). Before the schema a message took about 13 hand edits in 7 files: the "
    << "struct, the type enum, the variant, `kLastType` and the minor (`wire_protocol.h`), the decoder's case, "
    << "the encoder's branch, the type name and the layout comment (`wire_protocol.cpp`), the handler, the "
    << "client, the round-trip test's list and the table's row.\n";
  for (const Enum& e : s.enums) {
    o << fmt::format("\n## {}\n\n{} An enum; Python: `ipusim.{}`.\n\n", e.name, md_escape(e.doc), e.name);
    o << "| value | C++ | number | description |\n|---|---|---|---|\n";
    for (size_t i = 0; i < e.values.size(); ++i)
      o << fmt::format("| `{}` | `{}` | {} | {} |\n", e.values[i].first, enumerator(e.values[i].first), i,
                       md_escape(e.values[i].second));
  }
  for (const Record& r : s.records) {
    o << fmt::format("\n## {}\n\n{}\n\n", r.name, md_escape(r.doc));
    o << fmt::format("C struct: {}; wire bytes: {}.{}\n\n", r.c_name.empty() ? "none" : "`" + r.c_name + "`",
                     r.on_wire()    ? std::to_string(wire_bytes(r))
                     : r.has_text() ? "none (it has a text; it travels on no wire as a record)"
                                    : "none (it travels on no wire as a record)",
                     r.tuple ? " Python: a tuple of its fields, no class." : "");
    o << "| field | type | description |\n|---|---|---|\n";
    for (const Field& f : r.fields) {
      std::string note;
      if (!f.in_c) note = "C: none";
      else if (f.list() && f.c_max) {
        note = "C: ";
        for (const Field& e : f.record->fields) note += fmt::format("`{}{}[{}]`, ", f.c_prefix, e.name, f.c_max);
        note += fmt::format("the first {}", f.c_max);
      } else if (f.record && !f.c_prefix.empty()) note = fmt::format("C: `{}*`", f.c_prefix);
      else if (f.record && f.c_flat) note = "C: its fields, flattened";
      else if (f.enumeration && !f.c_flag.empty()) note = fmt::format("C: `int32_t {}`, 1 when {}", f.c_flag, f.c_when);
      else if (f.text() && f.c_chars) note = fmt::format("C: `char {}[{}]`, truncated, NUL-terminated", f.name, f.c_chars);
      else if (f.text() && !f.c_length.empty()) note = fmt::format("C: `const char*`, its length `{}`", f.c_length);
      if (f.optional) note += std::string(note.empty() ? "" : "; ") + (f.text() ? "Python: None when empty" : "0xFFFFFFFF (kNone): not named; Python: None");
      if (f.record && f.record->tuple) note += std::string(note.empty() ? "" : "; ") + "Python: tuples";
      const std::string type = f.record || f.enumeration || f.list() ? "`" + f.type + "`" : f.type;
      o << fmt::format("| `{}` | {} | {}{} |\n", f.name, type, md_escape(f.doc), note.empty() ? "" : " (" + note + ")");
    }
    if (!r.py_extra.empty()) {
      o << "\nPython adds (the hand-written bindings):";
      for (size_t i = 0; i < r.py_extra.size(); ++i) o << (i ? ", " : " ") << "`" << r.py_extra[i] << "`";
      o << ".\n";
    }
  }
  return o.str();
}

// How the generated files name the messages' source: beside the records' source, as
// that one is named (a relative path in the tree: the build passes absolute paths).
std::string messages_source_name(const std::string& records_source, const std::string& messages_path) {
  const size_t slash = records_source.rfind('/');
  const std::string dir = slash == std::string::npos ? "" : records_source.substr(0, slash + 1);
  const size_t base = messages_path.rfind('/');
  return dir + (base == std::string::npos ? messages_path : messages_path.substr(base + 1));
}

}  // namespace

int main(int argc, char** argv) {
  const auto args = ipusim::gen::parse_args(argc, argv, "record_gen", "record_gen",
                                            {{"--header", "H"},
                                             {"--c-header", "C"},
                                             {"--c-copies", "CC"},
                                             {"--python", "PY"},
                                             {"--pyi", "PYI"},
                                             {"--doc", "MD"},
                                             {"--messages", "MESSAGES_YAML"},
                                             {"--wire-header", "WH"},
                                             {"--wire-codec", "WCC"},
                                             {"--wire-doc", "WMD"}});
  if (!args) return 2;
  const std::string& source = args->source;
  return ipusim::gen::run_generator("record_gen", args->yaml, [&] {
    const Schema s = parse(args->yaml);
    std::map<std::string, recordgen::RecordInfo> infos;
    for (const Record& r : s.records) {
      bool scalar = r.on_wire();
      for (const Field& f : r.fields) scalar = scalar && !f.record;
      infos[r.name] = {wire_bytes(r), scalar};
    }
    const std::string& messages = (*args)["--messages"];
    const recordgen::WireSchema w = recordgen::parse_wire(messages, infos);
    const std::string message_source = messages_source_name(source, messages);
    return ipusim::gen::write_generated("record_gen", source, args->target,
                                        {{(*args)["--header"], header(s, source)},
                                         {(*args)["--c-header"], c_header(s, source)},
                                         {(*args)["--c-copies"], c_copies(s, source)},
                                         {(*args)["--python"], python(s, source)},
                                         {(*args)["--pyi"], pyi(s, source, (*args)["--pyi"])},
                                         {(*args)["--doc"], doc(s, source)},
                                         {(*args)["--wire-header"], recordgen::wire_header(w, message_source)},
                                         {(*args)["--wire-codec"], recordgen::wire_codec(w, message_source)},
                                         {(*args)["--wire-doc"], recordgen::wire_doc(w, message_source, (*args)["--wire-doc"])}},
                                        args->check);
  });
}
