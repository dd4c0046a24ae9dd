// Text helpers the generators share.
#pragma once

#include <string>

namespace ipusim::gen {

std::string upper(const std::string& s);
std::string lower(const std::string& s);
// A Markdown table cell: '|' escaped.
std::string md_escape(const std::string& s);

}  // namespace ipusim::gen
