// Host streams through the public API on the device model, both transports: a firmware
// reads N bytes from stream 0 over several supersteps and writes a transform to stream 1;
// buffer and callback endpoints; more data than the FIFO holds (several STREAM_WAIT
// services); a bad stream id, a stream with nothing connected, a source that runs dry.
#include <ipu/hostif_regs.h>

#include <chrono>
#include <cstring>
#include <random>

#include "device_fixture.h"

namespace devapi {
namespace {

using namespace std::chrono_literals;

struct Job {
  uint32_t bytes, chunk, steps_done, words;
};

std::vector<uint32_t> random_words(uint32_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<uint32_t> v(n);
  for (auto& w : v) w = rng();
  return v;
}

void expect_transformed(const std::vector<uint32_t>& in, const std::vector<uint32_t>& out) {
  ASSERT_EQ(out.size(), in.size());
  for (size_t i = 0; i < in.size(); ++i) ASSERT_EQ(out[i], in[i] + uint32_t(i)) << "word " << i;
}

class Streams : public DeviceApiTest {
 protected:
  std::unique_ptr<ipudrv::Device> loaded(uint32_t bytes, uint32_t chunk) {
    return load_job(open("configs/test/tiny4x2_smem.yaml"), bytes, chunk);
  }
  std::unique_ptr<ipudrv::Device> load_job(std::unique_ptr<ipudrv::Device> dev, uint32_t bytes, uint32_t chunk) {
    EXPECT_TRUE(dev->info().has_streams);
    dev->load(elf("device_api/stream_xform.elf"));
    const Job job{bytes, chunk, 0, 0};
    for (uint32_t ipu = 0; ipu < dev->info().ipus; ++ipu)
      for (uint32_t t = 0; t < dev->info().tiles_per_ipu; ++t) dev->write_symbol(ipu, t, "stream_job", bytes_of(job));
    return dev;
  }
};

TEST_P(Streams, BuffersBothWaysLargerThanTheFifo) {
  constexpr uint32_t kChunk = 16384;
  // Two and a half FIFOs of data, in whole chunks: the FIFO fills and drains repeatedly.
  auto dev = open("configs/test/tiny4x2_smem.yaml");
  const uint32_t fifo = dev->info().stream_fifo_bytes;
  ASSERT_GT(fifo, 0u);
  const uint32_t words = (fifo * 5 / 2 / kChunk) * kChunk / 4;
  dev = load_job(std::move(dev), words * 4, kChunk);
  ASSERT_LT(fifo, words * 4u) << "the data must not fit the FIFO";
  const auto in = random_words(words, 1);
  std::vector<uint32_t> out(words, 0xDEADBEEF);
  dev->connect_h2d_stream(0, std::as_bytes(std::span(in)));
  dev->connect_d2h_stream(1, std::as_writable_bytes(std::span(out)));
  const auto r = dev->run(0, 60s);
  EXPECT_EQ(r.state, ipudrv::RunState::kHalted);
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_GE(r.stream_services, words * 4 / fifo) << "one STREAM_WAIT per FIFO-full at least";
  EXPECT_EQ(dev->d2h_stream_bytes(1), words * 4u);
  expect_transformed(in, out);
  Job done{};
  dev->read_symbol(0, 0, "stream_job", writable_bytes_of(done));
  EXPECT_EQ(done.steps_done, words * 4 / kChunk);
  EXPECT_EQ(done.words, words);
}

TEST_P(Streams, CallbacksBothWaysInOddPieces) {
  const uint32_t words = 20000;
  auto dev = loaded(words * 4, 4000);
  const auto in = random_words(words, 2);
  size_t given = 0, calls = 0;
  std::vector<uint32_t> out;
  std::vector<std::byte> received;
  dev->connect_h2d_stream(0, [&](std::span<std::byte> room) -> size_t {
    ++calls;
    const size_t n = std::min({room.size(), size_t(777), in.size() * 4 - given});  // odd pieces
    std::memcpy(room.data(), reinterpret_cast<const std::byte*>(in.data()) + given, n);
    given += n;
    return n;
  });
  dev->connect_d2h_stream(1, [&](std::span<const std::byte> d) { received.insert(received.end(), d.begin(), d.end()); });
  const auto r = dev->run(0, 60s);
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_GT(r.stream_services, 0u);
  EXPECT_EQ(given, in.size() * 4);
  EXPECT_GT(calls, in.size() * 4 / 777);
  out.resize(received.size() / 4);
  std::memcpy(out.data(), received.data(), out.size() * 4);
  EXPECT_EQ(received.size(), in.size() * 4);
  expect_transformed(in, out);
}

TEST_P(Streams, SplitRunsServeStreamsToo) {
  const uint32_t words = 8192;
  auto dev = loaded(words * 4, 4096);
  const auto in = random_words(words, 3);
  std::vector<uint32_t> out(words);
  dev->connect_h2d_stream(0, std::as_bytes(std::span(in)));
  dev->connect_d2h_stream(1, std::as_writable_bytes(std::span(out)));
  ipudrv::RunResult r;
  int runs = 0;
  do {
    r = dev->run(3, 30s);
  } while (r.state == ipudrv::RunState::kPaused && ++runs < 1000);
  EXPECT_EQ(r.state, ipudrv::RunState::kHalted);
  EXPECT_GT(runs, 2);
  expect_transformed(in, out);
}

TEST_P(Streams, NothingConnectedDryAndOverflowingAreStreamErrors) {
  auto dev = loaded(8192, 4096);
  // Nothing on stream 0.
  const auto none = [&] { dev->run(0, 30s); };
  EXPECT_THROW(none(), ipudrv::StreamError);
  // A source that runs dry.
  dev = nullptr;
  auto again = ipudrv::open(locator());
  again->load(elf("device_api/stream_xform.elf"));
  std::vector<uint32_t> short_in(100), out(4096);
  again->connect_h2d_stream(0, std::as_bytes(std::span(short_in)));
  again->connect_d2h_stream(1, std::as_writable_bytes(std::span(out)));
  try {
    again->run(0, 30s);
    ADD_FAILURE() << "a dry source ran to the end";
  } catch (const ipudrv::StreamError& e) {
    EXPECT_NE(std::string(e.what()).find("stream 0"), std::string::npos) << e.what();
  }
  // A sink too small.
  again->reset();
  again->load(elf("device_api/stream_xform.elf"));
  std::vector<uint32_t> in(65536 / 4), tiny(16);
  again->connect_h2d_stream(0, std::as_bytes(std::span(in)));
  again->connect_d2h_stream(1, std::as_writable_bytes(std::span(tiny)));
  EXPECT_THROW(again->run(0, 30s), ipudrv::StreamError);
  // And the board works after reset.
  again->reset();
  again->load(elf("allreduce.elf"));
  EXPECT_EQ(again->run(0, 60s).exit_code, 0);
}

// Firmware misuse: stream id 64 (the tile's fault), stream 5 with no host connected.
TEST_P(Streams, BadStreamIdAndUnconnectedStreamFromFirmware) {
  auto dev = open("configs/test/tiny4x2_smem.yaml");
  dev->load(elf("streaming/smem_error3.elf"));
  try {
    dev->run(0, 30s);
    ADD_FAILURE() << "stream id 64 ran";
  } catch (const ipudrv::TileFaultError& e) {
    ASSERT_TRUE(e.device_error());
    EXPECT_EQ(e.device_error()->tile, 1u);
    EXPECT_EQ(e.device_error()->thread, 0u);
    EXPECT_EQ(e.device_error()->kind, "exchange misuse");
    EXPECT_EQ(e.device_error()->addr, 64u) << "the stream id";
  }
  dev->reset();
  dev->load(elf("streaming/smem_error4.elf"));
  try {
    dev->run(0, 30s);
    ADD_FAILURE() << "stream 5 with nothing connected ran";
  } catch (const ipudrv::StreamError& e) {
    EXPECT_NE(std::string(e.what()).find("5"), std::string::npos) << e.what();
  }
  dev->reset();
  dev->load(elf("allreduce.elf"));
  EXPECT_EQ(dev->run(0, 60s).exit_code, 0);
}

DEVAPI_TRANSPORTS(Streams);

}  // namespace
}  // namespace devapi
