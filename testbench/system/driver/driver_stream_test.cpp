// Host streams through both transports: STREAM_WAIT stops served from buffers and
// callbacks, FIFO-sized pieces, the end-of-run drain, and the host-side stream errors.
#include <ipu/hostif_regs.h>

#include "driver_backend.h"
#include "test_elf.h"

namespace drvtest {
namespace {

using fakedev::Step;
using Kind = fakedev::Step::Kind;

class DriverStream : public DriverTest {
 protected:
  std::unique_ptr<ipudrv::Device> loaded() {
    testelf::Image img;
    img.code = {0x00000013, 0x0000006f};
    auto dev = open();
    dev->load(ipudrv::Elf::from_bytes(testelf::build(img), "s.elf"));
    return dev;
  }
  static std::vector<std::byte> bytes(size_t n, uint8_t seed) {
    std::vector<std::byte> v(n);
    for (size_t i = 0; i < n; ++i) v[i] = std::byte(uint8_t(seed + 3 * i));
    return v;
  }
  static std::vector<uint8_t> u8(std::span<const std::byte> s) {
    return {reinterpret_cast<const uint8_t*>(s.data()), reinterpret_cast<const uint8_t*>(s.data()) + s.size()};
  }
};

TEST_P(DriverStream, HostToDeviceFromABufferInFifoSizedPieces) {
  auto dev = loaded();
  const auto src = bytes(1000, 1);
  dev->connect_h2d_stream(3, src);
  Step a{Kind::kStreamRead}, b{Kind::kStreamRead};
  a.stream = 3, a.bytes = 200;
  b.stream = 3, b.bytes = 600;  // more than the 256-byte FIFO: several stops
  fake().script({a, b, Step{Kind::kHalt}});
  const auto r = dev->run();
  EXPECT_EQ(r.state, ipudrv::RunState::kHalted);
  EXPECT_GE(r.stream_services, 4u);
  const auto got = fake().consumed(3);
  ASSERT_EQ(got.size(), 800u);
  const auto want = u8(src);
  EXPECT_EQ(got, std::vector<uint8_t>(want.begin(), want.begin() + 800));
}

TEST_P(DriverStream, HostToDeviceFromACallback) {
  auto dev = loaded();
  uint8_t next = 0;
  size_t calls = 0;
  dev->connect_h2d_stream(0, [&](std::span<std::byte> out) {
    ++calls;
    const size_t n = std::min<size_t>(out.size(), 50);  // trickle: 50 bytes per call
    for (size_t i = 0; i < n; ++i) out[i] = std::byte(next++);
    return n;
  });
  Step s{Kind::kStreamRead};
  s.stream = 0, s.bytes = 300;
  fake().script({s, Step{Kind::kHalt}});
  dev->run();
  const auto got = fake().consumed(0);
  ASSERT_EQ(got.size(), 300u);
  for (size_t i = 0; i < got.size(); ++i) ASSERT_EQ(got[i], uint8_t(i)) << i;
  EXPECT_GE(calls, 6u);
}

TEST_P(DriverStream, DeviceToHostIntoABufferDrainsStopsAndTheEnd) {
  auto dev = loaded();
  std::vector<std::byte> sink(2000);
  dev->connect_d2h_stream(9, sink);
  Step w{Kind::kStreamWrite};
  w.stream = 9;
  for (int i = 0; i < 700; ++i) w.data.push_back(uint8_t(i * 5));
  fake().script({w, Step{Kind::kHalt}});
  const auto r = dev->run();
  EXPECT_GE(r.stream_services, 2u);  // 700 bytes through a 256-byte FIFO
  EXPECT_EQ(dev->d2h_stream_bytes(9), 700u);
  for (int i = 0; i < 700; ++i) ASSERT_EQ(sink[i], std::byte(uint8_t(i * 5))) << i;
}

TEST_P(DriverStream, DeviceToHostIntoACallback) {
  auto dev = loaded();
  std::vector<uint8_t> got;
  dev->connect_d2h_stream(1, [&](std::span<const std::byte> d) { got.insert(got.end(), (const uint8_t*)d.data(), (const uint8_t*)d.data() + d.size()); });
  Step w{Kind::kStreamWrite};
  w.stream = 1;
  w.data.assign(100, 0x5A);
  fake().script({w, Step{Kind::kHalt}});
  dev->run();
  EXPECT_EQ(got, std::vector<uint8_t>(100, 0x5A));
}

TEST_P(DriverStream, UnconnectedOrExhaustedStreamsAreStreamErrors) {
  auto dev = loaded();
  Step s{Kind::kStreamRead};
  s.stream = 5, s.bytes = 10;
  fake().script({s});
  try {
    dev->run();
    FAIL();
  } catch (const ipudrv::StreamError& e) {
    EXPECT_NE(std::string(e.what()).find("host stream 5"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("not connected"), std::string::npos) << e.what();
  }
  dev.reset();
  dev = loaded();
  const auto small = bytes(4, 0);
  dev->connect_h2d_stream(5, small);
  fake().script({s});
  EXPECT_THROW(dev->run(), ipudrv::StreamError);

  dev.reset();
  dev = loaded();
  std::vector<std::byte> tiny(10);
  dev->connect_d2h_stream(2, tiny);
  Step w{Kind::kStreamWrite};
  w.stream = 2;
  w.data.assign(50, 1);
  fake().script({w, Step{Kind::kHalt}});
  EXPECT_THROW(dev->run(), ipudrv::StreamError);
}

INSTANTIATE_TEST_SUITE_P(Transports, DriverStream, ::testing::Values(Backend::kInProcess, Backend::kSocket), backend_name);

}  // namespace
}  // namespace drvtest
