#include "profile/callgrind.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <map>
#include <stdexcept>
#include <tuple>

#include <fmt/format.h>

#include "profile/places.h"

namespace ipusim::profile {

namespace {

// Threads' profiles by name: what one file holds.
struct Named {
  struct Function {
    uint32_t line = 0;
    Costs self;
    std::map<std::tuple<uint32_t, Place>, CallCosts> calls;  // (call's line, callee) -> costs
  };
  std::map<std::pair<std::string, std::string>, Function> functions;  // (file, function)
  Costs total;

  void add(const TileProfile& tile, const ThreadProfile& p, Places& places) {
    for (const auto& [entry, c] : p.self) {
      const Place& f = places.of(tile, entry);
      Function& fn = functions[{f.file, f.function}];
      fn.line = f.line;
      fn.self += c;
    }
    for (const auto& [key, c] : p.calls) {
      const Place& caller = places.of(tile, std::get<0>(key));
      Function& fn = functions[{caller.file, caller.function}];
      fn.line = caller.line;
      CallCosts& to = fn.calls[{places.of(tile, std::get<1>(key)).line, places.of(tile, std::get<2>(key))}];
      to.calls += c.calls;
      to.inclusive += c.inclusive;
    }
    total += p.total;
  }

  void write(const std::string& path, const std::string& command, const std::string& description) const {
    std::ofstream out(path, std::ios::trunc);
    if (!out) throw std::runtime_error(fmt::format("--profile: cannot open '{}': {}", path, std::strerror(errno)));
    out << "# callgrind format\nversion: 1\ncreator: ipusim\n";
    out << "cmd: " << command << "\n";
    out << "desc: Profiled: " << description << "\n";
    out << "desc: Cycles: tile cycles (docs/profiling.md)\n";
    out << "positions: line\nevents: Cycles Instructions\n";
    out << fmt::format("summary: {} {}\n\n", total.cycles, total.instructions);
    for (const auto& [name, fn] : functions) {
      out << "fl=" << name.first << "\nfn=" << name.second << "\n";
      out << fmt::format("{} {} {}\n", fn.line, fn.self.cycles, fn.self.instructions);
      for (const auto& [key, c] : fn.calls) {
        const Place& callee = std::get<1>(key);
        out << "cfl=" << callee.file << "\ncfn=" << callee.function << "\n";
        out << fmt::format("calls={} {}\n{} {} {}\n", c.calls, callee.line, std::get<0>(key), c.inclusive.cycles,
                           c.inclusive.instructions);
      }
    }
    out.flush();
    if (!out) throw std::runtime_error(fmt::format("--profile: writing '{}' failed", path));
  }
};

}  // namespace

void write_callgrind(const std::string& path, const std::vector<const TileProfile*>& tiles, const std::string& command,
                     bool split) {
  Places places;
  Named all;
  for (const TileProfile* tile : tiles) {
    for (size_t th = 0; th < tile->threads().size(); ++th) {
      const ThreadProfile& p = tile->threads()[th];
      if (!p.ran) continue;
      all.add(*tile, p, places);
      if (!split) continue;
      Named one;
      one.add(*tile, p, places);
      one.write(fmt::format("{}.ipu{}.tile{}.thread{}", path, tile->ipu(), tile->tile(), th), command,
                fmt::format("ipu {} tile {} thread {}", tile->ipu(), tile->tile(), th));
    }
  }
  all.write(path, command, fmt::format("{} tile(s), every thread, summed", tiles.size()));
}

}  // namespace ipusim::profile
