// DESC_FLAG_PER_TILE through the device's registers and rings (docs/host_if.md "DMA"): a
// scatter puts slice i on tile tile_first + i and a gather brings them back in that
// order; the malformed cases (a length that is not a multiple of tile_count, a slice
// outside SRAM, a tile range past the IPU, the flag on another target) fail with their ERR codes and halt the
// channel; a per-tile descriptor holds the link for its length, as any other. Every case
// its own process.
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "config/config_loader.h"
#include "host_if/model_session.h"
#include "sim_fixture.h"
#include "test_host.h"

namespace ipusim::test {
namespace {

using host_if::ModelSession;

ipu_dma_desc per_tile(uint64_t host, uint32_t addr, uint32_t length, uint32_t first, uint32_t count) {
  ipu_dma_desc d = TestHost::tile_desc(host, addr, length, 0, first, count);
  d.flags = IPU_DESC_FLAG_PER_TILE;
  return d;
}

std::vector<uint8_t> pattern(size_t n, uint32_t seed) {
  std::vector<uint8_t> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = uint8_t((i * 131 + seed * 17 + (i >> 8)) & 0xFF);
  return v;
}

TEST(HostIfPerTile, ScatterPutsSliceIOnTileIAndGatherBringsThemBack) {
  auto sys = ModelSession::open(tiny4(), quiet());
  TestHost host(sys->link(0));
  const uint32_t slice = 1000, addr = iss::kSramBase + 0x2000;
  // Tiles 1..3: three slices of one descriptor.
  const std::vector<uint8_t> bytes = pattern(3 * slice, 1);
  std::memcpy(host.data(), bytes.data(), bytes.size());
  uint32_t i = host.post(0, per_tile(host.data_bus(), addr, 3 * slice, 1, 3));
  ASSERT_EQ(host.wait_desc(0, i), IPU_DESC_STATUS_OK) << host.err_text();
  EXPECT_EQ(host.desc(0, i).bytes_done, 3 * slice);
  for (uint32_t t = 1; t < 4; ++t)
    EXPECT_EQ(host.read_tile(0, t, addr, slice, 1 << 20),
              std::vector<uint8_t>(bytes.begin() + (t - 1) * slice, bytes.begin() + t * slice))
        << "tile " << t;
  EXPECT_EQ(host.read_tile(0, 0, addr, 16, 1 << 20), std::vector<uint8_t>(16, 0)) << "tile 0 is not in the range";
  // Gather tiles 0..3 (tile 0's slice: zeros) on channel 1 into another buffer.
  std::memset(host.data(2 << 20), 0xEE, 4 * slice);
  i = host.post(1, per_tile(host.data_bus(2 << 20), addr, 4 * slice, 0, 4));
  ASSERT_EQ(host.wait_desc(1, i), IPU_DESC_STATUS_OK) << host.err_text();
  EXPECT_EQ(host.desc(1, i).bytes_done, 4 * slice);
  std::vector<uint8_t> want(4 * slice, 0);
  std::memcpy(want.data() + slice, bytes.data(), bytes.size());
  EXPECT_EQ(0, std::memcmp(host.data(2 << 20), want.data(), want.size()));
  // One tile with the flag is a plain transfer.
  i = host.post(1, per_tile(host.data_bus(3 << 20), addr, slice, 2, 1));
  ASSERT_EQ(host.wait_desc(1, i), IPU_DESC_STATUS_OK) << host.err_text();
  EXPECT_EQ(0, std::memcmp(host.data(3 << 20), bytes.data() + slice, slice));
  EXPECT_EQ(host.reg(IPU_REG_ERR_CODE), IPU_ERR_NONE);
}

TEST(HostIfPerTile, MalformedDescriptorsFailAndHaltTheChannel) {
  auto sys = ModelSession::open(tiny4(), quiet());
  TestHost host(sys->link(0));
  const uint64_t data = host.data_bus();
  const uint32_t b = iss::kSramBase, sram = 624 * 1024;
  struct Case {
    uint32_t ch;
    ipu_dma_desc d;
    uint32_t code;
    const char* says;
  };
  ipu_dma_desc smem = per_tile(data, 0, 64, 0, 2);
  smem.target = IPU_DMA_TARGET_SMEM;
  const Case cases[] = {
      {0, per_tile(data, b, 1001, 0, 2), IPU_ERR_DMA_DESC, "length 1001 is not a multiple of tile_count 2"},
      {1, per_tile(data, b, 10, 0, 4), IPU_ERR_DMA_DESC, "length 10 is not a multiple of tile_count 4"},
      {0, per_tile(data, b, 64, 2, 3), IPU_ERR_DMA_DESC, "tiles 2 + 3"},
      {1, per_tile(data, b, 64, 0, 0), IPU_ERR_DMA_DESC, "tiles 0 + 0"},
      // The slice (not the whole length) must fit SRAM: 2 x 8 bytes at 4 bytes from the end.
      {0, per_tile(data, b + sram - 4, 16, 0, 2), IPU_ERR_DMA_TILE, "+ 8 bytes is outside SRAM"},
      {1, per_tile(data, b - 8, 16, 0, 2), IPU_ERR_DMA_TILE, "outside SRAM"},
      {0, smem, IPU_ERR_DMA_DESC, "DESC_FLAG_PER_TILE on target 1: it is for TILE descriptors"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.says);
    host.reset();
    sys->wait_idle();
    const uint32_t i = host.post(c.ch, c.d);
    EXPECT_EQ(host.wait_desc(c.ch, i), IPU_DESC_STATUS_ERROR);
    EXPECT_EQ(host.desc(c.ch, i).error, c.code);
    EXPECT_EQ(host.desc(c.ch, i).bytes_done, 0u);
    EXPECT_EQ(host.reg(IPU_REG_ERR_CODE), c.code);
    EXPECT_NE(host.err_text().find(c.says), std::string::npos) << host.err_text();
    const uint32_t status = c.ch == 0 ? IPU_REG_DMA0_STATUS : IPU_REG_DMA1_STATUS;
    EXPECT_EQ(host.reg(status), IPU_DMA0_STATUS_HALTED_MASK);
  }
  // A slice that fits exactly at the end of SRAM is fine.
  host.reset();
  sys->wait_idle();
  const uint32_t i = host.post(0, per_tile(data, b + sram - 8, 16, 0, 2));
  EXPECT_EQ(host.wait_desc(0, i), IPU_DESC_STATUS_OK) << host.err_text();
}

// A per-tile descriptor holds its channel for its length at the link's rate (every slice
// crosses the link once), both ways, and retires the link's latency after: exact to the
// nanosecond, like the other descriptors (HostIfSmem.DmaTimeIsTheLinksWhenTheLinkIsSlower).
TEST(HostIfPerTile, ALinkTimeOfItsLength) {
  config::SystemConfig c = config::load_system("configs/test/tiny16_smem.yaml");
  c.board.host_link_bytes_per_second = 1e9;
  c.board.host_link_latency_ns = 700;
  auto sys = ModelSession::open(c, quiet());
  TestHost host(sys->link(0));
  const uint32_t length = 16 * (64 << 10);  // 64 KiB to each of 16 tiles
  std::memset(host.data(), 9, length);
  for (uint32_t ch = 0; ch < 2; ++ch) {
    const uint64_t before = host.reg64(IPU_REG_SIM_TIME_NS_LO);
    const uint32_t i = host.post(ch, per_tile(host.data_bus(), iss::kSramBase + 0x10000, length, 0, 16));
    ASSERT_EQ(host.wait_desc(ch, i), IPU_DESC_STATUS_OK) << host.err_text();
    sys->wait_idle();
    const double got_ns = double(host.reg64(IPU_REG_SIM_TIME_NS_LO) - before);
    EXPECT_NEAR(got_ns, double(length) + 700, 2.0) << "channel " << ch << ": 1 MiB over a 1 GB/s link";
  }
  EXPECT_EQ(host.reg(IPU_REG_ERR_CODE), IPU_ERR_NONE);
}

}  // namespace
}  // namespace ipusim::test
