// Loading a configuration: load_system() reads a chip, board or system YAML file into the
// plain structs of common/config.h; ConfigError is what a file that cannot be used gives.
#pragma once

#include <stdexcept>
#include <string>

#include "common/config.h"

namespace ipusim::config {

// A configuration file that cannot be used. what() is "FILE:LINE: KEY: problem"; the
// line is left out when it is not known (0), the key when the problem is not about one
// key (a YAML syntax error, an unreadable file given on the command line). KEY is a
// dotted path inside FILE, e.g. "tile.sram_kib" or "board.chip.tiles" for inline parts.
class ConfigError : public std::runtime_error {
 public:
  ConfigError(std::string file, int line, std::string key, const std::string& problem);
  const std::string& file() const { return file_; }
  int line() const { return line_; }
  const std::string& key() const { return key_; }
  const std::string& problem() const { return problem_; }

 private:
  std::string file_;
  int line_;
  std::string key_;
  std::string problem_;
};

// Loads a chip, board or system file (references to other files resolved relative to
// the referring file) into a SystemConfig. A chip file gives one board of one IPU.
// Throws ConfigError for anything wrong with the file or the files it refers to.
SystemConfig load_system(const std::string& path);

// Same, for `text` given as the contents of the file `path` (which need not exist): the
// files it refers to are read relative to `path`. For the config fuzzer, which loads
// from memory.
SystemConfig load_system_text(const std::string& path, const std::string& text);

// Why `system` cannot run its `cosim` choice of RTL blocks, or "" when it can: the link
// RTL needs IPU-Links to carry. The loader checks a file's `cosim` with it; `--rtl` and
// OpenOptions::rtl, which replace it, are checked with it too.
std::string cosim_unfit(const SystemConfig& system);

}  // namespace ipusim::config
