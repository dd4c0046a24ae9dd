// Two exchange plans compared field by field in a test: the problems (text and kind) in
// order, the deliveries in order, each tile's outcome. `how` names the case in a failure.
#pragma once

#include <string>

#include <gtest/gtest.h>

#include "exchange/exchange_plan.h"

namespace ipusim::exchange::test {

inline void expect_same(const ExchangePlan& want, const ExchangePlan& got, const std::string& how) {
  ASSERT_EQ(want.errors.size(), got.errors.size()) << how;
  for (size_t i = 0; i < want.errors.size(); ++i) {
    EXPECT_EQ(to_text(want.errors[i]), to_text(got.errors[i])) << how << ", problem " << i;
    EXPECT_EQ(want.errors[i].kind, got.errors[i].kind) << how << ", problem " << i;
  }
  ASSERT_EQ(want.deliveries.size(), got.deliveries.size()) << how;
  for (size_t i = 0; i < want.deliveries.size(); ++i) {
    const Delivery &a = want.deliveries[i], &b = got.deliveries[i];
    ASSERT_TRUE(a.src_tile == b.src_tile && a.src_addr == b.src_addr && a.dst_tile == b.dst_tile &&
                a.dst_addr == b.dst_addr && a.len == b.len)
        << how << ", delivery " << i;
  }
  ASSERT_EQ(want.tiles.size(), got.tiles.size()) << how;
  for (size_t i = 0; i < want.tiles.size(); ++i) {
    EXPECT_EQ(want.tiles[i].done_cycle, got.tiles[i].done_cycle) << how << ", tile " << i;
    EXPECT_EQ(want.tiles[i].bytes_in, got.tiles[i].bytes_in) << how << ", tile " << i;
    EXPECT_EQ(want.tiles[i].bytes_out, got.tiles[i].bytes_out) << how << ", tile " << i;
  }
}

}  // namespace ipusim::exchange::test
