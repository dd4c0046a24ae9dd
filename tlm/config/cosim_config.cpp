// CosimConfig's text forms (common/config.h): the `--rtl` list and its inverse.
#include <stdexcept>

#include "common/config.h"

namespace ipusim::config {

namespace {
struct Block {
  const char* name;
  BlockModel CosimConfig::*model;
};
constexpr Block kBlocks[] = {{"sync", &CosimConfig::sync}, {"link", &CosimConfig::link}, {"amp", &CosimConfig::amp}};
}  // namespace

std::string CosimConfig::rtl_list() const {
  std::string out;
  for (const Block& b : kBlocks)
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
    const Block* found = nullptr;
    for (const Block& b : kBlocks)
      if (item == b.name) found = &b;
    if (!found)
      throw std::invalid_argument("'" + item + "' is not a block with RTL (sync, link, amp; or 'none' for none)");
    if (c.*found->model == BlockModel::Rtl) throw std::invalid_argument("'" + item + "' is given twice");
    c.*found->model = BlockModel::Rtl;
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return c;
}

}  // namespace ipusim::config
