// The configuration loader: chip, board and system YAML files -> a validated
// SystemConfig. The only reader of YAML in ipusim (config_writer.cpp emits it).
//
// Each mapping of a file is a Section that knows its keys up front: an unknown or
// duplicated key is reported before anything is read, so a typo ("sram_kb") is named
// as such rather than as a missing "sram_kib". Every problem becomes a ConfigError
// "FILE:LINE: KEY: problem" with the line of the key and its dotted path.
// docs/config.md is the schema this file implements; change both together.
#include <ipu/xipu_isa.h>  // IPU_SRAM_BASE, IPU_MAX_WORKERS: the limits SRAM and workers must fit
#include <yaml-cpp/eventhandler.h>  // counting documents without LoadAll (parse_text)
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <optional>
#include <span>
#include <sstream>
#include <string_view>

#include "common/sync_rtl_limits.h"
#include "common/input_file.h"
#include "config/config_loader.h"
#include "links/fault_spec.h"
#include "links/link_config.h"
#include "config/config_numbers.h"

namespace ipusim::config {
namespace {

namespace fs = std::filesystem;
using detail::parse_decimal;
using detail::parse_unsigned;

using KeyList = std::span<const std::string_view>;

// The section key lists (kChipKeys, kTileKeys, ...) are generated: config_schema_read.inc.
constexpr std::string_view kLinkItemKeys[] = {"a", "b"};
constexpr std::string_view kLinkEndKeys[] = {"ipu", "port"};
constexpr const char* kLinkSyntax = "{a: {ipu: I, port: P}, b: {ipu: J, port: Q}}";

// The model's port plan (docs/links.md, "Topology"): ports 0-7 link the IPUs inside a
// board, port 8 goes to the board before and port 9 to the board after.
constexpr uint32_t kBoardPorts = 8;
constexpr uint32_t kPortUp = 8, kPortDown = 9;

constexpr uint64_t kKiB = 1024;
constexpr uint64_t kMaxTotalIpus = 65536;

int line_of(const YAML::Mark& mark) { return mark.is_null() ? 0 : mark.line + 1; }

// Edit distance, for "did you mean" on unknown keys.
size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] != b[j - 1])});
      diagonal = above;
    }
  }
  return row[b.size()];
}

std::string known_keys_text(KeyList known) {
  std::string text;
  for (auto key : known) text += (text.empty() ? "" : ", ") + std::string(key);
  return text;
}

std::string unknown_key_problem(const std::string& key, KeyList known) {
  std::string_view best;
  size_t best_distance = std::numeric_limits<size_t>::max();
  for (auto candidate : known) {
    size_t d = edit_distance(key, candidate);
    if (d < best_distance) best = candidate, best_distance = d;
  }
  std::string problem = "unknown key";
  if (best_distance <= std::max<size_t>(2, key.size() / 3)) {
    return problem + " (did you mean '" + std::string(best) + "'?)";
  }
  return problem + " (known here: " + known_keys_text(known) + ")";
}

// An inclusive range of numbers, in the units the key names.
struct Range {
  double min;
  double max;
  bool min_exclusive = false;  // "> min" rather than ">= min"
};

std::string range_text(const Range& r) {
  auto num = [](double v) { return detail::format_decimal(v); };
  if (r.max == std::numeric_limits<double>::max()) {
    return (r.min_exclusive ? "greater than " : "at least ") + num(r.min);
  }
  if (r.min_exclusive) return "greater than " + num(r.min) + " and at most " + num(r.max);
  return "between " + num(r.min) + " and " + num(r.max);
}

constexpr double kNoMax = std::numeric_limits<double>::max();

// One YAML mapping of a config file, its keys checked against `known` on construction.
class Section {
 public:
  // `where` is the line reported for a missing key: the line of this section's key,
  // or of the first key for a whole file.
  Section(std::string file, const YAML::Node& map, int where, std::string prefix, KeyList known)
      : file_(std::move(file)), line_(where), prefix_(std::move(prefix)) {
    for (const auto& item : map) {
      const YAML::Node& key = item.first;
      std::string name = key.IsScalar() ? key.Scalar() : std::string("?");
      if (!key.IsScalar()) fail_line(line_of(key.Mark()), name, "a key must be a plain word");
      if (find(name)) fail_line(line_of(key.Mark()), name, "duplicate key");
      if (std::find(known.begin(), known.end(), name) == known.end()) {
        fail_line(line_of(key.Mark()), name, unknown_key_problem(name, known));
      }
      entries_.push_back({name, line_of(key.Mark()), item.second});
    }
  }

  const std::string& file() const { return file_; }
  bool has(std::string_view key) const { return find(key) != nullptr; }
  std::string path(std::string_view key) const {
    return prefix_.empty() ? std::string(key) : prefix_ + "." + std::string(key);
  }
  int line(std::string_view key) const {
    const Entry* e = find(key);
    return e ? e->line : line_;
  }
  const YAML::Node& node(std::string_view key) const { return require(key).value; }

  [[noreturn]] void fail(std::string_view key, const std::string& problem) const {
    fail_line(line(key), std::string(key), problem);
  }

  std::string required_string(std::string_view key) const {
    const Entry& e = require(key);
    if (!e.value.IsScalar() || e.value.Scalar().empty()) fail(key, "expected a text value");
    return e.value.Scalar();
  }

  uint64_t required_uint(std::string_view key, uint64_t min, uint64_t max) const {
    const Entry& e = require(key);
    std::string_view text = scalar_for_number(e, "a whole number");
    auto value = parse_unsigned(text);
    if (!value && !text.empty() && text.find_first_not_of("0123456789") == std::string_view::npos) {
      fail(key, "must be at most " + std::to_string(max) + ", got " + e.value.Scalar());
    }
    if (!value) fail(key, "expected a whole number, got '" + e.value.Scalar() + "'");
    if (*value < min || *value > max) {
      fail(key, "must be between " + std::to_string(min) + " and " + std::to_string(max) +
                    ", got " + e.value.Scalar());
    }
    return *value;
  }
  uint64_t optional_uint(std::string_view key, uint64_t min, uint64_t max, uint64_t dflt) const {
    return has(key) ? required_uint(key, min, max) : dflt;
  }

  // A decimal number checked against `range` in the file's units, returned times
  // 10^pow10 (exactly: see config_numbers.h).
  double required_decimal(std::string_view key, const Range& range, int pow10 = 0) const {
    const Entry& e = require(key);
    std::string_view text = scalar_for_number(e, "a number");
    auto as_written = parse_decimal(text);
    if (!as_written) fail(key, "expected a number, got '" + e.value.Scalar() + "'");
    bool low = range.min_exclusive ? *as_written <= range.min : *as_written < range.min;
    if (low || *as_written > range.max) {
      fail(key, "must be " + range_text(range) + ", got " + e.value.Scalar());
    }
    return *parse_decimal(text, pow10);
  }
  double optional_decimal(std::string_view key, const Range& range, int pow10, double dflt) const {
    return has(key) ? required_decimal(key, range, pow10) : dflt;
  }

  // true or false, unquoted (YAML's other spellings, yes / on / 1, are refused: one
  // way to write it).
  bool optional_bool(std::string_view key, bool dflt) const {
    if (!has(key)) return dflt;
    const Entry& e = require(key);
    const std::string_view text = scalar_for_number(e, "true or false");
    if (text == "true") return true;
    if (text == "false") return false;
    fail(key, "expected true or false, got '" + e.value.Scalar() + "'");
  }

  // A nested mapping; nullopt when the key is absent.
  std::optional<Section> optional_section(std::string_view key, KeyList known) const {
    const Entry* e = find(key);
    if (!e) return std::nullopt;
    if (!e->value.IsMap()) fail(key, "expected a mapping of keys (" + known_keys_text(known) + ")");
    return Section(file_, e->value, e->line, path(key), known);
  }
  Section required_section(std::string_view key, KeyList known) const {
    require(key);
    return *optional_section(key, known);
  }

 private:
  struct Entry {
    std::string key;
    int line;
    YAML::Node value;
  };

  [[noreturn]] void fail_line(int line, const std::string& key, const std::string& problem) const {
    throw ConfigError(file_, line, path(key), problem);
  }

  const Entry* find(std::string_view key) const {
    for (const auto& e : entries_) {
      if (e.key == key) return &e;
    }
    return nullptr;
  }

  const Entry& require(std::string_view key) const {
    const Entry* e = find(key);
    if (!e) fail_line(line_, std::string(key), "missing required key");
    return *e;
  }

  // The text of a value that must be a number: a plain (unquoted) scalar. A quoted
  // "624" is a string in YAML, and accepting it would hide a typing mistake.
  std::string_view scalar_for_number(const Entry& e, const char* what) const {
    if (!e.value.IsScalar()) {
      fail(e.key, std::string("expected ") + what + ", got " +
                      (e.value.IsMap() ? "a mapping" : e.value.IsSequence() ? "a list" : "nothing"));
    }
    if (e.value.Tag() == "!") {
      fail(e.key, std::string("expected ") + what + ", got the quoted text \"" + e.value.Scalar() +
                      "\"");
    }
    return e.value.Scalar();
  }

  std::string file_;
  int line_;
  std::string prefix_;
  std::vector<Entry> entries_;
};

// A parsed file: its name as the user will recognise it, and its top-level mapping.
struct Document {
  std::string file;
  YAML::Node root;
  int first_line = 1;
};

Document parse_document(const std::string& file, const YAML::Node& text_node) {
  Document doc{file, text_node, 1};
  if (!doc.root.IsMap()) {
    throw ConfigError(file, doc.root.IsDefined() && !doc.root.IsNull() ? line_of(doc.root.Mark()) : 1,
                      "", "expected a mapping of keys starting with 'kind: chip|board|system'");
  }
  doc.first_line = std::max(1, line_of(doc.root.Mark()));
  return doc;
}

// yaml-cpp parses nesting by recursion: thousands of `[` exhaust the stack or end in "bad
// file". No config nests more than a few levels; refuse deep flow collections first.
constexpr int kMaxNesting = 64;

void check_nesting(const std::string& file, const std::string& text) {
  int depth = 0, line = 1;
  char quote = 0;
  bool comment = false;
  for (const char c : text) {
    if (c == '\n') {
      ++line;
      comment = false;
      continue;
    }
    if (comment) continue;
    if (quote) {
      if (c == quote) quote = 0;
      continue;
    }
    if (c == '#') comment = true;
    else if (c == '"' || c == '\'') quote = c;
    else if (c == '[' || c == '{') {
      if (++depth > kMaxNesting)
        throw ConfigError(file, line, "", "nested more than " + std::to_string(kMaxNesting) + " levels deep");
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
}

// Where the root node of each document of a YAML stream is; nothing else is kept.
class DocumentStarts : public YAML::EventHandler {
 public:
  std::vector<YAML::Mark> starts;
  void OnDocumentStart(const YAML::Mark&) override { root_next_ = true; }
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark& mark, YAML::anchor_t) override { node(mark); }
  void OnAlias(const YAML::Mark& mark, YAML::anchor_t) override { node(mark); }
  void OnScalar(const YAML::Mark& mark, const std::string&, YAML::anchor_t, const std::string&) override { node(mark); }
  void OnSequenceStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {
    node(mark);
  }
  void OnSequenceEnd() override {}
  void OnMapStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {
    node(mark);
  }
  void OnMapEnd() override {}

 private:
  void node(const YAML::Mark& mark) {
    if (root_next_) starts.push_back(mark);
    root_next_ = false;
  }
  bool root_next_ = false;
};

// Parses `text`, the contents of `file`. Not YAML::LoadAll: on a ',' where a document's
// node starts (",", "[a]\n,") yaml-cpp 0.7's LoadAll adds an empty document for ever,
// growing memory by gigabytes a minute (jbeder/yaml-cpp#1040; found by tlm/config/fuzz).
// The first document is loaded alone, and at most two documents are counted.
Document parse_text(const std::string& file, const std::string& text) {
  check_nesting(file, text);
  try {
    const YAML::Node first = YAML::Load(text);
    Document doc = parse_document(file, first);
    std::istringstream stream(text);
    YAML::Parser parser(stream);
    DocumentStarts documents;
    if (parser.HandleNextDocument(documents) && parser.HandleNextDocument(documents) && documents.starts.size() > 1) {
      throw ConfigError(file, line_of(documents.starts[1]), "",
                        "more than one YAML document ('---'): a config file holds exactly one");
    }
    return doc;
  } catch (const YAML::ParserException& e) {
    throw ConfigError(file, line_of(e.mark), "", "YAML syntax error: " + e.msg);
  }
}

// Reads and parses `file`. If it cannot be read, `report(reason)` throws: the caller
// decides whether the error names the file itself or the key that refers to it.
template <class Report>
Document read_document(const std::string& file, Report report) {
  std::string text;
  try {
    text = read_input_file(file, kMaxConfigFileBytes, "config file");
  } catch (const InputFileError& e) {
    report(e.what());
  }
  return parse_text(file, text);
}

// The `kind` of a file's top-level mapping, checked to be one of the three.
std::string read_kind(const Document& doc) {
  YAML::Node kind = doc.root["kind"];
  int line = doc.first_line;
  for (const auto& item : doc.root) {
    if (item.first.IsScalar() && item.first.Scalar() == "kind") line = line_of(item.first.Mark());
  }
  if (!kind) throw ConfigError(doc.file, line, "kind", "missing required key (chip, board or system)");
  if (!kind.IsScalar() || (kind.Scalar() != "chip" && kind.Scalar() != "board" &&
                           kind.Scalar() != "system")) {
    throw ConfigError(doc.file, line, "kind",
                      "must be chip, board or system, got '" +
                          (kind.IsScalar() ? kind.Scalar() : std::string("a non-text value")) + "'");
  }
  return kind.Scalar();
}

// A `name`: the schema's type `name`.
std::string read_name(const Section& s, std::string_view key) {
  std::string name = s.required_string(key);
  bool ok = name.size() <= 64 && std::all_of(name.begin(), name.end(), [](char c) {
              return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                     c == '-' || c == '_' || c == '.';
            });
  if (!ok) s.fail(key, "must be up to 64 letters, digits, '-', '_' or '.', got '" + name + "'");
  return name;
}

// The checks schema.yaml's `check:` names, beyond a key's range (the generated reads call
// them with the value as written, or for a decimal in the struct's unit).

void check_sram_kib(const Section& s, std::string_view key, uint64_t kib) {
  if (kib < 16) s.fail(key, "must be at least 16 KiB, got " + std::to_string(kib));
  if (kib % 4 != 0) s.fail(key, "must be a multiple of 4 KiB, got " + std::to_string(kib));
  // The tile address space is IPU_ADDRESS_BITS (32) bits and SRAM starts at SRAM_BASE
  // (docs/xipu.md); the same bound as iss::kSramMaxBytes, which this library does not see.
  constexpr uint64_t kSramLimit = (uint64_t(1) << IPU_ADDRESS_BITS) - IPU_SRAM_BASE;
  static_assert(IPU_ADDRESS_BITS == 32, "the message below says 4 GiB");
  if (kib >= kSramLimit / kKiB) {
    std::ostringstream base;
    base << std::hex << std::showbase << IPU_SRAM_BASE;
    s.fail(key, "must be less than " + std::to_string(kSramLimit / kKiB) + " KiB (4 GiB minus the SRAM base " +
                    base.str() + "), got " + std::to_string(kib));
  }
}

// The memory paths (docs/xipu.md "Timing"): a power of two from one word (4) to 64 bytes,
// so an access of 4..16 bytes takes a whole number of slots that is itself a power of
// two, and a path never narrower than lw / sw.
void check_power_of_two(const Section& s, std::string_view key, uint64_t bytes) {
  if ((bytes & (bytes - 1)) != 0)
    s.fail(key, "must be a power of two (4, 8, 16, 32 or 64), got " + std::to_string(bytes));
}

// amp.mac does a tile's MACs per cycle as rows of 4 (docs/xipu.md, custom-1): the ISS
// takes no other figure, so no file with another one may load.
void check_amp_rows(const Section& s, std::string_view key, uint64_t macs) {
  if (macs % 4 != 0)
    s.fail(key, "must be a multiple of 4 (amp.mac does it as rows of 4 MACs), got " + std::to_string(macs));
}

// The models count time in whole cycles of a clock of whole Hz (common/clock.h).
void check_at_least_1hz(const Section& s, std::string_view key, double hz) {
  if (hz < 1) s.fail(key, "must be at least 0.000001 (1 Hz)");
}

#include "config/config_schema_read.inc"

KeyList keys_for(const std::string& kind) {
  if (kind == "chip") return kChipKeys;
  if (kind == "board") return kBoardKeys;
  return kSystemKeys;
}

// The IPU-Links' link layer (links/link_config.h: fault injection, the link RTL) counts
// their latency and a frame's time in whole cycles of the tile clock, from 1 to 2^24: a
// figure the chip's keys give together, checked here once so that no run, however its
// faults are chosen later (--link-faults, a device's set_link_faults), meets a link layer
// it cannot build. Reported at the ipu_links key the file sets, else at clock_mhz.
void check_link_layer(const Section& s, const ChipConfig& c) {
  if (c.ipu_links.count == 0) return;
  const LinkConfig& l = c.ipu_links;
  const links::LinkLayerConfig layer = links::LinkLayerConfig::for_rates(l.bytes_per_second, l.latency_ns, c.clock_hz);
  if (layer.validate().empty()) return;
  const std::string clock = detail::format_decimal(c.clock_hz, 6) + " MHz";
  const bool latency = layer.latency_cycles < 1 || layer.latency_cycles > links::kMaxLinkLatencyCycles;
  const std::string key = latency ? "latency_ns" : "gbytes_per_s_each_way";
  const std::string figure =
      latency ? detail::format_decimal(l.latency_ns) + " ns is " + std::to_string(layer.latency_cycles) +
                    " cycle(s) of the " + clock + " tile clock; the link layer takes a latency"
              : detail::format_decimal(l.bytes_per_second, 9) + " GB/s sends a frame of " +
                    std::to_string(layer.frame_bytes + links::kFrameOverheadBytes) + " bytes in more than 2^24 cycles "
                    "of the " + clock + " tile clock; the link layer takes a frame time";
  const std::string problem = figure + " of 1 to 2^24 cycles (docs/links.md, \"Link layer\")";
  if (auto links_part = s.optional_section("ipu_links", kIpuLinksKeys); links_part && links_part->has(key))
    links_part->fail(key, problem);
  s.fail("clock_mhz", "ipu_links." + key + ": " + problem);
}

ChipConfig read_chip(const Section& s) {
  ChipConfig c;
  c.source = s.file();
  read_chip_keys(s, c);
  check_link_layer(s, c);
  return c;
}

std::string ipus_text(uint64_t ipus) { return std::to_string(ipus) + " IPU" + (ipus == 1 ? "" : "s"); }

// The wiring of a board's named topology, board-local IPU indices, checked to fit; `key`
// is where to report (the topology key if the file set it, else the count that chose it).
std::vector<LinkWire> wire_board(const Section& s, std::string_view key, const std::string& topology,
                                 uint32_t ipus, const ChipConfig& chip) {
  // Under `topology:` the value speaks for itself; elsewhere, name the (default) topology.
  const std::string named = (key == "topology" ? "'" : "the default topology '") + topology + "'";
  auto need = [&](bool ok, const std::string& what) {
    if (!ok) s.fail(key, named + " needs " + what + ", but the board has " + ipus_text(ipus));
  };
  const uint32_t count = chip.ipu_links.count;
  std::vector<LinkWire> wires;
  if (topology == "single") {
    need(ipus == 1, "exactly 1 IPU");
  } else if (topology == "pair") {
    need(ipus == 2, "exactly 2 IPUs");
    if (count == 0) s.fail(key, named + " needs IPU-Links, but chip '" + chip.name + "' has ipu_links.count 0");
    // Port p of one IPU to port p of the other, over the in-board ports.
    for (uint32_t p = 0; p < std::min(count, kBoardPorts); ++p) wires.push_back({0, p, 1, p});
  } else if (topology == "m2000") {
    need(ipus == 4, "exactly 4 IPUs");
    if (count < kPortDown + 1) {
      s.fail(key, named + " needs 10 IPU-Link ports per IPU (8 inside the board, 2 to other boards), but chip '" +
                      chip.name + "' has ipu_links.count " + std::to_string(count));
    }
    // A ring of 4 with 3 links to each ring neighbour (ports 0-2 towards i+1, 3-5 towards
    // i-1) and 2 across the diagonal (ports 6, 7): 8 ports of each IPU inside the board.
    for (uint32_t i = 0; i < 4; ++i)
      for (uint32_t k = 0; k < 3; ++k) wires.push_back({i, k, (i + 1) % 4, 3 + k});
    for (uint32_t i = 0; i < 2; ++i)
      for (uint32_t k = 6; k < 8; ++k) wires.push_back({i, k, i + 2, k});
  } else {
    std::string hint = topology == "ladder" || topology == "torus2d"
                           ? " ('" + topology + "' joins the boards of a system)"
                           : "";
    s.fail(key, "must be single, pair or m2000 (how a board's own IPUs are linked), got '" + topology + "'" + hint);
  }
  return wires;
}

// A board's topology when the file names none.
std::optional<std::string> default_topology(uint32_t ipus) {
  if (ipus == 1) return "single";
  if (ipus == 2) return "pair";
  if (ipus == 4) return "m2000";
  return std::nullopt;
}

// The links between the boards of a system for its named topology (global IPU indices),
// checked to fit; `key` as for wire_board.
std::vector<LinkWire> wire_system(const Section& s, std::string_view key, const std::string& topology,
                                  const BoardConfig& board, uint32_t boards) {
  const std::string named = (key == "topology" ? "'" : "the default topology '") + topology + "'";
  if (topology != "ladder" && topology != "torus2d")
    s.fail(key, "must be ladder or torus2d (how the boards of a system are joined), got '" + topology + "'");
  if (topology == "torus2d" && boards < 2)
    s.fail(key, named + " needs at least 2 boards, but the system has " + std::to_string(boards));
  const uint32_t count = board.chip.ipu_links.count;
  if (boards > 1 && count < kPortDown + 1) {
    s.fail(key, named + " joins the boards through ports 8 and 9 of every IPU, but chip '" + board.chip.name +
                    "' has ipu_links.count " + std::to_string(count));
  }
  for (size_t l = 0; l < board.links.size() && boards > 1; ++l) {
    const LinkWire& w = board.links[l];
    for (auto [ipu, port] : {std::pair{w.ipu_a, w.port_a}, std::pair{w.ipu_b, w.port_b}})
      if (port == kPortUp || port == kPortDown)
        s.fail(key, named + " joins the boards through ports 8 and 9 of every IPU, but board '" + board.name +
                        "' links[" + std::to_string(l) + "] uses port " + std::to_string(port) + " of IPU " +
                        std::to_string(ipu));
  }
  // Board b's IPU i, port 9 ("down") to board b+1's IPU i, port 8 ("up"); a torus also
  // joins the last board to the first.
  std::vector<LinkWire> wires;
  const uint32_t n = board.ipus;
  const uint32_t joins = topology == "torus2d" ? boards : boards - 1;
  for (uint32_t b = 0; b < joins; ++b)
    for (uint32_t i = 0; i < n; ++i) wires.push_back({b * n + i, kPortDown, (b + 1) % boards * n + i, kPortUp});
  return wires;
}

// The first IPU that cannot reach IPU 0 over `wires`, if any (union-find: linear, so a
// system of 65536 IPUs is checked as fast as a board).
std::optional<uint32_t> unreachable_ipu(uint32_t ipus, const std::vector<LinkWire>& wires) {
  std::vector<uint32_t> parent(ipus);
  for (uint32_t i = 0; i < ipus; ++i) parent[i] = i;
  auto root = [&](uint32_t i) {
    while (parent[i] != i) i = parent[i] = parent[parent[i]];
    return i;
  };
  for (const LinkWire& w : wires) parent[root(w.ipu_a)] = root(w.ipu_b);
  for (uint32_t i = 1; i < ipus; ++i)
    if (root(i) != root(0)) return i;
  return std::nullopt;
}

// An explicit `links:` list: every link of the board (`scope` "board", board-local IPU
// indices) or of the system (global indices), each item {a: {ipu, port}, b: {ipu, port}}.
std::vector<LinkWire> read_links(const Section& s, uint32_t ipus, const ChipConfig& chip, const std::string& scope) {
  const YAML::Node& list = s.node("links");
  if (!list.IsSequence()) s.fail("links", std::string("expected a list of links, each ") + kLinkSyntax);
  const uint32_t ports = chip.ipu_links.count;
  std::vector<LinkWire> wires;
  std::vector<std::string> user(size_t(ipus) * ports);  // the link end that holds a port
  for (size_t l = 0; l < list.size(); ++l) {
    const YAML::Node& item = list[l];
    const std::string where = s.path("links") + "[" + std::to_string(l) + "]";
    if (!item.IsMap()) throw ConfigError(s.file(), line_of(item.Mark()), where, std::string("expected ") + kLinkSyntax);
    Section link(s.file(), item, line_of(item.Mark()), where, kLinkItemKeys);
    LinkWire w;
    for (const char* side : {"a", "b"}) {
      Section end = link.required_section(side, kLinkEndKeys);
      const uint64_t ipu = end.required_uint("ipu", 0, std::numeric_limits<uint32_t>::max());
      if (ipu >= ipus)
        end.fail("ipu", "IPU " + std::to_string(ipu) + " does not exist (the " + scope + " has IPUs 0 to " +
                            std::to_string(ipus - 1) + ")");
      const uint64_t port = end.required_uint("port", 0, std::numeric_limits<uint32_t>::max());
      if (port >= ports)
        end.fail("port", "IPU " + std::to_string(ipu) + " has no port " + std::to_string(port) + " (chip '" +
                             chip.name + "' has ipu_links.count " + std::to_string(ports) +
                             (ports == 0 ? ")" : ": ports 0 to " + std::to_string(ports - 1) + ")"));
      if (side[0] == 'b' && ipu == w.ipu_a)
        end.fail("ipu", "IPU " + std::to_string(ipu) + " is end a too: a link joins two different IPUs");
      std::string& held = user[size_t(ipu) * ports + port];
      if (!held.empty())
        end.fail("port", "port " + std::to_string(port) + " of IPU " + std::to_string(ipu) +
                             " is already used by " + held);
      held = where + "." + side;
      (side[0] == 'a' ? w.ipu_a : w.ipu_b) = uint32_t(ipu);
      (side[0] == 'a' ? w.port_a : w.port_b) = uint32_t(port);
    }
    wires.push_back(w);
  }
  // Every IPU must reach every other: a zone-2 sync spans them all (docs/sync.md).
  if (auto lost = unreachable_ipu(ipus, wires)) {
    s.fail("links", "IPU " + std::to_string(*lost) + " has no path to IPU 0 over these links: every IPU of the " +
                        scope + " must reach every other (a zone-2 sync spans them all)");
  }
  return wires;
}

// `topology` and `links` are two ways to say one thing.
void check_one_wiring(const Section& s) {
  if (s.has("topology") && s.has("links"))
    s.fail("links", "give either 'topology' or 'links', not both (the list is the whole wiring)");
}

// The command line's LINK:SPEC ("3:periodic=50") written as a config's SPEC: where the
// config says it (a mapping from the link index). Empty for any other text.
std::string cli_form_hint(const std::string& text) {
  const size_t colon = text.find(':'), equals = text.find('=');
  if (colon == std::string::npos || (equals != std::string::npos && equals < colon)) return {};
  std::string link = text.substr(0, colon);
  link.erase(0, link.find_first_not_of(" \t"));
  link.erase(link.find_last_not_of(" \t") + 1);
  if (!parse_unsigned(link)) return {};
  return " ('" + link + ":' is --link-faults' LINK:SPEC form; in a config, faults on one link are a mapping from "
         "its index: link_faults: {" + link + ": '" + text.substr(colon + 1) + "'})";
}

// `link_faults`: a SPEC for every link, or a mapping from `all` or a link index to a SPEC
// (docs/links.md, "Fault injection"); each SPEC checked and kept in its canonical text.
LinkFaultsConfig read_link_faults(const Section& s, uint32_t link_count) {
  const YAML::Node& node = s.node("link_faults");
  const std::string where = s.path("link_faults");
  auto canonical = [&](const YAML::Node& value, int line, const std::string& key) {
    if (!value.IsScalar())
      throw ConfigError(s.file(), line, key, "expected a fault SPEC such as 'ber=1e-6,seed=7' (docs/links.md)");
    std::string why;
    const auto spec = links::parse_fault_spec(value.Scalar(), &why);
    if (!spec) throw ConfigError(s.file(), line, key, why + cli_form_hint(value.Scalar()));
    return links::to_string(*spec);
  };
  LinkFaultsConfig faults;
  if (!node.IsMap()) {
    faults.every = canonical(node, s.line("link_faults"), where);
    return faults;
  }
  if (link_count == 0) s.fail("link_faults", "this system has no IPU-Links to inject faults on");
  bool seen_all = false;
  for (const auto& item : node) {
    const int line = line_of(item.first.Mark());
    const std::string name = item.first.IsScalar() ? item.first.Scalar() : std::string("?");
    const std::string key = where + "." + name;
    if (name == "all") {
      if (seen_all) throw ConfigError(s.file(), line, key, "'all' is given twice");
      seen_all = true;
      faults.every = canonical(item.second, line, key);
      continue;
    }
    const auto link = parse_unsigned(name);
    if (!link)
      throw ConfigError(s.file(), line, key, "expected 'all' or a link index (`ipusim info --links` numbers them)");
    if (*link >= link_count)
      throw ConfigError(s.file(), line, key,
                        "link " + name + " does not exist (the system has links 0 to " + std::to_string(link_count - 1) +
                            ")");
    if (!faults.links.emplace(uint32_t(*link), canonical(item.second, line, key)).second)
      throw ConfigError(s.file(), line, key, "link " + name + " is given twice");
  }
  return faults;
}

// `ranks`: the boards of each MPI rank, a list of lists of board indices
// (docs/distributed.md "The partition"). Every board on exactly one rank, every rank with
// a board; whether the list's length is the job's rank count is known only at the run.
RanksConfig read_ranks(const Section& s, uint32_t boards) {
  const YAML::Node& node = s.node("ranks");
  const std::string where = s.path("ranks");
  RanksConfig ranks;
  ranks.file = s.file();
  ranks.line = s.line("ranks");
  if (!node.IsSequence() || node.size() == 0)
    s.fail("ranks", "expected a list of ranks, each a list of board indices, e.g. ranks: [[0, 1], [2, 3]]");
  std::vector<int> rank_of(boards, -1);
  for (size_t r = 0; r < node.size(); ++r) {
    const YAML::Node& rank = node[r];
    const std::string rank_key = where + "[" + std::to_string(r) + "]";
    const int rank_line = line_of(rank.Mark());
    if (!rank.IsSequence())
      throw ConfigError(s.file(), rank_line, rank_key, "expected a list of board indices, e.g. [0, 1]");
    if (rank.size() == 0) throw ConfigError(s.file(), rank_line, rank_key, "rank " + std::to_string(r) + " has no boards");
    std::vector<uint32_t> listed;
    for (size_t i = 0; i < rank.size(); ++i) {
      const YAML::Node& item = rank[i];
      const std::string key = rank_key + "[" + std::to_string(i) + "]";
      const int line = line_of(item.Mark());
      const auto board = item.IsScalar() ? parse_unsigned(item.Scalar()) : std::nullopt;
      if (!board) throw ConfigError(s.file(), line, key, "expected a board index (a whole number)");
      if (*board >= boards)
        throw ConfigError(s.file(), line, key,
                          "board " + item.Scalar() + " does not exist (the system has boards 0 to " +
                              std::to_string(boards - 1) + ")");
      int& held = rank_of[size_t(*board)];
      if (held >= 0)
        throw ConfigError(s.file(), line, key,
                          "board " + item.Scalar() + " is on rank " + std::to_string(held) +
                              (size_t(held) == r ? " twice" : " and on rank " + std::to_string(r)) +
                              ": a board runs on exactly one rank");
      held = int(r);
      listed.push_back(uint32_t(*board));
    }
    std::sort(listed.begin(), listed.end());
    ranks.boards.push_back(std::move(listed));
  }
  for (uint32_t b = 0; b < boards; ++b)
    if (rank_of[b] < 0)
      s.fail("ranks", "board " + std::to_string(b) + " is on no rank: every board runs on exactly one rank");
  return ranks;
}

// `cosim`: `tlm` or `rtl` for each block that has an RTL (kCosimBlocks; docs/cosim.md);
// absent: tlm.
CosimConfig read_cosim(const Section& s) {
  const Section c = s.required_section("cosim", kCosimKeys);
  CosimConfig cosim;
  for (const CosimBlock& block : kCosimBlocks) {
    if (!c.has(block.name)) continue;
    const std::string v = c.required_string(block.name);
    if (v == "rtl")
      cosim.*block.model = BlockModel::Rtl;
    else if (v == "tlm")
      cosim.*block.model = BlockModel::Tlm;
    else
      c.fail(block.name, "expected 'tlm' (the SystemC model) or 'rtl' (the Verilated RTL), got '" + v + "'");
  }
  return cosim;
}

// A part another file refers to cannot choose blocks: the choice is the whole system's.
void refuse_nested_cosim(const Section& part, const std::string& top_file) {
  if (part.has("cosim"))
    part.fail("cosim", "belongs in the file given on the command line (" + top_file +
                           "): it chooses the blocks of the whole system");
}

class Loader {
 public:
  SystemConfig load(const std::string& path) {
    return load(path, read_document(path, [&](const std::string& reason) -> void {
                  throw ConfigError(path, 0, "", "cannot read the file: " + reason);
                }));
  }
  SystemConfig load(const std::string& path, const Document& doc) {
    std::string kind = read_kind(doc);
    Section top(doc.file, doc.root, doc.first_line, "", keys_for(kind));
    enter(doc.file);
    SystemConfig sys;
    sys.source = path;
    sys.kind = kind;
    if (kind == "chip")
      sys.board = bare_board(read_chip(top));
    else if (kind == "board")
      sys.board = read_board(top);
    else
      read_system(top, sys);
    if (top.has("link_faults")) sys.link_faults = read_link_faults(top, uint32_t(sys.links().size()));
    if (top.has("ranks")) sys.ranks = read_ranks(top, sys.boards);
    if (top.has("cosim")) {
      sys.cosim = read_cosim(top);
      if (const std::string why = cosim_unfit(sys); !why.empty()) top.fail("cosim", why);
    }
    return sys;
  }

 private:
  static BoardConfig bare_board(ChipConfig chip) {
    BoardConfig b;
    b.name = chip.name;
    b.source = chip.source;
    b.ipus = 1;
    b.chip = std::move(chip);
    return b;
  }

  void read_system(const Section& s, SystemConfig& sys) {
    sys.system_name = read_name(s, "name");
    read_system_keys(s, sys);  // boards
    sys.board = follow<BoardConfig>(s, "board", "board", [&](const Section& b) {
      // Link indices are the system's: a board's own faults would number other links.
      if (b.has("link_faults"))
        b.fail("link_faults", "belongs in the system file (" + s.file() +
                                  "): link indices are the system's (`ipusim info --links`)");
      return read_board(b);
    });
    uint64_t ipus = uint64_t(sys.boards) * sys.board.ipus;
    if (ipus > kMaxTotalIpus) {
      s.fail("boards", std::to_string(sys.boards) + " boards of " + std::to_string(sys.board.ipus) +
                           " IPUs exceed the limit of " + std::to_string(kMaxTotalIpus) + " IPUs");
    }
    check_one_wiring(s);
    if (s.has("links")) {
      // The list is every link of the system; the boards' own wiring is not used.
      sys.system_links = read_links(s, uint32_t(ipus), sys.board.chip, "system");
      return;
    }
    sys.system_topology = s.has("topology") ? s.required_string("topology") : "ladder";
    std::vector<LinkWire> joins =
        wire_system(s, s.has("topology") ? "topology" : "boards", sys.system_topology, sys.board, sys.boards);
    const uint32_t n = sys.board.ipus;
    for (uint32_t b = 0; b < sys.boards; ++b)
      for (const LinkWire& w : sys.board.links)
        sys.system_links.push_back({b * n + w.ipu_a, w.port_a, b * n + w.ipu_b, w.port_b});
    sys.system_links.insert(sys.system_links.end(), joins.begin(), joins.end());
  }

  // A board and the wiring of its own IPUs (checked even when a system's explicit links
  // replace it, so a board file is valid or not whatever uses it).
  BoardConfig read_board(const Section& s) {
    BoardConfig b;
    b.source = s.file();
    read_board_keys(s, b);  // name, ipus, streaming_memory, host_link
    b.chip = follow<ChipConfig>(s, "chip", "chip", [](const Section& c) { return read_chip(c); });
    check_one_wiring(s);
    if (s.has("links")) {
      b.topology.clear();
      b.links = read_links(s, b.ipus, b.chip, "board");
    } else if (s.has("topology")) {
      b.topology = s.required_string("topology");
      b.links = wire_board(s, "topology", b.topology, b.ipus, b.chip);
    } else if (auto topology = default_topology(b.ipus)) {
      b.topology = *topology;
      b.links = wire_board(s, "ipus", b.topology, b.ipus, b.chip);
    } else {
      s.fail("ipus", "a board of " + ipus_text(b.ipus) +
                         " has no default wiring: name a topology (single, pair, m2000) or list its links");
    }
    return b;
  }

  // Reads the part under `key`: an inline mapping, or the name of a file of kind
  // `kind` relative to the referring file. `read` turns the mapping into the struct.
  template <class T, class Read>
  T follow(const Section& s, std::string_view key, const std::string& kind, Read read) {
    const YAML::Node& value = s.node(key);
    if (value.IsMap()) {
      KeyList keys = kind == "chip" ? KeyList(kChipKeys) : KeyList(kBoardKeys);
      Section inline_part = *s.optional_section(key, keys);
      if (inline_part.has("kind") && inline_part.required_string("kind") != kind) {
        inline_part.fail("kind", "must be " + kind + " here, got '" + inline_part.required_string("kind") + "'");
      }
      refuse_nested_cosim(inline_part, chain_.front().file);
      return read(inline_part);
    }
    if (!value.IsScalar() || value.Scalar().empty()) {
      s.fail(key, "expected the name of a " + kind + " file or an inline mapping");
    }
    fs::path target = fs::path(s.file()).parent_path() / value.Scalar();
    std::string file = target.lexically_normal().string();
    check_cycle(s, key, file);
    Document doc = read_document(file, [&](const std::string& reason) -> void {
      s.fail(key, "cannot read '" + file + "': " + reason);
    });
    std::string found = read_kind(doc);
    if (found != kind) {
      s.fail(key, "'" + file + "' is a " + found + " file (kind: " + found + "), expected a " + kind +
                      " file");
    }
    Section top(doc.file, doc.root, doc.first_line, "", keys_for(kind));
    enter(file);
    try {
      refuse_nested_cosim(top, chain_.front().file);
      T result = read(top);
      leave();
      return result;
    } catch (const ConfigError& e) {
      // The error is in the referred-to file; say how the user got there.
      throw ConfigError(e.file(), e.line(), e.key(),
                        e.problem() + " (referred to by " + s.file() + ":" + std::to_string(s.line(key)) + ")");
    }
  }

  void enter(const std::string& file) {
    std::error_code ec;
    chain_.push_back({file, fs::weakly_canonical(file, ec)});
  }
  void leave() { chain_.pop_back(); }

  void check_cycle(const Section& s, std::string_view key, const std::string& file) {
    std::error_code ec;
    fs::path id = fs::weakly_canonical(file, ec);
    for (size_t i = 0; i < chain_.size(); ++i) {
      if (chain_[i].id == id) {
        std::string path;
        for (size_t j = i; j < chain_.size(); ++j) path += chain_[j].file + " -> ";
        s.fail(key, "reference cycle: " + path + file);
      }
    }
  }

  struct Link {
    std::string file;
    fs::path id;  // canonical path: the same file reached by two spellings is one file
  };
  std::vector<Link> chain_;  // files being read, outermost first
};

}  // namespace

SystemConfig load_system(const std::string& path) { return Loader().load(path); }

std::string cosim_unfit(const SystemConfig& system) {
  if (system.cosim.link == BlockModel::Rtl && system.links().empty())
    return "link is rtl, but system '" + system.name() + "' has no IPU-Links (" +
           std::to_string(system.total_ipus()) + " IPU" + (system.total_ipus() == 1 ? "" : "s") +
           "): no link would run as the link RTL";
  if (system.cosim.sync == BlockModel::Rtl) {
    const ChipConfig& chip = system.board.chip;
    if (std::string why = sync_rtl_unfit(chip.tiles, chip.sync.latency_min_cycles, chip.sync.latency_max_cycles);
        !why.empty())
      return "sync is rtl, but " + why + " (chip '" + chip.name + "'" +
             (chip.source.empty() ? std::string() : " of " + chip.source) + ")";
  }
  return {};
}

SystemConfig load_system_text(const std::string& path, const std::string& text) {
  return Loader().load(path, parse_text(path, text));
}

}  // namespace ipusim::config
