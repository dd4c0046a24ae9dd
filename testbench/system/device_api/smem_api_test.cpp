// Streaming memory through the public API on the device model, both transports: host
// round trips at random sizes and offsets (deterministic seeds), near the end of an
// m2000's 256 GiB, the allocator, firmware that reads, transforms and writes streaming
// memory, and the range / alignment errors from the host and from firmware.
#include <ipu/hostif_regs.h>

#include <chrono>
#include <cstring>
#include <random>

#include "device_fixture.h"

namespace devapi {
namespace {

using namespace std::chrono_literals;

std::vector<std::byte> random_bytes(std::mt19937_64& rng, size_t n) {
  std::vector<std::byte> v(n);
  for (size_t i = 0; i < n; i += 8) {
    const uint64_t w = rng();
    std::memcpy(v.data() + i, &w, std::min<size_t>(8, n - i));
  }
  return v;
}

// A size from 1 byte to `max`, spread over the orders of magnitude.
size_t random_size(std::mt19937_64& rng, size_t max) {
  const int bits = std::uniform_int_distribution<int>(0, 63 - __builtin_clzll(max))(rng);
  return std::clamp<size_t>(std::uniform_int_distribution<size_t>(size_t(1) << bits >> 1, size_t(1) << bits)(rng), 1, max);
}

class Smem : public DeviceApiTest {};

TEST_P(Smem, RoundTripsAtRandomSizesAndOffsets) {
  auto dev = open("configs/test/tiny16_smem.yaml");
  const uint64_t size = dev->info().smem_bytes;
  ASSERT_EQ(size, 64ull << 20);
  std::mt19937_64 rng(20240611);
  uint64_t moved = 0;
  // At least 40 round trips, and on until 10 MiB have gone each way (the sizes are
  // log-uniform: most are small).
  for (int i = 0; i < 40 || moved <= (10u << 20); ++i) {
    const size_t n = random_size(rng, 3u << 20);
    const uint64_t at = std::uniform_int_distribution<uint64_t>(0, size - n)(rng);
    SCOPED_TRACE(::testing::Message() << "round " << i << ": " << n << " bytes at " << at);
    const auto data = random_bytes(rng, n);
    dev->write_smem(at, data);
    std::vector<std::byte> back(n);
    dev->read_smem(at, back);
    ASSERT_TRUE(back == data);
    moved += n;
  }
  // Earlier bytes around a later write stay: write a block, overwrite its middle, check all.
  const auto outer = random_bytes(rng, 10000), inner = random_bytes(rng, 333);
  dev->write_smem(1001, outer);
  dev->write_smem(1001 + 4567, inner);
  std::vector<std::byte> back(outer.size());
  dev->read_smem(1001, back);
  auto want = outer;
  std::copy(inner.begin(), inner.end(), want.begin() + 4567);
  EXPECT_TRUE(back == want);
  EXPECT_GT(moved, 10u << 20);
}

TEST_P(Smem, AllocatorGivesDisjointAlignedBuffers) {
  auto dev = open("configs/test/tiny16_smem.yaml");
  std::mt19937_64 rng(7);
  std::vector<std::pair<ipudrv::SmemBuffer, std::vector<std::byte>>> held;
  for (int i = 0; i < 12; ++i) {
    const size_t n = random_size(rng, 1u << 20);
    const auto b = dev->alloc_smem(n, 256);
    EXPECT_EQ(b.offset % 256, 0u);
    EXPECT_GE(b.bytes, n);
    for (const auto& [o, _] : held) EXPECT_TRUE(b.offset + b.bytes <= o.offset || o.offset + o.bytes <= b.offset);
    held.push_back({b, random_bytes(rng, n)});
    dev->write_smem(b.offset, held.back().second);
  }
  for (const auto& [b, data] : held) {
    std::vector<std::byte> back(data.size());
    dev->read_smem(b.offset, back);
    EXPECT_TRUE(back == data);
  }
  dev->free_smem(held[3].first);
  const auto again = dev->alloc_smem(held[3].first.bytes, 256);
  EXPECT_EQ(again.offset, held[3].first.offset) << "first fit reuses the freed range";
  const auto info = expect_error<ipudrv::StreamingMemoryError>([&] { dev->alloc_smem(65ull << 20); });
  EXPECT_FALSE(info) << "no room is the allocator's, not the device's";
}

// m2000: 256 GiB of streaming memory; the last bytes are as usable as the first, one byte
// beyond is the device's SMEM_RANGE.
TEST_P(Smem, NearTheEndOfAnM2000) {
  auto dev = open("configs/m2000.yaml");
  const uint64_t size = dev->info().smem_bytes;
  ASSERT_EQ(size, 256ull << 30);
  std::mt19937_64 rng(99);
  for (int i = 0; i < 8; ++i) {
    const size_t n = random_size(rng, 1u << 20);
    const uint64_t at = size - n - std::uniform_int_distribution<uint64_t>(0, 4096)(rng) * (i % 2);
    SCOPED_TRACE(::testing::Message() << n << " bytes at " << at);
    const auto data = random_bytes(rng, n);
    dev->write_smem(at, data);
    std::vector<std::byte> back(n);
    dev->read_smem(at, back);
    ASSERT_TRUE(back == data);
  }
  std::vector<std::byte> two(2);
  auto info = expect_error<ipudrv::StreamingMemoryError>([&] { dev->write_smem(size - 1, two); }, "SMEM_RANGE");
  ASSERT_TRUE(info);
  EXPECT_EQ(info->code, uint32_t(IPU_ERR_SMEM_RANGE));
  info = expect_error<ipudrv::StreamingMemoryError>([&] { dev->read_smem(size + 4096, two); }, "SMEM_RANGE");
  ASSERT_TRUE(info);
  // The channel recovers.
  dev->write_smem(size - 2, two);
  dev->read_smem(size - 2, two);
}

// Firmware: every tile of two IPUs reads its slice, transforms it, writes it back to
// another range; the host checks every word.
TEST_P(Smem, FirmwareReadsTransformsAndWritesStreamingMemory) {
  auto dev = open("configs/test/tiny4x2_smem.yaml");
  const uint32_t ipus = dev->info().ipus, tiles = dev->info().tiles_per_ipu;
  ASSERT_EQ(ipus * tiles, 8u);
  const uint32_t per_tile = 20000;  // 3 chunks of 8 KiB, the last short
  std::mt19937_64 rng(5);
  const auto in = dev->alloc_smem(per_tile * 8), out = dev->alloc_smem(per_tile * 8);
  const auto data = random_bytes(rng, per_tile * 8);
  dev->write_smem(in.offset, data);
  dev->load(elf("device_api/smem_xform.elf"));
  struct Job {
    uint64_t in, out;
    uint32_t bytes, steps_done;
  } job{in.offset, out.offset, per_tile, 0};
  for (uint32_t ipu = 0; ipu < ipus; ++ipu)
    for (uint32_t t = 0; t < tiles; ++t) dev->write_symbol(ipu, t, "xform_job", bytes_of(job));
  const auto r = dev->run(0, 60s);
  EXPECT_EQ(r.state, ipudrv::RunState::kHalted);
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_GE(r.stats.supersteps, 6u);
  std::vector<std::byte> back(data.size());
  dev->read_smem(out.offset, back);
  for (uint32_t g = 0; g < 8; ++g) {
    for (uint32_t w = 0; w < per_tile / 4; ++w) {
      uint32_t x, y;
      std::memcpy(&x, data.data() + g * per_tile + 4 * w, 4);
      std::memcpy(&y, back.data() + g * per_tile + 4 * w, 4);
      ASSERT_EQ(y, ~x ^ (g << 24)) << "tile " << g << " word " << w;
    }
    Job done{};
    dev->read_symbol(g / tiles, g % tiles, "xform_job", writable_bytes_of(done));
    EXPECT_EQ(done.steps_done, 3u);
  }
}

// Firmware errors: a copy beyond the end (SMEM_RANGE naming tile 1, thread 0), a
// misaligned offset (the tile's fault), on a board without streaming memory.
TEST_P(Smem, FirmwareRangeAndAlignmentErrors) {
  auto dev = open("configs/test/tiny4x2_smem.yaml");
  dev->load(elf("streaming/smem_error1.elf"));
  auto info = expect_error<ipudrv::StreamingMemoryError>([&] { dev->run(0, 30s); }, "SMEM_RANGE");
  ASSERT_TRUE(info);
  EXPECT_EQ(info->code, uint32_t(IPU_ERR_SMEM_RANGE));
  EXPECT_EQ(info->ipu, 0u);
  EXPECT_EQ(info->tile, 1u);
  EXPECT_EQ(info->thread, 0u);
  EXPECT_EQ(info->addr, 0x8ffffffc0ull);
  EXPECT_EQ(info->kind, "beyond streaming memory");
  EXPECT_NE(info->pc, ipudrv::DeviceErrorInfo::kNone);
  EXPECT_EQ(info->superstep, 1u);
  EXPECT_GT(info->cycle, 0u);
  dev->reset();
  dev->load(elf("streaming/smem_error2.elf"));
  info = expect_error<ipudrv::TileFaultError>([&] { dev->run(0, 30s); }, "misaligned");
  ASSERT_TRUE(info);
  EXPECT_EQ(info->tile, 1u);
  EXPECT_EQ(info->thread, 0u);
  EXPECT_EQ(info->kind, "misaligned access");
  EXPECT_EQ(info->addr, 0x1002u) << "the misaligned streaming-memory offset";
  dev->reset();
  dev->load(elf("allreduce.elf"));
  EXPECT_EQ(dev->run(0, 60s).exit_code, 0);
}

TEST_P(Smem, NoStreamingMemoryOnTheBoard) {
  auto dev = open("configs/test/tiny4.yaml");
  EXPECT_EQ(dev->info().smem_bytes, 0u);
  std::vector<std::byte> four(4);
  expect_error<ipudrv::StreamingMemoryError>([&] { dev->write_smem(0, four); });
  expect_error<ipudrv::StreamingMemoryError>([&] { dev->alloc_smem(64); });
  dev->load(elf("streaming/smem_error5.elf"));
  const auto info = expect_error<ipudrv::StreamingMemoryError>([&] { dev->run(0, 30s); });
  ASSERT_TRUE(info);
  EXPECT_EQ(info->tile, 1u);
}

DEVAPI_TRANSPORTS(Smem);

}  // namespace
}  // namespace devapi
