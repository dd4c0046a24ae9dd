// Reading a generator's YAML source with located errors: every problem is a SourceError
// "FILE:LINE: KEY: problem", with the line of the node at fault.
#pragma once

#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <initializer_list>
#include <limits>
#include <string>

#include "generated_files.h"

namespace ipusim::gen {

class Reader {
 public:
  explicit Reader(std::string file) : file_(std::move(file)) {}

  const std::string& file() const { return file_; }

  [[noreturn]] void fail(const YAML::Node& at, const std::string& key, const std::string& what) const;
  [[noreturn]] void fail_at(int line, const std::string& key, const std::string& what) const;

  // Every key of a mapping must be one of `allowed` (catches typos such as `fucnt7`).
  void keys(const YAML::Node& map, const std::string& where, std::initializer_list<const char*> allowed) const;

  YAML::Node need(const YAML::Node& map, const char* key) const;
  std::string text(const YAML::Node& map, const char* key) const;
  std::string optional_text(const YAML::Node& map, const char* key) const;  // "" when absent
  uint64_t number(const YAML::Node& map, const char* key,
                  uint64_t max = std::numeric_limits<uint64_t>::max()) const;
  bool flag(const YAML::Node& map, const char* key) const;  // false when absent
  YAML::Node list(const YAML::Node& map, const char* key) const;
  // An identifier of upper-case letters, digits and '_' (it becomes part of a C name).
  std::string cname(const YAML::Node& map, const char* key) const;

 private:
  std::string file_;
};

}  // namespace ipusim::gen
