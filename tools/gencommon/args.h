// The command line every generator takes:
//
//   TOOL --yaml SRC --target T <its outputs: --OPTION PATH ...> [--source-name NAME] [--check]
//
// --target is the build target that runs the tool (named in the --check hint),
// --source-name how the generated files name the source (default: SRC); with --check
// nothing is written and a stale output is an error (generated_files.h). CMake's
// ipusim_add_generator (tools/gencommon/CMakeLists.txt) passes all but the outputs.
#pragma once

#include <initializer_list>
#include <map>
#include <optional>
#include <string>

namespace ipusim::gen {

struct GenArgs {
  std::string yaml;    // --yaml: where the source is read from
  std::string source;  // --source-name, else yaml
  std::string target;  // --target: "run: cmake --build build --target <target>"
  bool check = false;
  std::map<std::string, std::string> outputs;  // "--header" -> path: every required option

  const std::string& operator[](const std::string& option) const { return outputs.at(option); }
};

struct Option {
  const char* name;     // "--header"
  const char* metavar;  // "H", for the usage line
};

// Parses argv; `outputs` are the tool's own options, all required. On a bad, unknown or
// missing argument prints "<tool>: problem" and the usage line to stderr and returns
// nullopt (the tool exits with status 2).
std::optional<GenArgs> parse_args(int argc, char** argv, const std::string& tool, const std::string& program,
                                  std::initializer_list<Option> outputs);

}  // namespace ipusim::gen
