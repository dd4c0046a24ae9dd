// libFuzzer entry for the config loader: any bytes, loaded as the text of a config file
// that lies in the seed directory (CONFIG_FUZZ_DIR), so a board's `chip:` or a system's
// `board:` names the reference files copied there. Checks what must hold for every input:
// the loader returns a config or throws ConfigError naming the file (any other exception
// escapes and libFuzzer reports it), and a config it returns is written by to_yaml() as
// text that loads again to the same text (but for the comments naming the
// files the parts came from).
#include <cstdint>
#include <cstdlib>
#include <string>

#include "config/config_loader.h"
#include "config/config_writer.h"

namespace config = ipusim::config;

// The written text without the comments naming where each part came from (the second
// load reads the parts from the first's text, not from their files).
static std::string without_sources(const std::string& yaml) {
  std::string out;
  size_t at = 0;
  while (at < yaml.size()) {
    size_t end = yaml.find('\n', at);
    if (end == std::string::npos) end = yaml.size();
    std::string line = yaml.substr(at, end - at);
    at = end + 1;
    if (line.rfind("#", 0) == 0) continue;
    if (const size_t from = line.find("  # from "); from != std::string::npos) line.resize(from);
    out += line + '\n';
  }
  return out;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const std::string path = std::string(CONFIG_FUZZ_DIR) + "/fuzz_input.yaml";
  const std::string text(reinterpret_cast<const char*>(data), size);
  config::SystemConfig sys;
  try {
    sys = config::load_system_text(path, text);
  } catch (const config::ConfigError& e) {
    if (e.file().empty() || e.problem().empty()) std::abort();
    return 0;
  }
  if (sys.board.chip.tiles == 0 || sys.board.ipus == 0 || sys.boards == 0) std::abort();
  // The effective config is a file of its own: it must load, and write the same again.
  const std::string written = config::to_yaml(sys);
  const std::string again = config::to_yaml(config::load_system_text(path, written));
  if (without_sources(again) != without_sources(written)) std::abort();
  return 0;
}
