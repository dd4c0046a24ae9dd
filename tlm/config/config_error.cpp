// ConfigError: one message format for every configuration problem, so tools and
// tests can rely on "FILE:LINE: KEY: problem".
#include "config/config_loader.h"

#include <utility>

namespace ipusim::config {
namespace {

std::string compose(const std::string& file, int line, const std::string& key,
                    const std::string& problem) {
  std::string text = file;
  if (line > 0) text += ":" + std::to_string(line);
  text += ": ";
  if (!key.empty()) text += key + ": ";
  return text + problem;
}

}  // namespace

ConfigError::ConfigError(std::string file, int line, std::string key, const std::string& problem)
    : std::runtime_error(compose(file, line, key, problem)),
      file_(std::move(file)),
      line_(line),
      key_(std::move(key)),
      problem_(problem) {}

}  // namespace ipusim::config
