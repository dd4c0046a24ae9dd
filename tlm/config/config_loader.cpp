// The configuration loader: chip, board and system YAML files -> a validated
// SystemConfig. The only reader of YAML in ipusim (config_writer.cpp emits it).
//
// Each mapping of a file is a Section that knows its keys up front: an unknown or
// duplicated key is reported before anything is read, so a typo ("sram_kb") is named
// as such rather than as a missing "sram_kib". Every problem becomes a ConfigError
// "FILE:LINE: KEY: problem" with the line of the key and its dotted path.
// docs/config.md is the schema this file implements; change both together.
#include <ipu/xipu_isa.h>  // IPU_SRAM_BASE, IPU_MAX_WORKERS: the limits SRAM and workers must fit
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <span>
#include <sstream>
#include <string_view>

#include "config/config_loader.h"
#include "config/config_numbers.h"

namespace ipusim::config {
namespace {

namespace fs = std::filesystem;
using detail::parse_decimal;
using detail::parse_unsigned;

using KeyList = std::span<const std::string_view>;

constexpr std::string_view kChipKeys[] = {"kind",     "name",     "tiles", "clock_mhz", "tile",
                               "ipu_links", "exchange", "sync",  "published"};
constexpr std::string_view kTileKeys[] = {"sram_kib",
                               "workers",
                               "thread_quantum",
                               "exchange_in_bytes_per_cycle",
                               "exchange_out_bytes_per_cycle",
                               "amp_f16_macs_per_cycle",
                               "amp_f32_macs_per_cycle"};
constexpr std::string_view kLinkKeys[] = {"count", "gbytes_per_s_each_way", "latency_ns"};
constexpr std::string_view kLatencyRangeKeys[] = {"latency_min_cycles", "latency_max_cycles"};
constexpr std::string_view kSyncKeys[] = {"latency_min_cycles", "latency_max_cycles", "group_latency_cycles"};
constexpr std::string_view kPublishedKeys[] = {"f16_tflops", "f32_tflops"};
constexpr std::string_view kBoardKeys[] = {"kind", "name",  "chip", "ipus", "topology", "streaming_memory",
                                "host_link"};
constexpr std::string_view kStreamingKeys[] = {"size_gib", "gbytes_per_s", "latency_ns"};
constexpr std::string_view kHostLinkKeys[] = {"gbytes_per_s_each_way", "latency_ns"};
constexpr std::string_view kSystemKeys[] = {"kind", "name", "board", "boards", "topology"};

constexpr uint64_t kKiB = 1024;
constexpr uint64_t kGiB = uint64_t(1) << 30;
constexpr uint32_t kMaxTiles = 65536;
constexpr uint32_t kMaxIpusPerBoard = 256;
constexpr uint32_t kMaxBoards = 16384;
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

// Reads and parses `file`. If it cannot be read, `report(reason)` throws: the caller
// decides whether the error names the file itself or the key that refers to it.
template <class Report>
Document read_document(const std::string& file, Report report) {
  std::error_code ec;
  if (!fs::exists(file, ec)) report("no such file");
  if (fs::is_directory(file, ec)) report("it is a directory");
  std::ifstream in(file, std::ios::binary);
  if (!in) report(std::strerror(errno));
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) report("read error");
  try {
    std::vector<YAML::Node> documents = YAML::LoadAll(text.str());
    if (documents.size() > 1) {
      throw ConfigError(file, line_of(documents[1].Mark()), "",
                        "more than one YAML document ('---'): a config file holds exactly one");
    }
    return parse_document(file, documents.empty() ? YAML::Node() : documents.front());
  } catch (const YAML::ParserException& e) {
    throw ConfigError(file, line_of(e.mark), "", "YAML syntax error: " + e.msg);
  }
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

KeyList keys_for(const std::string& kind) {
  if (kind == "chip") return kChipKeys;
  if (kind == "board") return kBoardKeys;
  return kSystemKeys;
}

std::string read_name(const Section& s) {
  std::string name = s.required_string("name");
  bool ok = name.size() <= 64 && std::all_of(name.begin(), name.end(), [](char c) {
              return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                     c == '-' || c == '_' || c == '.';
            });
  if (!ok) s.fail("name", "must be up to 64 letters, digits, '-', '_' or '.', got '" + name + "'");
  return name;
}

// `latency_min_cycles` / `latency_max_cycles` of the exchange or sync section.
template <class T>
T read_latency_range(const Section& parent, std::string_view key, T dflt,
                     KeyList keys = kLatencyRangeKeys) {
  auto s = parent.optional_section(key, keys);
  if (!s) return dflt;
  T out = dflt;
  out.latency_min_cycles = uint32_t(s->optional_uint("latency_min_cycles", 0, 1000000, dflt.latency_min_cycles));
  out.latency_max_cycles = uint32_t(s->optional_uint("latency_max_cycles", 0, 1000000, dflt.latency_max_cycles));
  if (out.latency_max_cycles < out.latency_min_cycles) {
    s->fail(s->has("latency_max_cycles") ? "latency_max_cycles" : "latency_min_cycles",
            "latency_max_cycles (" + std::to_string(out.latency_max_cycles) +
                ") is less than latency_min_cycles (" + std::to_string(out.latency_min_cycles) + ")");
  }
  return out;
}

TileConfig read_tile(const Section& s) {
  TileConfig t;
  uint64_t kib = s.required_uint("sram_kib", 0, std::numeric_limits<uint64_t>::max());
  if (kib < 16) s.fail("sram_kib", "must be at least 16 KiB, got " + std::to_string(kib));
  if (kib % 4 != 0) s.fail("sram_kib", "must be a multiple of 4 KiB, got " + std::to_string(kib));
  // The tile address space is IPU_ADDRESS_BITS (32) bits and SRAM starts at SRAM_BASE
  // (docs/xipu.md); the same bound as iss::kSramMaxBytes, which this library does not see.
  constexpr uint64_t kSramLimit = (uint64_t(1) << IPU_ADDRESS_BITS) - IPU_SRAM_BASE;
  static_assert(IPU_ADDRESS_BITS == 32, "the message below says 4 GiB");
  if (kib >= kSramLimit / kKiB) {
    std::ostringstream base;
    base << std::hex << std::showbase << IPU_SRAM_BASE;
    s.fail("sram_kib", "must be less than " + std::to_string(kSramLimit / kKiB) + " KiB (4 GiB minus the SRAM base " +
                           base.str() + "), got " + std::to_string(kib));
  }
  t.sram_bytes = kib * kKiB;
  t.workers = uint32_t(s.optional_uint("workers", 1, IPU_MAX_WORKERS, t.workers));
  t.thread_quantum = uint32_t(s.optional_uint("thread_quantum", 1, 1u << 30, t.thread_quantum));
  t.exchange_in_bytes_per_cycle =
      uint32_t(s.optional_uint("exchange_in_bytes_per_cycle", 1, 1024, t.exchange_in_bytes_per_cycle));
  t.exchange_out_bytes_per_cycle =
      uint32_t(s.optional_uint("exchange_out_bytes_per_cycle", 1, 1024, t.exchange_out_bytes_per_cycle));
  t.amp_f16_macs_per_cycle = uint32_t(s.required_uint("amp_f16_macs_per_cycle", 0, 4096));
  t.amp_f32_macs_per_cycle = uint32_t(s.required_uint("amp_f32_macs_per_cycle", 0, 4096));
  return t;
}

ChipConfig read_chip(const Section& s) {
  ChipConfig c;
  c.source = s.file();
  c.name = read_name(s);
  c.tiles = uint32_t(s.required_uint("tiles", 1, kMaxTiles));
  c.clock_hz = s.required_decimal("clock_mhz", {0, 100000, true}, 6);
  c.tile = read_tile(s.required_section("tile", kTileKeys));
  if (auto links = s.optional_section("ipu_links", kLinkKeys)) {
    c.ipu_links.count = uint32_t(links->optional_uint("count", 0, 64, c.ipu_links.count));
    c.ipu_links.bytes_per_second = links->optional_decimal(
        "gbytes_per_s_each_way", {0, 100000, true}, 9, c.ipu_links.bytes_per_second);
    c.ipu_links.latency_ns =
        links->optional_decimal("latency_ns", {0, 1e9}, 0, c.ipu_links.latency_ns);
  }
  c.exchange = read_latency_range(s, "exchange", c.exchange);
  c.sync = read_latency_range(s, "sync", c.sync, kSyncKeys);
  if (auto sync = s.optional_section("sync", kSyncKeys))
    c.sync.group_latency_cycles =
        uint32_t(sync->optional_uint("group_latency_cycles", 0, 1000000, c.sync.group_latency_cycles));
  if (auto pub = s.optional_section("published", kPublishedKeys)) {
    c.published_f16_tflops = pub->optional_decimal("f16_tflops", {0, 1e6}, 0, 0);
    c.published_f32_tflops = pub->optional_decimal("f32_tflops", {0, 1e6}, 0, 0);
  }
  return c;
}

// Checks that `topology` can wire `ipus` IPUs with the chip's links; `key` is where
// to report (the topology key if the file set it, else the count that forced it).
void check_topology(const Section& s, std::string_view key, const std::string& topology,
                    uint64_t ipus, const ChipConfig& chip) {
  // Under `topology:` the value speaks for itself; elsewhere, name the (default) topology.
  std::string named = (key == "topology" ? "'" : "the default topology '") + topology + "'";
  auto need = [&](bool ok, const std::string& what) {
    if (!ok) {
      s.fail(key, named + " needs " + what + ", but the system has " +
                      std::to_string(ipus) + " IPU" + (ipus == 1 ? "" : "s"));
    }
  };
  if (topology == "single") {
    need(ipus == 1, "exactly 1 IPU");
  } else if (topology == "pair") {
    need(ipus == 2, "exactly 2 IPUs");
  } else if (topology == "ladder" || topology == "torus2d") {
    need(ipus >= 4 && ipus % 2 == 0, "an even number of IPUs, at least 4");
  } else {
    s.fail(key, "must be single, pair, ladder or torus2d, got '" + topology + "'");
  }
  if (topology != "single" && chip.ipu_links.count == 0) {
    s.fail(key, named + " needs IPU-Links, but chip '" + chip.name +
                    "' has ipu_links.count 0");
  }
}

std::string default_topology(uint64_t ipus) {
  return ipus == 1 ? "single" : ipus == 2 ? "pair" : "ladder";
}

class Loader {
 public:
  SystemConfig load(const std::string& path) {
    Document doc = read_document(path, [&](const std::string& reason) -> void {
      throw ConfigError(path, 0, "", "cannot read the file: " + reason);
    });
    std::string kind = read_kind(doc);
    Section top(doc.file, doc.root, doc.first_line, "", keys_for(kind));
    enter(doc.file);
    SystemConfig sys;
    sys.source = path;
    sys.kind = kind;
    if (kind == "chip") {
      sys.board = bare_board(read_chip(top));
      sys.name = sys.board.name;
      sys.topology = "single";
    } else if (kind == "board") {
      sys.board = read_board(top, &sys.topology);
      sys.name = sys.board.name;
    } else {
      read_system(top, sys);
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
    sys.name = read_name(s);
    sys.board = follow<BoardConfig>(s, "board", "board", [&](const Section& b) {
      std::string board_wiring;  // checked, but the system's topology wires its IPUs
      return read_board(b, &board_wiring);
    });
    sys.boards = uint32_t(s.required_uint("boards", 1, kMaxBoards));
    uint64_t ipus = uint64_t(sys.boards) * sys.board.ipus;
    if (ipus > kMaxTotalIpus) {
      s.fail("boards", std::to_string(sys.boards) + " boards of " + std::to_string(sys.board.ipus) +
                           " IPUs exceed the limit of " + std::to_string(kMaxTotalIpus) + " IPUs");
    }
    sys.topology = s.has("topology") ? s.required_string("topology") : "ladder";
    check_topology(s, s.has("topology") ? "topology" : "boards", sys.topology, ipus, sys.board.chip);
  }

  // A board and the topology of its own IPUs (checked even when a system rewires them,
  // so a board file is valid or not whatever uses it).
  BoardConfig read_board(const Section& s, std::string* topology) {
    BoardConfig b;
    b.source = s.file();
    b.name = read_name(s);
    b.chip = follow<ChipConfig>(s, "chip", "chip", [](const Section& c) { return read_chip(c); });
    b.ipus = uint32_t(s.required_uint("ipus", 1, kMaxIpusPerBoard));
    if (auto mem = s.optional_section("streaming_memory", kStreamingKeys)) {
      double gib = mem->optional_decimal("size_gib", {0, 1 << 20}, 0, double(b.streaming_memory_bytes) / kGiB);
      double bytes = gib * double(kGiB);  // exact: a power-of-two scale
      if (bytes != double(uint64_t(bytes))) {
        mem->fail("size_gib", "is not a whole number of bytes: " + detail::format_decimal(gib));
      }
      b.streaming_memory_bytes = uint64_t(bytes);
      b.streaming_memory_bytes_per_second = mem->optional_decimal(
          "gbytes_per_s", {0, 1e6, true}, 9, b.streaming_memory_bytes_per_second);
      b.streaming_memory_latency_ns =
          mem->optional_decimal("latency_ns", {0, 1e9}, 0, b.streaming_memory_latency_ns);
    }
    if (auto host = s.optional_section("host_link", kHostLinkKeys)) {
      b.host_link_bytes_per_second = host->optional_decimal(
          "gbytes_per_s_each_way", {0, 1e6, true}, 9, b.host_link_bytes_per_second);
      b.host_link_latency_ns = host->optional_decimal("latency_ns", {0, 1e9}, 0, b.host_link_latency_ns);
    }
    *topology = s.has("topology") ? s.required_string("topology") : default_topology(b.ipus);
    check_topology(s, s.has("topology") ? "topology" : "ipus", *topology, b.ipus, b.chip);
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

}  // namespace ipusim::config
