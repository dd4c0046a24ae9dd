// `ipusim run --json`'s `supersteps` array, written as the run goes: the rows that leave
// the platform's window (PlatformOptions::superstep_sink) are rendered at once into a
// spool file (made at the first such row, unlinked at once, beside the JSON file), and
// the document is the summary's keys, then the spooled rows, then the rows the result
// still holds. So memory stays bounded however long the run, and the file's bytes are
// those of one nlohmann dump(2) of the whole document.
#pragma once

#include <cstdio>
#include <string>

#include <nlohmann/json.hpp>

#include "platform/platform.h"

namespace ipusim::cli {

class SuperstepJsonWriter {
 public:
  explicit SuperstepJsonWriter(std::string json_path) : path_(std::move(json_path)) {}
  ~SuperstepJsonWriter();
  SuperstepJsonWriter(const SuperstepJsonWriter&) = delete;
  SuperstepJsonWriter& operator=(const SuperstepJsonWriter&) = delete;

  // A row leaving the platform's window: spooled (a failure is kept for write()).
  void add(const platform::SuperstepRow& row);
  // Writes the document: `summary` (every key but `supersteps`), then `supersteps`: the
  // spooled rows and those `result` still holds. Throws std::runtime_error naming the
  // file and the OS error when writing fails.
  void write(const nlohmann::ordered_json& summary, const platform::RunResult& result);

 private:
  void append(std::FILE* out, const platform::SuperstepRow& row, bool& first);

  std::string path_;
  std::FILE* spool_ = nullptr;
  std::string spool_error_;  // the first failure of the spool, if any
  bool spooled_any_ = false;
};

// supersteps[k]: the totals of superstep k over each IPU's tiles, and each tile's figures
// when the run kept them (few tiles; else an empty per_tile).
nlohmann::ordered_json superstep_json(const platform::SuperstepRow& row);

}  // namespace ipusim::cli
