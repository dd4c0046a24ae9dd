// `ipusim run` / `ipusim serve` --iss and IPUSIM_ISS (docs/iss.md "Translator (--iss jit)"):
// either engine gives the same console bytes and cycles; the summary and the JSON say which
// engine ran, what chose it and what the translator did; --itrace's tiles run on the
// interpreter, said so when jit was asked for; bad values are refused naming the option or
// the variable and the value (exit 2).
#include <gtest/gtest.h>

#include <string>

#include <nlohmann/json.hpp>

#include "cli_run.h"
#include "iss/core_choice.h"

namespace ipusim {
namespace {

const std::string kBin = IPUSIM_BIN;
const std::string kJacobi = std::string(IPUSIM_FIRMWARE_DIR) + "/jacobi.elf";
const std::string kTiny16 = "configs/test/tiny16.yaml";

std::string temp_path(const std::string& name) { return test::temp_path("iss_opt_", name); }

// `ipusim ARGS` with `env` (VAR=VALUE words, or empty) in its environment; IPUSIM_ISS is
// always set (empty: unset) so the test does not depend on the caller's.
test::CliResult ipusim(const std::string& env, const std::string& args) {
  return test::run_command("env -u IPUSIM_ISS " + env + " " + kBin, "iss_opt_", args);
}

struct RunOutput {
  test::CliResult cli;
  nlohmann::json json;
};

RunOutput run_jacobi(const std::string& env, const std::string& options) {
  const std::string json = temp_path("run.json");
  RunOutput r;
  r.cli = ipusim(env, "run --config " + kTiny16 + " --elf " + kJacobi + " --console raw --threads 2 --json " + json +
                          " " + options);
  if (r.cli.status == 0) r.json = nlohmann::json::parse(test::read_file(json));
  return r;
}

const char* built_default() { return iss::translator_built() ? "jit" : "interp"; }

TEST(IssOption, EitherEngineGivesTheSameBytesAndCyclesAndTheSummarySaysWhich) {
  const RunOutput interp = run_jacobi("", "--iss interp");
  const RunOutput jit = run_jacobi("", "--iss jit");
  ASSERT_EQ(interp.cli.status, 0) << interp.cli.err;
  ASSERT_EQ(jit.cli.status, 0) << jit.cli.err;
  EXPECT_EQ(jit.cli.out, interp.cli.out);
  EXPECT_EQ(jit.json["tile_cycles"], interp.json["tile_cycles"]);
  EXPECT_EQ(jit.json["instructions"], interp.json["instructions"]);
  EXPECT_EQ(jit.json["per_tile"], interp.json["per_tile"]);
  EXPECT_EQ(jit.json["supersteps"], interp.json["supersteps"]);

  EXPECT_EQ(interp.json["iss_core"], "interp");
  EXPECT_EQ(interp.json["iss_core_source"], "--iss interp");
  EXPECT_EQ(interp.json["jit_regions"], 0);
  EXPECT_NE(interp.cli.err.find("  ISS                 interp (--iss interp)\n"), std::string::npos) << interp.cli.err;

  EXPECT_EQ(jit.json["iss_core_source"], "--iss jit");
  EXPECT_EQ(jit.json["itrace_tiles"], 0);
  if (iss::translator_built()) {
    EXPECT_EQ(jit.json["iss_core"], "jit");
    EXPECT_GT(jit.json["jit_regions"].get<uint64_t>(), 0u);
    EXPECT_GT(jit.json["jit_code_bytes"].get<uint64_t>(), 0u);
    EXPECT_GT(jit.json["jit_seconds"].get<double>(), 0.0);
    EXPECT_LE(jit.json["jit_share"].get<double>(), 1.0);
    EXPECT_NE(jit.cli.err.find("  ISS                 jit (--iss jit): "), std::string::npos) << jit.cli.err;
    EXPECT_NE(jit.cli.err.find("% of host seconds)"), std::string::npos) << jit.cli.err;
  } else {
    EXPECT_EQ(jit.json["iss_core"], "interp");
    EXPECT_NE(jit.cli.err.find("interp (--iss jit: the translator is not in this build)"), std::string::npos)
        << jit.cli.err;
  }
}

TEST(IssOption, WithoutIssTheEnvironmentElseTheBuildDecides) {
  const RunOutput plain = run_jacobi("", "--quiet");
  ASSERT_EQ(plain.cli.status, 0) << plain.cli.err;
  EXPECT_EQ(plain.json["iss_core"], built_default());
  EXPECT_EQ(plain.json["iss_core_source"], "the default");
  EXPECT_EQ(plain.cli.err, "");  // a build without the translator says nothing of it by default

  const RunOutput env = run_jacobi("IPUSIM_ISS=interp", "--quiet");
  ASSERT_EQ(env.cli.status, 0) << env.cli.err;
  EXPECT_EQ(env.json["iss_core"], "interp");
  EXPECT_EQ(env.json["iss_core_source"], "IPUSIM_ISS=interp");
  EXPECT_EQ(env.json["tile_cycles"], plain.json["tile_cycles"]);

  const RunOutput option = run_jacobi("IPUSIM_ISS=interp", "--quiet --iss jit");  // the option wins
  ASSERT_EQ(option.cli.status, 0) << option.cli.err;
  EXPECT_EQ(option.json["iss_core_source"], "--iss jit");
}

TEST(IssOption, TracedTilesRunOnTheInterpreterAndAnExplicitJitIsToldSo) {
  if (!iss::translator_built()) GTEST_SKIP() << "the translator is not in this build: --iss jit runs the interpreter";
  const std::string trace_jit = temp_path("jit.trace"), trace_interp = temp_path("interp.trace");
  const RunOutput jit = run_jacobi("", "--quiet --iss jit --itrace " + trace_jit + " --itrace-tiles 2");
  const RunOutput interp = run_jacobi("", "--quiet --iss interp --itrace " + trace_interp + " --itrace-tiles 2");
  ASSERT_EQ(jit.cli.status, 0) << jit.cli.err;
  ASSERT_EQ(interp.cli.status, 0) << interp.cli.err;
  EXPECT_EQ(jit.cli.err,
            "ipusim: --itrace: the traced tiles run on the interpreter, which reports every instruction (--iss jit "
            "applies to the others; the results are the same)\n");
  EXPECT_EQ(interp.cli.err, "");
  EXPECT_EQ(jit.json["itrace_tiles"], 1);
  EXPECT_EQ(jit.json["per_tile"], interp.json["per_tile"]);
  const std::string traced = test::read_file(trace_jit);
  EXPECT_GT(traced.size(), 1000u);
  EXPECT_EQ(traced, test::read_file(trace_interp));

  // By default nothing is said on stderr: the summary tells.
  const RunOutput plain = run_jacobi("", "--itrace " + temp_path("plain.trace") + " --itrace-tiles 0-1");
  ASSERT_EQ(plain.cli.status, 0) << plain.cli.err;
  EXPECT_EQ(plain.json["itrace_tiles"], 2);
  EXPECT_NE(plain.cli.err.find("; 2 traced tile(s) on the interpreter (--itrace)\n"), std::string::npos)
      << plain.cli.err;
}

TEST(IssOption, BadValuesNameTheOptionOrTheVariable) {
  const auto option = ipusim("", "run --config " + kTiny16 + " --elf " + kJacobi + " --iss fast");
  EXPECT_EQ(option.status, 2) << option.err;
  EXPECT_NE(option.err.find("--iss"), std::string::npos) << option.err;
  EXPECT_NE(option.err.find("fast"), std::string::npos) << option.err;
  EXPECT_EQ(option.out, "");

  const auto env = ipusim("IPUSIM_ISS=fast", "run --config " + kTiny16 + " --elf " + kJacobi);
  EXPECT_EQ(env.status, 2) << env.err;
  EXPECT_EQ(env.err, "ipusim: error: IPUSIM_ISS: 'fast' is not jit, interp or lockstep\n");
  EXPECT_EQ(env.out, "");

  const std::string socket = temp_path("s.sock");
  const auto serve = ipusim("", "serve --config " + kTiny16 + " --socket " + socket + " --iss fast");
  EXPECT_EQ(serve.status, 2) << serve.err;
  EXPECT_NE(serve.err.find("--iss"), std::string::npos) << serve.err;
  EXPECT_NE(serve.err.find("fast"), std::string::npos) << serve.err;
  const auto serve_env = ipusim("IPUSIM_ISS=JIT", "serve --config " + kTiny16 + " --socket " + socket);
  EXPECT_EQ(serve_env.status, 2) << serve_env.err;
  EXPECT_EQ(serve_env.err, "ipusim: error: IPUSIM_ISS: 'JIT' is not jit, interp or lockstep\n");
}

}  // namespace
}  // namespace ipusim
