#include "profile/over_tiles.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <map>
#include <stdexcept>
#include <utility>

#include <fmt/format.h>

#include "profile/places.h"

namespace ipusim::profile {

namespace {

// One figure over a program's tiles; tiles where the function did not run count 0.
struct Spread {
  uint64_t sum = 0, min = 0, max = 0;
  size_t max_tile = 0;  // index in the program's tiles: the first with the maximum
};

Spread spread(const std::vector<uint64_t>& per_tile) {
  Spread s;
  if (per_tile.empty()) return s;
  s.min = per_tile[0];
  for (size_t i = 0; i < per_tile.size(); ++i) {
    s.sum += per_tile[i];
    s.min = std::min(s.min, per_tile[i]);
    if (per_tile[i] > s.max) {
      s.max = per_tile[i];
      s.max_tile = i;
    }
  }
  return s;
}

}  // namespace

void write_over_tiles(const std::string& path, const std::vector<const TileProfile*>& tiles,
                      const std::string& command) {
  // The programs in the order of their first tile.
  std::vector<std::pair<const iss::Program*, std::vector<const TileProfile*>>> programs;
  for (const TileProfile* tile : tiles) {
    auto it = std::find_if(programs.begin(), programs.end(), [&](const auto& p) { return p.first == &tile->program(); });
    if (it == programs.end()) it = programs.insert(programs.end(), {&tile->program(), {}});
    it->second.push_back(tile);
  }

  std::ofstream out(path, std::ios::trunc);
  if (!out) throw std::runtime_error(fmt::format("--profile: cannot open '{}': {}", path, std::strerror(errno)));
  out << "# ipusim --profile, each function over the tiles that ran one program (docs/profiling.md \"Over the tiles\")\n";
  out << "# cmd: " << command << "\n";
  out << "# a tile's figure is its threads' summed; min counts 0 for a tile where the function did not run; "
         "max_tile is the first tile (ipu.tile) with the max\n";
  Places places;
  for (size_t prog = 0; prog < programs.size(); ++prog) {
    const auto& program_tiles = programs[prog].second;
    struct PerTile {
      std::vector<uint64_t> self_cycles, inclusive_cycles, self_instructions;
    };
    std::map<std::pair<std::string, std::string>, PerTile> functions;  // (function, file)
    for (size_t t = 0; t < program_tiles.size(); ++t) {
      const TileProfile& tile = *program_tiles[t];
      auto at = [&](uint32_t entry) -> PerTile& {
        const Place& p = places.of(tile, entry);
        PerTile& f = functions[{p.function, p.file}];
        for (auto* v : {&f.self_cycles, &f.inclusive_cycles, &f.self_instructions}) v->resize(program_tiles.size());
        return f;
      };
      for (const ThreadProfile& thread : tile.threads()) {
        for (const auto& [entry, c] : thread.self) {
          PerTile& f = at(entry);
          f.self_cycles[t] += c.cycles;
          f.self_instructions[t] += c.instructions;
        }
        for (const auto& [entry, c] : thread.inclusive) at(entry).inclusive_cycles[t] += c.cycles;
      }
    }
    const TileProfile& first = *program_tiles.front();
    out << fmt::format("\nprogram {}: {} tile(s), the first ipu {} tile {}\n", prog, program_tiles.size(), first.ipu(),
                       first.tile());
    out << "function\tfile";
    for (const char* figure : {"self_cycles", "inclusive_cycles", "self_instructions"})
      for (const char* stat : {"sum", "min", "max", "max_tile"}) out << '\t' << figure << '_' << stat;
    out << '\n';
    // Most exclusive cycles first.
    std::vector<std::pair<Spread, const std::pair<std::string, std::string>*>> rows;
    for (const auto& [name, f] : functions) rows.push_back({spread(f.self_cycles), &name});
    std::stable_sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) { return a.first.sum > b.first.sum; });
    for (const auto& [self_spread, name] : rows) {
      const PerTile& f = functions.at(*name);
      out << name->first << '\t' << name->second;
      for (const auto& per_tile : {f.self_cycles, f.inclusive_cycles, f.self_instructions}) {
        const Spread s = spread(per_tile);
        const TileProfile& max_tile = *program_tiles[s.max_tile];
        out << fmt::format("\t{}\t{}\t{}\t{}.{}", s.sum, s.min, s.max, max_tile.ipu(), max_tile.tile());
      }
      out << '\n';
    }
  }
  out.flush();
  if (!out) throw std::runtime_error(fmt::format("--profile: writing '{}' failed", path));
}

}  // namespace ipusim::profile
