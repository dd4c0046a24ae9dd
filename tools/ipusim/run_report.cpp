#include "run_report.h"

#include <algorithm>
#include <map>

#include <fmt/format.h>

namespace ipusim::cli {

std::string summary_text(const RunReport& r) {
  const platform::RunResult& res = r.result;
  std::string s;
  s += fmt::format("ipusim: {} tile(s) on {} IPU(s) of '{}' ({})\n", res.tiles.size(), res.ipus,
                   r.config.name, r.config_path);
  s += fmt::format("  tile cycles         {} (max over tiles)\n", res.tile_cycles);
  s += fmt::format("  simulated time      {:.3f} us at {:g} MHz\n", res.simulated_seconds * 1e6,
                   r.config.board.chip.clock_hz / 1e6);
  s += fmt::format("  instructions        {}\n", res.instructions);
  s += fmt::format("  host seconds        {:.6f} (run)\n", res.host_seconds);
  s += fmt::format("  simulated MIPS      {:.2f}\n", res.mips());
  s += fmt::format("  elaboration seconds {:.6f}\n", r.elaboration_seconds);
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
  j["exit_code"] = t.exit_code;
  if (!t.fault.empty()) j["fault"] = t.fault;
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
  j["config_name"] = r.config.name;
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
  j["console_lines"] = res.console_lines;
  j["exit_code"] = r.exit_code;
  j["fault"] = res.fault ? nlohmann::ordered_json(*res.fault) : nlohmann::ordered_json(nullptr);
  j["deadlock"] = res.deadlock ? nlohmann::ordered_json(*res.deadlock) : nlohmann::ordered_json(nullptr);
  if (res.tiles.size() <= kJsonPerTileLimit) {
    nlohmann::ordered_json per_tile = nlohmann::ordered_json::array();
    for (const auto& t : res.tiles) per_tile.push_back(tile_entry(t));
    j["per_tile"] = per_tile;
  } else {
    j["tile_summary"] = tile_summary(res.tiles);
  }
  return j;
}

}  // namespace ipusim::cli
