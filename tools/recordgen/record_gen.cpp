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

struct Field {
  std::string name, type, doc, c_prefix;
  const Record* record = nullptr;  // a record-typed field's record
  std::string c_length;            // a text of a C struct: the member holding its length
  bool text() const { return type == "text"; }
};

struct Record {
  std::string name, doc, c_name;
  bool numpy = false;
  std::vector<Field> fields;
  // A record with a text has no fixed size: it travels on no wire as a record, and its C
  // struct's text is a borrowed pointer (valid while the C++ record lives).
  bool has_text() const {
    for (const Field& f : fields)
      if (f.text()) return true;
    return false;
  }
};

struct Schema {
  std::vector<Record> records;  // in source order: a field's record comes first
};

// Bytes of a scalar type; 0 for a record.
size_t scalar_bytes(const std::string& type) { return type == "u32" ? 4 : type == "u64" ? 8 : 0; }

size_t wire_bytes(const Record& r) {
  size_t n = 0;
  for (const Field& f : r.fields) n += f.record ? wire_bytes(*f.record) : scalar_bytes(f.type);
  return n;
}

// Natural C layout: each scalar at a multiple of its size, the struct padded to its
// largest member.
size_t c_align(const Record& r) {
  size_t a = 1;
  for (const Field& f : r.fields) a = std::max(a, f.record ? c_align(*f.record) : scalar_bytes(f.type));
  return a;
}
size_t c_size(const Record& r) {
  size_t at = 0;
  for (const Field& f : r.fields) {
    const size_t a = f.record ? c_align(*f.record) : scalar_bytes(f.type);
    at = (at + a - 1) / a * a + (f.record ? c_size(*f.record) : a);
  }
  const size_t a = c_align(r);
  return (at + a - 1) / a * a;
}

Schema parse(const std::string& path) {
  const YAML::Node root = ipusim::gen::load_source(path);
  const Reader r(path);
  r.keys(root, "records.yaml", {"records"});
  Schema s;
  s.records.reserve(r.list(root, "records").size());  // fields point into it
  std::set<std::string> c_names;
  for (const auto& n : r.list(root, "records")) {
    r.keys(n, "record", {"name", "doc", "c_name", "numpy", "fields"});
    Record rec{r.text(n, "name"), r.text(n, "doc"), r.optional_text(n, "c_name"), r.flag(n, "numpy"), {}};
    for (const Record& other : s.records)
      if (other.name == rec.name) r.fail(n["name"], "name", fmt::format("record '{}' declared twice", rec.name));
    if (!rec.c_name.empty() && !c_names.insert(rec.c_name).second)
      r.fail(n["c_name"], "c_name", fmt::format("'{}' is another record's C struct", rec.c_name));
    std::set<std::string> names;
    for (const auto& fn : r.list(n, "fields")) {
      r.keys(fn, rec.name + " field", {"name", "type", "doc", "c_prefix", "c_length"});
      Field f{r.text(fn, "name"), r.text(fn, "type"), r.text(fn, "doc"), r.optional_text(fn, "c_prefix"), nullptr,
              r.optional_text(fn, "c_length")};
      if (!names.insert(f.name).second) r.fail(fn["name"], "name", fmt::format("{}.{} declared twice", rec.name, f.name));
      if (f.text()) {
        if (!rec.c_name.empty() && f.c_length.empty())
          r.fail(fn, "c_length", fmt::format("{}.{}: a text of a C struct needs c_length (its length member)", rec.name, f.name));
        if (rec.numpy) r.fail(fn["type"], "type", fmt::format("{}.{}: a numpy record has no text", rec.name, f.name));
      } else if (!f.c_length.empty()) {
        r.fail(fn["c_length"], "c_length", fmt::format("{}.{}: only a text takes c_length", rec.name, f.name));
      }
      if (f.text()) {
      } else if (!scalar_bytes(f.type)) {
        for (const Record& other : s.records)
          if (other.name == f.type) f.record = &other;
        if (!f.record)
          r.fail(fn["type"], "type", fmt::format("{}.{}: '{}' is not u32, u64, text or a record declared above", rec.name,
                                                 f.name, f.type));
        if (f.record && f.record->has_text())
          r.fail(fn["type"], "type", fmt::format("{}.{}: '{}' has a text; a record field has a fixed size", rec.name,
                                                 f.name, f.type));
        if (!rec.c_name.empty() && f.c_prefix.empty())
          r.fail(fn, "c_prefix", fmt::format("{}.{}: a record field of a C struct needs c_prefix", rec.name, f.name));
      } else if (!f.c_prefix.empty()) {
        r.fail(fn["c_prefix"], "c_prefix", fmt::format("{}.{}: only a record-typed field takes c_prefix", rec.name, f.name));
      }
      if (rec.numpy && f.record)
        r.fail(fn["type"], "type", fmt::format("{}.{}: a numpy record has scalar fields only", rec.name, f.name));
      rec.fields.push_back(f);
    }
    s.records.push_back(std::move(rec));
  }
  return s;
}

std::string cpp_type(const Field& f) {
  if (f.record) return f.record->name;
  if (f.text()) return "std::string";
  return f.type == "u32" ? "uint32_t" : "uint64_t";
}

std::string header(const Schema& s, const std::string& source) {
  std::ostringstream o;
  o << generated_by(source, "//")
    << "// The host records (docs/host_records.md): one struct per record, which the model's host\n"
    << "// interface fills, the wire carries and the driver returns. kWireBytes: the record on\n"
    << "// the wire (fields in order, little-endian, no padding). Fields<R>::each(v) calls\n"
    << "// v(name, &R::field) for every field in that order, for the codecs that walk them.\n"
    << "#pragma once\n\n#include <cstddef>\n#include <cstdint>\n#include <string>\n\nnamespace ipusim::records {\n\n"
    << "template <class R>\nstruct Fields;  // specialised for every record below\n\n"
    << "template <class T>\nconcept Record = requires { Fields<T>::kName; };\n";
  for (const Record& r : s.records) {
    o << fmt::format("\n// {}\nstruct {} {{\n", r.doc, r.name);
    for (const Field& f : r.fields)
      o << fmt::format("  {} {}{};  // {}\n", cpp_type(f), f.name, f.record || f.text() ? "" : " = 0", f.doc);
    if (!r.has_text()) o << fmt::format("\n  static constexpr size_t kWireBytes = {};\n", wire_bytes(r));
    o << fmt::format("  bool operator==(const {}&) const = default;\n}};\n\n", r.name);
    o << fmt::format("template <>\nstruct Fields<{}> {{\n  static constexpr const char* kName = \"{}\";\n", r.name, r.name);
    o << "  template <class V>\n  static constexpr void each(V&& v) {\n";
    for (const Field& f : r.fields) o << fmt::format("    v(\"{}\", &{}::{});\n", f.name, r.name, f.name);
    o << "  }\n};\n";
  }
  o << "\n}  // namespace ipusim::records\n";
  return o.str();
}

// The C struct's members: a record-typed field flattened with its prefix.
// A text is two members: its bytes (NUL-terminated, borrowed) and its length.
struct CMember {
  std::string name, type, doc, path;  // path: the C++ member ("to_device.bytes")
  std::string copy;                   // the C++ expression of its value, from `r`
};
void c_members(const Record& r, const std::string& prefix, const std::string& path, std::vector<CMember>& out) {
  for (const Field& f : r.fields) {
    if (f.record) {
      c_members(*f.record, prefix + f.c_prefix, path + f.name + ".", out);
    } else if (f.text()) {
      out.push_back({prefix + f.name, "const char*", f.doc + ", NUL-terminated", path + f.name,
                     "r." + path + f.name + ".c_str()"});
      out.push_back({prefix + f.c_length, "size_t", "bytes of " + f.name + " before the NUL", path + f.name,
                     "r." + path + f.name + ".size()"});
    } else {
      out.push_back({prefix + f.name, f.type == "u32" ? "uint32_t" : "uint64_t", f.doc, path + f.name, "r." + path + f.name});
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
    for (const CMember& m : members) o << fmt::format("  {} {}; /* {} */\n", m.type, m.name, m.doc);
    o << fmt::format("}} {};\n", r.c_name);
    // The layout is pinned up to the first pointer, whose size is the platform's.
    size_t at = 0;
    for (const CMember& m : members) {
      if (m.type != "uint32_t" && m.type != "uint64_t") break;
      const size_t b = m.type == "uint32_t" ? 4 : 8;
      at = (at + b - 1) / b * b;
      o << fmt::format("IPUDRV_RECORD_ASSERT(offsetof({}, {}) == {}, \"{}.{} offset\");\n", r.c_name, m.name, at,
                       r.c_name, m.name);
      at += b;
    }
    if (!r.has_text())
      o << fmt::format("IPUDRV_RECORD_ASSERT(sizeof({}) == {}, \"{} size\");\n", r.c_name, c_size(r), r.c_name);
  }
  o << "\n#endif /* IPUDRV_IPUDRV_RECORDS_H */\n";
  return o.str();
}

std::string c_copies(const Schema& s, const std::string& source) {
  std::ostringstream o;
  o << generated_by(source, "//")
    << "// The C API's copies of the host records (c_api.cpp): ipusim::records -> ipudrv_*.\n"
    << "#pragma once\n\n#include <ipu/host_records.h>\n\n#include \"ipudrv/ipudrv.h\"\n\nnamespace ipudrv::detail {\n";
  for (const Record& r : s.records) {
    if (r.c_name.empty()) continue;
    std::vector<CMember> members;
    c_members(r, "", "", members);
    o << fmt::format("\n{}inline {} to_c(const ipusim::records::{}& r) {{\n  {} c{{}};\n",
                     r.has_text() ? "// Its text points into `r`: valid while `r` lives.\n" : "", r.c_name, r.name, r.c_name);
    for (const CMember& m : members) o << fmt::format("  c.{} = {};\n", m.name, m.copy);
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

std::string python(const Schema& s, const std::string& source) {
  std::ostringstream o;
  o << generated_by(source, "//")
    << "// The host records as Python classes (read-only attributes, ==, a repr of every field)\n"
    << "// and, for the records that have one, their numpy structured dtype.\n"
    << "#include <pybind11/numpy.h>\n#include <pybind11/operators.h>\n#include <pybind11/pybind11.h>\n\n"
    << "#include <string>\n\n#include \"bindings.h\"\n\nnamespace ipusim_py {\n\n"
    << "namespace py = pybind11;\n\nvoid bind_records(py::module_& m) {\n";
  for (const Record& r : s.records) {
    if (!r.numpy) continue;
    std::string names;
    for (const Field& f : r.fields) names += ", " + f.name;
    o << fmt::format("  PYBIND11_NUMPY_DTYPE(ipusim::records::{}{});\n", r.name, names);
  }
  for (const Record& r : s.records) {
    o << fmt::format("  {{\n    using R = ipusim::records::{};\n    py::class_<R>(m, \"{}\", {})\n", r.name, r.name,
                     cpp_string(r.doc));
    for (const Field& f : r.fields)
      o << fmt::format("        .def_readonly(\"{}\", &R::{}, {})\n", f.name, f.name, cpp_string(f.doc));
    o << "        .def(py::self == py::self)\n        .def(\"__repr__\", [](const R& r) {\n";
    o << fmt::format("          return std::string(\"<{}\")", r.name);
    for (const Field& f : r.fields) {
      if (f.record || f.text())
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

std::string pyi_region(const Schema& s, const std::string& source) {
  std::ostringstream o;
  o << kPyiBegin << source << "; do not edit ---\n";
  for (const Record& r : s.records) {
    o << fmt::format("\nclass {}:\n    \"\"\"{}\"\"\"\n", r.name, r.doc);
    for (const Field& f : r.fields)
      o << fmt::format("    {}: {}\n    \"\"\"{}\"\"\"\n", f.name, f.record ? f.record->name : f.text() ? "str" : "int", f.doc);
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
    << "wire (docs/host_driver.md \"The wire protocol\"), in the C++ API (`ipudrv::SuperstepStats`, ...), "
    << "the C API (its C struct) and Python (`ipusim.SuperstepStats`, ...). The wire carries a "
    << "record's fields in this order, little-endian, with no padding.\n\n"
    << "## Add a field to a host record\n\n"
    << "1. Add it to its record in `" << source << "` (name, type, doc), in the place it is to take on the wire.\n"
    << "2. `cmake --build build --target recordgen`: the C++ struct, its wire size, the C struct and its layout "
    << "checks, the C copy, the Python class and stub, and this table follow.\n"
    << "3. Fill it where the model computes the record (for `LinkStats`: `tlm/host_if/run_domain.cpp`; "
    << "`SuperstepStats`: `tlm/host_if/host_interface_profile.cpp`).\n"
    << "4. A record that travels on the wire (`SuperstepStats`, `LinkStats`) changes the bytes of its reply: "
    << "bump `wire::kVersionMajor` (`host_driver/wire/wire_limits.h`) and the version in docs/host_driver.md "
    << "\"The wire protocol\", and update what pins the bytes: `wire_protocol_test` "
    << "(`RecordsTravelAsTheirFieldsInOrder`, the records per reply) and the golden frames of the replies "
    << "(`testbench/unit/driver/wire_golden.hex`: `wire_golden_test` names the frames that differ); the "
    << "replies' record counts (`kMaxSuperstepsPerReply`, ...) follow from the new size.\n\n"
    << "Files touched: the source and the model's file that fills the field (2), plus four for a wire record "
    << "(the major, its doc, the layout test, the golden frames); the generated files (six of the records, "
    << "and the wire's codec for a wire record) are rewritten by the build target. Before the schema the same "
    << "field took twelve hand edits (the model's, the wire's, the C++, C and Python records and their copies, "
    << "the stubs and three docs and tests).\n\n"
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
  for (const Record& r : s.records) {
    o << fmt::format("\n## {}\n\n{}\n\n", r.name, md_escape(r.doc));
    o << fmt::format("C struct: {}; wire bytes: {}.\n\n", r.c_name.empty() ? "none" : "`" + r.c_name + "`",
                     r.has_text() ? "none (it has a text; it travels on no wire as a record)" : std::to_string(wire_bytes(r)));
    o << "| field | type | description |\n|---|---|---|\n";
    for (const Field& f : r.fields)
      o << fmt::format("| `{}` | {} | {}{} |\n", f.name, f.record ? "`" + f.record->name + "`" : f.type, md_escape(f.doc),
                       !f.c_prefix.empty() ? fmt::format(" (C: `{}*`)", f.c_prefix)
                       : f.text() && !f.c_length.empty() ? fmt::format(" (C: `const char*`, its length `{}`)", f.c_length)
                                                         : "");
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
      bool scalar = true;
      for (const Field& f : r.fields) scalar = scalar && !f.record && !f.text();
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
