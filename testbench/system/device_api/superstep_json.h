// The device's per-superstep figures against `ipusim run --json`'s: every superstep of
// every IPU equals its supersteps[k].ipus[] entry, and the device reports no superstep
// the JSON lacks. Returns how many entries were compared.
#pragma once

#include <gtest/gtest.h>

#include <cstddef>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "ipudrv/device.h"

namespace devapi {

inline size_t expect_supersteps_equal(const nlohmann::json& j, const std::vector<std::vector<ipudrv::SuperstepStats>>& got) {
  size_t compared = 0;
  for (const auto& step : j["supersteps"]) {
    const size_t k = step["superstep"].get<size_t>();
    for (const auto& e : step["ipus"]) {
      const size_t ipu = e["ipu"].get<size_t>();
      if (ipu >= got.size() || k >= got[ipu].size()) {
        ADD_FAILURE() << "the device has no superstep " << k << " of ipu " << ipu;
        return compared;
      }
      const ipudrv::SuperstepStats& s = got[ipu][k];
      SCOPED_TRACE("ipu " + std::to_string(ipu) + " superstep " + std::to_string(k));
      EXPECT_EQ(s.tiles, e["tiles"].get<uint32_t>());
      EXPECT_EQ(s.exchanging_tiles, e["exchanging_tiles"].get<uint32_t>());
      EXPECT_EQ(s.incomplete_tiles, e["incomplete_tiles"].get<uint32_t>());
      EXPECT_EQ(s.begin_cycle, e["begin_cycle"].get<uint64_t>());
      EXPECT_EQ(s.end_cycle, e["end_cycle"].get<uint64_t>());
      EXPECT_EQ(s.compute_cycles, e["compute_cycles"].get<uint64_t>());
      EXPECT_EQ(s.sync_cycles, e["sync_cycles"].get<uint64_t>());
      EXPECT_EQ(s.exchange_cycles, e["exchange_cycles"].get<uint64_t>());
      EXPECT_EQ(s.instructions, e["instructions"].get<uint64_t>());
      EXPECT_EQ(s.exchange_bytes, e["exchange_bytes"].get<uint64_t>());
      ++compared;
    }
  }
  size_t have = 0;
  for (const auto& ipu : got)
    for (const auto& s : ipu) have += s.tiles > 0 ? 1 : 0;
  EXPECT_EQ(have, compared) << "the device reports supersteps `ipusim run` does not";
  EXPECT_GT(compared, 0u);
  return compared;
}

}  // namespace devapi
