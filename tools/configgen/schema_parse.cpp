// Reads tlm/config/schema.yaml into the Schema of schema.h, every problem located
// (FILE:LINE: KEY: problem) and every cross-reference checked, so that a schema that loads
// generates code that compiles.
#include <fmt/format.h>

#include <set>

#include "generated_files.h"
#include "reader.h"
#include "schema.h"

namespace ipusim::configgen {
namespace {

using gen::Reader;

const std::set<std::string> kTypes = {"u32", "u64", "f64", "bool", "name"};
const std::set<std::string> kChecks = {"sram_kib", "power_of_two", "amp_rows", "at_least_1hz"};

std::string scalar(const Reader& r, const YAML::Node& map, const char* key) {
  return map[key] ? r.text(map, key) : std::string();
}

Key parse_key(const Reader& r, const YAML::Node& n) {
  r.keys(n, "key", {"key", "section", "hand", "retired", "type", "field", "field_type", "unit", "doc", "source",
                    "range_doc", "default_doc", "check", "at_least", "max_expr", "min", "max", "min_exclusive",
                    "required", "default", "pow10", "pow2", "scale"});
  Key k;
  k.key = r.text(n, "key");
  if (n["section"]) {
    k.kind = Key::Kind::Section;
    k.section = r.text(n, "section");
    return k;
  }
  if (n["retired"]) {
    k.kind = Key::Kind::Retired;
    k.retired = r.text(n, "retired");
    return k;
  }
  k.doc = scalar(r, n, "doc");
  k.unit = scalar(r, n, "unit");
  k.source = scalar(r, n, "source");
  k.range_doc = scalar(r, n, "range_doc");
  k.default_doc = scalar(r, n, "default_doc");
  if (r.flag(n, "hand")) {
    k.kind = Key::Kind::Hand;
    return k;
  }
  k.type = r.text(n, "type");
  if (!kTypes.count(k.type)) r.fail(n["type"], k.key, fmt::format("type '{}' is not u32, u64, f64, bool or name", k.type));
  k.field = r.text(n, "field");
  k.field_type = scalar(r, n, "field_type");
  k.check = scalar(r, n, "check");
  if (!k.check.empty() && !kChecks.count(k.check))
    r.fail(n["check"], k.key, fmt::format("no hand-written check '{}' (config_loader.cpp check_*)", k.check));
  k.at_least = scalar(r, n, "at_least");
  k.max_expr = scalar(r, n, "max_expr");
  k.min = scalar(r, n, "min");
  k.max = scalar(r, n, "max");
  k.min_exclusive = r.flag(n, "min_exclusive");
  k.required = r.flag(n, "required");
  k.default_value = scalar(r, n, "default");
  if (n["pow10"]) k.pow10 = int(r.number(n, "pow10", 30));
  if (n["pow2"]) k.pow2 = int(r.number(n, "pow2", 62));
  if (n["scale"]) k.scale = r.number(n, "scale");
  const bool numeric = k.type == "u32" || k.type == "u64" || k.type == "f64";
  if (numeric && (k.min.empty() || k.max.empty())) r.fail(n, k.key, "a number needs min and max");
  if (k.type != "name" && k.required == !k.default_value.empty())
    r.fail(n, k.key, "give exactly one of required: true and default");
  if ((k.pow10 || k.pow2) && k.type != "f64") r.fail(n, k.key, "pow10 / pow2 scale an f64");
  if (k.pow2 && k.field_type != "u64") r.fail(n, k.key, "a pow2 key fills a u64 field (field_type: u64)");
  if (k.scale != 1 && k.type != "u32" && k.type != "u64") r.fail(n, k.key, "scale is for u32 / u64");
  return k;
}

}  // namespace

const Section& Schema::section(const std::string& name) const {
  for (const Section& s : sections)
    if (s.name == name) return s;
  throw gen::SourceError("no section " + name);
}

std::string camel(const std::string& name) {
  std::string out;
  bool up = true;
  for (char c : name) {
    if (c == '_') {
      up = true;
      continue;
    }
    out += up ? char(std::toupper(static_cast<unsigned char>(c))) : c;
    up = false;
  }
  return out;
}

std::string cpp_type(const Key& k) {
  const std::string& t = k.field_type.empty() ? k.type : k.field_type;
  if (t == "u32") return "uint32_t";
  if (t == "u64") return "uint64_t";
  if (t == "f64") return "double";
  if (t == "bool") return "bool";
  return "std::string";
}

Schema parse_schema(const std::string& path) {
  const YAML::Node root = gen::load_source(path);
  const Reader r(path);
  r.keys(root, "schema", {"sections", "rtl_blocks"});
  Schema s;
  std::set<std::string> names;
  for (const YAML::Node& n : r.list(root, "sections")) {
    r.keys(n, "section", {"name", "struct", "member", "title", "required", "keys"});
    Section sec;
    sec.name = r.text(n, "name");
    if (!names.insert(sec.name).second) r.fail(n["name"], sec.name, "section given twice");
    sec.type = r.text(n, "struct");
    sec.member = scalar(r, n, "member");
    sec.title = scalar(r, n, "title");
    sec.required = r.flag(n, "required");
    std::set<std::string> keys;
    for (const YAML::Node& k : r.list(n, "keys")) {
      sec.keys.push_back(parse_key(r, k));
      if (!keys.insert(sec.keys.back().key).second) r.fail(k, sec.keys.back().key, "key given twice in " + sec.name);
    }
    for (const Key& k : sec.keys)
      if (!k.at_least.empty() && !keys.count(k.at_least))
        r.fail(n, k.key, fmt::format("at_least names '{}', not a key of {}", k.at_least, sec.name));
    s.sections.push_back(std::move(sec));
  }
  for (const Section& sec : s.sections)
    for (const Key& k : sec.keys)
      if (k.kind == Key::Kind::Section && !names.count(k.section))
        throw gen::SourceError(fmt::format("{}: {}.{}: no section '{}'", path, sec.name, k.key, k.section));
  for (const YAML::Node& n : r.list(root, "rtl_blocks")) {
    r.keys(n, "rtl block", {"name", "doc"});
    s.rtl_blocks.push_back({r.text(n, "name"), r.text(n, "doc")});
  }
  return s;
}

}  // namespace ipusim::configgen
