// Reads hw/isa/xipu.yaml into an Isa and checks everything an emitter relies on: known
// keys only, values that fit their fields, unique names, encodings that do not overlap,
// CSR access that agrees with the RISC-V numbering. Every error names file, line and key.
#include <yaml-cpp/yaml.h>

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <map>
#include <set>

#include "isa_model.h"
#include "reader.h"
#include "text.h"

namespace isagen {

const char* field_name(Field f) {
  return f == Field::rd ? "rd" : f == Field::rs1 ? "rs1" : f == Field::rs2 ? "rs2" : "rs3";
}
unsigned field_shift(Field f) { return f == Field::rd ? 7 : f == Field::rs1 ? 15 : f == Field::rs2 ? 20 : 27; }
bool uses_rs3(const Insn& i) {
  return std::any_of(i.operands.begin(), i.operands.end(), [](const Operand& o) { return o.field == Field::rs3; });
}
unsigned kind_alignment(Kind k) { return k == Kind::fpair ? 2 : k == Kind::fquad ? 4 : 1; }

namespace {

using ipusim::gen::Reader;
using ipusim::gen::upper;

// The C names the header will define, so no two parts of the source collide.
class Names {
 public:
  explicit Names(const Reader& r) : r_(r) {}
  void claim(const YAML::Node& at, const char* key, const std::string& name) {
    if (!names_.insert(name).second) r_.fail(at, key, fmt::format("{} is defined twice", name));
  }

 private:
  const Reader& r_;
  std::set<std::string> names_;
};

Constant parse_constant(const Reader& r, const YAML::Node& n, const char* where, uint64_t max) {
  r.keys(n, where, {"name", "value", "doc"});
  return {r.cname(n, "name"), r.optional_text(n, "doc"), r.number(n, "value", max)};
}

Operand parse_operand(const Reader& r, const YAML::Node& n, const Isa& isa) {
  Operand o;
  auto field = [&](const YAML::Node& at, const char* key, const std::string& s) {
    if (s == "rd") return Field::rd;
    if (s == "rs1") return Field::rs1;
    if (s == "rs2") return Field::rs2;
    if (s == "rs3") return Field::rs3;
    r.fail(at, key, fmt::format("'{}' is not rd, rs1, rs2 or rs3", s));
  };
  if (n.IsScalar()) {  // shorthand: an x register in the field of that name
    o.name = n.as<std::string>();
    o.field = field(n, "operands", o.name);
    return o;
  }
  r.keys(n, "an operand", {"name", "field", "kind", "below", "min", "optional"});
  o.name = r.text(n, "name");
  o.field = field(n["field"], "field", r.text(n, "field"));
  const std::string kind = r.text(n, "kind");
  if (kind == "xreg") o.kind = Kind::xreg;
  else if (kind == "freg") o.kind = Kind::freg;
  else if (kind == "fpair") o.kind = Kind::fpair;
  else if (kind == "fquad") o.kind = Kind::fquad;
  else if (kind == "imm") o.kind = Kind::imm;
  else r.fail(n["kind"], "kind", fmt::format("'{}' is not xreg, freg, fpair, fquad or imm", kind));
  o.below = n["below"] ? r.text(n, "below") : std::string();
  o.optional = r.flag(n, "optional");
  const bool has_min = static_cast<bool>(n["min"]);
  if (o.kind != Kind::imm && (!o.below.empty() || o.optional || has_min))
    r.fail(n, !o.below.empty() ? "below" : has_min ? "min" : "optional", "only an imm operand has a limit or is optional");
  if (!o.below.empty()) {
    auto it = std::find_if(isa.limits.begin(), isa.limits.end(), [&](const Constant& c) { return c.name == o.below; });
    if (it == isa.limits.end()) r.fail(n["below"], "below", fmt::format("'{}' is not one of the limits", o.below));
    if (it->value == 0 || it->value > 32)
      r.fail(n["below"], "below", fmt::format("{} = {} does not bound a 5-bit field (1..32)", o.below, it->value));
    o.below_value = it->value;
  }
  if (has_min) {
    const uint64_t limit = o.below.empty() ? 32 : o.below_value;
    const YAML::Node m = n["min"];
    const uint64_t v = r.number(n, "min");
    if (v == 0 || v >= limit)
      r.fail(m, "min", fmt::format("{} is not a minimum of the field's values (1 .. {})", v, limit - 1));
    if (o.optional) r.fail(m, "min", "an optional operand (left out for 0) cannot have a minimum");
    o.min = static_cast<uint32_t>(v);
  }
  return o;
}

void parse_insn(const Reader& r, const YAML::Node& n, Group& g, const Isa& isa, Names& names) {
  r.keys(n, "an instruction", {"mnemonic", "funct3", "funct7", "operands", "who", "iss", "doc"});
  Insn i;
  i.line = n.Mark().line + 1;
  i.mnemonic = r.text(n, "mnemonic");
  const bool ok = !i.mnemonic.empty() && std::all_of(i.mnemonic.begin(), i.mnemonic.end(), [](char c) {
    return std::islower(static_cast<unsigned char>(c)) || std::isdigit(static_cast<unsigned char>(c)) || c == '.';
  });
  if (!ok) r.fail(n["mnemonic"], "mnemonic", fmt::format("'{}': use lower-case letters, digits and '.'", i.mnemonic));
  i.cname = upper(i.mnemonic);
  std::replace(i.cname.begin(), i.cname.end(), '.', '_');
  names.claim(n["mnemonic"], "mnemonic", "OP_" + i.cname);
  if (g.funct3 && n["funct3"]) r.fail(n["funct3"], "funct3", fmt::format("group {} already sets funct3", g.name));
  if (!g.funct3 && !n["funct3"]) r.fail(n, "funct3", fmt::format("missing (group {} sets none)", g.name));
  i.group_funct3 = g.funct3.has_value();
  i.funct3 = g.funct3 ? *g.funct3 : static_cast<uint32_t>(r.number(n, "funct3", 7));
  i.funct7 = static_cast<uint32_t>(r.number(n, "funct7", 0x7f));
  std::set<Field> used;
  std::set<std::string> operand_names;
  for (const auto& on : r.list(n, "operands")) {
    Operand o = parse_operand(r, on, isa);
    if (!used.insert(o.field).second) r.fail(on, "operands", fmt::format("field {} used twice", field_name(o.field)));
    if (!operand_names.insert(o.name).second) r.fail(on, "operands", fmt::format("operand name '{}' used twice", o.name));
    i.operands.push_back(o);
  }
  if (uses_rs3(i) && i.funct7 > 3)
    r.fail(n["funct7"], "funct7", fmt::format("{:#x}: an instruction with an rs3 operand has a 2-bit funct7 (0..3)", i.funct7));
  i.who = r.text(n, "who");
  if (i.who != "supervisor" && i.who != "worker" && i.who != "any")
    r.fail(n["who"], "who", fmt::format("'{}' is not supervisor, worker or any", i.who));
  i.iss = r.text(n, "iss");
  i.doc = r.text(n, "doc");
  // Every bit that is no operand is fixed: the major, funct3, funct7 and unused fields (0).
  uint32_t operand_bits = 0;
  for (const Operand& o : i.operands) operand_bits |= 31u << field_shift(o.field);
  i.mask = ~operand_bits;
  i.match = i.funct7 << 25 | i.funct3 << 12 | g.opcode;
  g.insns.push_back(std::move(i));
}

// Two encodings overlap when no fixed bit both fix tells them apart: a word could be either.
void check_overlaps(const Reader& r, const Isa& isa) {
  const auto all = isa.insns();
  for (size_t b = 1; b < all.size(); ++b)
    for (size_t a = 0; a < b; ++a)
      if (((all[a]->match ^ all[b]->match) & all[a]->mask & all[b]->mask) == 0)
        r.fail_at(all[b]->line, "mnemonic", fmt::format("{}: its encodings overlap those of {}", all[b]->mnemonic, all[a]->mnemonic));
}

}  // namespace

Isa parse_isa(const std::string& path) {
  const YAML::Node root = ipusim::gen::load_source(path);
  const Reader r(path);
  Names names(r);
  r.keys(root, "the top level", {"name", "prefix", "version", "memory", "limits", "enums", "majors", "groups", "csrs"});
  Isa isa;
  isa.name = r.text(root, "name");
  isa.prefix = r.cname(root, "prefix");
  const YAML::Node version = r.need(root, "version");
  r.keys(version, "version", {"major", "minor"});
  isa.version_major = static_cast<uint32_t>(r.number(version, "major", 0xffff));
  isa.version_minor = static_cast<uint32_t>(r.number(version, "minor", 0xffff));

  const YAML::Node memory = r.need(root, "memory");
  r.keys(memory, "memory", {"address_bits", "sram_base"});
  isa.address_bits = static_cast<uint32_t>(r.number(memory, "address_bits", 32));
  if (isa.address_bits < 12) r.fail(memory["address_bits"], "address_bits", "must be at least 12");
  isa.sram_base = static_cast<uint32_t>(r.number(memory, "sram_base", (uint64_t(1) << isa.address_bits) - 1));
  if (isa.sram_base % 4096) r.fail(memory["sram_base"], "sram_base", "must be a multiple of 4096 (a page)");
  names.claim(memory, "memory", "SRAM_BASE");
  names.claim(memory, "memory", "ADDRESS_BITS");

  for (const auto& n : r.list(root, "limits")) {
    r.keys(n, "a limit", {"name", "value", "ld", "doc"});
    Constant c{r.cname(n, "name"), r.optional_text(n, "doc"), r.number(n, "value", 0xffffffff), r.flag(n, "ld")};
    names.claim(n["name"], "name", c.name);
    isa.limits.push_back(c);
  }
  for (const auto& n : r.list(root, "enums")) {
    r.keys(n, "an enum", {"name", "doc", "values"});
    Enum e{r.cname(n, "name"), r.optional_text(n, "doc"), {}};
    for (const auto& v : r.list(n, "values")) {
      e.values.push_back(parse_constant(r, v, "an enum value", 0xffffffff));
      names.claim(v["name"], "name", e.name + "_" + e.values.back().name);
    }
    isa.enums.push_back(std::move(e));
  }
  for (const auto& n : r.list(root, "majors")) {
    Constant m = parse_constant(r, n, "a major opcode", 0x7f);
    if ((m.value & 3) != 3) r.fail(n["value"], "value", fmt::format("{:#04x}: a 32-bit encoding has bits 1:0 = 11", m.value));
    names.claim(n["name"], "name", "OPC_" + m.name);
    isa.majors.push_back(m);
  }

  for (const auto& n : r.list(root, "groups")) {
    r.keys(n, "a group", {"name", "title", "major", "funct3", "instructions"});
    Group g;
    g.name = r.cname(n, "name");
    g.title = r.text(n, "title");
    g.major = r.cname(n, "major");
    auto major = std::find_if(isa.majors.begin(), isa.majors.end(), [&](const Constant& c) { return c.name == g.major; });
    if (major == isa.majors.end()) r.fail(n["major"], "major", fmt::format("'{}' is not one of the majors", g.major));
    g.opcode = static_cast<uint32_t>(major->value);
    if (n["funct3"]) {
      g.funct3 = static_cast<uint32_t>(r.number(n, "funct3", 7));
      names.claim(n["name"], "name", "F3_" + g.name);
    }
    names.claim(n["name"], "name", "group " + g.name);
    for (const auto& in : r.list(n, "instructions")) parse_insn(r, in, g, isa, names);
    isa.groups.push_back(std::move(g));
  }
  check_overlaps(r, isa);

  std::map<uint32_t, std::string> numbers;
  for (const auto& n : r.list(root, "csrs")) {
    r.keys(n, "a CSR", {"name", "number", "access", "std", "doc"});
    Csr c;
    c.name = r.text(n, "name");
    c.number = static_cast<uint32_t>(r.number(n, "number", 0xfff));
    c.access = r.text(n, "access");
    c.standard = r.flag(n, "std");
    c.doc = r.text(n, "doc");
    if (c.access != "ro" && c.access != "rw") r.fail(n["access"], "access", fmt::format("'{}' is not ro or rw", c.access));
    // RISC-V: CSR numbers 0xC00-0xFFF (bits 11:10 = 3) are read-only.
    if ((c.number >> 10) == 3 && c.access != "ro")
      r.fail(n["access"], "access", fmt::format("CSR {:#05x} is in the read-only range (bits 11:10 = 3)", c.number));
    if (auto [it, fresh] = numbers.emplace(c.number, c.name); !fresh)
      r.fail(n["number"], "number", fmt::format("{:#05x} already belongs to {}", c.number, it->second));
    names.claim(n["name"], "name", "CSR_" + upper(c.name));
    isa.csrs.push_back(std::move(c));
  }
  return isa;
}

}  // namespace isagen
