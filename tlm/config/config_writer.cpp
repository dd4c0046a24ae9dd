// to_yaml(): SystemConfig -> YAML text with yaml-cpp's emitter. Numbers are
// formatted by config_numbers so that they parse back to the identical doubles;
// key names and order follow docs/config.md (and config_loader.cpp).
#include "config/config_writer.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>

#include "config/config_numbers.h"

namespace ipusim::config {
namespace {

using detail::format_decimal;

constexpr double kGiB = double(uint64_t(1) << 30);

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

  void chip_body(const ChipConfig& c) {
    text("name", c.name);
    number("tiles", c.tiles);
    decimal("clock_mhz", c.clock_hz, 6);
    begin("tile");
    number("sram_kib", c.tile.sram_bytes / 1024);
    number("workers", c.tile.workers);
    number("thread_quantum", c.tile.thread_quantum);
    number("load_bytes_per_cycle", c.tile.load_bytes_per_cycle);
    number("store_bytes_per_cycle", c.tile.store_bytes_per_cycle);
    flag("co_issue", c.tile.co_issue);
    number("exchange_in_bytes_per_cycle", c.tile.exchange_in_bytes_per_cycle);
    number("exchange_out_bytes_per_cycle", c.tile.exchange_out_bytes_per_cycle);
    number("amp_f16_macs_per_cycle", c.tile.amp_f16_macs_per_cycle);
    number("amp_f32_macs_per_cycle", c.tile.amp_f32_macs_per_cycle);
    end();
    begin("ipu_links");
    number("count", c.ipu_links.count);
    decimal("gbytes_per_s_each_way", c.ipu_links.bytes_per_second, 9);
    decimal("latency_ns", c.ipu_links.latency_ns);
    decimal("sync_hop_ns", c.ipu_links.sync_hop_ns);
    end();
    begin("exchange");
    number("latency_min_cycles", c.exchange.latency_min_cycles);
    number("latency_max_cycles", c.exchange.latency_max_cycles);
    end();
    begin("sync");
    number("latency_min_cycles", c.sync.latency_min_cycles);
    number("latency_max_cycles", c.sync.latency_max_cycles);
    end();
    begin("published");
    decimal("f16_tflops", c.published_f16_tflops);
    decimal("f32_tflops", c.published_f32_tflops);
    end();
  }

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

  void board_body(const BoardConfig& b) {
    text("name", b.name);
    begin("chip", "from " + b.chip.source);
    chip_body(b.chip);
    end();
    number("ipus", b.ipus);
    wiring(b.topology, b.links);
    begin("streaming_memory");
    decimal("size_gib", double(b.streaming_memory_bytes) / kGiB);
    decimal("gbytes_per_s", b.streaming_memory_bytes_per_second, 9);
    decimal("latency_ns", b.streaming_memory_latency_ns);
    end();
    begin("host_link");
    decimal("gbytes_per_s_each_way", b.host_link_bytes_per_second, 9);
    decimal("latency_ns", b.host_link_latency_ns);
    end();
  }

 private:
  YAML::Emitter& out_;
};

// True when a chip file can say everything: one board of one IPU, all of whose
// board-level fields are the defaults a bare chip gets.
bool is_bare_chip(const SystemConfig& s) {
  BoardConfig bare;
  bare.name = s.board.chip.name;
  bare.source = s.board.source;
  bare.ipus = 1;
  bare.chip = s.board.chip;
  return s.boards == 1 && s.topology == "single" && s.links.empty() && s.name == s.board.chip.name &&
         s.board == bare;
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
  } else if ((s.kind == "chip" || s.kind == "board") && s.boards == 1 && s.name == s.board.name &&
             s.topology == s.board.topology && s.links == s.board.links) {
    w.text("kind", "board");
    w.board_body(s.board);
  } else {
    w.text("kind", "system");
    w.text("name", s.name);
    w.begin("board", "from " + s.board.source);
    w.board_body(s.board);
    w.end();
    w.number("boards", s.boards);
    // A system's named topology joins its boards (and the board keeps its own wiring);
    // anything else (a struct built in code, a board's wiring name at system level) is
    // written link by link, so that loading it gives the same links.
    if (s.topology == "ladder" || s.topology == "torus2d")
      w.text("topology", s.topology);
    else
      w.wiring("", s.links);
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
    auto text = [](BlockModel m) { return m == BlockModel::Rtl ? "rtl" : "tlm"; };
    w.text("sync", text(s.cosim.sync));
    w.text("link", text(s.cosim.link));
    w.text("amp", text(s.cosim.amp));
    w.end();
  }
  out << YAML::EndMap;
  return std::string(out.c_str()) + "\n";
}

}  // namespace ipusim::config
