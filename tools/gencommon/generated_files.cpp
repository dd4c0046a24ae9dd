#include "generated_files.h"

#include <fstream>
#include <iostream>
#include <sstream>

namespace ipusim::gen {
namespace {

std::string read_all(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return {};
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace

YAML::Node load_source(const std::string& path) {
  try {
    return YAML::LoadFile(path);
  } catch (const YAML::BadFile&) {
    throw SourceError(path + ": cannot open");
  } catch (const YAML::ParserException& e) {
    throw SourceError(path + ":" + std::to_string(e.mark.line + 1) + ": " + e.msg);
  }
}

int write_generated(const std::string& tool, const std::string& source, const std::string& target,
                    const std::vector<GeneratedFile>& files, bool check) {
  int status = 0;
  for (const GeneratedFile& f : files) {
    if (read_all(f.path) == f.content) continue;
    if (check) {
      std::cerr << tool << ": " << f.path << " is not what " << source
                << " generates; run: cmake --build build --target " << target << "\n";
      status = 1;
      continue;
    }
    std::ofstream out(f.path, std::ios::binary | std::ios::trunc);
    out << f.content;
    if (!out) {
      std::cerr << tool << ": cannot write " << f.path << "\n";
      return 2;
    }
  }
  return status;
}

int report_error(const std::string& tool, const std::string& message) {
  std::cerr << tool << ": " << message << "\n";
  return 2;
}

}  // namespace ipusim::gen
