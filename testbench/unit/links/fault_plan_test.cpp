// Fault plans (links/fault_plan.h): the [LINK:]SPEC items of `--link-faults` and the
// driver, which link gets which spec, the canonical text, and every error.
#include <gtest/gtest.h>

#include "links/fault_plan.h"

namespace ipusim::links {
namespace {

FaultPlan plan_of(std::initializer_list<std::string_view> items, uint32_t links = 16) {
  FaultPlan plan;
  for (std::string_view item : items) {
    std::string error;
    EXPECT_TRUE(add_fault_item(plan, item, links, &error)) << item << ": " << error;
  }
  return plan;
}

std::string error_of(std::initializer_list<std::string_view> items, uint32_t links = 16) {
  FaultPlan plan;
  std::string error;
  for (std::string_view item : items)
    if (!add_fault_item(plan, item, links, &error)) return error;
  return "(accepted)";
}

TEST(LinkFaultPlan, ASpecWithoutALinkAppliesToEveryLink) {
  const FaultPlan p = plan_of({"ber=1e-6,seed=7"});
  for (uint32_t l : {0u, 5u, 15u}) EXPECT_EQ(p.for_link(l).ber, 1e-6) << l;
  EXPECT_TRUE(p.any());
  EXPECT_EQ(to_string(p), "ber=1e-06,seed=7");
}

TEST(LinkFaultPlan, ALinkItemReplacesTheEveryLinkSpecOnThatLinkOnly) {
  // burst's own colons come after its '=': no link prefix there.
  const FaultPlan p = plan_of({"burst=10:2", " 3 : periodic=5,seed=2", "7:none"});
  EXPECT_EQ(p.for_link(0).burst_length, 2u);
  EXPECT_EQ(p.for_link(3).periodic, 5u);
  EXPECT_EQ(p.for_link(3).burst_length, 0u);
  EXPECT_EQ(p.for_link(3).seed, 2u);
  EXPECT_FALSE(p.for_link(7).any());
  EXPECT_EQ(to_string(p), "burst=10:2,seed=1; 3:periodic=5,seed=2; 7:none");
}

TEST(LinkFaultPlan, OnlyALinkItemLeavesTheOthersClean) {
  const FaultPlan p = plan_of({"2:drop_every=9"});
  EXPECT_FALSE(p.for_link(0).any());
  EXPECT_TRUE(p.for_link(2).any());
  EXPECT_TRUE(p.any());
  EXPECT_FALSE(plan_of({"none", "4:none"}).any());
  EXPECT_EQ(to_string(FaultPlan{}), "none");
}

TEST(LinkFaultPlan, ErrorsNameTheLinkAndTheKey) {
  EXPECT_EQ(error_of({"16:ber=1e-6"}), "link faults: link 16: the system has 16 IPU-Links (0 .. 15; `ipusim info --links`)");
  EXPECT_EQ(error_of({"0:ber=1e-6"}, 1), "(accepted)");
  EXPECT_EQ(error_of({"0:ber=1e-6"}, 0), "link faults: link 0: the system has no IPU-Links");
  EXPECT_EQ(error_of({"x:ber=1e-6"}), "link faults: 'x': a link index is a non-negative integer");
  EXPECT_EQ(error_of({":ber=1e-6"}), "link faults: '': a link index is a non-negative integer");
  EXPECT_EQ(error_of({"3:ber=2"}), "link 3: link faults: ber=2: must be a probability in [0, 1)");
  EXPECT_EQ(error_of({"3:ber=1e-6", "3:periodic=4"}), "link faults: link 3: given twice");
  EXPECT_EQ(error_of({"ber=1e-6", "periodic=4"}), "link faults: a spec for every link is given twice");
  EXPECT_EQ(error_of({"bre=1"}).rfind("link faults: bre=1: unknown key", 0), 0u);
}

}  // namespace
}  // namespace ipusim::links
