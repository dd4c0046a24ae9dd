// Streaming memory and host streams through the device's registers and DMA rings
// (docs/host_if.md "DMA", "Streaming memory", "Host streams"): SMEM round trips at random
// sizes and offsets (up to a 256 GiB m2000's last bytes), range errors naming the
// channel, descriptor and offset, SMEM DMA timing, the FIFO rules of STREAM descriptors,
// a firmware that reads one host stream and writes another run through STREAM_WAIT both
// ways, RESET in STREAM_WAIT, and a firmware streaming-memory error in ERR_*. Every case
// its own process.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <random>
#include <vector>

#include "stream_echo_plan.h"

#include "host_if/model_session.h"
#include "iss/program.h"
#include "config/config_loader.h"
#include "sim_fixture.h"
#include "test_host.h"

namespace ipusim::test {
namespace {

using host_if::ModelSession;
using host_if::ModelOptions;

config::SystemConfig tiny16_smem() { return config::load_system("configs/test/tiny16_smem.yaml"); }

ipu_dma_desc smem_desc(uint64_t host, uint64_t offset, uint32_t length) {
  ipu_dma_desc d{};
  d.host_addr = host;
  d.dev_addr = offset;
  d.length = length;
  d.target = IPU_DMA_TARGET_SMEM;
  return d;
}

ipu_dma_desc stream_desc(uint64_t host, uint32_t stream, uint32_t length) {
  ipu_dma_desc d{};
  d.host_addr = host;
  d.length = length;
  d.target = IPU_DMA_TARGET_STREAM;
  d.ipu = stream;
  return d;
}

std::vector<uint8_t> random_bytes(std::mt19937_64& rng, size_t n) {
  std::vector<uint8_t> v(n);
  for (auto& b : v) b = uint8_t(rng());
  return v;
}

// Host -> streaming memory and back through the data area at `at`; expects OK.
void smem_write(TestHost& host, uint64_t offset, const std::vector<uint8_t>& bytes, size_t at = 0) {
  std::memcpy(host.data(at), bytes.data(), bytes.size());
  const uint32_t i = host.post(0, smem_desc(host.data_bus(at), offset, uint32_t(bytes.size())));
  ASSERT_EQ(host.wait_desc(0, i), IPU_DESC_STATUS_OK) << host.err_text();
  EXPECT_EQ(host.desc(0, i).bytes_done, bytes.size());
}
std::vector<uint8_t> smem_read(TestHost& host, uint64_t offset, uint32_t length, size_t at = 0) {
  std::memset(host.data(at), 0xEE, length);
  const uint32_t i = host.post(1, smem_desc(host.data_bus(at), offset, length));
  EXPECT_EQ(host.wait_desc(1, i), IPU_DESC_STATUS_OK) << host.err_text();
  EXPECT_EQ(host.desc(1, i).bytes_done, length);
  std::vector<uint8_t> out(length);
  std::memcpy(out.data(), host.data(at), length);
  return out;
}

TEST(HostIfSmem, DmaRoundTripsAtRandomSizesAndOffsets) {
  auto sys = ModelSession::open(tiny16_smem(), quiet());
  TestHost host(sys->link(0));
  EXPECT_EQ(host.reg(IPU_REG_CAPS), IPU_CAPS_SMEM_MASK | IPU_CAPS_STREAMS_MASK);
  const uint64_t size = host.reg64(IPU_REG_SMEM_SIZE_LO);
  ASSERT_EQ(size, 64ull << 20);
  std::mt19937_64 rng(2024);
  // Disjoint spans at random byte offsets and lengths (no alignment needed by DMA), each
  // in its own 1 MiB slot, written in one order and read back in another.
  struct Span {
    uint64_t offset;
    std::vector<uint8_t> bytes;
  };
  std::vector<Span> spans;
  for (uint64_t slot = 0; slot < 40; ++slot) {
    const uint32_t length = 1 + uint32_t(rng() % (256 * 1024));
    const uint64_t offset = slot * (1 << 20) + rng() % ((1 << 20) - length + 1);
    spans.push_back({offset, random_bytes(rng, length)});
  }
  spans.push_back({size - 777, random_bytes(rng, 777)});  // the last bytes
  for (const Span& s : spans) smem_write(host, s.offset, s.bytes);
  std::shuffle(spans.begin(), spans.end(), rng);
  for (const Span& s : spans)
    ASSERT_EQ(smem_read(host, s.offset, uint32_t(s.bytes.size())), s.bytes) << "offset 0x" << std::hex << s.offset;
  // Untouched memory reads zeros; an overwrite of part of a span changes only that part.
  EXPECT_EQ(smem_read(host, 40ull << 20, 4096), std::vector<uint8_t>(4096, 0));
  const std::vector<uint8_t> patch = random_bytes(rng, 100);
  const Span& s = spans.front();
  smem_write(host, s.offset + 1, std::vector<uint8_t>(patch.begin(), patch.begin() + std::min<size_t>(100, s.bytes.size() - 1)));
  std::vector<uint8_t> expect = s.bytes;
  std::copy_n(patch.begin(), std::min<size_t>(100, expect.size() - 1), expect.begin() + 1);
  EXPECT_EQ(smem_read(host, s.offset, uint32_t(expect.size())), expect);
  // RESET keeps streaming memory (only streams and tiles are reset).
  host.reset();
  EXPECT_EQ(smem_read(host, s.offset, uint32_t(expect.size())), expect);
  EXPECT_EQ(host.reg(IPU_REG_ERR_CODE), IPU_ERR_NONE) << host.err_text();
}

TEST(HostIfSmem, M2000HighOffsetsRoundTripAndTheEndIsARangeError) {
  const config::SystemConfig m2000 = config::load_system("configs/m2000.yaml");
  auto sys = ModelSession::open(m2000, quiet());
  TestHost host(sys->link(0));
  const uint64_t size = host.reg64(IPU_REG_SMEM_SIZE_LO);
  ASSERT_EQ(size, 256ull << 30);
  std::mt19937_64 rng(7);
  std::vector<std::pair<uint64_t, std::vector<uint8_t>>> spans = {
      {size - 65536, random_bytes(rng, 65536)},             // the last 64 KiB
      {(255ull << 30) + 12345, random_bytes(rng, 300001)},  // odd offset and length above 4 GiB
      {(1ull << 32) - 1000, random_bytes(rng, 2000)},       // across the 4 GiB boundary
  };
  for (int k = 0; k < 5; ++k) {
    const uint32_t length = 1 + uint32_t(rng() % 100000);
    spans.push_back({(uint64_t(k + 1) << 35) + rng() % (1ull << 34), random_bytes(rng, length)});
  }
  for (const auto& [offset, bytes] : spans) smem_write(host, offset, bytes);
  for (const auto& [offset, bytes] : spans) ASSERT_EQ(smem_read(host, offset, uint32_t(bytes.size())), bytes);

  // One byte past the end: SMEM_RANGE, nothing written, ERR_ADDR the offset, the text
  // names the channel, the descriptor and the offset.
  const uint64_t bad = size - 8;
  const uint32_t i = host.post(0, smem_desc(host.data_bus(), bad, 9));
  EXPECT_EQ(host.wait_desc(0, i), IPU_DESC_STATUS_ERROR);
  EXPECT_EQ(host.desc(0, i).error, IPU_ERR_SMEM_RANGE);
  EXPECT_EQ(host.desc(0, i).bytes_done, 0u);
  EXPECT_EQ(host.reg(IPU_REG_ERR_CODE), IPU_ERR_SMEM_RANGE);
  EXPECT_EQ(host.reg64(IPU_REG_ERR_ADDR_LO), bad);
  const std::string text = host.err_text();
  EXPECT_NE(text.find("DMA channel 0 descriptor " + std::to_string(i)), std::string::npos) << text;
  EXPECT_NE(text.find("0x3ffffffff8 + 9 bytes is beyond its 256 GiB"), std::string::npos) << text;
  EXPECT_EQ(host.reg(IPU_REG_DMA0_STATUS), IPU_DMA0_STATUS_HALTED_MASK);
  host.setup_ring(0);
  EXPECT_EQ(smem_read(host, size - 65536, 65536), spans[0].second);  // untouched by the failed write
}

TEST(HostIfSmem, RangeErrorsOnEitherChannelNameTheDescriptor) {
  auto sys = ModelSession::open(tiny16_smem(), quiet());
  TestHost host(sys->link(0));
  const uint64_t size = 64ull << 20;
  smem_write(host, 0, std::vector<uint8_t>(64, 1));
  smem_write(host, 64, std::vector<uint8_t>(64, 2));
  // Channel 1, third descriptor of its ring: an offset far beyond the end.
  smem_read(host, 0, 4);
  smem_read(host, 0, 4);
  const uint64_t bad = 0x1'0000'0000ull;
  const uint32_t i = host.post(1, smem_desc(host.data_bus(), bad, 16));
  EXPECT_EQ(host.wait_desc(1, i), IPU_DESC_STATUS_ERROR);
  EXPECT_EQ(i, 2u);
  EXPECT_EQ(host.desc(1, i).error, IPU_ERR_SMEM_RANGE);
  EXPECT_EQ(host.reg(IPU_REG_ERR_CODE), IPU_ERR_SMEM_RANGE);
  EXPECT_EQ(host.reg64(IPU_REG_ERR_ADDR_LO), bad);
  EXPECT_EQ(host.reg(IPU_REG_ERR_TILE), 0xFFFFFFFFu);
  const std::string text = host.err_text();
  EXPECT_NE(text.find("DMA channel 1 descriptor 2"), std::string::npos) << text;
  EXPECT_NE(text.find("0x100000000 + 16 bytes is beyond its 64 MiB"), std::string::npos) << text;
  EXPECT_NE(host.reg(IPU_REG_IRQ_STATUS) & IPU_IRQ_STATUS_ERROR_MASK, 0u);
  // A length that ends exactly at the end is fine.
  host.setup_ring(1);
  EXPECT_EQ(smem_read(host, size - 64, 64), std::vector<uint8_t>(64, 0));
}

// One descriptor holds its channel for max(bytes / link rate, bytes / streaming-memory
// rate) and retires host-link latency + streaming-memory latency after its last byte; a
// second descriptor's bytes follow at once.
TEST(HostIfSmem, DmaTimeIsTheSlowerOfLinkAndStreamingMemory) {
  config::SystemConfig c = tiny16_smem();
  c.board.streaming_memory_bytes_per_second = 2e9;  // slower than the host link
  c.board.streaming_memory_latency_ns = 300;
  ASSERT_GT(c.board.host_link_bytes_per_second, 2e9);
  auto sys = ModelSession::open(c, quiet());
  TestHost host(sys->link(0));
  const uint32_t length = 1 << 20;
  std::memset(host.data(), 5, 2 * length);
  const uint64_t before = host.reg64(IPU_REG_SIM_TIME_NS_LO);
  const uint32_t i =
      host.post_batch(0, {smem_desc(host.data_bus(), 0, length), smem_desc(host.data_bus(length), length, length)});
  ASSERT_EQ(host.wait_desc(0, i), IPU_DESC_STATUS_OK);
  sys->wait_idle();
  const double expect_ns = 2 * length / 2e9 * 1e9 + c.board.host_link_latency_ns + 300;
  const double got_ns = double(host.reg64(IPU_REG_SIM_TIME_NS_LO) - before);
  EXPECT_NEAR(got_ns, expect_ns, 2.0) << "link " << c.board.host_link_bytes_per_second / 1e9 << " GB/s";
}

// The other side of max(): with the host link the slower, an SMEM descriptor holds its
// channel for bytes / link rate, and a TILE broadcast (link only, its bytes once) too. The
// times are exact to the nanosecond, so a link rate a few percent off fails.
TEST(HostIfSmem, DmaTimeIsTheLinksWhenTheLinkIsSlower) {
  config::SystemConfig c = tiny16_smem();
  c.board.host_link_bytes_per_second = 1e9;  // slower than streaming memory's 20 GB/s
  c.board.host_link_latency_ns = 700;
  c.board.streaming_memory_latency_ns = 300;
  ASSERT_GT(c.board.streaming_memory_bytes_per_second, 1e9);
  auto sys = ModelSession::open(c, quiet());
  TestHost host(sys->link(0));
  const uint32_t length = 1 << 20;
  std::memset(host.data(), 5, 2 * length);
  // Two SMEM descriptors back to back on channel 0: 2 MiB at 1 GB/s, then both latencies.
  uint64_t before = host.reg64(IPU_REG_SIM_TIME_NS_LO);
  uint32_t i = host.post_batch(0, {smem_desc(host.data_bus(), 0, length), smem_desc(host.data_bus(length), length, length)});
  ASSERT_EQ(host.wait_desc(0, i), IPU_DESC_STATUS_OK) << host.err_text();
  sys->wait_idle();
  double expect_ns = 2.0 * length / 1e9 * 1e9 + 700 + 300;  // 2 097 152 + 1 000 ns
  double got_ns = double(host.reg64(IPU_REG_SIM_TIME_NS_LO) - before);
  EXPECT_NEAR(got_ns, expect_ns, 2.0) << "SMEM: 2 MiB over a 1 GB/s link";
  // Back on channel 1: the same time.
  before = host.reg64(IPU_REG_SIM_TIME_NS_LO);
  i = host.post(1, smem_desc(host.data_bus(2 * length), 0, length));
  ASSERT_EQ(host.wait_desc(1, i), IPU_DESC_STATUS_OK) << host.err_text();
  sys->wait_idle();
  expect_ns = double(length) / 1e9 * 1e9 + 700 + 300;
  got_ns = double(host.reg64(IPU_REG_SIM_TIME_NS_LO) - before);
  EXPECT_NEAR(got_ns, expect_ns, 2.0) << "SMEM to the host: 1 MiB over a 1 GB/s link";
  // A broadcast of 256 KiB to all 16 tiles crosses the link once, latency of the link only.
  const uint32_t tile_bytes = 256 << 10;
  before = host.reg64(IPU_REG_SIM_TIME_NS_LO);
  i = host.post(0, TestHost::tile_desc(host.data_bus(), iss::kSramBase + 0x10000, tile_bytes, 0, 0, 16));
  ASSERT_EQ(host.wait_desc(0, i), IPU_DESC_STATUS_OK) << host.err_text();
  sys->wait_idle();
  expect_ns = double(tile_bytes) / 1e9 * 1e9 + 700;
  got_ns = double(host.reg64(IPU_REG_SIM_TIME_NS_LO) - before);
  EXPECT_NEAR(got_ns, expect_ns, 2.0) << "TILE broadcast: 256 KiB once over a 1 GB/s link";
}

// STREAM descriptors: a push is all or nothing (more than the FIFO's room fails with
// STREAM_OVERFLOW, nothing moved); a pop takes what the FIFO holds (bytes_done, maybe 0).
TEST(HostIfStreams, PushIsAllOrNothingPopTakesWhatIsHeld) {
  auto sys = ModelSession::open(tiny16_smem(), quiet());
  TestHost host(sys->link(0));
  const uint32_t fifo = host.reg(IPU_REG_STREAM_FIFO_BYTES);
  ASSERT_EQ(fifo, uint32_t(IPU_XFER_MAX));
  std::memset(host.data(), 0x5A, fifo);
  uint32_t i = host.post(0, stream_desc(host.data_bus(), 5, 1000));
  ASSERT_EQ(host.wait_desc(0, i), IPU_DESC_STATUS_OK) << host.err_text();
  EXPECT_EQ(host.desc(0, i).bytes_done, 1000u);
  EXPECT_EQ(host.reg(IPU_WIN_STREAM_H2D_LEVEL + 4 * 5), 1000u);
  EXPECT_EQ(host.reg(IPU_WIN_STREAM_H2D_LEVEL + 4 * 4), 0u);
  // The room is fifo - 1000: four bytes more fail and change nothing.
  i = host.post(0, stream_desc(host.data_bus(), 5, fifo - 1000 + 4));
  EXPECT_EQ(host.wait_desc(0, i), IPU_DESC_STATUS_ERROR);
  EXPECT_EQ(host.desc(0, i).error, IPU_ERR_STREAM_OVERFLOW);
  EXPECT_EQ(host.desc(0, i).bytes_done, 0u);
  EXPECT_EQ(host.reg(IPU_WIN_STREAM_H2D_LEVEL + 4 * 5), 1000u);
  EXPECT_EQ(host.reg(IPU_REG_ERR_CODE), IPU_ERR_STREAM_OVERFLOW);
  EXPECT_EQ(host.reg64(IPU_REG_ERR_ADDR_LO), 5u);
  EXPECT_NE(host.err_text().find("DMA channel 0 descriptor 1"), std::string::npos) << host.err_text();
  EXPECT_NE(host.err_text().find("host stream 5"), std::string::npos) << host.err_text();
  host.setup_ring(0);
  // Exactly the room fits.
  i = host.post(0, stream_desc(host.data_bus(), 5, fifo - 1000));
  ASSERT_EQ(host.wait_desc(0, i), IPU_DESC_STATUS_OK);
  EXPECT_EQ(host.reg(IPU_WIN_STREAM_H2D_LEVEL + 4 * 5), fifo);
  // A pop of an empty device-to-host FIFO: OK, 0 bytes.
  i = host.post(1, stream_desc(host.data_bus(), 5, 64));
  ASSERT_EQ(host.wait_desc(1, i), IPU_DESC_STATUS_OK);
  EXPECT_EQ(host.desc(1, i).bytes_done, 0u);
  // RESET empties the FIFOs.
  host.reset();
  sys->wait_idle();
  EXPECT_EQ(host.reg(IPU_WIN_STREAM_H2D_LEVEL + 4 * 5), 0u);
}

#ifdef IPUSIM_FIRMWARE_DIR
std::shared_ptr<const iss::Program> firmware(const std::string& name) {
  return iss::Program::load(std::string(IPUSIM_FIRMWARE_DIR) + "/" + name);
}

// stream_echo (firmware/stream_echo.c): 16 tiles, 6 rounds of 16 KiB from stream 3, each
// word w -> w * 3 + tile, to stream 7.
using namespace stream_echo;  // kTiles, kChunk, kIn, kOut, kWords, expected()

std::vector<uint32_t> echo_input() { return stream_echo::input(99); }

// A driver's stream service by hand: RUN; at STREAM_WAIT push up to `push_max` bytes of
// the input (at most the room) or pop what the device-to-host FIFO holds, RUN again.
struct EchoRun {
  std::vector<uint8_t> out;
  uint32_t h2d_stops = 0, d2h_stops = 0;
  uint64_t cycles = 0;
};
EchoRun serve_echo(TestHost& host, const std::vector<uint32_t>& input, uint32_t push_max) {
  const uint8_t* in = reinterpret_cast<const uint8_t*>(input.data());
  const size_t in_bytes = input.size() * 4;
  size_t pushed = 0;
  EchoRun r;
  const uint32_t fifo = host.reg(IPU_REG_STREAM_FIFO_BYTES);
  auto pop_all = [&](uint32_t expect) {
    const uint32_t level = host.reg(IPU_WIN_STREAM_D2H_LEVEL + 4 * kOut);
    EXPECT_EQ(level, expect);
    // Ask for more than is held: bytes_done says what came.
    const uint32_t i = host.post(1, stream_desc(host.data_bus(), kOut, level + 4096));
    EXPECT_EQ(host.wait_desc(1, i), IPU_DESC_STATUS_OK) << host.err_text();
    const uint32_t got = host.desc(1, i).bytes_done;
    EXPECT_EQ(got, level);
    r.out.insert(r.out.end(), reinterpret_cast<uint8_t*>(host.data()), reinterpret_cast<uint8_t*>(host.data()) + got);
    EXPECT_EQ(host.reg(IPU_WIN_STREAM_D2H_LEVEL + 4 * kOut), 0u);
  };
  for (int stops = 0; stops < 1000; ++stops) {
    host.set(IPU_REG_IRQ_STATUS, IPU_IRQ_STATUS_RUN_DONE_MASK);
    const uint32_t state = host.run();
    // STATE changes just before RUN_DONE is raised.
    EXPECT_TRUE(TestHost::wait_for([&] { return (host.reg(IPU_REG_IRQ_STATUS) & IPU_IRQ_STATUS_RUN_DONE_MASK) != 0; }, 5));
    if (state == IPU_STATE_HALTED) {
      EXPECT_EQ(host.reg(IPU_REG_EXIT_CODE), 0u);
      pop_all(host.reg(IPU_WIN_STREAM_D2H_LEVEL + 4 * kOut));
      r.cycles = host.reg64(IPU_REG_CYCLES_LO);
      return r;
    }
    if (state != IPU_STATE_STREAM_WAIT) {
      ADD_FAILURE() << "run ended in state " << state << ": " << host.err_text();
      return r;
    }
    const uint32_t id = host.reg(IPU_REG_STREAM_WAIT_ID);
    const uint32_t bytes = host.reg(IPU_REG_STREAM_WAIT_BYTES);
    if (host.reg(IPU_REG_STREAM_WAIT_DIR) & IPU_STREAM_WAIT_DIR_D2H_MASK) {
      ++r.d2h_stops;
      EXPECT_EQ(id, kOut);
      EXPECT_EQ(bytes, fifo);  // a write waits on a full FIFO
      pop_all(bytes);
      continue;
    }
    ++r.h2d_stops;
    EXPECT_EQ(id, kIn);
    EXPECT_GT(bytes, 0u);
    EXPECT_LE(bytes, kChunk);
    if (r.h2d_stops == 1) {
      EXPECT_EQ(bytes, kChunk);  // tile 0's first read, nothing there yet
    }
    const uint32_t level = host.reg(IPU_WIN_STREAM_H2D_LEVEL + 4 * kIn);
    const uint32_t n = uint32_t(std::min<size_t>({in_bytes - pushed, fifo - level, push_max}));
    EXPECT_GE(n, std::min<size_t>(bytes, in_bytes - pushed));
    std::memcpy(host.data(), in + pushed, n);
    const uint32_t i = host.post(0, stream_desc(host.data_bus(), kIn, n));
    EXPECT_EQ(host.wait_desc(0, i), IPU_DESC_STATUS_OK) << host.err_text();
    pushed += n;
    // Held until RUN: the level is what the host put there.
    EXPECT_EQ(host.reg(IPU_WIN_STREAM_H2D_LEVEL + 4 * kIn), level + n);
    EXPECT_EQ(host.state(), IPU_STATE_STREAM_WAIT);
  }
  ADD_FAILURE() << "too many stream stops";
  return r;
}

std::vector<uint8_t> as_bytes(const std::vector<uint32_t>& w) {
  std::vector<uint8_t> b(w.size() * 4);
  std::memcpy(b.data(), w.data(), b.size());
  return b;
}

TEST(HostIfStreams, EchoFirmwareThroughStreamWaitBothWays) {
  auto sys = ModelSession::open(tiny16_smem(), quiet());
  TestHost host(sys->link(0), 2 << 20);
  host.set(IPU_REG_IRQ_MASK, IPU_IRQ_STATUS_RUN_DONE_MASK);
  host.load(*firmware("host_if/stream_echo.elf"), 0, 0, kTiles);
  const std::vector<uint32_t> input = echo_input();
  // Pushes of 100 000 bytes: copies get their bytes in pieces across stops.
  const EchoRun r = serve_echo(host, input, 100000);
  EXPECT_EQ(r.out, as_bytes(expected(input)));
  EXPECT_GE(r.h2d_stops, uint32_t(input.size() * 4 / 100000));
  EXPECT_GE(r.d2h_stops, 1u);  // 1.5 MiB out, 1 MiB FIFO
  EXPECT_EQ(host.reg(IPU_REG_ERR_CODE), IPU_ERR_NONE) << host.err_text();
  std::printf("stream_echo: %u host-to-device stops, %u device-to-host stops, %llu cycles\n", r.h2d_stops, r.d2h_stops,
              (unsigned long long)r.cycles);
}

// The same service gives the same cycles; a different service (whole FIFOs at a time)
// gives the same bytes.
TEST(HostIfStreams, EchoIsDeterministicAndServiceSizeChangesNoBytes) {
  auto sys = ModelSession::open(tiny16_smem(), quiet());
  TestHost host(sys->link(0), 2 << 20);
  const std::vector<uint32_t> input = echo_input();
  std::vector<EchoRun> runs;
  for (uint32_t push : {65536u, 65536u, uint32_t(IPU_XFER_MAX)}) {
    host.reset();
    host.load(*firmware("host_if/stream_echo.elf"), 0, 0, kTiles);
    runs.push_back(serve_echo(host, input, push));
    EXPECT_EQ(runs.back().out, as_bytes(expected(input))) << "pushes of " << push;
  }
  EXPECT_EQ(runs[0].cycles, runs[1].cycles);
  EXPECT_EQ(runs[0].h2d_stops, runs[1].h2d_stops);
  EXPECT_GT(runs[0].h2d_stops, runs[2].h2d_stops);
}

// RESET while tiles wait on a stream drops the blocked copies; the board then runs a
// fresh program as after power-on.
TEST(HostIfStreams, ResetInStreamWaitThenRunAgain) {
  auto sys = ModelSession::open(tiny16_smem(), quiet());
  TestHost host(sys->link(0), 2 << 20);
  host.load(*firmware("host_if/stream_echo.elf"), 0, 0, kTiles);
  ASSERT_EQ(host.run(), IPU_STATE_STREAM_WAIT);
  EXPECT_EQ(host.reg(IPU_REG_STREAM_WAIT_ID), kIn);
  // Half a chunk: tile 0's copy takes it when RUN, then waits for the rest.
  std::memset(host.data(), 1, kChunk / 2);
  uint32_t i = host.post(0, stream_desc(host.data_bus(), kIn, kChunk / 2));
  ASSERT_EQ(host.wait_desc(0, i), IPU_DESC_STATUS_OK);
  ASSERT_EQ(host.run(), IPU_STATE_STREAM_WAIT);
  EXPECT_EQ(host.reg(IPU_REG_STREAM_WAIT_BYTES), kChunk / 2);
  EXPECT_EQ(host.reg(IPU_WIN_STREAM_H2D_LEVEL + 4 * kIn), 0u);
  // Another stream's bytes, to see RESET empty it.
  i = host.post(0, stream_desc(host.data_bus(), 9, 64));
  ASSERT_EQ(host.wait_desc(0, i), IPU_DESC_STATUS_OK);
  host.reset();
  sys->wait_idle();
  EXPECT_EQ(host.state(), IPU_STATE_IDLE);
  EXPECT_EQ(host.reg(IPU_WIN_STREAM_H2D_LEVEL + 4 * 9), 0u);
  EXPECT_EQ(host.reg(IPU_REG_STREAM_WAIT_ID), 0u);
  EXPECT_EQ(host.reg(IPU_REG_STREAM_WAIT_BYTES), 0u);
  host.load(*firmware("host_if/stream_echo.elf"), 0, 0, kTiles);
  const std::vector<uint32_t> input = echo_input();
  const EchoRun r = serve_echo(host, input, uint32_t(IPU_XFER_MAX));
  EXPECT_EQ(r.out, as_bytes(expected(input)));
  EXPECT_EQ(host.reg(IPU_REG_ERR_CODE), IPU_ERR_NONE) << host.err_text();
}

// A tile's streaming copy beyond the memory: the exchange fails with the fabric's
// structured first problem in ERR_*: SMEM_RANGE, the tile, thread 0, the posting's pc and
// the offset.
TEST(HostIfStreams, FirmwareSmemRangeErrorNamesTileAndPc) {
  auto sys = ModelSession::open(tiny16_smem(), quiet());
  TestHost host(sys->link(0));
  const auto program = firmware("streaming/smem_error1.elf");
  host.load(*program, 0, 0, kTiles);
  EXPECT_EQ(host.run(), IPU_STATE_ERROR);
  EXPECT_EQ(host.reg(IPU_REG_ERR_CODE), IPU_ERR_SMEM_RANGE) << host.err_text();
  EXPECT_EQ(host.reg(IPU_REG_ERR_IPU), 0u);
  EXPECT_EQ(host.reg(IPU_REG_ERR_TILE), 1u);
  EXPECT_EQ(host.reg(IPU_REG_ERR_THREAD), 0u);
  const uint32_t pc = host.reg(IPU_REG_ERR_PC);
  EXPECT_GE(pc, program->code_begin());
  EXPECT_LT(pc, program->code_end());
  EXPECT_EQ(host.reg64(IPU_REG_ERR_ADDR_LO), 0x7ffffffc0ull + 0x100000000ull);
  EXPECT_GT(host.reg64(IPU_REG_ERR_CYCLE_LO), 0u);
  const std::string text = host.err_text();
  EXPECT_NE(text.find("tile 1"), std::string::npos) << text;
  EXPECT_NE(text.find("streaming memory"), std::string::npos) << text;
}
#endif

}  // namespace
}  // namespace ipusim::test
