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

std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw SourceError(path + ": cannot read (the file the generated region goes into)");
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string splice_region(const std::string& text, const std::string& path, const std::string& begin,
                          const std::string& end, const std::string& region) {
  const size_t b = text.find(begin);
  const size_t e = b == std::string::npos ? std::string::npos : text.find(end, b);
  if (e == std::string::npos)
    throw SourceError(path + ": no generated region between a line '" + begin + "...' and a line '" + end + "'");
  const size_t line_start = text.rfind('\n', b) == std::string::npos ? 0 : text.rfind('\n', b) + 1;
  const size_t after = text.find('\n', e);
  return text.substr(0, line_start) + region + (after == std::string::npos ? "" : text.substr(after + 1));
}

int report_error(const std::string& tool, const std::string& message) {
  std::cerr << tool << ": " << message << "\n";
  return 2;
}

}  // namespace ipusim::gen
