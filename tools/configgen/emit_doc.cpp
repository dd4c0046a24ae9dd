// The key tables of docs/config.md: one per kind of file, nested sections flattened to
// dotted keys, spliced between the file's configgen markers (the prose around them is
// written by hand).
#include <fmt/format.h>

#include <sstream>

#include "generated_files.h"
#include "schema.h"
#include "text.h"

namespace ipusim::configgen {
namespace {

constexpr const char* kBegin = "<!-- configgen: begin";
constexpr const char* kEnd = "<!-- configgen: end -->";

std::string range_text(const Key& k) {
  if (!k.range_doc.empty()) return k.range_doc;
  if (k.kind != Key::Kind::Value || k.type == "bool" || k.type == "name") return "";
  return k.min_exclusive ? fmt::format("> {} .. {}", k.min, k.max) : fmt::format("{}..{}", k.min, k.max);
}

std::string default_text(const Key& k) {
  if (!k.default_doc.empty()) return k.default_doc;
  if (k.kind != Key::Kind::Value) return "";
  if (k.required) return "required";
  if (k.type == "bool") return "`" + k.default_value + "`";
  return k.default_value;
}

void rows(std::ostringstream& o, const Schema& s, const Section& sec, const std::string& prefix) {
  for (const Key& k : sec.keys) {
    if (k.kind == Key::Kind::Retired) continue;
    if (k.kind == Key::Kind::Section) {
      rows(o, s, s.section(k.section), prefix + k.key + ".");
      continue;
    }
    o << fmt::format("| `{}{}` | {} | {} | {} | {} | {} |\n", prefix, k.key, gen::md_escape(k.unit),
                     gen::md_escape(range_text(k)), gen::md_escape(default_text(k)), gen::md_escape(k.doc),
                     gen::md_escape(k.source));
  }
}

}  // namespace

std::string emit_doc(const Schema& s, const std::string& source, const std::string& path, const std::string& current) {
  std::ostringstream o;
  o << kBegin << " (generated from " << source << ": edit the schema, then cmake --build build --target configgen) -->\n\n";
  for (const Section& sec : s.sections) {
    if (sec.title.empty()) continue;
    o << fmt::format("### {}\n\n| key | unit | range | default | meaning | source of the figure |\n"
                     "|---|---|---|---|---|---|\n",
                     sec.title);
    rows(o, s, sec, "");
    o << "\n";
  }
  o << fmt::format("`cosim` blocks (`--rtl` names), in order: {}.\n\n", [&] {
    std::string names;
    for (const RtlBlock& b : s.rtl_blocks) names += (names.empty() ? "`" : ", `") + b.name + "` (" + b.doc + ")";
    return names;
  }());
  o << kEnd << "\n";
  return gen::splice_region(current, path, kBegin, kEnd, o.str());
}

}  // namespace ipusim::configgen
