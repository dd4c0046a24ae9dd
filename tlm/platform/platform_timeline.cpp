#include "platform/platform_timeline.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <stdexcept>

#include <fmt/format.h>

namespace ipusim::platform {

Timeline::Timeline(const std::string& path, double clock_hz, uint32_t tracks_max)
    : path_(path), hz_(uint64_t(std::llround(clock_hz))), tracks_max_(std::max(tracks_max, 1u)) {
  file_ = std::fopen(path.c_str(), "w");
  if (!file_)
    throw std::runtime_error(fmt::format("--trace: cannot open '{}': {}", path, std::strerror(errno)));
  std::setvbuf(file_, nullptr, _IOFBF, 1 << 20);
}

Timeline::~Timeline() {
  if (file_) std::fclose(file_);
}

void Timeline::add_ipu(uint32_t ipu, uint32_t tiles_per_ipu, const std::vector<uint32_t>& tiles) {
  Ipu entry;
  entry.index = ipu;
  entry.track_of.assign(tiles_per_ipu, -1);
  const size_t group = (tiles.size() + tracks_max_ - 1) / tracks_max_;  // tiles per track
  for (size_t i = 0; i < tiles.size(); i += std::max<size_t>(group, 1)) {
    Track track;
    track.ipu = ipu;
    track.first = tiles[i];
    const size_t end = std::min(tiles.size(), i + std::max<size_t>(group, 1));
    track.last = tiles[end - 1];
    for (size_t j = i; j < end; ++j) entry.track_of.at(tiles[j]) = int32_t(tracks_.size());
    entry.tracks.push_back(uint32_t(tracks_.size()));
    tracks_.push_back(std::move(track));
  }
  if (ipus_.size() <= ipu) ipus_.resize(ipu + 1);
  ipus_[ipu] = std::move(entry);
}

void Timeline::add(uint32_t ipu, uint32_t tile, const tile::SuperstepRecord& r) {
  Ipu& entry = ipus_.at(ipu);
  const int32_t t = entry.track_of.at(tile);
  if (t < 0) return;
  if (!header_written_) write_header();
  Track& track = tracks_[size_t(t)];
  if (r.index < track.base) return;  // written already (kPendingMax): cannot happen under sync
  while (track.base + track.steps.size() <= r.index) track.steps.emplace_back();
  Step& s = track.steps[r.index - track.base];
  ++s.tiles;
  s.begin = std::min(s.begin, r.begin);
  s.arrival = std::max(s.arrival, r.sync_arrival);
  s.release = std::max(s.release, r.sync_release);
  s.exchange_start = std::max(s.exchange_start, r.exchange_start);
  s.end = std::max(s.end, r.end);
  s.compute += r.compute_cycles;
  s.sync += r.sync_cycles;
  s.exchange += r.exchange_cycles;
  s.instructions += r.instructions;
  if (uint64_t(r.index) + 1 > entry.count) {
    entry.count = uint64_t(r.index) + 1;
    flush_final(entry);
  }
  while (track.steps.size() > kPendingMax) write_front(track);
}

void Timeline::flush_final(Ipu& ipu) {
  for (uint32_t t : ipu.tracks) {
    Track& track = tracks_[t];
    while (!track.steps.empty() && track.base + 3 <= ipu.count) write_front(track);
  }
}

// Exact: cycle * 1e12 / hz rounded to picoseconds, printed as microseconds.
std::string Timeline::us(uint64_t cycle) const {
  const unsigned __int128 ps = (static_cast<unsigned __int128>(cycle) * 1000000000000ull + hz_ / 2) / hz_;
  const auto whole = uint64_t(ps / 1000000), frac = uint64_t(ps % 1000000);
  return fmt::format("{}.{:06}", whole, frac);
}

std::string Timeline::us_span(uint64_t from, uint64_t to) const {
  const auto ps = [this](uint64_t c) {
    return (static_cast<unsigned __int128>(c) * 1000000000000ull + hz_ / 2) / hz_;
  };
  const unsigned __int128 d = ps(to) - ps(from);
  return fmt::format("{}.{:06}", uint64_t(d / 1000000), uint64_t(d % 1000000));
}

void Timeline::event(const std::string& json) {
  std::fputs(first_event_ ? "" : ",\n", file_);
  std::fputs(json.c_str(), file_);
  first_event_ = false;
}

void Timeline::write_header() {
  header_written_ = true;
  std::fputs("{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n", file_);
  for (const Ipu& ipu : ipus_) {
    if (ipu.track_of.empty()) continue;
    event(fmt::format(R"({{"name":"process_name","ph":"M","pid":{0},"args":{{"name":"ipu {0}"}}}})", ipu.index));
    event(fmt::format(R"({{"name":"process_sort_index","ph":"M","pid":{0},"args":{{"sort_index":{0}}}}})",
                      ipu.index));
  }
  for (const Track& track : tracks_) {
    const std::string name = track.first == track.last ? fmt::format("tile {}", track.first)
                                                       : fmt::format("tiles {}-{}", track.first, track.last);
    event(fmt::format(R"({{"name":"thread_name","ph":"M","pid":{},"tid":{},"args":{{"name":"{}"}}}})",
                      track.ipu, track.first, name));
    event(fmt::format(R"({{"name":"thread_sort_index","ph":"M","pid":{},"tid":{},"args":{{"sort_index":{}}}}})",
                      track.ipu, track.first, track.first));
  }
}

void Timeline::write_front(Track& track) {
  const Step s = track.steps.front();
  const uint64_t k = track.base;
  track.steps.pop_front();
  ++track.base;
  if (s.tiles == 0) return;
  auto slice = [&](const char* name, uint64_t from, uint64_t to) {
    if (to <= from) return;
    event(fmt::format(R"({{"name":"{}","cat":"{}","ph":"X","pid":{},"tid":{},"ts":{},"dur":{}}})", name, name,
                      track.ipu, track.first, us(from), us_span(from, to)));
  };
  const uint64_t begin = std::max(s.begin, track.previous_end);
  const uint64_t arrival = std::max(s.arrival, begin);
  const uint64_t release = std::max(s.release, arrival);
  const uint64_t xstart = std::max(s.exchange_start, release);
  const uint64_t end = std::max(s.end, xstart);
  event(fmt::format(
      R"({{"name":"superstep {}","cat":"superstep","ph":"X","pid":{},"tid":{},"ts":{},"dur":{},)"
      R"("args":{{"tiles":{},"compute_cycles":{},"sync_cycles":{},"exchange_cycles":{},"instructions":{}}}}})",
      k, track.ipu, track.first, us(begin), us_span(begin, end), s.tiles, s.compute, s.sync, s.exchange,
      s.instructions));
  slice("compute", begin, arrival);
  slice("sync", arrival, release);
  slice("compute", release, xstart);
  slice("exchange", xstart, end);
  track.previous_end = end;
}

void Timeline::write() {
  if (!header_written_) write_header();
  for (Track& track : tracks_)
    while (!track.steps.empty()) write_front(track);
  std::fputs("\n]}\n", file_);
  const bool failed = std::fflush(file_) != 0 || std::ferror(file_) != 0;
  const int error = errno;
  const bool close_failed = std::fclose(file_) != 0;
  file_ = nullptr;
  if (failed || close_failed)
    throw std::runtime_error(
        fmt::format("--trace: writing '{}' failed: {}", path_, std::strerror(failed ? error : errno)));
}

}  // namespace ipusim::platform
