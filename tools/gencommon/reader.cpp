#include "reader.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>

namespace ipusim::gen {

void Reader::fail(const YAML::Node& at, const std::string& key, const std::string& what) const {
  fail_at(at.Mark().line + 1, key, what);
}

void Reader::fail_at(int line, const std::string& key, const std::string& what) const {
  throw SourceError(fmt::format("{}:{}: {}: {}", file_, line, key, what));
}

void Reader::keys(const YAML::Node& map, const std::string& where, std::initializer_list<const char*> allowed) const {
  if (!map.IsMap()) fail(map, where, "expected a mapping");
  for (const auto& kv : map) {
    const std::string key = kv.first.as<std::string>();
    if (std::none_of(allowed.begin(), allowed.end(), [&](const char* a) { return key == a; }))
      fail(kv.first, key, fmt::format("unknown key in {}", where));
  }
}

YAML::Node Reader::need(const YAML::Node& map, const char* key) const {
  YAML::Node child = map[key];
  if (!child) fail(map, key, "missing");
  return child;
}

std::string Reader::text(const YAML::Node& map, const char* key) const {
  YAML::Node n = need(map, key);
  if (!n.IsScalar()) fail(n, key, "expected a string");
  return n.as<std::string>();
}

std::string Reader::optional_text(const YAML::Node& map, const char* key) const {
  return map[key] ? text(map, key) : std::string();
}

uint64_t Reader::number(const YAML::Node& map, const char* key, uint64_t max) const {
  YAML::Node n = need(map, key);
  uint64_t v = 0;
  try {
    v = n.as<uint64_t>();
  } catch (const YAML::Exception&) {
    fail(n, key, fmt::format("'{}' is not an unsigned number", n.Scalar()));
  }
  if (v > max) fail(n, key, fmt::format("{:#x} is above {:#x}", v, max));
  return v;
}

bool Reader::flag(const YAML::Node& map, const char* key) const {
  if (!map[key]) return false;
  try {
    return map[key].as<bool>();
  } catch (const YAML::Exception&) {
    fail(map[key], key, "expected true or false");
  }
}

YAML::Node Reader::list(const YAML::Node& map, const char* key) const {
  YAML::Node n = need(map, key);
  if (!n.IsSequence()) fail(n, key, "expected a list");
  return n;
}

std::string Reader::cname(const YAML::Node& map, const char* key) const {
  std::string s = text(map, key);
  const bool ok = !s.empty() && std::isupper(static_cast<unsigned char>(s[0])) &&
                  std::all_of(s.begin(), s.end(), [](char c) {
                    return std::isupper(static_cast<unsigned char>(c)) || std::isdigit(static_cast<unsigned char>(c)) || c == '_';
                  });
  if (!ok) fail(map[key], key, fmt::format("'{}' is not an upper-case identifier", s));
  return s;
}

}  // namespace ipusim::gen
