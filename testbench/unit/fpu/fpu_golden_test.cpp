// The exact FPU against golden vectors recorded from qemu-riscv32 (a SoftFloat-based
// RISC-V F implementation): every line of golden_vectors.txt is one instruction executed
// in one rounding mode, with its result and fflags, which must match bit for bit.
// The file is produced offline by gen/regen.sh, so qemu is not needed to run this test.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <iostream>
#include <map>
#include <set>
#include <sstream>

#include "fpu_test_util.h"

namespace ipusim::iss::fpu::test {
namespace {

struct Vector {
  int line;
  const OpInfo* op;
  uint32_t rm;
  uint32_t operands[3];
  uint32_t result;
  uint32_t flags;
};

// Parses the vector file; malformed lines fail the test with file and line.
std::vector<Vector> load_vectors(const std::string& path) {
  std::ifstream in(path);
  EXPECT_TRUE(in.good()) << "cannot open " << path;
  std::vector<Vector> vectors;
  std::string text;
  for (int line = 1; std::getline(in, text); ++line) {
    if (text.empty() || text[0] == '#') continue;
    std::istringstream fields(text);
    std::string name;
    Vector v{line, nullptr, 0, {0, 0, 0}, 0, 0};
    fields >> name >> std::hex >> v.rm;
    v.op = find_op(name);
    if (v.op == nullptr) {
      ADD_FAILURE() << path << ":" << line << ": unknown op '" << name << "'";
      continue;
    }
    for (int i = 0; i < v.op->operands; ++i) fields >> v.operands[i];
    fields >> v.result >> v.flags;
    std::string extra;
    if (fields.fail() || (fields >> extra) || v.rm > 4 || v.flags > 0x1f) {
      ADD_FAILURE() << path << ":" << line << ": malformed vector '" << text << "'";
      continue;
    }
    vectors.push_back(v);
  }
  return vectors;
}

// Checks every vector; returns the (op -> rounding modes) coverage seen.
std::map<std::string, std::set<uint32_t>> check_vectors(const std::vector<Vector>& vectors,
                                                        const std::string& file) {
  int mismatches = 0;
  std::map<std::string, std::set<uint32_t>> modes_seen;
  for (const Vector& v : vectors) {
    uint32_t flags = 0;
    const uint32_t got = apply(v.op->op, v.operands[0], v.operands[1], v.operands[2], v.rm, flags);
    modes_seen[v.op->name].insert(v.rm);
    if (got == v.result && flags == v.flags) continue;
    if (++mismatches <= 20)
      ADD_FAILURE() << file << ":" << v.line << ": " << v.op->name << " "
                    << mode_name(v.rm) << " (" << hex(v.operands[0]) << ", "
                    << hex(v.operands[1]) << ", " << hex(v.operands[2]) << "): got " << hex(got)
                    << " " << flag_names(flags) << ", qemu " << hex(v.result) << " "
                    << flag_names(v.flags);
  }
  EXPECT_EQ(mismatches, 0) << "of " << vectors.size() << " vectors";
  return modes_seen;
}

TEST(FpuGolden, MatchesQemuBitForBit) {
  const std::vector<Vector> vectors = load_vectors(FPU_GOLDEN_VECTORS);
  ASSERT_GT(vectors.size(), 8000u) << "the golden file looks truncated";
  auto modes_seen = check_vectors(vectors, "golden_vectors.txt");
  // Coverage: every operation appears, the rounding ones in all five modes.
  for (const OpInfo& info : kOps) {
    EXPECT_EQ(modes_seen[info.name].size(), info.rounds ? 5u : 1u) << info.name;
  }

  // A bulk cross-check against a larger, uncommitted qemu vector file
  // (gen/regen.sh --random N --seed S --out FILE), when IPUSIM_FPU_EXTRA_VECTORS names one.
  if (const char* extra = std::getenv("IPUSIM_FPU_EXTRA_VECTORS")) {
    const std::vector<Vector> more = load_vectors(extra);
    ASSERT_FALSE(more.empty()) << extra;
    check_vectors(more, extra);
    std::cout << "also checked " << more.size() << " vectors from " << extra << "\n";
  }
}

}  // namespace
}  // namespace ipusim::iss::fpu::test
