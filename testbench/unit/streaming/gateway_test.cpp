// The gateway on its own (SystemC, one test per process): Check errors with their codes and
// messages, the copies' timing formula (docs/streaming.md) against the config's rate,
// latency and the tile port, host streams from both sides: blocking on a short or full
// FIFO until the host serves it (the kernel starves meanwhile, sc_start returns), the
// stream-wait query, arrival order, and the no-host errors.
#include <gtest/gtest.h>

#include <cstring>
#include <functional>
#include <memory>
#include <numeric>
#include <vector>

#include <ipu/hostif_regs.h>
#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>

#include "streaming/gateway.h"
#include "common/payload.h"

namespace {

using namespace ipusim::streaming;
using ipusim::Problem;
using ipusim::to_text;
using sc_core::SC_NS;
using sc_core::sc_time;
using Op = GatewayCopy::Op;

// Sends requests from an SC_THREAD: script() runs once at time 0.
struct Fabric : sc_core::sc_module {
  tlm_utils::simple_initiator_socket<Fabric> socket;
  std::function<void(Fabric&)> script;
  bool finished = false;

  explicit Fabric(sc_core::sc_module_name n) : sc_module(n), socket("socket") {
    SC_HAS_PROCESS(Fabric);
    SC_THREAD(main);
  }
  void main() {
    if (script) script(*this);
    finished = true;
  }
  tlm::tlm_response_status call(GatewayRequest::Kind kind, std::vector<GatewayCopy>& copies,
                                std::vector<Problem>& errors) {
    GatewayRequest req;
    req.kind = kind;
    req.copies = &copies;
    req.errors = &errors;
    tlm::tlm_generic_payload trans;
    ipusim::attach_message(trans, req);
    sc_time delay = sc_core::SC_ZERO_TIME;
    socket->b_transport(trans, delay);
    return trans.get_response_status();
  }
};

GatewayConfig test_config() {
  GatewayConfig c;
  c.smem_bytes = uint64_t{16} << 30;  // 16 GiB
  c.smem_bytes_per_second = 20e9;
  c.smem_latency_ns = 500;
  c.tile_clock_hz = 1e9;
  c.tile_in_bytes_per_cycle = 4;   // 4 GB/s per tile port
  c.tile_out_bytes_per_cycle = 4;
  c.fifo_bytes = 1024;
  return c;
}

GatewayCopy copy(Op op, uint32_t tile, uint32_t len, uint64_t smem_addr = 0, uint32_t stream = 0) {
  GatewayCopy c;
  c.op = op;
  c.ipu = 0;
  c.tile = tile;
  c.pc = 0x40100 + 4 * tile;
  c.tile_addr = 0x50000;
  c.len = len;
  c.smem_addr = smem_addr;
  c.stream = stream;
  return c;
}

struct Bench {
  Gateway gateway;
  Fabric fabric;
  explicit Bench(const GatewayConfig& c = test_config()) : gateway("gateway", c), fabric("fabric") {
    fabric.socket.bind(gateway.copy_socket);
  }
};

TEST(Gateway, CheckNamesEveryBadCopy) {
  Bench b;
  std::vector<GatewayCopy> copies = {
      copy(Op::SmemRead, 1, 64, 0x1000),                          // fine
      copy(Op::SmemWrite, 2, 64, (uint64_t{16} << 30) - 32),      // runs past the end
      copy(Op::SmemRead, 3, 64, 0x1002),                          // misaligned
      copy(Op::StreamRead, 4, 16, 0, 64),                         // no stream 64
      copy(Op::SmemWrite, 5, IPU_XFER_MAX + 4, 0),                // too long
  };
  std::vector<Problem> errors;
  tlm::tlm_response_status status{};
  b.fabric.script = [&](Fabric& f) { status = f.call(GatewayRequest::Kind::Check, copies, errors); };
  sc_core::sc_start();
  ASSERT_TRUE(b.fabric.finished);
  EXPECT_EQ(status, tlm::TLM_GENERIC_ERROR_RESPONSE);
  ASSERT_EQ(errors.size(), 4u);
  EXPECT_EQ(uint32_t(errors[0].code), uint32_t(IPU_ERR_SMEM_RANGE));
  EXPECT_EQ(errors[0].tile, 2u);
  EXPECT_EQ(errors[0].pc, 0x40108u);
  EXPECT_EQ(errors[0].address, (uint64_t{16} << 30) - 32);
  EXPECT_EQ(errors[0].thread, 0u);
  EXPECT_EQ(errors[0].kind, "beyond streaming memory");
  EXPECT_EQ(to_text(errors[0]),
            "tile 2 (ipu 0) thread 0 pc 0x00040108: smwrite of 64 bytes at 0x00050000 to streaming memory "
            "0x00000003ffffffe0: beyond the end of streaming memory (0x400000000 bytes on board 0)");
  EXPECT_EQ(uint32_t(errors[1].code), uint32_t(IPU_ERR_SMEM_ALIGN));
  EXPECT_EQ(errors[1].tile, 3u);
  EXPECT_EQ(uint32_t(errors[2].code), uint32_t(IPU_ERR_STREAM));
  EXPECT_EQ(to_text(errors[2]),
            "tile 4 (ipu 0) thread 0 pc 0x00040110: hsread of 16 bytes into 0x00050000 from host stream 64: no such "
            "stream (ids 0..63)");
  EXPECT_EQ(uint32_t(errors[3].code), uint32_t(IPU_ERR_SMEM_RANGE));
  EXPECT_EQ(b.gateway.memory().pages_allocated(), 0u);  // a check moves nothing
}

TEST(Gateway, NoStreamingMemory) {
  GatewayConfig c = test_config();
  c.smem_bytes = 0;
  Bench b(c);
  std::vector<GatewayCopy> copies = {copy(Op::SmemRead, 0, 4, 0)};
  std::vector<Problem> errors;
  b.fabric.script = [&](Fabric& f) { f.call(GatewayRequest::Kind::Check, copies, errors); };
  sc_core::sc_start();
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(uint32_t(errors[0].code), uint32_t(IPU_ERR_SMEM_RANGE));
  EXPECT_NE(to_text(errors[0]).find("no streaming memory on board 0"), std::string::npos) << to_text(errors[0]);
}

// One copy: done = ready + L / min(B, port) + latency.
TEST(Gateway, OneCopyTiming) {
  Bench b;
  std::vector<uint8_t> data(4096);
  std::iota(data.begin(), data.end(), 0);
  std::vector<GatewayCopy> w = {copy(Op::SmemWrite, 0, 4096, 0x2000)};
  w[0].data = data.data();
  w[0].ready = sc_time(100, SC_NS);
  std::vector<uint8_t> back(4096);
  std::vector<GatewayCopy> r = {copy(Op::SmemRead, 0, 4096, 0x2000)};
  r[0].data = back.data();
  r[0].ready = sc_time(10000, SC_NS);
  std::vector<Problem> errors;
  b.fabric.script = [&](Fabric& f) {
    f.call(GatewayRequest::Kind::Run, w, errors);
    f.call(GatewayRequest::Kind::Run, r, errors);
  };
  sc_core::sc_start();
  EXPECT_TRUE(errors.empty());
  // 4096 B at 4 GB/s (the port; the gateway does 20) = 1024 ns, + 500 ns latency.
  EXPECT_EQ(w[0].done, sc_time(100 + 1024 + 500, SC_NS));
  EXPECT_EQ(r[0].done, sc_time(10000 + 1024 + 500, SC_NS));
  EXPECT_EQ(back, data);
  EXPECT_EQ(b.gateway.smem_copies(), 2u);
  EXPECT_EQ(b.gateway.smem_bytes_written(), 4096u);
  EXPECT_EQ(b.gateway.smem_bytes_read(), 4096u);
  EXPECT_EQ(b.gateway.smem_transfer_time(20000), sc_time(1000 + 500, SC_NS));
}

// Many tiles at once: the gateway's rate is the limit (within 1% of 20 GB/s); one tile
// alone: its port (4 GB/s).
TEST(Gateway, RateLimits) {
  Bench b;
  const uint32_t tiles = 32, len = 64 * 1024, per_tile = 4;
  std::vector<uint8_t> data(len, 0x5a);
  std::vector<GatewayCopy> many, one;
  for (uint32_t t = 0; t < tiles; ++t)
    for (uint32_t k = 0; k < per_tile; ++k) {
      many.push_back(copy(Op::SmemWrite, t, len, uint64_t(t * per_tile + k) * len));
      many.back().data = data.data();
    }
  for (uint32_t k = 0; k < 16; ++k) {
    one.push_back(copy(Op::SmemWrite, 7, len, uint64_t(k) * len));
    one.back().data = data.data();
    one.back().ready = sc_time(1, sc_core::SC_SEC);
  }
  std::vector<Problem> errors;
  b.fabric.script = [&](Fabric& f) {
    f.call(GatewayRequest::Kind::Run, many, errors);
    f.call(GatewayRequest::Kind::Run, one, errors);
  };
  sc_core::sc_start();
  ASSERT_TRUE(errors.empty());
  sc_time last = sc_core::SC_ZERO_TIME;
  for (const GatewayCopy& c : many) last = std::max(last, c.done);
  // The gateway never idles: the last copy starts after the other 127 took L / B each,
  // and takes L / P on its tile's port, plus the latency.
  const double bytes = double(tiles) * per_tile * len;
  const double expected_s = (bytes - len) / 20e9 + len / 4e9 + 500e-9;
  EXPECT_NEAR(last.to_seconds(), expected_s, 1e-9);
  const double rate = bytes / (last.to_seconds() - 500e-9 - len / 4e9 + len / 20e9);
  std::printf("32 tiles x 4 x 64 KiB: %.3f GB/s through the gateway (20), %.3f GB/s end to end; ", rate / 1e9,
              bytes / last.to_seconds() / 1e9);
  EXPECT_NEAR(rate, 20e9, 0.01 * 20e9);
  sc_time last_one = sc_core::SC_ZERO_TIME;
  for (const GatewayCopy& c : one) last_one = std::max(last_one, c.done);
  const double rate_one = 16.0 * len / (last_one - sc_time(1, sc_core::SC_SEC) - sc_time(500, SC_NS)).to_seconds();
  std::printf("one tile: %.3f GB/s (port 4)\n", rate_one / 1e9);
  EXPECT_NEAR(rate_one, 4e9, 0.01 * 4e9);
  // Copies are served in order: done times never go backwards within a tile.
  for (size_t i = 1; i < one.size(); ++i) EXPECT_GT(one[i].done, one[i - 1].done);
}

// A stream read of an empty FIFO blocks; the kernel starves, sc_start returns, the
// gateway says what it waits for; the host fills the FIFO in pieces and the read ends.
TEST(Gateway, StreamReadWaitsForTheHost) {
  Bench b;
  std::vector<uint8_t> got(96, 0);
  std::vector<GatewayCopy> copies = {copy(Op::StreamRead, 3, 96, 0, 5)};
  copies[0].data = got.data();
  std::vector<Problem> errors;
  tlm::tlm_response_status status = tlm::TLM_INCOMPLETE_RESPONSE;
  b.fabric.script = [&](Fabric& f) {
    status = f.call(GatewayRequest::Kind::Check, copies, errors);  // a host is connected: fine
    status = f.call(GatewayRequest::Kind::Run, copies, errors);
  };
  int notices = 0;
  b.gateway.set_fifo_listener([&](uint32_t stream, bool d2h) {
    EXPECT_EQ(stream, 5u);
    EXPECT_FALSE(d2h);
    ++notices;
  });
  sc_core::sc_start();
  EXPECT_FALSE(b.fabric.finished);
  auto wait = b.gateway.stream_wait();
  ASSERT_TRUE(wait);
  EXPECT_EQ(wait->stream, 5u);
  EXPECT_FALSE(wait->d2h);
  EXPECT_EQ(wait->bytes, 96u);
  EXPECT_EQ(wait->tile, 3u);
  EXPECT_EQ(wait->pc, 0x4010cu);

  std::vector<uint8_t> part(64);
  std::iota(part.begin(), part.end(), 1);
  EXPECT_EQ(b.gateway.push_h2d(5, part).bytes, 64u);
  sc_core::sc_start(sc_time(1000, SC_NS));  // the host's DMA took time
  EXPECT_FALSE(b.fabric.finished);
  ASSERT_TRUE(b.gateway.stream_wait());
  EXPECT_EQ(b.gateway.stream_wait()->bytes, 32u);
  EXPECT_EQ(b.gateway.h2d_level(5), 0u);  // taken already

  std::vector<uint8_t> rest(48);
  std::iota(rest.begin(), rest.end(), 65);
  EXPECT_EQ(b.gateway.push_h2d(5, rest).bytes, 48u);
  sc_core::sc_start();
  EXPECT_TRUE(b.fabric.finished);
  EXPECT_EQ(status, tlm::TLM_OK_RESPONSE);
  EXPECT_FALSE(b.gateway.stream_wait());
  std::vector<uint8_t> want(96);
  std::iota(want.begin(), want.end(), 1);
  EXPECT_EQ(got, want);
  EXPECT_EQ(b.gateway.h2d_level(5), 16u);  // what the copy did not need stays
  EXPECT_GE(copies[0].done, sc_time(1000, SC_NS) + sc_time(500, SC_NS));  // after the host served it
  EXPECT_EQ(b.gateway.stream_bytes_in(), 96u);
  EXPECT_GE(notices, 4);
}

// A stream write into a full FIFO blocks until the host drains it; bytes come out in order.
TEST(Gateway, StreamWriteWaitsForTheHost) {
  Bench b;  // FIFO of 1024 bytes
  std::vector<uint8_t> data(1536);
  for (size_t i = 0; i < data.size(); ++i) data[i] = uint8_t(i * 7);
  std::vector<GatewayCopy> copies = {copy(Op::StreamWrite, 0, 1024, 0, 63), copy(Op::StreamWrite, 1, 512, 0, 63)};
  copies[0].data = data.data();
  copies[1].data = data.data() + 1024;
  std::vector<Problem> errors;
  b.fabric.script = [&](Fabric& f) { f.call(GatewayRequest::Kind::Run, copies, errors); };
  sc_core::sc_start();
  EXPECT_FALSE(b.fabric.finished);
  ASSERT_TRUE(b.gateway.stream_wait());
  EXPECT_TRUE(b.gateway.stream_wait()->d2h);
  EXPECT_EQ(b.gateway.stream_wait()->stream, 63u);
  EXPECT_EQ(b.gateway.stream_wait()->bytes, 1024u);  // the FIFO holds
  EXPECT_EQ(b.gateway.stream_wait()->tile, 1u);
  std::vector<uint8_t> out(1536);
  EXPECT_EQ(b.gateway.pop_d2h(63, std::span(out).first(1024)).bytes, 1024u);
  sc_core::sc_start();
  EXPECT_TRUE(b.fabric.finished);
  EXPECT_TRUE(errors.empty());
  EXPECT_EQ(b.gateway.d2h_level(63), 512u);
  EXPECT_EQ(b.gateway.pop_d2h(63, std::span(out).subspan(1024)).bytes, 512u);
  EXPECT_EQ(out, data);
}

// Without a host a copy that would wait is an error, found by Check before anything moves.
TEST(Gateway, NoHostConnected) {
  GatewayConfig c = test_config();
  c.host_connected = false;
  Bench b(c);
  std::vector<uint8_t> eight(8, 9);
  EXPECT_EQ(b.gateway.push_h2d(2, eight).bytes, 8u);  // an in-process test may preload
  std::vector<GatewayCopy> copies = {copy(Op::StreamRead, 0, 8, 0, 2), copy(Op::StreamRead, 1, 8, 0, 2),
                                     copy(Op::StreamWrite, 2, 1028, 0, 4)};
  std::vector<Problem> errors;
  b.fabric.script = [&](Fabric& f) { f.call(GatewayRequest::Kind::Check, copies, errors); };
  sc_core::sc_start();
  ASSERT_EQ(errors.size(), 2u);
  EXPECT_EQ(uint32_t(errors[0].code), uint32_t(IPU_ERR_STREAM));
  EXPECT_EQ(errors[0].tile, 1u);  // the first read is served by the preloaded bytes
  EXPECT_NE(to_text(errors[0]).find("host stream 2: no host connected (use the driver)"), std::string::npos)
      << to_text(errors[0]);
  EXPECT_EQ(uint32_t(errors[1].code), uint32_t(IPU_ERR_STREAM_OVERFLOW));
  EXPECT_EQ(errors[1].tile, 2u);
  EXPECT_EQ(b.gateway.h2d_level(2), 8u);  // nothing moved
}

// Two fabrics reading one stream: served in the order their copies arrived.
TEST(Gateway, StreamCopiesInArrivalOrder) {
  Gateway gateway("gateway", test_config());
  Fabric first("first"), second("second");
  first.socket.bind(gateway.copy_socket);
  second.socket.bind(gateway.copy_socket);
  std::vector<uint8_t> a(8), c(8);
  std::vector<GatewayCopy> ca = {copy(Op::StreamRead, 0, 8, 0, 1)}, cc = {copy(Op::StreamRead, 0, 8, 0, 1)};
  ca[0].ipu = 0;
  cc[0].ipu = 1;
  ca[0].data = a.data();
  cc[0].data = c.data();
  std::vector<Problem> errors;
  first.script = [&](Fabric& f) { f.call(GatewayRequest::Kind::Run, ca, errors); };
  second.script = [&](Fabric& f) {
    sc_core::wait(sc_time(10, SC_NS));
    f.call(GatewayRequest::Kind::Run, cc, errors);
  };
  sc_core::sc_start();
  ASSERT_TRUE(gateway.stream_wait());
  EXPECT_EQ(gateway.stream_wait()->ipu, 0u);  // the oldest waiter
  std::vector<uint8_t> bytes(16);
  std::iota(bytes.begin(), bytes.end(), 0);
  gateway.push_h2d(1, bytes);
  sc_core::sc_start();
  EXPECT_TRUE(first.finished && second.finished);
  EXPECT_EQ(a, std::vector<uint8_t>(bytes.begin(), bytes.begin() + 8));
  EXPECT_EQ(c, std::vector<uint8_t>(bytes.begin() + 8, bytes.end()));
}

TEST(Gateway, HostSideApi) {
  Bench b;
  std::vector<uint8_t> in(100, 0x3c), out(100, 0);
  EXPECT_EQ(b.gateway.write_smem(0x1234, in), IPU_ERR_NONE);
  EXPECT_EQ(b.gateway.read_smem(0x1234, out), IPU_ERR_NONE);
  EXPECT_EQ(out, in);
  EXPECT_EQ(b.gateway.write_smem((uint64_t{16} << 30) - 50, in), IPU_ERR_SMEM_RANGE);
  EXPECT_EQ(b.gateway.read_smem((uint64_t{16} << 30) - 50, out), IPU_ERR_SMEM_RANGE);
  EXPECT_EQ(b.gateway.smem_size(), uint64_t{16} << 30);
  EXPECT_EQ(b.gateway.push_h2d(64, in).error, IPU_ERR_STREAM);
  EXPECT_EQ(b.gateway.pop_d2h(64, out).error, IPU_ERR_STREAM);
  EXPECT_EQ(b.gateway.fifo_bytes(), 1024u);
  std::vector<uint8_t> big(2000, 1);
  EXPECT_EQ(b.gateway.push_h2d(0, big).bytes, 1024u);  // as many as fit
  EXPECT_EQ(b.gateway.h2d_level(0), 1024u);
  b.gateway.reset_streams();
  EXPECT_EQ(b.gateway.h2d_level(0), 0u);
  EXPECT_EQ(kStreamFifoBytes, IPU_XFER_MAX);
}

}  // namespace
