// The --link-faults grammar: good specs, the canonical text, and every error message.
#include <gtest/gtest.h>

#include "links/fault_spec.h"

namespace ipusim::links {
namespace {

FaultSpec parse_ok(std::string_view text) {
  std::string error;
  auto s = parse_fault_spec(text, &error);
  EXPECT_TRUE(s) << text << ": " << error;
  return s.value_or(FaultSpec{});
}

std::string parse_error(std::string_view text) {
  std::string error;
  EXPECT_FALSE(parse_fault_spec(text, &error)) << text;
  return error;
}

TEST(LinkFaultSpec, ParsesTheExamples) {
  auto a = parse_ok("ber=1e-6,seed=7");
  EXPECT_EQ(a.ber, 1e-6);
  EXPECT_EQ(a.seed, 7u);
  auto b = parse_ok("burst=1000:16,seed=3");
  EXPECT_EQ(b.burst_start, 1000u);
  EXPECT_EQ(b.burst_length, 16u);
  EXPECT_EQ(b.burst_period, 0u);
  EXPECT_EQ(parse_ok("periodic=5000").periodic, 5000u);
  EXPECT_EQ(parse_ok("drop=1e-4").drop, 1e-4);
  EXPECT_EQ(parse_ok("dup=1e-4").dup, 1e-4);
  auto c = parse_ok(" burst = 10:2:100 , drop_every=50, dup_every=70, ack_drop=0.01, ack_drop_every=9 ");
  EXPECT_EQ(c.burst_period, 100u);
  EXPECT_EQ(c.drop_every, 50u);
  EXPECT_EQ(c.dup_every, 70u);
  EXPECT_EQ(c.ack_drop, 0.01);
  EXPECT_EQ(c.ack_drop_every, 9u);
  EXPECT_TRUE(c.any());
}

TEST(LinkFaultSpec, EmptyAndNoneMeanNoFaults) {
  EXPECT_FALSE(parse_ok("").any());
  EXPECT_FALSE(parse_ok("none").any());
  EXPECT_FALSE(parse_ok("seed=5").any());
  EXPECT_EQ(to_string(FaultSpec{}), "none");
}

TEST(LinkFaultSpec, ToStringIsCanonicalAndParsesBack) {
  auto s = parse_ok("seed=9,dup=0.25,ber=1e-06,burst=5:3:10,periodic=7,drop=0.001,drop_every=4,"
                    "dup_every=6,ack_drop=0.5,ack_drop_every=3");
  EXPECT_EQ(to_string(s),
            "ber=1e-06,periodic=7,burst=5:3:10,drop=0.001,drop_every=4,dup=0.25,dup_every=6,"
            "ack_drop=0.5,ack_drop_every=3,seed=9");
  EXPECT_EQ(parse_ok(to_string(s)), s);
  auto t = parse_ok("ber=3.3333333333333335e-07,burst=1:2");
  EXPECT_EQ(parse_ok(to_string(t)), t);
}

TEST(LinkFaultSpec, ErrorsNameTheKeyAndValue) {
  EXPECT_EQ(parse_error("bre=1e-6"),
            "link faults: bre=1e-6: unknown key (known: seed, ber, periodic, burst, drop, drop_every, "
            "dup, dup_every, ack_drop, ack_drop_every)");
  EXPECT_EQ(parse_error("ber"), "link faults: 'ber': expected KEY=VALUE");
  EXPECT_EQ(parse_error("ber=1e-6,,seed=1"), "link faults: empty item in 'ber=1e-6,,seed=1'");
  EXPECT_EQ(parse_error("ber=x"), "link faults: ber=x: not a number");
  EXPECT_EQ(parse_error("ber=1"), "link faults: ber=1: must be a probability in [0, 1)");
  EXPECT_EQ(parse_error("drop=-0.1"), "link faults: drop=-0.1: must be a probability in [0, 1)");
  EXPECT_EQ(parse_error("dup=nan"), "link faults: dup=nan: must be a probability in [0, 1)");
  EXPECT_EQ(parse_error("seed=-1"), "link faults: seed=-1: not a non-negative integer");
  EXPECT_EQ(parse_error("seed=12abc"), "link faults: seed=12abc: not a non-negative integer");
  EXPECT_EQ(parse_error("periodic=1"), "link faults: periodic=1: must be at least 2");
  EXPECT_EQ(parse_error("drop_every=0"), "link faults: drop_every=0: must be at least 2");
  EXPECT_EQ(parse_error("burst=10"), "link faults: burst=10: expected START:LENGTH or START:LENGTH:PERIOD");
  EXPECT_EQ(parse_error("burst=1:2:3:4"),
            "link faults: burst=1:2:3:4: expected START:LENGTH or START:LENGTH:PERIOD");
  EXPECT_EQ(parse_error("burst=a:2"), "link faults: burst=a:2: START is not a non-negative integer");
  EXPECT_EQ(parse_error("burst=5:0"), "link faults: burst=5:0: LENGTH must be a positive integer");
  EXPECT_EQ(parse_error("burst=5:4:4"), "link faults: burst=5:4:4: PERIOD must be greater than LENGTH");
  EXPECT_EQ(parse_error("burst=5:4:x"), "link faults: burst=5:4:x: PERIOD is not a non-negative integer");
  EXPECT_EQ(parse_error("ber=1e-6,ber=1e-5"), "link faults: ber: given twice");
  // Out of a double's or a uint64's range: said so, not "not a number" (issue 37).
  EXPECT_EQ(parse_error("ber=1e-400"),
            "link faults: ber=1e-400: out of range: underflows a double (the smallest is about 2.2e-308; 0 for none)");
  EXPECT_EQ(parse_error("drop=1e400"), "link faults: drop=1e400: out of range: must be a probability in [0, 1)");
  EXPECT_EQ(parse_error("seed=18446744073709551616"),
            "link faults: seed=18446744073709551616: out of range: more than 2^64 - 1 (18446744073709551615)");
  EXPECT_FALSE(parse_fault_spec("ber=2", nullptr));  // no error string wanted
}

}  // namespace
}  // namespace ipusim::links
