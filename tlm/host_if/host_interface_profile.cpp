// The host interface's side channels: profiling (DeviceLink::set_trace_file / supersteps),
// the IPU-Links' fault injection and figures (set_link_faults / link_stats) and the
// tiles' console (set_console_handler).
// Profiling:
// the board's superstep trace and per-superstep totals, the same figures and file as
// `ipusim run --trace / --json` give for the same firmware. The host sets the trace path
// under the mirror's mutex; the model thread hands it to the platform at RUN from READY
// and mirrors the totals at each stop of the run, before RUN_DONE is raised, so a host
// that saw RUN_DONE reads the stop's figures.
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <stdexcept>

#include <fmt/format.h>

#include "host_if/host_interface.h"
#include "links/link_config.h"

namespace ipusim::host_if {

void HostInterface::set_trace_file(const std::string& path) {
  if (!path.empty()) {
    // Checked here, where the host can be told; the run truncates it again when it starts.
    std::FILE* f = std::fopen(path.c_str(), "w");
    if (!f) throw std::runtime_error(fmt::format("trace: cannot open '{}' for writing: {}", path, std::strerror(errno)));
    std::fclose(f);
  }
  std::lock_guard<std::mutex> lock(mutex_);
  trace_path_ = path;
}

std::vector<records::SuperstepStats> HostInterface::supersteps(uint32_t ipu) {
  if (ipu >= config_.board.ipus)
    throw std::out_of_range(fmt::format("supersteps: IPU {} (the board has {})", ipu, config_.board.ipus));
  std::lock_guard<std::mutex> lock(mutex_);
  return ipu < supersteps_.size() ? supersteps_[ipu] : std::vector<records::SuperstepStats>{};
}

// The system's links: the domain keeps them for every board.
void HostInterface::set_link_faults(const std::string& items) {
  links::FaultPlan plan;
  const uint32_t link_count = uint32_t(config_.links().size());
  size_t at = 0;
  for (;;) {
    const size_t end = items.find(';', at);
    std::string why;
    const std::string item = items.substr(at, end == std::string::npos ? std::string::npos : end - at);
    if (item.find_first_not_of(" \t") == std::string::npos)
      throw std::invalid_argument("link faults: '" + items + "': an empty item (give [LINK:]SPEC items, ';' between "
                                  "them; 'none' for none)");
    if (!links::add_fault_item(plan, item, link_count, &why)) throw std::invalid_argument(why);
    if (end == std::string::npos) break;
    at = end + 1;
  }
  // Refused here, where the host is told, rather than when the run builds the link layer
  // (the loader checks a loaded config the same way; a config made in code may differ).
  if (plan.any()) {
    const config::ChipConfig& chip = config_.board.chip;
    const std::string bad =
        links::LinkLayerConfig::for_rates(chip.ipu_links.bytes_per_second, chip.ipu_links.latency_ns, chip.clock_hz)
            .validate();
    if (!bad.empty())
      throw std::invalid_argument("set_link_faults: the IPU-Links of chip '" + chip.name +
                                  "' cannot run the link layer that injects faults: " + bad);
  }
  domain_.set_link_faults(plan);
}

std::vector<records::LinkStats> HostInterface::link_stats() { return domain_.link_stats(); }

// The platform's console is the system's, ordered across its boards: handed over whole.
// The collector's own mutex orders this against the tiles' lines of a run going on.
void HostInterface::set_console_handler(ConsoleHandler handler) {
  if (!handler) {
    platform_.set_console_sink({});
    return;
  }
  platform_.set_console_sink([handler = std::move(handler)](uint32_t ipu, uint32_t tile, uint32_t thread,
                                                            std::string_view text) {
    handler(ConsoleLine{ipu, tile, thread, std::string(text)});
  });
}

void HostInterface::update_supersteps() {
  std::vector<std::vector<records::SuperstepStats>> figures;
  for (uint32_t i = 0; i < config_.board.ipus; ++i) {
    const std::vector<platform::SuperstepTotals>& steps = platform_.ipu_supersteps(board_ * config_.board.ipus + i);
    auto& out = figures.emplace_back();
    out.reserve(steps.size());
    for (const platform::SuperstepTotals& t : steps)
      out.push_back({.tiles = t.tiles,
                     .exchanging_tiles = t.exchanging_tiles,
                     .incomplete_tiles = t.incomplete_tiles,
                     .begin_cycle = t.tiles ? t.begin_cycle : 0,
                     .end_cycle = t.end_cycle,
                     .compute_cycles = t.compute_cycles,
                     .sync_cycles = t.sync_cycles,
                     .exchange_cycles = t.exchange_cycles,
                     .instructions = t.instructions,
                     .exchange_bytes = t.exchange_bytes});
  }
  std::lock_guard<std::mutex> lock(mutex_);
  if (domain_.current_locked()) supersteps_ = std::move(figures);
}

}  // namespace ipusim::host_if
