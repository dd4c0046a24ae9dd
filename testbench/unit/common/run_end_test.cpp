// How a run ended (common/run_end.h): each kind's accessors give its problems and nothing
// else, and its STATUS.STATE rendering.
#include "common/run_end.h"

#include <gtest/gtest.h>

#include <ipu/hostif_regs.h>

#include <string>

namespace ipusim {
namespace {

constexpr RunEndKind kKinds[] = {RunEndKind::Fault,       RunEndKind::ExchangeError, RunEndKind::Deadlock,
                                 RunEndKind::Halted,      RunEndKind::Budget,        RunEndKind::Interrupted,
                                 RunEndKind::Aborted,     RunEndKind::Paused,        RunEndKind::StreamWait};

Problem problem(ProblemCode code, std::string detail) {
  Problem p;
  p.code = code;
  p.detail = std::move(detail);
  return p;
}

RunEnd end_of(RunEndKind kind) {
  RunEnd e{.kind = kind};
  switch (kind) {
    case RunEndKind::Fault: e.problems = {problem(ProblemCode::TileFault, "f")}; break;
    case RunEndKind::ExchangeError:
      e.problems = {problem(ProblemCode::Exchange, "x1"), problem(ProblemCode::Exchange, "x2")};
      break;
    case RunEndKind::Deadlock: e.problems = {problem(ProblemCode::Deadlock, "d")}; break;
    case RunEndKind::Budget: e.problems = {problem(ProblemCode::Budget, "b")}; break;
    case RunEndKind::Interrupted: e.problems = {problem(ProblemCode::Interrupted, "i")}; break;
    case RunEndKind::Aborted: e.problems = {problem(ProblemCode::State, "a")}; break;
    default: break;
  }
  return e;
}

TEST(RunEnd, OverAndFailedByKind) {
  for (RunEndKind k : kKinds) {
    const RunEnd e = end_of(k);
    const bool held = k == RunEndKind::Paused || k == RunEndKind::StreamWait;
    EXPECT_EQ(e.over(), !held) << kind_name(k);
    EXPECT_EQ(e.failed(), !held && k != RunEndKind::Halted) << kind_name(k);
    if (e.failed()) {
      ASSERT_NE(e.problem(), nullptr) << kind_name(k);
      EXPECT_EQ(e.problem(), &e.problems.front()) << kind_name(k);
    } else {
      EXPECT_EQ(e.problem(), nullptr) << kind_name(k);
    }
  }
}

TEST(RunEnd, EachAccessorAnswersForItsKindOnly) {
  for (RunEndKind k : kKinds) {
    const RunEnd e = end_of(k);
    EXPECT_EQ(e.fault() != nullptr, k == RunEndKind::Fault) << kind_name(k);
    EXPECT_EQ(e.deadlock() != nullptr, k == RunEndKind::Deadlock) << kind_name(k);
    EXPECT_EQ(e.exchange_errors().size(), k == RunEndKind::ExchangeError ? 2u : 0u) << kind_name(k);
    EXPECT_EQ(e.stopped() != nullptr, k == RunEndKind::Budget || k == RunEndKind::Interrupted) << kind_name(k);
  }
  EXPECT_EQ(end_of(RunEndKind::ExchangeError).exchange_errors()[1].detail, "x2");
  EXPECT_EQ(end_of(RunEndKind::Fault).fault()->detail, "f");
}

TEST(RunEnd, RendersAsStatusState) {
  EXPECT_EQ(ipu_state(RunEndKind::Halted), uint32_t(IPU_STATE_HALTED));
  EXPECT_EQ(ipu_state(RunEndKind::Paused), uint32_t(IPU_STATE_PAUSED));
  EXPECT_EQ(ipu_state(RunEndKind::StreamWait), uint32_t(IPU_STATE_STREAM_WAIT));
  for (RunEndKind k : kKinds)
    if (end_of(k).failed()) EXPECT_EQ(ipu_state(k), uint32_t(IPU_STATE_ERROR)) << kind_name(k);
}

TEST(RunEnd, KindNamesAreDistinct) {
  for (RunEndKind a : kKinds)
    for (RunEndKind b : kKinds)
      if (a != b) EXPECT_STRNE(kind_name(a), kind_name(b));
  EXPECT_STREQ(kind_name(RunEndKind::ExchangeError), "exchange error");
}

// The run control orders the stops that end a run by this enum: a halt, then a budget,
// then an interrupt lose to a fault, a failed exchange or a deadlock at the same cycle.
TEST(RunEnd, StopOrderPutsProblemsBeforeHaltBudgetAndInterrupt) {
  EXPECT_LT(RunEndKind::Fault, RunEndKind::ExchangeError);
  EXPECT_LT(RunEndKind::ExchangeError, RunEndKind::Deadlock);
  EXPECT_LT(RunEndKind::Deadlock, RunEndKind::Halted);
  EXPECT_LT(RunEndKind::Halted, RunEndKind::Budget);
  EXPECT_LT(RunEndKind::Budget, RunEndKind::Interrupted);
}

}  // namespace
}  // namespace ipusim
