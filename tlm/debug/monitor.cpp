#include "debug/monitor.h"

#include <charconv>
#include <sstream>

namespace ipusim::debug {
namespace {

constexpr const char* kHelp =
    "ipusim monitor commands:\n"
    "  catch sync [TILE]      stop when TILE (of the selected thread's IPU; none: any tile) reaches a sync\n"
    "  catch exchange [TILE]  stop when TILE's next exchange ends\n"
    "  catch none             remove every catch\n"
    "  catch                  list the catches\n"
    "  help                   this text\n";

std::vector<std::string> words(std::string_view line) {
  std::istringstream in{std::string(line)};
  std::vector<std::string> out;
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

}  // namespace

std::string describe(const Catch& c) {
  std::string text = c.kind == Catch::Kind::Sync ? "sync" : "exchange";
  if (c.tile) return text + " of ipu " + std::to_string(c.ipu.value_or(0)) + " tile " + std::to_string(*c.tile);
  return text + " of any tile";
}

std::string run_monitor_command(std::string_view line, uint32_t ipu, std::vector<Catch>& catches) {
  auto w = words(line);
  if (w.empty() || w[0] == "help") return kHelp;
  if (w[0] != "catch") return "unknown monitor command \"" + std::string(line) + "\" (try: monitor help)\n";
  if (w.size() == 1) {
    if (catches.empty()) return "no catches\n";
    std::string text;
    for (const auto& c : catches) text += "catch " + describe(c) + "\n";
    return text;
  }
  if (w[1] == "none" && w.size() == 2) {
    catches.clear();
    return "catches removed\n";
  }
  if ((w[1] != "sync" && w[1] != "exchange") || w.size() > 3) return "usage: catch sync|exchange [TILE] | catch none\n";
  Catch c;
  c.kind = w[1] == "sync" ? Catch::Kind::Sync : Catch::Kind::Exchange;
  if (w.size() == 3) {
    uint32_t tile = 0;
    auto [end, ec] = std::from_chars(w[2].data(), w[2].data() + w[2].size(), tile);
    if (ec != std::errc() || end != w[2].data() + w[2].size()) return "not a tile number: " + w[2] + "\n";
    c.ipu = ipu;
    c.tile = tile;
  }
  catches.push_back(c);
  return "catch " + describe(c) + "\n";
}

}  // namespace ipusim::debug
