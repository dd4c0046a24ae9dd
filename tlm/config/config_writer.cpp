// to_yaml(): SystemConfig -> YAML text with yaml-cpp's emitter. Numbers are
// formatted by config_numbers so that they parse back to the identical doubles;
// key names, units and order are the schema's (tlm/config/schema.yaml): the per-section
// code is generated (config_schema_write.inc); this file writes the keys marked `hand`.
#include "config/config_writer.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <string_view>

#include "config/config_numbers.h"

namespace ipusim::config {
namespace {

using detail::format_decimal;

class Writer {
 public:
  explicit Writer(YAML::Emitter& out) : out_(out) {}

  void text(const char* key, const std::string& value) {
    std::string lower = value;
    std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
    out_ << YAML::Key << key << YAML::Value;
    // A plain `null` would read back as no value at all.
    if (lower == "null" || value.empty()) out_ << YAML::DoubleQuoted;
    out_ << value;
  }
  void number(const char* key, uint64_t value) { out_ << YAML::Key << key << YAML::Value << std::to_string(value); }
  void flag(const char* key, bool value) { out_ << YAML::Key << key << YAML::Value << (value ? "true" : "false"); }
  void decimal(const char* key, double value, int pow10 = 0) {
    out_ << YAML::Key << key << YAML::Value << format_decimal(value, pow10);
  }
  void begin(const char* key, const std::string& comment = "") {
    out_ << YAML::Key << key << YAML::Value;
    if (!comment.empty()) out_ << YAML::Comment(comment);
    out_ << YAML::BeginMap;
  }
  void end() { out_ << YAML::EndMap; }
  // `ranks: [[0, 1], [2, 3]]`: the boards of each rank.
  void ranks(const RanksConfig& r) {
    out_ << YAML::Key << "ranks" << YAML::Value << YAML::Flow << YAML::BeginSeq;
    for (const std::vector<uint32_t>& boards : r.boards) {
      out_ << YAML::Flow << YAML::BeginSeq;
      for (uint32_t b : boards) out_ << b;
      out_ << YAML::EndSeq;
    }
    out_ << YAML::EndSeq;
  }

  // Written at the file's top level (to_yaml), not inside a part: `kind`, `link_faults`
  // and `cosim` (the file given on the command line holds them).
  void chip_body(const ChipConfig& c);
  void board_body(const BoardConfig& b);

  // A named wiring as its name (the loader wires it again), else the links one by one.
  void wiring(const std::string& topology, const std::vector<LinkWire>& links) {
    if (!topology.empty()) {
      text("topology", topology);
      return;
    }
    out_ << YAML::Key << "links" << YAML::Value << YAML::BeginSeq;
    for (const LinkWire& w : links) {
      out_ << YAML::Flow << YAML::BeginMap;
      out_ << YAML::Key << "a" << YAML::Value << YAML::Flow << YAML::BeginMap << YAML::Key << "ipu" << YAML::Value
           << w.ipu_a << YAML::Key << "port" << YAML::Value << w.port_a << YAML::EndMap;
      out_ << YAML::Key << "b" << YAML::Value << YAML::Flow << YAML::BeginMap << YAML::Key << "ipu" << YAML::Value
           << w.ipu_b << YAML::Key << "port" << YAML::Value << w.port_b << YAML::EndMap;
      out_ << YAML::EndMap;
    }
    out_ << YAML::EndSeq;
  }

 private:
  YAML::Emitter& out_;
};

#include "config/config_schema_write.inc"

void Writer::chip_body(const ChipConfig& c) {
  write_chip_keys(*this, c, [](std::string_view) {});  // kind, cosim: top level only
}

void Writer::board_body(const BoardConfig& b) {
  write_board_keys(*this, b, [&](std::string_view key) {
    if (key == "chip") {
      begin("chip", "from " + b.chip.source);
      chip_body(b.chip);
      end();
    } else if (key == "topology") {
      wiring(b.topology, b.links);  // the name, or else the `links` list
    }
  });
}

// True when a chip file can say everything: one board of one IPU, all of whose
// board-level fields are the defaults a bare chip gets.
bool is_bare_chip(const SystemConfig& s) {
  BoardConfig bare;
  bare.name = s.board.chip.name;
  bare.source = s.board.source;
  bare.ipus = 1;
  bare.chip = s.board.chip;
  return s.boards == 1 && s.board == bare;
}

}  // namespace

std::string to_yaml(const SystemConfig& s) {
  YAML::Emitter out;
  Writer w(out);
  out << YAML::Comment("ipusim effective configuration, resolved from " + s.source +
                       "\nEvery part is inline and every key explicit; load it with --config.");
  out << YAML::BeginMap;
  if (s.kind == "chip" && is_bare_chip(s)) {
    w.text("kind", "chip");
    w.chip_body(s.board.chip);
  } else if (!s.is_system()) {
    w.text("kind", "board");
    w.board_body(s.board);
  } else {
    w.text("kind", "system");
    write_system_keys(w, s, [&](std::string_view key) {
      if (key == "name") {
        w.text("name", s.system_name);
      } else if (key == "board") {
        w.begin("board", "from " + s.board.source);
        w.board_body(s.board);
        w.end();
      } else if (key == "topology") {
        // A system's named topology joins its boards (and the board keeps its own wiring);
        // anything else (a struct built in code) is written link by link, so that loading
        // it gives the same links.
        if (s.system_topology == "ladder" || s.system_topology == "torus2d")
          w.text("topology", s.system_topology);
        else
          w.wiring("", s.system_links);
      } else if (key == "ranks" && s.ranks.given()) {
        w.ranks(s.ranks);
      }
    });
  }
  if (s.link_faults.any()) {
    if (s.link_faults.links.empty()) {
      w.text("link_faults", s.link_faults.every);
    } else {
      w.begin("link_faults");
      w.text("all", s.link_faults.every);
      for (const auto& [link, spec] : s.link_faults.links) w.text(std::to_string(link).c_str(), spec);
      w.end();
    }
  }
  if (s.cosim.any_rtl()) {
    w.begin("cosim");
    for (const CosimBlock& b : kCosimBlocks) w.text(b.name, s.cosim.*b.model == BlockModel::Rtl ? "rtl" : "tlm");
    w.end();
  }
  out << YAML::EndMap;
  return std::string(out.c_str()) + "\n";
}

}  // namespace ipusim::config
