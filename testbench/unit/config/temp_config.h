// Config files the loader tests write: lines to a temp file named after the test (and a
// tag), and the loader's error for a file.
#pragma once

#include <gtest/gtest.h>

#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include "config/config_loader.h"

namespace ipusim::config::test {

// Writes `lines` (line 1 first) to TEST_TMPDIR/<prefix><test><tag>_<hash>.yaml.
inline std::string file_with(const std::string& prefix, const std::vector<std::string>& lines,
                             const std::string& tag = "") {
  const std::string test = ::testing::UnitTest::GetInstance()->current_test_info()->name();
  std::string text;
  for (const std::string& l : lines) text += l + "\n";
  const std::string path = ::testing::TempDir() + prefix + test + tag + "_" +
                           std::to_string(std::hash<std::string>()(text)) + ".yaml";
  std::ofstream(path) << text;
  return path;
}

// The loader's "FILE:LINE: KEY: problem" for `path`, or "(loaded without error)".
inline std::string what_of(const std::string& path) {
  try {
    load_system(path);
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "(loaded without error)";
}

}  // namespace ipusim::config::test
