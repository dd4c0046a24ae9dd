// CosimConfig's text forms (common/config_schema.h, generated): the `--rtl` list and its
// inverse, over kCosimBlocks, the one list of the blocks that have an RTL model.
#include <stdexcept>

#include "common/config.h"

namespace ipusim::config {

namespace {
std::string block_names() {
  std::string names;
  for (const CosimBlock& b : kCosimBlocks) names += (names.empty() ? "" : ", ") + std::string(b.name);
  return names;
}
}  // namespace

std::string CosimConfig::rtl_list() const {
  std::string out;
  for (const CosimBlock& b : kCosimBlocks)
    if (this->*b.model == BlockModel::Rtl) out += (out.empty() ? "" : ",") + std::string(b.name);
  return out.empty() ? "none" : out;
}

CosimConfig CosimConfig::parse_rtl_list(const std::string& list) {
  CosimConfig c;
  if (list == "none") return c;
  size_t start = 0;
  while (true) {
    const size_t comma = list.find(',', start);
    const std::string item = list.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    const CosimBlock* found = nullptr;
    for (const CosimBlock& b : kCosimBlocks)
      if (item == b.name) found = &b;
    if (!found)
      throw std::invalid_argument("'" + item + "' is not a block with RTL (" + block_names() + "; or 'none' for none)");
    if (c.*found->model == BlockModel::Rtl) throw std::invalid_argument("'" + item + "' is given twice");
    c.*found->model = BlockModel::Rtl;
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return c;
}

}  // namespace ipusim::config
