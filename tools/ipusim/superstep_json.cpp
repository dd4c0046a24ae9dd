#include "superstep_json.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <stdexcept>
#include <vector>

#include <fmt/format.h>

namespace ipusim::cli {
namespace {

nlohmann::ordered_json tile_superstep(uint32_t tile, const tile::SuperstepRecord& r) {
  nlohmann::ordered_json j;
  j["tile"] = tile;
  j["begin_cycle"] = r.begin;
  j["end_cycle"] = r.end;
  j["compute_cycles"] = r.compute_cycles;
  j["sync_cycles"] = r.sync_cycles;
  j["exchange_cycles"] = r.exchange_cycles;
  j["instructions"] = r.instructions;
  j["bytes_in"] = r.bytes_in;
  j["bytes_out"] = r.bytes_out;
  j["sync_zone"] = r.sync_zone;
  j["exchanged"] = r.exchanged;
  j["complete"] = r.complete;
  return j;
}

// An element of the document's `supersteps` array as dump(2) of the whole document
// renders it: indented by two levels (the array inside the top object).
std::string element_text(const nlohmann::ordered_json& element) {
  const std::string flat = element.dump(2);
  std::string out = "    ";
  out.reserve(flat.size() + flat.size() / 8);
  for (char c : flat) {
    out += c;
    if (c == '\n') out += "    ";
  }
  return out;
}

// The rows the result still holds, rebuilt from its per-IPU and per-tile figures.
std::vector<platform::SuperstepRow> held_rows(const platform::RunResult& res) {
  uint64_t end = res.supersteps_first;
  for (const auto& ipu : res.supersteps) end = std::max<uint64_t>(end, res.supersteps_first + ipu.size());
  std::vector<platform::SuperstepRow> rows;
  for (uint64_t k = res.supersteps_first; k < end; ++k) {
    platform::SuperstepRow& row = rows.emplace_back();
    row.index = k;
    const size_t j = size_t(k - res.supersteps_first);
    for (const auto& ipu : res.supersteps) row.ipus.push_back(j < ipu.size() ? ipu[j] : platform::SuperstepTotals{});
    if (res.tile_supersteps_kept)
      for (const platform::TileResult& t : res.tiles)
        if (j < t.supersteps.size()) row.tiles.push_back({t.ipu, t.tile, t.supersteps[j]});
  }
  return rows;
}

// A spool file beside the JSON (the same file system: as much room as the JSON itself),
// or in the temporary directory when the JSON is not a regular file (/dev/stdout); it is
// unlinked at once, so it goes when the process does.
std::FILE* open_spool(const std::string& json_path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::path path(json_path);
  const bool regular = !fs::exists(path, ec) || fs::is_regular_file(path, ec);
  if (regular) {
    std::string name = (path.has_parent_path() ? path.parent_path() : fs::path(".")).string() + "/.ipusim-supersteps-XXXXXX";
    const int fd = ::mkstemp(name.data());
    if (fd >= 0) {
      ::unlink(name.c_str());
      if (std::FILE* f = ::fdopen(fd, "w+b")) return f;
      ::close(fd);
    }
  }
  return std::tmpfile();
}

}  // namespace

nlohmann::ordered_json superstep_json(const platform::SuperstepRow& row) {
  nlohmann::ordered_json step;
  step["superstep"] = row.index;
  nlohmann::ordered_json ipus = nlohmann::ordered_json::array();
  for (uint32_t i = 0; i < row.ipus.size(); ++i) {
    const platform::SuperstepTotals& t = row.ipus[i];
    if (t.tiles == 0) continue;
    nlohmann::ordered_json j;
    j["ipu"] = i;
    j["tiles"] = t.tiles;
    j["exchanging_tiles"] = t.exchanging_tiles;
    j["incomplete_tiles"] = t.incomplete_tiles;
    j["begin_cycle"] = t.begin_cycle;
    j["end_cycle"] = t.end_cycle;
    j["compute_cycles"] = t.compute_cycles;
    j["sync_cycles"] = t.sync_cycles;
    j["exchange_cycles"] = t.exchange_cycles;
    j["instructions"] = t.instructions;
    j["exchange_bytes"] = t.exchange_bytes;
    // Per tile: the sums over the tiles that ran the superstep, divided by their count.
    j["compute_cycles_mean"] = double(t.compute_cycles) / t.tiles;
    j["sync_cycles_mean"] = double(t.sync_cycles) / t.tiles;
    j["exchange_cycles_mean"] = double(t.exchange_cycles) / t.tiles;
    j["instructions_mean"] = double(t.instructions) / t.tiles;
    j["exchange_bytes_mean"] = double(t.exchange_bytes) / t.tiles;
    nlohmann::ordered_json per_tile = nlohmann::ordered_json::array();
    for (const platform::TileSuperstep& ts : row.tiles)
      if (ts.ipu == i) per_tile.push_back(tile_superstep(ts.tile, ts.record));
    j["per_tile"] = std::move(per_tile);  // empty when the run kept no tile's records
    ipus.push_back(j);
  }
  step["ipus"] = ipus;
  return step;
}

SuperstepJsonWriter::~SuperstepJsonWriter() {
  if (spool_) std::fclose(spool_);
}

void SuperstepJsonWriter::append(std::FILE* out, const platform::SuperstepRow& row, bool& first) {
  const std::string text = (first ? "" : ",\n") + element_text(superstep_json(row));
  first = false;
  std::fwrite(text.data(), 1, text.size(), out);
}

void SuperstepJsonWriter::add(const platform::SuperstepRow& row) {
  if (!spool_error_.empty()) return;
  if (!spool_ && !(spool_ = open_spool(path_))) {
    spool_error_ = fmt::format("cannot make a spool file for the supersteps: {}", std::strerror(errno));
    return;
  }
  bool first = !spooled_any_;
  append(spool_, row, first);
  spooled_any_ = true;
  if (std::ferror(spool_)) spool_error_ = fmt::format("writing the supersteps' spool file failed: {}", std::strerror(errno));
}

void SuperstepJsonWriter::write(const nlohmann::ordered_json& summary, const platform::RunResult& result) {
  auto fail = [&](const std::string& what) {
    return std::runtime_error(fmt::format("--json '{}': {}", path_, what));
  };
  if (!spool_error_.empty()) throw fail(spool_error_);
  // The summary's dump ends "\n}": the array goes in as its last key.
  std::string head = summary.dump(2);
  head.resize(head.size() - 2);
  const std::vector<platform::SuperstepRow> held = held_rows(result);
  const bool empty = !spooled_any_ && held.empty();
  head += ",\n";
  head += empty ? "  \"supersteps\": []" : "  \"supersteps\": [\n";

  std::FILE* out = std::fopen(path_.c_str(), "wb");
  if (!out) throw fail(fmt::format("cannot open for writing: {}", std::strerror(errno)));
  std::fwrite(head.data(), 1, head.size(), out);
  bool first = true;
  if (spool_) {
    std::fflush(spool_);
    std::rewind(spool_);
    std::vector<char> buffer(1 << 20);
    while (size_t n = std::fread(buffer.data(), 1, buffer.size(), spool_)) std::fwrite(buffer.data(), 1, n, out);
    if (std::ferror(spool_)) {
      const int e = errno;
      std::fclose(out);
      throw fail(fmt::format("reading back the supersteps' spool file failed: {}", std::strerror(e)));
    }
    first = !spooled_any_;
  }
  for (const platform::SuperstepRow& row : held) append(out, row, first);
  const std::string tail = empty ? "\n}\n" : "\n  ]\n}\n";
  std::fwrite(tail.data(), 1, tail.size(), out);
  const bool write_failed = std::fflush(out) != 0 || std::ferror(out);
  const int e = errno;
  const bool close_failed = std::fclose(out) != 0;
  if (write_failed || close_failed) throw fail(fmt::format("writing failed: {}", std::strerror(write_failed ? e : errno)));
}

}  // namespace ipusim::cli
