// The effective configuration: a SystemConfig written back as one self-contained
// YAML file (every part inline, every key explicit), the file the BRIEF wants next to
// every result. Loading it with load_system() gives the same struct again, field for
// field (only the `source` names differ: they become the written file's name).
#pragma once

#include <string>

#include "config/config_loader.h"

namespace ipusim::config {

// The YAML text of `config`. Its kind is the struct's kind when that can express
// every field; a "chip" whose board-level fields were changed in code is written as
// a board, and a board with more than one board as a system.
std::string to_yaml(const SystemConfig& config);

}  // namespace ipusim::config
