// wire_gen.h: the wire protocol's messages, from their source to C++ and docs.
#include "wire_gen.h"

#include <fmt/format.h>

#include <cctype>
#include <set>
#include <sstream>

#include "generated_files.h"
#include "reader.h"
#include "text.h"

namespace recordgen {
namespace {

using ipusim::gen::md_escape;
using ipusim::gen::Reader;

// "LinkStatsRequest" -> "LINK_STATS_REQUEST", "Read32Reply" -> "READ32_REPLY".
std::string upper_snake(const std::string& camel) {
  std::string out;
  for (size_t i = 0; i < camel.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(camel[i]);
    if (i > 0 && std::isupper(c) && !std::isupper(static_cast<unsigned char>(camel[i - 1]))) out += '_';
    out += static_cast<char>(std::toupper(c));
  }
  return out;
}

// "NOT_HELLO" -> "kNotHello".
std::string enumerator(const std::string& upper) {
  std::string out = "k";
  bool start = true;
  for (char c : upper) {
    if (c == '_') {
      start = true;
      continue;
    }
    out += start ? c : static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    start = false;
  }
  return out;
}

std::string strip_suffix(const std::string& s, const std::string& suffix) {
  if (s.size() > suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0)
    return s.substr(0, s.size() - suffix.size());
  return s;
}

const std::set<std::string> kMessageKinds = {"u16", "u32", "u64", "board", "board_count", "bar0_offset", "major",
                                             "bool", "text", "list"};
const std::set<std::string> kPieceKinds = {"u32", "u64", "flags", "text"};

// Bytes of a field of fixed size; 0 for a text or a list.
size_t fixed_bytes(const WireField& f) {
  if (f.type == "u16" || f.type == "major") return 2;
  if (f.type == "u64") return 8;
  if (f.type == "text" || f.type == "list") return 0;
  return 4;  // u32 and every u32-based kind, enums and flags
}

WireField parse_field(const Reader& r, const YAML::Node& fn, const std::string& owner, bool piece,
                      const std::vector<Enum>& enums, const std::vector<Piece>& pieces,
                      const std::map<std::string, RecordInfo>& records) {
  r.keys(fn, owner + " field", {"name", "type", "doc", "default", "bits", "of", "limit"});
  WireField f;
  f.name = r.text(fn, "name");
  f.type = r.text(fn, "type");
  f.doc = r.text(fn, "doc");
  f.default_value = r.optional_text(fn, "default");
  const std::string where = owner + "." + f.name;
  const auto& kinds = piece ? kPieceKinds : kMessageKinds;
  if (!kinds.count(f.type)) {
    for (const Enum& e : enums)
      if (e.name == f.type && !piece) f.enumeration = &e;
    if (!f.enumeration)
      r.fail(fn["type"], "type",
             fmt::format("{}: '{}' is not a {} field type (messages.yaml \"Types\"){}", where, f.type,
                         piece ? "piece" : "message", piece ? "" : " or an enum declared above"));
  }
  if (f.type == "flags") {
    for (const auto& b : r.list(fn, "bits")) f.bits.push_back(b.as<std::string>());
    if (f.bits.empty() || f.bits.size() > 32) r.fail(fn["bits"], "bits", fmt::format("{}: 1 .. 32 bits", where));
  } else if (fn["bits"]) {
    r.fail(fn["bits"], "bits", fmt::format("{}: only a flags field has bits", where));
  }
  if (f.type == "list") {
    f.of = r.text(fn, "of");
    f.limit = r.text(fn, "limit");
    for (const Piece& p : pieces)
      if (p.name == f.of) f.piece = &p;
    const auto rec = records.find(f.of);
    if (!f.piece && rec == records.end())
      r.fail(fn["of"], "of", fmt::format("{}: '{}' is neither a record of records.yaml nor a piece", where, f.of));
    if (!f.piece) {
      if (!rec->second.scalar_only)
        r.fail(fn["of"], "of", fmt::format("{}: '{}' has record fields; a list's record has u32 / u64 fields", where, f.of));
      f.record_bytes = rec->second.wire_bytes;
    }
  } else if (fn["of"] || fn["limit"]) {
    r.fail(fn, "of", fmt::format("{}: only a list has of and limit", where));
  }
  return f;
}

std::string cpp_type(const WireField& f) {
  if (f.enumeration) return f.enumeration->name;
  if (f.type == "u16" || f.type == "major") return "uint16_t";
  if (f.type == "u64") return "uint64_t";
  if (f.type == "bool") return "bool";
  if (f.type == "text") return "std::string";
  if (f.type == "list") return fmt::format("std::vector<{}>", f.piece ? f.of : "records::" + f.of);
  return "uint32_t";
}

std::string default_value(const WireField& f) {
  if (!f.default_value.empty()) return f.default_value;
  if (f.type == "major") return "kVersionMajor";
  if (f.enumeration) return f.enumeration->name + "::" + enumerator(f.enumeration->values.front().name);
  if (f.type == "bool") return "false";
  if (f.type == "text" || f.type == "list") return "";
  return "0";
}

// The struct's members: wire order, but a board last (so that a one-board caller may
// leave it 0 in an aggregate initialiser), and a flags field as one bool per bit.
std::vector<const WireField*> struct_order(const std::vector<WireField>& fields) {
  std::vector<const WireField*> out;
  for (const WireField& f : fields)
    if (f.type != "board") out.push_back(&f);
  for (const WireField& f : fields)
    if (f.type == "board") out.push_back(&f);
  return out;
}

void members(std::ostringstream& o, const std::vector<WireField>& fields) {
  for (const WireField* f : struct_order(fields)) {
    if (f->type == "flags") {
      for (size_t b = 0; b < f->bits.size(); ++b)
        o << fmt::format("  bool {} = false;  // {}: bit {}\n", f->bits[b], f->name, b);
      continue;
    }
    const std::string def = default_value(*f);
    o << fmt::format("  {} {}{};  // {}\n", cpp_type(*f), f->name, def.empty() ? "" : " = " + def, f->doc);
  }
}

size_t header_bytes(const std::vector<WireField>& fields) {
  size_t n = 0;
  for (const WireField& f : fields) n += f.type == "text" || f.type == "list" ? 4 : fixed_bytes(f);  // a text's or list's length
  return n;
}

const WireField* list_of(const Message& m) {
  for (const WireField& f : m.fields)
    if (f.type == "list") return &f;
  return nullptr;
}

std::string generated_by(const std::string& source, const char* comment) {
  return fmt::format("{0} Generated by tools/recordgen from {1}. Do not edit: change the\n"
                     "{0} source and rebuild (cmake --build build --target recordgen).\n",
                     comment, source);
}

std::string direction_arrow(const Message& m) { return m.to_server ? "c->s" : "s->c"; }

}  // namespace

WireSchema parse_wire(const std::string& path, const std::map<std::string, RecordInfo>& records) {
  const YAML::Node root = ipusim::gen::load_source(path);
  const Reader r(path);
  r.keys(root, "messages.yaml", {"enums", "pieces", "messages"});
  WireSchema s;
  std::set<std::string> names;
  for (const auto& [name, info] : records) names.insert(name);
  auto declare = [&](const YAML::Node& n, const std::string& name) {
    if (!names.insert(name).second) r.fail(n["name"], "name", fmt::format("'{}' declared twice (or a record's name)", name));
  };
  s.enums.reserve(r.list(root, "enums").size());  // fields point into it
  for (const auto& n : r.list(root, "enums")) {
    r.keys(n, "enum", {"name", "doc", "values"});
    Enum e{r.text(n, "name"), r.text(n, "doc"), {}};
    declare(n, e.name);
    for (const auto& v : r.list(n, "values")) {
      r.keys(v, e.name + " value", {"name", "value", "doc"});
      EnumValue ev{r.cname(v, "name"), r.text(v, "doc"), r.number(v, "value", 0xFFFFFFFFu)};
      if (!e.values.empty() && ev.value != e.values.back().value + 1)
        r.fail(v["value"], "value", fmt::format("{}.{}: values are contiguous and ascending ({} expected)", e.name,
                                                ev.name, e.values.back().value + 1));
      e.values.push_back(ev);
    }
    if (e.values.empty()) r.fail(n, "values", fmt::format("{}: no values", e.name));
    s.enums.push_back(std::move(e));
  }
  s.pieces.reserve(r.list(root, "pieces").size());
  for (const auto& n : r.list(root, "pieces")) {
    r.keys(n, "piece", {"name", "doc", "fields"});
    Piece p{r.text(n, "name"), r.text(n, "doc"), {}};
    declare(n, p.name);
    std::set<std::string> fields;
    for (const auto& fn : r.list(n, "fields")) {
      p.fields.push_back(parse_field(r, fn, p.name, true, s.enums, s.pieces, records));
      if (!fields.insert(p.fields.back().name).second)
        r.fail(fn["name"], "name", fmt::format("{}.{} declared twice", p.name, p.fields.back().name));
    }
    s.pieces.push_back(std::move(p));
  }
  std::set<std::string> wire_names;
  for (const auto& n : r.list(root, "messages")) {
    r.keys(n, "message", {"name", "type", "direction", "minor", "doc", "reply", "check", "fields"});
    Message m;
    m.name = r.text(n, "name");
    declare(n, m.name);
    m.wire_name = strip_suffix(upper_snake(m.name), "_REQUEST");
    m.enumerator = "k" + strip_suffix(m.name, "Request");
    if (!wire_names.insert(m.wire_name).second)
      r.fail(n["name"], "name", fmt::format("{}: another message is {} on the wire", m.name, m.wire_name));
    m.type = uint32_t(r.number(n, "type", 0xFFFF));
    if (m.type != s.messages.size() + 1)
      r.fail(n["type"], "type", fmt::format("{}: type {}, the next is {} (codes are 1, 2, ... in order)", m.name,
                                            m.type, s.messages.size() + 1));
    const std::string dir = r.text(n, "direction");
    if (dir != "to_server" && dir != "to_client")
      r.fail(n["direction"], "direction", fmt::format("{}: '{}' is not to_server or to_client", m.name, dir));
    m.to_server = dir == "to_server";
    m.minor = uint32_t(r.number(n, "minor", 0xFFFF));
    m.doc = r.text(n, "doc");
    m.reply = r.optional_text(n, "reply");
    if (m.to_server == m.reply.empty())
      r.fail(n, "reply", fmt::format("{}: a request says its reply, and only a request", m.name));
    m.check = r.optional_text(n, "check");
    std::set<std::string> fields;
    const YAML::Node list = r.list(n, "fields");
    for (size_t i = 0; i < list.size(); ++i) {
      const YAML::Node fn = list[i];
      m.fields.push_back(parse_field(r, fn, m.name, false, s.enums, s.pieces, records));
      const WireField& f = m.fields.back();
      if (!fields.insert(f.name).second) r.fail(fn["name"], "name", fmt::format("{}.{} declared twice", m.name, f.name));
      if (f.type == "board" && i != 0)
        r.fail(fn["type"], "type", fmt::format("{}.{}: a board is the payload's first field", m.name, f.name));
      if (f.type == "list" && i + 1 != list.size())
        r.fail(fn["type"], "type", fmt::format("{}.{}: a list is its message's last field", m.name, f.name));
      if (f.type == "list")
        for (const WireField& before : m.fields)
          if (before.type == "text")
            r.fail(fn["type"], "type", fmt::format("{}.{}: a list follows fixed-size fields only", m.name, f.name));
    }
    s.messages.push_back(std::move(m));
  }
  if (s.messages.empty()) r.fail(root["messages"], "messages", "no messages");
  return s;
}

std::string wire_header(const WireSchema& s, const std::string& source) {
  std::ostringstream o;
  o << generated_by(source, "//")
    << "// The wire protocol's messages (docs/host_driver.md \"The wire protocol\"): one struct per\n"
    << "// message with its Type and Direction, the Body variant in type order, the limits of the\n"
    << "// replies' lists and the server's dispatch. wire_protocol.h is the API that frames them.\n"
    << "#pragma once\n\n#include <ipu/host_records.h>  // the records the replies carry\n\n"
    << "#include <concepts>\n#include <cstddef>\n#include <cstdint>\n#include <string>\n#include <utility>\n"
    << "#include <variant>\n#include <vector>\n\n#include \"wire_limits.h\"\n\nnamespace ipusim::wire {\n\n";
  o << "enum class Type : uint16_t {\n";
  for (const Message& m : s.messages)
    o << fmt::format("  {} = {},  // {} {}\n", m.enumerator, m.type, direction_arrow(m), m.wire_name);
  o << "};\n" << fmt::format("inline constexpr Type kLastType = Type::{};\n", s.messages.back().enumerator);
  for (const Enum& e : s.enums) {
    o << fmt::format("\n// {}\nenum class {} : uint32_t {{\n", e.doc, e.name);
    for (const EnumValue& v : e.values) o << fmt::format("  {} = {},  // {}\n", enumerator(v.name), v.value, v.doc);
    o << "};\n";
  }
  for (const Piece& p : s.pieces) {
    o << fmt::format("\n// {}\nstruct {} {{\n", p.doc, p.name);
    members(o, p.fields);
    o << fmt::format("  bool operator==(const {}&) const = default;\n}};\n", p.name);
    o << fmt::format("inline constexpr size_t k{}HeaderBytes = {};  // all but the text's bytes\n", p.name,
                     header_bytes(p.fields));
  }
  for (const Message& m : s.messages) {
    if (const WireField* list = list_of(m)) {
      o << fmt::format("\n// {} payload: {} bytes before its records (count included); as many records as fit.\n",
                       m.wire_name, header_bytes(m.fields));
      o << fmt::format("inline constexpr size_t k{}HeaderBytes = {};\n", m.name, header_bytes(m.fields));
      o << fmt::format("inline constexpr size_t {} = (kMaxPayload - k{}HeaderBytes) / {};\n", list->limit, m.name,
                       list->piece ? fmt::format("k{}HeaderBytes", list->piece->name)
                                   : fmt::format("records::{}::kWireBytes", list->of));
    }
    o << fmt::format("\n// {} ({}): {}\nstruct {} {{\n", m.wire_name, m.type, m.doc, m.name);
    o << fmt::format("  static constexpr Type kType = Type::{};\n", m.enumerator);
    o << fmt::format("  static constexpr Direction kDirection = Direction::{};\n", m.to_server ? "kToServer" : "kToClient");
    members(o, m.fields);
    o << fmt::format("  bool operator==(const {}&) const = default;\n}};\n", m.name);
  }
  o << "\n// Every message, in type order.\nusing Body = std::variant<";
  size_t column = 27;
  for (size_t i = 0; i < s.messages.size(); ++i) {
    const std::string item = s.messages[i].name + (i + 1 < s.messages.size() ? "," : ">;");
    if (i > 0 && column + 1 + item.size() > 110) {
      o << "\n                          ";
      column = 26;
    } else if (i > 0) {
      o << ' ';
      ++column;
    }
    o << item;
    column += item.size();
  }
  o << "\n\n// A client's request (the server has one handler for each and refuses the others).\n"
    << "template <class M>\ninline constexpr bool is_request = M::kDirection == Direction::kToServer;\n\n"
    << "// The server's handlers: H::on(seq, request) for every request, returning false when the\n"
    << "// session ended, and H::not_a_request(seq, type) for a message only a server sends.\n"
    << "template <class H>\nconcept RequestHandler = requires(H& h, uint32_t seq, Type type) {\n";
  for (const Message& m : s.messages)
    if (m.to_server) o << fmt::format("  {{ h.on(seq, std::declval<const {}&>()) }} -> std::same_as<bool>;\n", m.name);
  o << "  { h.not_a_request(seq, type) } -> std::same_as<bool>;\n};\n\n"
    << "// Hands a decoded client message to its handler. A request of messages.yaml without its\n"
    << "// handler does not compile.\n"
    << "template <class H>\nbool dispatch(H& h, uint32_t seq, const Body& body) {\n"
    << "  static_assert(RequestHandler<H>, \"every request needs its handler H::on(uint32_t, const Request&) -> bool\");\n"
    << "  switch (body.index()) {\n";
  for (size_t i = 0; i < s.messages.size(); ++i) {
    const Message& m = s.messages[i];
    if (m.to_server)
      o << fmt::format("    case {}: return h.on(seq, *std::get_if<{}>(&body));\n", i, m.name);
    else
      o << fmt::format("    case {}: return h.not_a_request(seq, Type::{});\n", i, m.enumerator);
  }
  o << "  }\n  return false;\n}\n\n}  // namespace ipusim::wire\n";
  return o.str();
}

namespace {

// Writes field `f` of `obj` (an expression) to `out`.
void put_field(std::ostringstream& o, const WireField& f, const std::string& obj, const char* indent) {
  const std::string v = obj + "." + f.name;
  if (f.type == "u16" || f.type == "major") {
    o << fmt::format("{}put16(out, {});\n", indent, v);
  } else if (f.type == "u64") {
    o << fmt::format("{}put64(out, {});\n", indent, v);
  } else if (f.type == "bool") {
    o << fmt::format("{}put32(out, {} ? 1 : 0);\n", indent, v);
  } else if (f.type == "text") {
    o << fmt::format("{}put_text(out, {});\n", indent, v);
  } else if (f.type == "flags") {
    std::string e;
    for (size_t b = 0; b < f.bits.size(); ++b)
      e += fmt::format("{}({}.{} ? {}u : 0u)", b ? " | " : "", obj, f.bits[b], uint64_t{1} << b);
    o << fmt::format("{}put32(out, {});\n", indent, e);
  } else if (f.type == "list") {
    // As many records as the payload holds: the server sizes its replies so that none is cut.
    o << fmt::format("{}const size_t count_at = out.size();\n{}put32(out, 0);\n{}uint32_t count = 0;\n", indent, indent,
                     indent);
    o << fmt::format("{}for (const auto& rec : {}) {{\n", indent, v);
    if (f.piece)
      o << fmt::format("{}  if (out.size() + wire_bytes(rec) > kMaxPayload) break;\n{}  put(out, rec);\n", indent, indent);
    else
      o << fmt::format("{}  if (out.size() + records::{}::kWireBytes > kMaxPayload) break;\n{}  put_record(out, rec);\n",
                       indent, f.of, indent);
    o << fmt::format("{}  ++count;\n{}}}\n{}patch32(out, count_at, count);\n", indent, indent, indent);
  } else if (f.enumeration) {
    o << fmt::format("{}put32(out, uint32_t({}));\n", indent, v);
  } else {
    o << fmt::format("{}put32(out, {});\n", indent, v);
  }
}

// Reads field `f` into `m`; checks that wait for the payload's end go to `post`.
void get_field(std::ostringstream& o, const WireField& f, std::vector<std::string>& post) {
  const std::string v = "m." + f.name;
  const char* n = f.name.c_str();
  if (f.type == "u16") {
    o << fmt::format("  {} = r.u16(\"{}\");\n", v, n);
  } else if (f.type == "major") {
    o << fmt::format("  {} = r.u16(\"{}\");\n", v, n);
    post.push_back(fmt::format("  version_error = !check_major(r, {});\n", v));
  } else if (f.type == "u64") {
    o << fmt::format("  {} = r.u64(\"{}\");\n", v, n);
  } else if (f.type == "board") {
    o << fmt::format("  {} = get_board(r, \"{}\");\n", v, n);
  } else if (f.type == "board_count") {
    o << fmt::format("  {} = r.u32(\"{}\");\n", v, n);
    post.push_back(fmt::format("  check_board_count(r, \"{}\", {});\n", n, v));
  } else if (f.type == "bar0_offset") {
    o << fmt::format("  {} = r.u32(\"{}\");\n", v, n);
    post.push_back(fmt::format("  check_bar0_offset(r, {});\n", v));
  } else if (f.type == "bool") {
    o << fmt::format("  {} = get_bool(r, \"{}\");\n", v, n);
  } else if (f.type == "text") {
    o << fmt::format("  {} = r.text(\"{}\");\n", v, n);
  } else if (f.type == "flags") {
    std::string names;
    uint64_t mask = 0;
    for (size_t b = 0; b < f.bits.size(); ++b) {
      names += fmt::format("{}{} ({})", b ? ", " : "", b, f.bits[b]);
      mask |= uint64_t{1} << b;
    }
    names = (f.bits.size() == 1 ? "bit " : "bits ") + names + (f.bits.size() == 1 ? " is" : " are");
    o << fmt::format("  const uint32_t {} = get_flags(r, \"{}\", {:#x}u, \"{}\");\n", f.name, n, mask, names);
    for (size_t b = 0; b < f.bits.size(); ++b)
      o << fmt::format("  m.{} = ({} & {}u) != 0;\n", f.bits[b], f.name, uint64_t{1} << b);
  } else if (f.type == "list") {
    o << fmt::format("  const uint32_t count = r.u32(\"count\");\n  check_count(r, count, {}, {});\n", f.limit,
                     f.piece ? "false" : "true");
    o << fmt::format("  for (uint32_t i = 0; i < count && r.ok(); ++i) {}.push_back({});\n", v,
                     f.piece ? fmt::format("read_{}(r)", f.piece->name) : fmt::format("get_record<records::{}>(r)", f.of));
  } else if (f.enumeration) {
    o << fmt::format("  const uint32_t {} = r.u32(\"{}\");\n", f.name, n);
    post.push_back(fmt::format("  check_enum(r, \"{}\", {}, {}, {});\n  {} = {}({});\n", n, f.name,
                               f.enumeration->values.front().value, f.enumeration->values.back().value, v,
                               f.enumeration->name, f.name));
  } else {
    o << fmt::format("  {} = r.u32(\"{}\");\n", v, n);
  }
}

}  // namespace

std::string wire_codec(const WireSchema& s, const std::string& source) {
  std::ostringstream o;
  o << generated_by(source, "//")
    << "// The payload codec of every wire message: fields in the order of the source, each\n"
    << "// through its kind's encoder and checks (wire_fields.h); wire_protocol.cpp frames it.\n"
    << "#include \"wire_fields.h\"\n#include \"wire_protocol.h\"\n\n"
    << "namespace ipusim::wire::codec {\nnamespace {\n\nusing namespace fields;\n";
  for (const Piece& p : s.pieces) {
    o << fmt::format("\nsize_t wire_bytes(const {}& m) {{\n  return k{}HeaderBytes", p.name, p.name);
    for (const WireField& f : p.fields)
      if (f.type == "text") o << fmt::format(" + text_bytes(m.{}) - 4", f.name);
    o << ";\n}\n";
    o << fmt::format("\nvoid put(std::vector<uint8_t>& out, const {}& m) {{\n", p.name);
    for (const WireField& f : p.fields) put_field(o, f, "m", "  ");
    o << "}\n";
    o << fmt::format("\n{} read_{}(Reader& r) {{\n  {} m;\n", p.name, p.name, p.name);
    std::vector<std::string> post;
    for (const WireField& f : p.fields) get_field(o, f, post);
    o << "  return m;\n}\n";
  }
  for (const Message& m : s.messages) {
    o << fmt::format("\nvoid put(std::vector<uint8_t>& out, const {}& m) {{\n", m.name);
    if (m.fields.empty()) o << "  (void)out, (void)m;\n";
    for (const WireField& f : m.fields) put_field(o, f, "m", "  ");
    o << "}\n";
  }
  for (const Message& m : s.messages) {
    o << fmt::format("\n{} read_{}(Reader& r, [[maybe_unused]] bool& version_error) {{\n  {} m;\n", m.name, m.name, m.name);
    std::vector<std::string> post;
    for (const WireField& f : m.fields) get_field(o, f, post);
    o << "  r.expect_end();\n";
    for (const std::string& p : post) o << p;
    if (!m.check.empty()) o << fmt::format("  check_{}(r, m);\n", m.check);
    o << "  return m;\n}\n";
  }
  o << "\n}  // namespace\n\nvoid encode_payload(const Body& body, std::vector<uint8_t>& out) {\n"
    << "  std::visit([&](const auto& m) { put(out, m); }, body);\n}\n\n"
    << "Body decode_payload(Type type, Reader& r, bool& version_error) {\n  switch (type) {\n";
  for (const Message& m : s.messages)
    o << fmt::format("    case Type::{}: return read_{}(r, version_error);\n", m.enumerator, m.name);
  o << "  }\n  r.fail(\"unknown type\");\n  return Ok{};\n}\n\n}  // namespace ipusim::wire::codec\n\n"
    << "namespace ipusim::wire {\n\nconst char* type_name(uint16_t type) {\n  switch (Type(type)) {\n";
  for (const Message& m : s.messages) o << fmt::format("    case Type::{}: return \"{}\";\n", m.enumerator, m.wire_name);
  o << "  }\n  return \"unknown\";\n}\n\n}  // namespace ipusim::wire\n";
  return o.str();
}

namespace {

constexpr const char* kDocBegin = "<!-- wire messages: generated by tools/recordgen from ";
constexpr const char* kDocEnd = "<!-- end of the generated wire messages -->";

std::string doc_type(const WireField& f) {
  if (f.enumeration) return fmt::format("u32 {} (below)", f.enumeration->name);
  if (f.type == "board") return "u32 board index (< kMaxBoards, 16384)";
  if (f.type == "board_count") return "u32 (1 .. 16384)";
  if (f.type == "bar0_offset") return "u32 (< BAR0 bytes)";
  if (f.type == "major") return "u16 (the protocol major)";
  if (f.type == "bool") return "u32 (0 / 1)";
  if (f.type == "list")
    return fmt::format("u32 count, count x `{}` (at most `{}`)", f.of, f.limit);
  if (f.type == "flags") {
    std::string bits;
    for (size_t b = 0; b < f.bits.size(); ++b) bits += fmt::format("{}bit {}: {}", b ? ", " : "", b, f.bits[b]);
    return "u32 flags (" + bits + ")";
  }
  return f.type;
}

std::string doc_fields(const std::vector<WireField>& fields) {
  if (fields.empty()) return "-";
  std::string out;
  for (const WireField& f : fields)
    out += fmt::format("{}`{}` {}: {}", out.empty() ? "" : "; ", f.name, doc_type(f), f.doc);
  return md_escape(out);
}

}  // namespace

std::string wire_doc(const WireSchema& s, const std::string& source, const std::string& path) {
  std::ostringstream o;
  o << kDocBegin << source << "; do not edit -->\n"
    << "| type | message | dir | minor | payload (in order) | what it is; reply |\n|---|---|---|---|---|---|\n";
  for (const Message& m : s.messages)
    o << fmt::format("| {} | {} | {} | {} | {} | {}{} |\n", m.type, m.wire_name, direction_arrow(m), m.minor,
                     doc_fields(m.fields), md_escape(m.doc), m.reply.empty() ? "" : " Reply: " + md_escape(m.reply));
  for (const Piece& p : s.pieces)
    o << fmt::format("\n`{}`: {} Fields: {}.\n", p.name, md_escape(p.doc), doc_fields(p.fields));
  for (const Enum& e : s.enums) {
    o << fmt::format("\n`{}`: {}", e.name, md_escape(e.doc));
    for (size_t i = 0; i < e.values.size(); ++i)
      o << fmt::format("{} {} {} ({})", i ? ";" : "", e.values[i].name, e.values[i].value, md_escape(e.values[i].doc));
    o << ".\n";
  }
  o << kDocEnd << "\n";
  return ipusim::gen::splice_region(ipusim::gen::read_text(path), path, kDocBegin, kDocEnd, o.str());
}

}  // namespace recordgen
