#include "run_report.h"

#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "partition_report.h"
#include "problem_json.h"

namespace ipusim::cli {
namespace {

// The engine that ran, what chose it, and what the translator did: "jit (the default): 12
// regions, 3456 bytes of host code, 0.000789 s translating (0.4% of host seconds)".
std::string iss_text(const RunReport& r) {
  const platform::RunResult& res = r.result;
  const bool asked_translator = r.config.board.chip.tile.iss.value_or(IssCore::interp) != IssCore::interp;
  const bool translated = res.iss_core != IssCore::interp;
  std::string s = fmt::format("{} ({}", to_string(res.iss_core), r.iss_source);
  if (asked_translator && !translated) s += ": the translator is not in this build";
  s += ")";
  if (translated)
    s += fmt::format(": {} regions, {} bytes of host code, {:.6f} s translating ({:.1f}% of host seconds)",
                     res.jit_regions, res.jit_code_bytes, res.jit_seconds, 100.0 * res.jit_share());
  if (res.itrace_tiles > 0 && translated)
    s += fmt::format("; {} traced tile(s) on the interpreter (--itrace)", res.itrace_tiles);
  return s;
}

// Where the host seconds went: "  host by component   iss 1.794 s, exchange_plan 0.301 s
// (serial 2.1%), ...", the components that took at least a millisecond, then "other".
std::string host_components_text(const platform::RunResult& res) {
  if (res.host_components.empty()) return {};
  std::string s;
  for (const platform::HostComponent& c : res.host_components) {
    if (c.seconds < 0.0005 && c.name != "other") continue;
    s += fmt::format("{}{} {:.3f} s", s.empty() ? "" : ", ", c.name, c.seconds);
    if (c.serial_seconds > 0 && res.host_seconds > 0)
      s += fmt::format(" (serial {:.1f}%)", 100.0 * c.serial_seconds / res.host_seconds);
  }
  return fmt::format("  host by component   {}\n", s);
}

}  // namespace


std::string summary_text(const RunReport& r) {
  const platform::RunResult& res = r.result;
  std::string s;
  s += fmt::format("ipusim: {} tile(s) on {} IPU(s) of '{}' ({})\n", res.tiles.size(), res.ipus,
                   r.config.name(), r.config_path);
  s += fmt::format("  tile cycles         {} (max over tiles)\n", res.tile_cycles);
  s += fmt::format("  simulated time      {:.3f} us at {:g} MHz\n", res.simulated_seconds * 1e6,
                   r.config.board.chip.clock_hz / 1e6);
  s += fmt::format("  instructions        {}\n", res.instructions);
  s += fmt::format("  host seconds        {:.6f} (run), {:.6f} in the ISS ({:.1f}% kernel and models, "
                   "{:.1f}% serial)\n",
                   res.host_seconds, res.iss_seconds, 100.0 * res.kernel_share(), 100.0 * res.serial_share());
  s += host_components_text(res);
  s += fmt::format("  host threads        {}\n", res.host_threads);
  if (r.partition) {
    // The partition's lines, indented under the summary's heading.
    const std::string text = partition_text(r.config, *r.partition);
    for (size_t at = 0; at < text.size();) {
      const size_t end = text.find('\n', at);
      s += "  " + text.substr(at, end - at + 1);
      at = end + 1;
    }
  }
  s += fmt::format("  simulated MIPS      {:.2f}\n", res.mips());
  s += fmt::format("  elaboration seconds {:.6f}\n", r.elaboration_seconds);
  s += fmt::format("  ISS                 {}\n", iss_text(r));
  if (r.config.cosim.any_rtl()) s += fmt::format("  RTL blocks          {}\n", r.config.cosim.rtl_list());
  if (!res.links.empty()) {
    uint64_t bytes = 0, errors = 0, replays = 0, retrains = 0;
    for (const platform::LinkResult& l : res.links) {
      bytes += l.bytes;
      errors += l.layer.crc_errors;
      replays += l.layer.replays;
      retrains += l.layer.retrains;
    }
    s += fmt::format("  IPU-Links           {} bytes over {} link directions; {} CRC errors, {} replays, "
                     "{} retrains, {} cycles lost\n",
                     bytes, res.links.size(), errors, replays, retrains, res.link_cycles_lost);
  }
  s += fmt::format("  exit code           {}\n", r.exit_code);
  return s;
}

namespace {

nlohmann::ordered_json tile_entry(const platform::TileResult& t) {
  nlohmann::ordered_json j;
  j["ipu"] = t.ipu;
  j["tile"] = t.tile;
  j["state"] = tile::to_string(t.state);
  j["cycles"] = t.cycles;
  j["instructions"] = t.instructions;
  j["syncs"] = t.syncs;
  j["sync_stall_cycles"] = t.sync_stall_cycles;
  j["exchanges"] = t.exchanges;
  j["exchange_stall_cycles"] = t.exchange_stall_cycles;
  j["exchange_bytes_out"] = t.exchange_bytes_out;
  j["exchange_bytes_in"] = t.exchange_bytes_in;
  // The records kept (per_tile_supersteps); 0 when the run kept none.
  j["supersteps"] = t.superstep_count;
  j["exit_code"] = t.exit_code;
  if (t.fault) j["fault"] = to_text(*t.fault);
  return j;
}

nlohmann::ordered_json tile_summary(const std::vector<platform::TileResult>& tiles) {
  nlohmann::ordered_json j;
  if (tiles.empty()) return j;
  const auto [cmin, cmax] = std::minmax_element(tiles.begin(), tiles.end(),
      [](const auto& a, const auto& b) { return a.cycles < b.cycles; });
  const auto [imin, imax] = std::minmax_element(tiles.begin(), tiles.end(),
      [](const auto& a, const auto& b) { return a.instructions < b.instructions; });
  j["cycles_min"] = cmin->cycles;
  j["cycles_max"] = cmax->cycles;
  j["instructions_min"] = imin->instructions;
  j["instructions_max"] = imax->instructions;
  std::map<std::string, uint64_t> states;
  std::map<int32_t, uint64_t> exit_codes;  // halted tiles only
  for (const auto& t : tiles) {
    ++states[tile::to_string(t.state)];
    if (t.state == tile::TileState::Halted) ++exit_codes[t.exit_code];
  }
  j["states"] = states;
  nlohmann::ordered_json codes = nlohmann::ordered_json::object();
  for (const auto& [code, n] : exit_codes) codes[std::to_string(code)] = n;
  j["exit_codes"] = codes;
  return j;
}

}  // namespace

nlohmann::ordered_json summary_json(const RunReport& r) {
  const platform::RunResult& res = r.result;
  nlohmann::ordered_json j;
  j["config"] = r.config_path;
  j["config_name"] = r.config.name();
  j["elf"] = r.elf_path;
  j["tile_selection"] = r.tile_selection;
  j["tiles"] = res.tiles.size();
  j["ipus"] = res.ipus;
  j["clock_hz"] = r.config.board.chip.clock_hz;
  j["tile_cycles"] = res.tile_cycles;
  j["simulated_us"] = res.simulated_seconds * 1e6;
  j["instructions"] = res.instructions;
  j["host_seconds"] = res.host_seconds;
  j["mips"] = res.mips();
  j["elaboration_seconds"] = r.elaboration_seconds;
  j["rtl"] = r.config.cosim.rtl_list();
  j["iss_core"] = std::string(to_string(res.iss_core));
  j["iss_core_source"] = r.iss_source;
  j["itrace_tiles"] = res.itrace_tiles;
  j["jit_regions"] = res.jit_regions;
  j["jit_code_bytes"] = res.jit_code_bytes;
  j["jit_seconds"] = res.jit_seconds;
  j["jit_share"] = res.jit_share();
  j["iss_seconds"] = res.iss_seconds;
  j["kernel_share"] = res.kernel_share();
  j["batch_seconds"] = res.batch_seconds;
  j["serial_share"] = res.serial_share();
  j["host_threads"] = res.host_threads;
  if (r.partition) j["partition"] = partition_json(r.config, *r.partition);
  j["batches"] = res.batches;
  j["exchange_plan_seconds"] = res.exchange_plan_seconds;
  j["exchange_parallel_seconds"] = res.exchange_parallel_seconds;
  j["host_components"] = nlohmann::ordered_json::object();
  for (const platform::HostComponent& c : res.host_components)
    j["host_components"][c.name] = {{"seconds", c.seconds},
                                    {"serial_share", res.host_seconds > 0 ? c.serial_seconds / res.host_seconds : 0.0}};
  j["exchanges"] = res.exchanges;
  j["exchange_messages"] = res.exchange_messages;
  j["exchange_bytes"] = res.exchange_bytes;
  j["streaming_copies"] = res.streaming_copies;
  j["streaming_bytes"] = res.streaming_bytes;
  j["console_lines"] = res.console_lines;
  j["console_error"] = res.console_error ? nlohmann::ordered_json(*res.console_error) : nlohmann::ordered_json(nullptr);
  j["link_cycles_lost"] = res.link_cycles_lost;
  j["links"] = nlohmann::ordered_json::array();
  for (const platform::LinkResult& l : res.links) {
    const links::LinkCounters& s = l.layer;
    j["links"].push_back({{"link", l.link}, {"from_ipu", l.from_ipu}, {"to_ipu", l.to_ipu}, {"frames", l.frames},
                          {"bytes", l.bytes}, {"busy_cycles", l.busy_cycles}, {"crc_errors", s.crc_errors},
                          {"seq_errors", s.seq_errors}, {"duplicates_discarded", s.duplicates_discarded},
                          {"naks", s.naks_sent}, {"replays", s.replays}, {"frames_replayed", s.frames_replayed},
                          {"replay_timer_expiries", s.replay_timer_expiries}, {"retrains", s.retrains},
                          {"cycles_lost", s.cycles_lost}});
  }
  j["exit_code"] = r.exit_code;
  // How the run ended: the texts as the CLI prints them, the problem as fields, the stop.
  add_end_json(j, res, r.stop_reason, r.stop_options);
  // One shape for every tile count: both always (a POD16's 23552 entries make 7.9 MB
  // in ~0.2 s of a 7 s run: cheap enough; docs/platform.md).
  j["tile_summary"] = tile_summary(res.tiles);
  nlohmann::ordered_json per_tile = nlohmann::ordered_json::array();
  for (const auto& t : res.tiles) per_tile.push_back(tile_entry(t));
  j["per_tile"] = std::move(per_tile);
  j["per_tile_supersteps"] = res.tile_supersteps_kept;
  // "supersteps" follows, written by SuperstepJsonWriter (superstep_json.h).
  return j;
}

}  // namespace ipusim::cli
