#include "profile/pprof.h"

#include <zlib.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <map>
#include <stdexcept>
#include <tuple>
#include <utility>

#include <fmt/format.h>

#include "profile/places.h"
#include "profile/proto_wire.h"

namespace ipusim::profile {

namespace {

bool ends_with(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

// profile.proto's field numbers (github.com/google/pprof, proto/profile.proto).
namespace field {
enum Profile : uint32_t { sample_type = 1, sample = 2, mapping = 3, location = 4, function = 5, string_table = 6,
                          period_type = 11, period = 12, comment = 13, default_sample_type = 14 };
enum ValueType : uint32_t { type = 1, unit = 2 };
enum Sample : uint32_t { location_id = 1, value = 2, label = 3 };
enum Label : uint32_t { key = 1, str = 2 };
enum Mapping : uint32_t { mapping_id = 1, memory_start = 2, memory_limit = 3, has_functions = 7, has_filenames = 8,
                          has_line_numbers = 9 };
enum Location : uint32_t { location_id_ = 1, location_mapping = 2, address = 3, line = 4 };
enum Line : uint32_t { line_function = 1, line_number = 2 };
enum Function : uint32_t { function_id = 1, name = 2, system_name = 3, filename = 4, start_line = 5 };
}  // namespace field

// What one file holds: threads' calling contexts as samples, by name, so that the tiles
// and threads that ran the same code add up in one sample.
class PprofFile {
 public:
  // `command` and `description` are the file's comments.
  PprofFile(const std::string& command, const std::string& description)
      : comments_{command, "Profiled: " + description, "cycles: tile cycles (docs/profiling.md)"} {
    for (const char* s : {"", "cycles", "instructions", "count", "thread"}) string(s);
    for (const std::string& s : comments_) string(s);
  }

  void add(const TileProfile& tile, uint32_t thread, const ThreadProfile& p, Places& places) {
    const int64_t label = string(fmt::format("{}", thread));
    for (uint32_t i = 1; i < p.contexts.size(); ++i) {
      const Context& c = p.contexts[i];
      if (c.self.cycles == 0 && c.self.instructions == 0) continue;
      std::vector<uint64_t> stack{location(tile, c.function, places)};
      for (uint32_t n = i; p.contexts[n].parent != 0; n = p.contexts[n].parent)
        stack.push_back(location(tile, p.contexts[n].call_pc, places));
      samples_[{std::move(stack), label}] += c.self;
    }
  }

  void write(const std::string& path, bool gzipped) const {
    ProtoWriter profile;
    auto value_type = [&](const char* type) {
      ProtoWriter v;
      v.varint_field(field::type, string_index(type));
      v.varint_field(field::unit, string_index("count"));
      return v;
    };
    profile.message_field(field::sample_type, value_type("cycles"));
    profile.message_field(field::sample_type, value_type("instructions"));
    for (const auto& [key, costs] : samples_) {
      ProtoWriter s, label;
      s.packed_field(field::location_id, key.first);
      s.packed_field(field::value, {costs.cycles, costs.instructions});
      label.varint_field(field::key, string_index("thread"));
      label.varint_field(field::str, key.second);
      s.message_field(field::label, label);
      profile.message_field(field::sample, s);
    }
    // One mapping for the tile's address space, its functions and lines already given:
    // pprof has nothing to symbolize.
    ProtoWriter mapping;
    mapping.varint_field(field::mapping_id, 1);
    mapping.varint_field(field::memory_limit, uint64_t{1} << 32);
    mapping.varint_field(field::has_functions, 1);
    mapping.varint_field(field::has_filenames, 1);
    mapping.varint_field(field::has_line_numbers, 1);
    profile.message_field(field::mapping, mapping);
    for (size_t i = 0; i < locations_.size(); ++i) {
      ProtoWriter l, line;
      l.varint_field(field::location_id_, i + 1);
      l.varint_field(field::location_mapping, 1);
      l.varint_field(field::address, locations_[i].pc);
      line.varint_field(field::line_function, locations_[i].function);
      line.varint_field(field::line_number, locations_[i].line);
      l.message_field(field::line, line);
      profile.message_field(field::location, l);
    }
    for (size_t i = 0; i < functions_.size(); ++i) {
      ProtoWriter f;
      f.varint_field(field::function_id, i + 1);
      f.varint_field(field::name, functions_[i].name);
      f.varint_field(field::system_name, functions_[i].name);
      f.varint_field(field::filename, functions_[i].file);
      f.varint_field(field::start_line, functions_[i].start_line);
      profile.message_field(field::function, f);
    }
    profile.message_field(field::period_type, value_type("cycles"));
    profile.varint_field(field::period, 1);
    for (const std::string& c : comments_) profile.varint_field(field::comment, string_index(c));
    profile.varint_field(field::default_sample_type, string_index("cycles"));
    for (const std::string& s : strings_) profile.bytes_field(field::string_table, s);
    save(path, gzipped, profile.bytes());
  }

 private:
  struct Location {
    uint32_t pc = 0;
    uint64_t function = 0;  // id
    uint32_t line = 0;
  };
  struct Function {
    int64_t name = 0, file = 0;  // strings
    uint32_t start_line = 0;
  };

  int64_t string(const std::string& s) {
    const auto [it, fresh] = string_ids_.try_emplace(s, int64_t(strings_.size()));
    if (fresh) strings_.push_back(s);
    return it->second;
  }
  // The strings the writer adds are interned up front (constructor), so write() is const.
  int64_t string_index(const std::string& s) const { return string_ids_.at(s); }

  uint64_t location(const TileProfile& tile, uint32_t pc, Places& places) {
    const auto [it, fresh] = location_ids_.try_emplace({&tile.program(), pc}, locations_.size() + 1);
    if (!fresh) return it->second;
    const Place& at = places.of(tile, pc);
    const auto [fn, new_fn] = function_ids_.try_emplace({at.file, at.function}, functions_.size() + 1);
    if (new_fn) functions_.push_back(Function{string(at.function), string(at.file), places.of(tile, at.entry).line});
    locations_.push_back(Location{pc, fn->second, at.line});
    return it->second;
  }

  static void save(const std::string& path, bool gzipped, const std::string& bytes) {
    if (!gzipped) {
      std::ofstream out(path, std::ios::binary | std::ios::trunc);
      if (!out) throw std::runtime_error(fmt::format("--profile: cannot open '{}': {}", path, std::strerror(errno)));
      out.write(bytes.data(), std::streamsize(bytes.size()));
      out.flush();
      if (!out) throw std::runtime_error(fmt::format("--profile: writing '{}' failed", path));
      return;
    }
    gzFile out = gzopen(path.c_str(), "wb");
    if (!out) throw std::runtime_error(fmt::format("--profile: cannot open '{}': {}", path, std::strerror(errno)));
    const bool written = bytes.empty() || gzwrite(out, bytes.data(), unsigned(bytes.size())) == int(bytes.size());
    if (gzclose(out) != Z_OK || !written) throw std::runtime_error(fmt::format("--profile: writing '{}' failed", path));
  }

  std::vector<std::string> comments_;
  std::vector<std::string> strings_;
  std::map<std::string, int64_t> string_ids_;
  std::map<std::pair<const iss::Program*, uint32_t>, uint64_t> location_ids_;
  std::vector<Location> locations_;
  std::map<std::pair<std::string, std::string>, uint64_t> function_ids_;  // (file, name)
  std::vector<Function> functions_;
  std::map<std::pair<std::vector<uint64_t>, int64_t>, Costs> samples_;  // (stack, thread label) -> costs

};

}  // namespace

bool is_pprof_path(const std::string& path) {
  return ends_with(path, ".pb.gz") || ends_with(path, ".pb") || ends_with(path, ".pprof");
}

void write_pprof(const std::string& path, const std::vector<const TileProfile*>& tiles, const std::string& command,
                 bool split) {
  Places places;
  const bool gzipped = !ends_with(path, ".pb");
  const std::string description = fmt::format("{} tile(s), every thread, summed", tiles.size());
  PprofFile all(command, description);
  for (const TileProfile* tile : tiles) {
    for (uint32_t th = 0; th < tile->threads().size(); ++th) {
      const ThreadProfile& p = tile->threads()[th];
      if (!p.ran) continue;
      all.add(*tile, th, p, places);
      if (!split) continue;
      const std::string one_description = fmt::format("ipu {} tile {} thread {}", tile->ipu(), tile->tile(), th);
      PprofFile one(command, one_description);
      one.add(*tile, th, p, places);
      one.write(fmt::format("{}.ipu{}.tile{}.thread{}", path, tile->ipu(), tile->tile(), th), gzipped);
    }
  }
  all.write(path, gzipped);
}

}  // namespace ipusim::profile
