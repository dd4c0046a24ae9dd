// The real device through the real driver (ipudrv, in-process transport): identity in
// DeviceInfo, streaming memory by DMA, the stream_echo firmware with host streams
// connected to buffers and to callbacks (the driver serves every STREAM_WAIT), and the
// typed errors of streaming-memory problems. Every case its own process.
#include <gtest/gtest.h>

#include <ipudrv/device.h>
#include <ipudrv/elf.h>
#include <ipudrv/errors.h>
#include <ipu/hostif_regs.h>

#include <cstdlib>
#include <cstring>
#include <random>
#include <vector>

#include "stream_echo_plan.h"

namespace {

const std::string kLocator = "config:configs/test/tiny16_smem.yaml";
using namespace stream_echo;  // kTiles, kChunk, kIn, kOut, kWords, expected()

std::unique_ptr<ipudrv::Device> open_device() {
  setenv("IPUSIM_CONSOLE", "none", 1);
  setenv("IPUSIM_THREADS", "1", 1);
  return ipudrv::open(kLocator);
}

ipudrv::Elf firmware(const std::string& name) { return ipudrv::Elf::from_file(std::string(IPUSIM_FIRMWARE_DIR) + "/" + name); }

std::vector<uint32_t> echo_input() { return stream_echo::input(5); }

TEST(HostIfDriver, InfoComesFromTheDevice) {
  auto dev = open_device();
  const ipudrv::DeviceInfo& i = dev->info();
  EXPECT_EQ(i.tiles_per_ipu, 16u);
  EXPECT_EQ(i.smem_bytes, 64ull << 20);
  EXPECT_TRUE(i.has_streams);
  EXPECT_EQ(i.stream_fifo_bytes, uint32_t(IPU_XFER_MAX));
  EXPECT_EQ(i.amp_f16_macs, 64u);  // configs/test/tiny16.yaml
  EXPECT_EQ(i.amp_f32_macs, 16u);
}

TEST(HostIfDriver, StreamingMemoryRoundTripsAndRangeError) {
  auto dev = open_device();
  std::mt19937_64 rng(11);
  std::vector<std::pair<uint64_t, std::vector<std::byte>>> spans;
  for (int k = 0; k < 12; ++k) {
    // Up to 3 MiB: several descriptors of the driver's 1 MiB chunks, some batches.
    const size_t n = 1 + rng() % (3 << 20);
    const ipudrv::SmemBuffer b = dev->alloc_smem(n, rng() % 2 ? 64 : 4096);
    std::vector<std::byte> bytes(n);
    for (auto& x : bytes) x = std::byte(rng());
    dev->write_smem(b.offset, bytes);
    spans.emplace_back(b.offset, std::move(bytes));
  }
  for (const auto& [offset, bytes] : spans) {
    std::vector<std::byte> back(bytes.size());
    dev->read_smem(offset, back);
    ASSERT_EQ(back, bytes) << "offset " << offset;
  }
  std::vector<std::byte> four(4);
  try {
    dev->read_smem((64ull << 20) - 2, four);
    FAIL() << "a read past the end must fail";
  } catch (const ipudrv::StreamingMemoryError& e) {
    ASSERT_TRUE(e.device_error());
    EXPECT_EQ(e.device_error()->code, IPU_ERR_SMEM_RANGE);
    EXPECT_EQ(e.device_error()->addr, (64ull << 20) - 2);
    EXPECT_NE(std::string(e.what()).find("beyond its 64 MiB"), std::string::npos) << e.what();
  }
  // The channel works again after the error.
  std::vector<std::byte> back(spans[0].second.size());
  dev->read_smem(spans[0].first, back);
  EXPECT_EQ(back, spans[0].second);
}

TEST(HostIfDriver, EchoWithStreamBuffers) {
  auto dev = open_device();
  dev->load(firmware("host_if/stream_echo.elf"));
  const std::vector<uint32_t> input = echo_input();
  std::vector<uint32_t> output(kWords + 16, 0xDEADBEEF);  // room to spare: nothing more may come
  dev->connect_h2d_stream(kIn, std::as_bytes(std::span(input)));
  dev->connect_d2h_stream(kOut, std::as_writable_bytes(std::span(output)));
  const ipudrv::RunResult r = dev->run();
  EXPECT_EQ(r.state, ipudrv::RunState::kHalted);
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_GE(r.stream_services, 3u);  // 1.5 MiB in through a 1 MiB FIFO; 1.5 MiB out
  EXPECT_EQ(dev->d2h_stream_bytes(kOut), kWords * 4);
  output.resize(kWords);
  EXPECT_EQ(output, expected(input));
  std::printf("stream_echo through the driver: %u stream services, %llu cycles\n", r.stream_services,
              (unsigned long long)r.stats.cycles);
}

TEST(HostIfDriver, EchoWithCallbacksInSmallPieces) {
  auto dev = open_device();
  dev->load(firmware("host_if/stream_echo.elf"));
  const std::vector<uint32_t> input = echo_input();
  const auto* in = reinterpret_cast<const std::byte*>(input.data());
  size_t given = 0, calls = 0;
  // At most 3000 bytes per call: the driver asks again until the tiles' need is met.
  dev->connect_h2d_stream(kIn, [&](std::span<std::byte> out) {
    ++calls;
    const size_t n = std::min({out.size(), size_t(3000), input.size() * 4 - given});
    std::memcpy(out.data(), in + given, n);
    given += n;
    return n;
  });
  std::vector<std::byte> got;
  dev->connect_d2h_stream(kOut, [&](std::span<const std::byte> data) { got.insert(got.end(), data.begin(), data.end()); });
  const ipudrv::RunResult r = dev->run();
  EXPECT_EQ(r.state, ipudrv::RunState::kHalted);
  EXPECT_GT(calls, input.size() * 4 / 3000);
  const std::vector<uint32_t> expect = expected(input);
  ASSERT_EQ(got.size(), expect.size() * 4);
  EXPECT_EQ(std::memcmp(got.data(), expect.data(), got.size()), 0);
}

TEST(HostIfDriver, FirmwareStreamingMemoryErrorIsTyped) {
  auto dev = open_device();
  dev->load(firmware("streaming/smem_error1.elf"));
  try {
    dev->run();
    FAIL() << "the run must fail";
  } catch (const ipudrv::StreamingMemoryError& e) {
    ASSERT_TRUE(e.device_error());
    EXPECT_EQ(e.device_error()->code, IPU_ERR_SMEM_RANGE);
    EXPECT_EQ(e.device_error()->tile, 1u);
    EXPECT_EQ(e.device_error()->thread, 0u);
    EXPECT_NE(e.device_error()->pc, 0xFFFFFFFFu);
    EXPECT_NE(std::string(e.what()).find("SMEM_RANGE"), std::string::npos) << e.what();
  }
}

// A host-to-device stream the tiles read but nobody connected: the driver's StreamError
// names the stream.
TEST(HostIfDriver, UnconnectedStreamIsAStreamError) {
  auto dev = open_device();
  dev->load(firmware("host_if/stream_echo.elf"));
  try {
    dev->run();
    FAIL() << "the run must fail";
  } catch (const ipudrv::StreamError& e) {
    EXPECT_NE(std::string(e.what()).find("host stream 3"), std::string::npos) << e.what();
  }
  EXPECT_EQ(dev->state(), uint32_t(IPU_STATE_STREAM_WAIT));
  dev->reset();
  EXPECT_EQ(dev->state(), uint32_t(IPU_STATE_IDLE));
}

}  // namespace
