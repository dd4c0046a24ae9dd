// isagen's source errors: each names the file, the line and the key, so a broken ISA
// source is fixed where it is broken. A small valid source is broken one way per case.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <string>

#include "isa_model.h"

namespace isagen {
namespace {

// A complete, valid source: one limit, one major, one group of two instructions, two CSRs.
const std::string kGood = R"(name: xipu
prefix: IPU
version: {major: 1, minor: 0}
memory:
  address_bits: 32
  sram_base: 0x40000
limits:
  - {name: BANKS, value: 8, doc: "banks"}
enums: []
majors:
  - {name: CUSTOM0, value: 0x0B, doc: "custom-0"}
groups:
  - name: THREAD
    title: "threads"
    major: CUSTOM0
    funct3: 0
    instructions:
      - {mnemonic: run, funct7: 0x00, operands: [rd, rs1, rs2], who: any, iss: xrun, doc: "start"}
      - mnemonic: mac
        funct7: 0x01
        operands: [rd, {name: bank, field: rs2, kind: imm, below: BANKS, optional: true}]
        who: any
        iss: amp_mac16
        doc: "mac"
csrs:
  - {name: fflags, number: 0x001, access: rw, std: true, doc: "flags"}
  - {name: tile, number: 0xCC0, access: ro, doc: "tile"}
)";

std::string write(const std::string& name, const std::string& text) {
  const std::string path = testing::TempDir() + "isagen_" + name + ".yaml";
  std::ofstream(path) << text;
  return path;
}

std::string replace(std::string text, const std::string& from, const std::string& to) {
  const size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  return text.replace(at, from.size(), to);
}

// 1-based line of the first occurrence of `what` in `text`.
int line_of(const std::string& text, const std::string& what) {
  const size_t at = text.find(what);
  EXPECT_NE(at, std::string::npos) << what;
  return 1 + static_cast<int>(std::count(text.begin(), text.begin() + static_cast<long>(at), '\n'));
}

std::string error_of(const std::string& name, const std::string& text) {
  const std::string path = write(name, text);
  try {
    parse_isa(path);
  } catch (const SourceError& e) {
    return e.what();
  }
  return "no error";
}

struct Case {
  const char* name;
  const char* from;  // what in kGood is replaced ...
  const char* to;    // ... by this
  const char* at;    // the text of the line the error must name (in the broken source)
  const char* want;  // "key: problem"
};

void PrintTo(const Case& c, std::ostream* os) { *os << c.name; }

class IsagenErrors : public testing::TestWithParam<Case> {};

TEST_P(IsagenErrors, NameFileLineAndKey) {
  const Case& c = GetParam();
  const std::string text = replace(kGood, c.from, c.to);
  const std::string want = testing::TempDir() + "isagen_" + c.name + ".yaml:" + std::to_string(line_of(text, c.at)) + ": " + c.want;
  EXPECT_EQ(error_of(c.name, text), want);
}

INSTANTIATE_TEST_SUITE_P(
    Source, IsagenErrors,
    testing::Values(
        Case{"unknown_key", "funct7: 0x00, operands", "fucnt7: 0x00, operands", "fucnt7", "fucnt7: unknown key in an instruction"},
        Case{"missing_key", "iss: xrun, ", "", "mnemonic: run", "iss: missing"},
        Case{"funct7_too_big", "funct7: 0x01", "funct7: 0x80", "funct7: 0x80", "funct7: 0x80 is above 0x7f"},
        Case{"not_a_number", "funct7: 0x01", "funct7: one", "funct7: one", "funct7: 'one' is not an unsigned number"},
        Case{"bad_field", "[rd, rs1, rs2]", "[rd, rs4]", "[rd, rs4]", "operands: 'rs4' is not rd, rs1, rs2 or rs3"},
        Case{"field_twice", "[rd, rs1, rs2]", "[rd, rs1, rs1]", "[rd, rs1, rs1]", "operands: field rs1 used twice"},
        Case{"unknown_limit", "below: BANKS", "below: LANES", "below: LANES", "below: 'LANES' is not one of the limits"},
        Case{"unknown_major", "major: CUSTOM0", "major: CUSTOM3", "major: CUSTOM3", "major: 'CUSTOM3' is not one of the majors"},
        Case{"funct3_twice", "funct7: 0x01", "funct7: 0x01\n        funct3: 1", "funct3: 1", "funct3: group THREAD already sets funct3"},
        Case{"overlap", "funct7: 0x01", "funct7: 0x00", "- mnemonic: mac", "mnemonic: mac: its encodings overlap those of run"},
        Case{"csr_ro_range", "number: 0xCC0, access: ro", "number: 0xCC0, access: rw", "0xCC0",
             "access: CSR 0xcc0 is in the read-only range (bits 11:10 = 3)"},
        Case{"csr_twice", "number: 0xCC0", "number: 0x001", "name: tile", "number: 0x001 already belongs to fflags"},
        Case{"name_twice", "{name: tile,", "{name: fflags,", "name: fflags, number: 0xCC0", "name: CSR_FFLAGS is defined twice"},
        Case{"major_not_32bit", "value: 0x0B", "value: 0x08", "value: 0x08", "value: 0x08: a 32-bit encoding has bits 1:0 = 11"},
        Case{"top_level_typo", "csrs:", "csr:", "csr:", "csr: unknown key in the top level"},
        Case{"rs3_wide_funct7", "funct7: 0x00, operands: [rd, rs1, rs2]", "funct7: 0x04, operands: [rd, rs1, rs2, rs3]", "mnemonic: run",
             "funct7: 0x4: an instruction with an rs3 operand has a 2-bit funct7 (0..3)"},
        Case{"min_at_limit", "below: BANKS, optional: true", "below: BANKS, min: 8", "min: 8",
             "min: 8 is not a minimum of the field's values (1 .. 7)"},
        Case{"min_optional", "below: BANKS, optional: true", "below: BANKS, min: 1, optional: true", "min: 1",
             "min: an optional operand (left out for 0) cannot have a minimum"},
        Case{"bad_kind", "kind: imm", "kind: fpiar", "kind: fpiar", "kind: 'fpiar' is not xreg, freg, fpair, fquad or imm"}),
    [](const testing::TestParamInfo<Case>& info) { return std::string(info.param.name); });

TEST(IsagenSource, CannotOpen) {
  try {
    parse_isa("/nonexistent/xipu.yaml");
    FAIL() << "parsed a file that does not exist";
  } catch (const SourceError& e) {
    EXPECT_EQ(std::string(e.what()), "/nonexistent/xipu.yaml: cannot open");
  }
}

TEST(IsagenSource, MatchAndMaskCoverTheFixedFields) {
  const Isa isa = parse_isa(write("good", kGood));
  const auto insns = isa.insns();
  ASSERT_EQ(insns.size(), 2u);
  EXPECT_EQ(insns[0]->match, 0x0000000Bu);  // run: funct7 0, funct3 0, custom-0
  EXPECT_EQ(insns[0]->mask, 0xFE00707Fu);   // rd, rs1, rs2 are operands
  EXPECT_EQ(insns[1]->match, 0x0200000Bu);  // mac: funct7 1
  EXPECT_EQ(insns[1]->mask, 0xFE0FF07Fu);   // rd and rs2 operands; rs1 must be zero
  EXPECT_EQ(insns[1]->operands[1].below_value, 8u);
  EXPECT_EQ(insns[1]->cname, "MAC");
}

// The real source parses (its outputs are checked by isa_current).
TEST(IsagenSource, TheIsaSourceParses) {
  const Isa isa = parse_isa("hw/isa/xipu.yaml");
  EXPECT_EQ(isa.sram_base, 0x40000u);
  EXPECT_EQ(isa.insns().size(), 51u);
  EXPECT_EQ(isa.csrs.size(), 24u);
  // An R4-type instruction: rs3 (bits 31:27) is an operand, funct2 (26:25) is fixed.
  for (const Insn* i : isa.insns()) {
    if (i->mnemonic != "ld128st64.pi") continue;
    EXPECT_TRUE(uses_rs3(*i));
    EXPECT_EQ(i->mask, 0x0600707Fu);
    EXPECT_EQ(i->operands[0].kind, Kind::fquad);
    EXPECT_EQ(i->operands[3].kind, Kind::fpair);
    return;
  }
  FAIL() << "no ld128st64.pi";
}

}  // namespace
}  // namespace isagen
