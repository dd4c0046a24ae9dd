// Runs each fault program of testbench/firmware/faults through `ipusim run` and checks
// the run stops with a non-zero exit status and a problem record (the JSON's `error`
// object, field by field) naming the tile, the thread, the pc and the instruction word
// (docs/xipu.md, "Faults"), after delivering what the program printed before it faulted.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <fstream>

#include <nlohmann/json.hpp>

#include "elf_image.h"
#include "fwtest_env.h"

namespace ipusim::fwtest {
namespace {

struct FaultCase {
  std::string program;
  std::string kind;          // words the kind must contain (any case)
  uint32_t thread_min, thread_max;  // the faulting thread id's range
  bool at_jump_target;       // a fetch fault: the message must name the jump target
                             // `fault_target` (as the pc, or in the detail of a fault
                             // reported at the jump), and there is no instruction word
};

const std::vector<FaultCase>& cases() {
  static const std::vector<FaultCase> all{
      {"fault_illegal", "illegal instruction", 0, 0, false},
      {"fault_csr_write", "illegal instruction", 0, 0, false},
      {"fault_worker_halt", "illegal instruction", 1, 6, false},
      {"fault_misaligned", "misaligned", 0, 0, false},
      {"fault_null", "access fault", 0, 0, false},
      {"fault_out_of_sram", "access fault", 0, 0, false},
      {"fault_store_code", "access fault", 0, 0, false},
      {"fault_jump_outside", "access fault", 0, 0, true},
      {"fault_worker_start", "worker start", 1, 6, false},
      {"fault_ecall", "ecall", 0, 0, false},
  };
  return all;
}

// Names the case in test output (gtest would print its bytes).
void PrintTo(const FaultCase& c, std::ostream* os) { *os << c.program; }

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  return s;
}

class Fault : public testing::TestWithParam<FaultCase> {};

TEST_P(Fault, StopsTheRunNamingTileThreadPcAndInstruction) {
  const FaultCase& c = GetParam();
  fs::path elf_path = env().firmware_dir / "faults" / (c.program + ".elf");
  ElfImage elf = ElfImage::load(elf_path);
  uint32_t site = elf.require_symbol("fault_site");
  uint32_t pc = c.at_jump_target ? elf.require_symbol("fault_target") : site;
  std::optional<uint32_t> insn = elf.word_at(pc);
  ASSERT_TRUE(insn.has_value());

  const fs::path dir = scratch_dir("Fault", c.program);
  const fs::path json = dir / "run.json";
  ProcessResult run = run_ipusim(elf_path, dir, {"--json", json.string()});
  std::string text = lower(run.out + run.err);
  SCOPED_TRACE("ipusim stdout:\n" + run.out + "\nipusim stderr:\n" + run.err);

  ASSERT_TRUE(run.exited) << "ipusim " << run.describe();
  EXPECT_NE(run.exit_status, 0);
  EXPECT_NE(run.out.find(c.program + ": "), std::string::npos)
      << "the line printed before the fault is missing";
  EXPECT_EQ(run.out.find("not reached"), std::string::npos);
  std::ifstream in(json);
  ASSERT_TRUE(in) << "no JSON at " << json;
  const nlohmann::json e = nlohmann::json::parse(in)["error"];
  ASSERT_TRUE(e.is_object()) << e;
  EXPECT_EQ(e["code"], "TILE_FAULT");
  EXPECT_NE(lower(e["kind"].get<std::string>()).find(c.kind), std::string::npos) << "kind " << e["kind"];
  EXPECT_EQ(e["ipu"], 0);
  EXPECT_EQ(e["tile"], 0);
  ASSERT_TRUE(e["thread"].is_number()) << e;
  EXPECT_GE(e["thread"].get<uint32_t>(), c.thread_min);
  EXPECT_LE(e["thread"].get<uint32_t>(), c.thread_max);
  if (c.at_jump_target) {  // at the target, or at the jump naming the target
    EXPECT_TRUE(e["pc"] == pc || (e["pc"] == site && e["address"] == pc)) << e;
  } else {
    EXPECT_EQ(e["pc"], pc) << fmt::format("pc {:#010x} not named", pc);
  }
  EXPECT_NE(text.find(fmt::format("{:#010x}", pc)), std::string::npos)
      << fmt::format("pc {:#010x} not in the message", pc);
  if (!c.at_jump_target) {
    EXPECT_NE(text.find(fmt::format("{:#010x}", *insn)), std::string::npos)
        << fmt::format("instruction word {:#010x} not named", *insn);
    // Located (docs/debugging.md): the C function around the fault site and its line,
    // in the JSON and in the stderr line.
    const std::string source =
        fmt::format("faults/{}.c:{}", c.program, line_of(env().faults_source / (c.program + ".c"), "FAULT_SITE"));
    ASSERT_TRUE(e["function"].is_string()) << e;
    const std::string function = e["function"];
    EXPECT_NE(function, "fault_site") << "the symbol table's label, not the C function";
    EXPECT_EQ(e["source"], source);
    EXPECT_NE(run.err.find(fmt::format("{:#010x} in {} ({}): ", pc, function, source)), std::string::npos)
        << "the fault line does not name " << function << " (" << source << ")";
  }
  // The faulting thread's registers: in the JSON, and printed after the fault line.
  ASSERT_TRUE(e["registers"].is_object()) << e;
  EXPECT_EQ(e["registers"]["pc"], e["pc"]);
  ASSERT_EQ(e["registers"]["x"].size(), 32u);
  EXPECT_EQ(e["registers"]["x"][0], 0);
  ASSERT_EQ(e["registers"]["f"].size(), 32u);
  EXPECT_TRUE(e["registers"]["fcsr"].is_number());
  const uint32_t sp = e["registers"]["x"][2];
  EXPECT_NE(run.err.find(fmt::format("sp   {:#010x}", sp)), std::string::npos) << "no register dump on stderr";
  EXPECT_NE(run.err.find("t6   0x"), std::string::npos);
  EXPECT_NE(run.err.find("ft11 0x"), std::string::npos);
}

TEST(FaultSetup, EveryFaultProgramHasACase) {
  std::vector<std::string> programs = sources_in(env().faults_source);
  ASSERT_FALSE(programs.empty());
  for (const auto& p : programs)
    EXPECT_TRUE(std::any_of(cases().begin(), cases().end(),
                            [&](const FaultCase& c) { return c.program == p; }))
        << p << ".c has no expectation in fault_test.cpp";
}

INSTANTIATE_TEST_SUITE_P(Faults, Fault, testing::ValuesIn(cases()),
                         [](const testing::TestParamInfo<FaultCase>& info) {
                           return info.param.program;
                         });

}  // namespace
}  // namespace ipusim::fwtest
