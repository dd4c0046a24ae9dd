// A model that stops the run from inside the kernel (docs/cosim.md "Assertions and
// coverage"): a block running as RTL whose own check fails throws cosim::RtlCheckError in
// a SystemC process, and SystemC hands it back from sc_start as an sc_report. The run ends
// Aborted with a MODEL problem (the check, block, instance and cycle in its text) — in
// `ipusim run`'s platform and through the device's ERR_* registers — never a
// std::terminate, and the device stays answerable: every later run ends the same way.
//
// The failing block is a stand-in AMP datapath planted on a tile (the seam the RTL AMP
// uses, iss/amp_datapath.h), so no RTL has to be broken. Each case its own process.
#include <gtest/gtest.h>

#include <memory>
#include <stdexcept>
#include <string>

#include "cosim/rtl_checks.h"
#include "host_if/host_interface.h"
#include "host_if/model_session.h"
#include "iss/amp_datapath.h"
#include "platform/platform.h"
#include "rv_asm.h"
#include "sim_fixture.h"
#include "test_host.h"
#include "test_system.h"

namespace ipusim::test {
namespace {

using host_if::ModelSession;

cosim::RtlCheckFailure planted_failure() {
  return {.block = "amp",
          .instance = "ipu0.tile1.amp",
          .check = "a_planted",
          .scope = "amp_top",
          .message = "a planted failure",
          .cycle = 7};
}

// Every amp.mac fails: as the RTL AMP's transactor does when an assertion fired at the
// clock edge (RtlCheckError), or with any other error (a model that gives up).
class FailingDatapath : public iss::AmpDatapath {
 public:
  explicit FailingDatapath(bool rtl_check) : rtl_check_(rtl_check) {}
  void mac(bool, uint32_t, const uint8_t*, const uint8_t*, float*) override {
    if (rtl_check_) throw cosim::RtlCheckError(planted_failure());
    throw std::runtime_error("amp RTL: no result from the array after 64 cycles");
  }

 private:
  bool rtl_check_;
};

// A chip of `tiles` whose tiles have an f32 AMP (small_system's have none).
config::SystemConfig amp_system(uint32_t tiles) {
  config::SystemConfig s = small_system(tiles);
  s.board.chip.tile.amp_f16_macs_per_cycle = 64;
  s.board.chip.tile.amp_f32_macs_per_cycle = 16;
  return s;
}

// One amp.mac on every tile, then halt 0.
Asm amp_program() {
  Asm a;
  a.li(s0, iss::kSramBase + 0x8000);
  a.amp_clr(IPU_AMP_F32);
  a.amp_ldw(IPU_AMP_F32, s0);
  a.amp_mac(IPU_AMP_F32, s1, s0, 0);
  a.halt(zero);
  return a;
}

TEST(ModelError, AnRtlCheckFailureEndsTheRunAbortedWithAModelProblem) {
  platform::Platform platform(amp_system(2), quiet_options());
  platform.ipu(0).tile(1).set_amp_datapath(std::make_unique<FailingDatapath>(true));
  platform.load(program(amp_program()));
  const platform::RunResult r = platform.run();
  ASSERT_EQ(r.end.kind, RunEndKind::Aborted) << (r.end.problem() ? to_text(*r.end.problem()) : "");
  ASSERT_NE(r.end.problem(), nullptr);
  const Problem& p = *r.end.problem();
  EXPECT_EQ(p.code, ProblemCode::Model);
  EXPECT_EQ(p.kind, "RTL assertion");
  EXPECT_EQ(p.detail, cosim::to_text(planted_failure()));
  EXPECT_EQ(to_text(p),
            "RTL assertion a_planted failed in amp ipu0.tile1.amp (amp_top) at cycle 7: a planted failure");
  ASSERT_TRUE(p.cycle.has_value());
  ASSERT_NE(platform.gave_up(), nullptr);
  EXPECT_EQ(*platform.gave_up(), p);
  // Nothing of it is left for another error to be taken for.
  EXPECT_FALSE(cosim::take_rtl_failure(cosim::to_text(planted_failure())));
}

TEST(ModelError, AnyOtherErrorOfAModelEndsTheRunAsAModelError) {
  platform::Platform platform(amp_system(2), quiet_options());
  platform.ipu(0).tile(0).set_amp_datapath(std::make_unique<FailingDatapath>(false));
  platform.load(program(amp_program()));
  const platform::RunResult r = platform.run();
  ASSERT_EQ(r.end.kind, RunEndKind::Aborted) << (r.end.problem() ? to_text(*r.end.problem()) : "");
  ASSERT_NE(r.end.problem(), nullptr);
  EXPECT_EQ(r.end.problem()->code, ProblemCode::Model);
  EXPECT_EQ(r.end.problem()->kind, "model error");
  EXPECT_NE(r.end.problem()->detail.find("amp RTL: no result from the array after 64 cycles"), std::string::npos)
      << r.end.problem()->detail;
}

// Through the registers: STATE ERROR, ERR_CODE MODEL, ERR_KIND and ERR_TEXT; the device
// still answers, its memory can be read, and a later run ends the same way at once.
TEST(ModelError, TheDeviceReportsItInItsErrorRegistersAndStaysAnswerable) {
  auto sys = ModelSession::open(tiny4(), quiet());
  sys->wait_idle();  // the model thread waits: the stand-in goes in before any command
  sys->host_interface(0).platform().ipu(0).tile(1).set_amp_datapath(std::make_unique<FailingDatapath>(true));
  TestHost host(sys->link(0));
  const auto p = program(amp_program());
  host.load(*p, 0, 0, 4);
  ASSERT_EQ(host.run(), IPU_STATE_ERROR);
  EXPECT_EQ(host.reg(IPU_REG_ERR_CODE), IPU_ERR_MODEL);
  EXPECT_EQ(host.err_text(), cosim::to_text(planted_failure()));
  // The code's data can still be read back (DMA, no simulation of the tiles).
  const std::vector<uint8_t> code = host.read_tile(0, 2, p->entry(), 4);
  EXPECT_EQ(code.size(), 4u);
  // A later run ends at once with the same problem.
  host.reset();
  host.load(*p, 0, 0, 4);
  EXPECT_EQ(host.run(), IPU_STATE_ERROR);
  EXPECT_EQ(host.reg(IPU_REG_ERR_CODE), IPU_ERR_MODEL);
  EXPECT_EQ(host.err_text(), cosim::to_text(planted_failure()));
}

}  // namespace
}  // namespace ipusim::test
