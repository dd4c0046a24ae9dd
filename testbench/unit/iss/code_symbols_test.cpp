// CodeSymbols: which symbol names a pc in a trace (<func+off>).
#include <gtest/gtest.h>

#include "iss/code_symbols.h"

namespace ipusim::iss {
namespace {

using E = CodeSymbols::Entry;

std::string at(const CodeSymbols& s, uint32_t pc) {
  const auto l = s.locate(pc);
  return l ? std::string(l->name) + "+" + std::to_string(l->offset) : "none";
}

TEST(CodeSymbols, TheFunctionHoldingThePcWinsOverALabelInsideIt) {
  const CodeSymbols s({E{"main", 0x100, 0x40, true, true}, E{"__boundary", 0x120, 0, false, true},
                       E{"_start", 0x80, 0, false, true}, E{"$x", 0x100, 0, false, false},
                       E{".L3", 0x104, 0, false, false}, E{"helper", 0x140, 0x10, true, false}});
  EXPECT_EQ(at(s, 0x7c), "none");
  EXPECT_EQ(at(s, 0x80), "_start+0");
  EXPECT_EQ(at(s, 0x9c), "_start+28");
  EXPECT_EQ(at(s, 0x100), "main+0");
  EXPECT_EQ(at(s, 0x124), "main+36") << "a label inside a function does not hide it";
  EXPECT_EQ(at(s, 0x144), "helper+4");
  EXPECT_EQ(at(s, 0x150), "helper+16") << "past every symbol's end: the nearest below";
}

TEST(CodeSymbols, AtOneAddressAGlobalWinsWhateverTheOrder) {
  const CodeSymbols a({E{"local_name", 0x200, 0, false, false}, E{"global_name", 0x200, 0, false, true}});
  const CodeSymbols b({E{"global_name", 0x200, 0, false, true}, E{"local_name", 0x200, 0, false, false}});
  EXPECT_EQ(at(a, 0x204), "global_name+4");
  EXPECT_EQ(at(b, 0x204), "global_name+4");
  EXPECT_TRUE(CodeSymbols().empty());
  EXPECT_FALSE(CodeSymbols().locate(0x200).has_value());
}

}  // namespace
}  // namespace ipusim::iss
