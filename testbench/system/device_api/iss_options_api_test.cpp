// OpenOptions::iss and IPUSIM_ISS (docs/host_driver.md, docs/iss.md "Translator"): the same
// bytes and cycles on either engine, in process and in the driver's own `ipusim serve`
// child (which gets `--iss`, or inherits IPUSIM_ISS); a bad value is a UsageError naming
// the option or the variable and the value; a unix: device takes `ipusim serve --iss`.
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>

#include "device_fixture.h"
#include "ipudrv/device.h"
#include "ipudrv/errors.h"
#include "serve_child.h"

namespace devapi {
namespace {

const std::string kTiny16 = "config:configs/test/tiny16.yaml";

std::string refusal(const std::function<void()>& open) {
  try {
    open();
  } catch (const ipudrv::UsageError& e) {
    return e.what();
  }
  return "(opened)";
}

// What a run of jacobi.elf leaves: tile 0's kc_result (hash and figures) and the stats.
struct Outcome {
  uint32_t result[8] = {};
  uint64_t cycles = 0, instructions = 0;
  uint32_t supersteps = 0;
};

Outcome run_jacobi(ipudrv::Device& dev) {
  dev.load(elf("jacobi.elf"));
  const ipudrv::RunResult r = dev.run(0, std::chrono::seconds(60));
  EXPECT_EQ(r.state, ipudrv::RunState::kHalted);
  EXPECT_EQ(r.exit_code, 0);
  Outcome o;
  dev.read_symbol(0, 0, "kc_result", writable_bytes_of(o.result));
  o.cycles = r.stats.cycles;
  o.instructions = r.stats.instructions;
  o.supersteps = r.stats.supersteps;
  return o;
}

class IssOpenOptions : public ::testing::Test {
 protected:
  void SetUp() override {
    ::setenv("IPUSIM_CONSOLE", "none", 1);
    ::setenv("IPUSIM_THREADS", "1", 1);
    ::unsetenv("IPUSIM_ISS");
  }
  void TearDown() override { ::unsetenv("IPUSIM_ISS"); }
};

TEST_F(IssOpenOptions, EitherEngineGivesTheSameBytesAndCycles) {
  ipudrv::OpenOptions jit;
  jit.iss = "jit";
  const Outcome in_process = run_jacobi(*ipudrv::open(kTiny16, 0, jit));
  // The process's model holds the jit system now: these run in serve children, one given
  // `--iss interp`, one inheriting IPUSIM_ISS=interp.
  ipudrv::OpenOptions interp;
  interp.iss = "interp";
  const std::unique_ptr<ipudrv::Device> child = ipudrv::open(kTiny16, 0, interp);
  EXPECT_FALSE(child->info().in_process);
  const Outcome by_option = run_jacobi(*child);
  ::setenv("IPUSIM_ISS", "interp", 1);
  const Outcome by_variable = run_jacobi(*ipudrv::enumerate(kTiny16).at(0).open());
  for (const Outcome* o : {&by_option, &by_variable}) {
    EXPECT_EQ(std::memcmp(o->result, in_process.result, sizeof o->result), 0);
    EXPECT_EQ(o->cycles, in_process.cycles);
    EXPECT_EQ(o->instructions, in_process.instructions);
    EXPECT_EQ(o->supersteps, in_process.supersteps);
  }
  EXPECT_GE(in_process.supersteps, 50u);
}

TEST_F(IssOpenOptions, ABadIssIsNamed) {
  ipudrv::OpenOptions o;
  o.iss = "fast";
  EXPECT_EQ(refusal([&] { ipudrv::open(kTiny16, 0, o); }), "OpenOptions::iss 'fast' is not jit, interp or lockstep");
}

TEST_F(IssOpenOptions, ABadIssVariableIsNamed) {
  ::setenv("IPUSIM_ISS", "JIT", 1);
  EXPECT_EQ(refusal([] { ipudrv::enumerate(kTiny16); }), "IPUSIM_ISS: 'JIT' is not jit, interp or lockstep");
  // An explicit choice does not read the variable.
  ipudrv::OpenOptions o;
  o.iss = "interp";
  EXPECT_EQ(refusal([&] { ipudrv::open(kTiny16, 0, o); }), "(opened)");
}

TEST_F(IssOpenOptions, AUnixDeviceTakesItFromItsServer) {
  const std::string socket = scratch_socket("iss");
  ServeChild server("configs/test/tiny16.yaml", socket, "--iss interp");
  ipudrv::OpenOptions o;
  o.iss = "jit";
  EXPECT_EQ(refusal([&] { ipudrv::open("unix:" + socket, 0, o); }),
            "open unix:" + socket + ": iss is for config: devices; serve this one with `ipusim serve --iss jit|interp|lockstep`");
  // Served with --iss interp: the same bytes and cycles as the default engine in process.
  const Outcome served = run_jacobi(*ipudrv::open("unix:" + socket));
  const Outcome in_process = run_jacobi(*ipudrv::open(kTiny16));
  EXPECT_EQ(std::memcmp(served.result, in_process.result, sizeof served.result), 0);
  EXPECT_EQ(served.cycles, in_process.cycles);
  EXPECT_EQ(served.instructions, in_process.instructions);
}

}  // namespace
}  // namespace devapi
