// What the source-to-file generators (tools/regmap, tools/isagen) share: reading their
// YAML source with located errors, and writing (or, with --check, comparing) the
// checked-in files they generate.
#pragma once

#include <yaml-cpp/yaml.h>

#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace ipusim::gen {

// A source that cannot be used; what() is "FILE:LINE: KEY: problem" (or "FILE: problem").
struct SourceError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Loads `path`; throws SourceError for an unreadable file or a YAML syntax error, with
// the line.
YAML::Node load_source(const std::string& path);

struct GeneratedFile {
  std::string path;
  std::string content;
};

// Writes every file whose content differs (check = false) or, with check, writes nothing
// and names each stale file on stderr. `tool` and `target` make the messages ("run: cmake
// --build build --target <target>"). Returns the exit status: 0, 1 (stale, with check)
// or 2 (a file could not be written).
int write_generated(const std::string& tool, const std::string& source, const std::string& target,
                    const std::vector<GeneratedFile>& files, bool check);

// A hand-written file that holds a generated region (a docs page, a stub file): its
// text, or SourceError naming `path` when it cannot be read.
std::string read_text(const std::string& path);

// `text` (the contents of `path`) with its generated region replaced by `region`: from the
// start of the line holding `begin` to the end of the line holding `end`, both marker lines
// included (so `region` writes them again). SourceError naming `path` when a marker is
// missing or out of order.
std::string splice_region(const std::string& text, const std::string& path, const std::string& begin,
                          const std::string& end, const std::string& region);

// Runs `generate` and turns the errors a generator meets into its exit status 2 with one
// line on stderr ("<tool>: FILE:LINE: problem").
template <typename F>
int run_generator(const std::string& tool, const std::string& yaml, F generate);

int report_error(const std::string& tool, const std::string& message);

template <typename F>
int run_generator(const std::string& tool, const std::string& yaml, F generate) {
  try {
    return generate();
  } catch (const SourceError& e) {
    return report_error(tool, e.what());
  } catch (const YAML::Exception& e) {
    return report_error(tool, yaml + ":" + std::to_string(e.mark.line + 1) + ": " + e.msg);
  }
}

}  // namespace ipusim::gen
