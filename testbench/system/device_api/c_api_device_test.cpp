// The C API (ipudrv.h) on the device model, both transports: the calls that the fake
// board's c_api_test cannot show — tile memory, host streams with buffers and with C
// callbacks, freeing streaming memory, abort of an endless loop, raw registers, the trace
// and the console printer — each with good and bad arguments, checking status codes and
// messages. (ipudrv_api_coverage checks that every function of ipudrv.h is called by a test.)
#include "ipudrv/ipudrv.h"

#include <ipu/hostif_regs.h>
#include <ipu/xipu_isa.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <future>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "device_fixture.h"

namespace devapi {
namespace {

using namespace std::chrono_literals;

struct Job {  // stream_xform.c's stream_job
  uint32_t bytes, chunk, steps_done, words;
};

// Closes the handle at the end of the test, whatever failed.
struct Handle {
  ipudrv_device* dev = nullptr;
  ~Handle() { ipudrv_close(dev); }
};

std::string last_error() { return ipudrv_last_error(); }

uint32_t state_of(ipudrv_device* dev) {
  uint32_t status = 0xFFFFFFFFu;
  EXPECT_EQ(ipudrv_read_register(dev, IPU_REG_STATUS, &status), IPUDRV_OK) << last_error();
  return status & IPU_STATUS_STATE_MASK;
}

class CApiDevice : public DeviceApiTest {
 protected:
  void open_c(const std::string& config, Handle& h) {
    ASSERT_EQ(ipudrv_open(start(config).c_str(), 0, &h.dev), IPUDRV_OK) << last_error();
  }
  // stream_xform on every tile of tiny4x2_smem: `bytes` from stream 0 in `chunk`s, each
  // word plus its index to stream 1.
  void load_xform(ipudrv_device* dev, uint32_t bytes, uint32_t chunk) {
    ASSERT_EQ(ipudrv_load(dev, firmware("device_api/stream_xform.elf").c_str()), IPUDRV_OK) << last_error();
    const Job job{bytes, chunk, 0, 0};
    for (uint32_t ipu = 0; ipu < 2; ++ipu)
      for (uint32_t t = 0; t < 4; ++t)
        ASSERT_EQ(ipudrv_write_symbol(dev, ipu, t, "stream_job", &job, sizeof job), IPUDRV_OK) << last_error();
  }
};

std::vector<uint32_t> words(uint32_t n, uint32_t seed) {
  std::vector<uint32_t> v(n);
  for (uint32_t i = 0; i < n; ++i) v[i] = seed * 0x9E3779B9u + i * 2654435761u;
  return v;
}

void expect_transformed(const std::vector<uint32_t>& in, const std::vector<uint32_t>& out) {
  ASSERT_EQ(out.size(), in.size());
  for (size_t i = 0; i < in.size(); ++i) ASSERT_EQ(out[i], in[i] + uint32_t(i)) << "word " << i;
}

TEST_P(CApiDevice, TileMemoryAndRegisters) {
  Handle h;
  ASSERT_NO_FATAL_FAILURE(open_c("configs/test/tiny4.yaml", h));
  ASSERT_EQ(ipudrv_load(h.dev, firmware("allreduce.elf").c_str()), IPUDRV_OK) << last_error();
  // Registers: the ID magic and READY after the load.
  uint32_t id = 0;
  ASSERT_EQ(ipudrv_read_register(h.dev, IPU_REG_ID, &id), IPUDRV_OK) << last_error();
  EXPECT_EQ(id, IPU_ID_MAGIC);
  EXPECT_EQ(state_of(h.dev), uint32_t(IPU_STATE_READY));
  EXPECT_EQ(ipudrv_read_register(h.dev, IPU_REG_ID, nullptr), IPUDRV_E_USAGE);
  EXPECT_EQ(last_error(), "null value");
  EXPECT_EQ(ipudrv_read_register(nullptr, IPU_REG_ID, &id), IPUDRV_E_USAGE);
  EXPECT_EQ(last_error(), "null device handle");
  // An offset in BAR0 where no register is reads as all ones and records the device's
  // REG error.
  uint32_t none = 0;
  ASSERT_EQ(ipudrv_read_register(h.dev, IPU_BAR0_BYTES - 4, &none), IPUDRV_OK) << last_error();
  EXPECT_EQ(none, 0xFFFFFFFFu);
  uint32_t code = 0;
  ASSERT_EQ(ipudrv_read_register(h.dev, IPU_REG_ERR_CODE, &code), IPUDRV_OK);
  EXPECT_EQ(code, uint32_t(IPU_ERR_REG));
  ASSERT_EQ(ipudrv_reset(h.dev), IPUDRV_OK) << last_error();
  ASSERT_EQ(ipudrv_read_register(h.dev, IPU_REG_ERR_CODE, &code), IPUDRV_OK);
  EXPECT_EQ(code, uint32_t(IPU_ERR_NONE)) << "reset clears it";
  // Past BAR0 the driver refuses the offset itself, so both transports answer alike and
  // the device records nothing.
  EXPECT_EQ(ipudrv_read_register(h.dev, IPU_BAR0_BYTES, &none), IPUDRV_E_USAGE);
  EXPECT_EQ(last_error(), "read_register: offset 4096 is outside BAR0 (4096 bytes)");
  ASSERT_EQ(ipudrv_read_register(h.dev, IPU_REG_ERR_CODE, &code), IPUDRV_OK);
  EXPECT_EQ(code, uint32_t(IPU_ERR_NONE));

  // Tile memory: written on one tile, read back there; the others untouched.
  const uint32_t at = IPU_SRAM_BASE + 0x20000;
  std::vector<uint8_t> bytes(1000);
  for (size_t i = 0; i < bytes.size(); ++i) bytes[i] = uint8_t(i * 7 + 3);
  ASSERT_EQ(ipudrv_write_tile(h.dev, 0, 2, at, bytes.data(), bytes.size()), IPUDRV_OK) << last_error();
  std::vector<uint8_t> back(bytes.size(), 0xEE);
  ASSERT_EQ(ipudrv_read_tile(h.dev, 0, 2, at, back.data(), back.size()), IPUDRV_OK) << last_error();
  EXPECT_EQ(back, bytes);
  ASSERT_EQ(ipudrv_read_tile(h.dev, 0, 1, at, back.data(), back.size()), IPUDRV_OK) << last_error();
  EXPECT_EQ(back, std::vector<uint8_t>(bytes.size(), 0)) << "tile 1 was not written";
  EXPECT_EQ(ipudrv_read_tile(h.dev, 0, 2, at, back.data(), 0), IPUDRV_OK) << "0 bytes: nothing to do";
  // Bad arguments: each an error naming what was wrong, the buffer untouched.
  std::fill(back.begin(), back.end(), 0xEE);
  EXPECT_EQ(ipudrv_read_tile(h.dev, 0, 4, at, back.data(), 16), IPUDRV_E_USAGE);
  EXPECT_EQ(last_error(), "tiles 4..4 of ipu 0: each IPU has 4 tiles");
  EXPECT_EQ(ipudrv_read_tile(h.dev, 1, 0, at, back.data(), 16), IPUDRV_E_USAGE);
  EXPECT_EQ(last_error(), "ipu 1: the device has 1 IPUs");
  // An address below SRAM is the device's DMA error, with its registers.
  EXPECT_EQ(ipudrv_read_tile(h.dev, 0, 2, IPU_SRAM_BASE - 16, back.data(), 16), IPUDRV_E_DMA);
  EXPECT_NE(last_error().find("0x3fff0"), std::string::npos) << last_error();
  ipudrv_device_error e{};
  ASSERT_EQ(ipudrv_last_device_error(&e), IPUDRV_OK);
  EXPECT_EQ(e.code, uint32_t(IPU_ERR_DMA_TILE)) << e.text;
  EXPECT_EQ(e.addr, IPU_SRAM_BASE - 16u) << e.text;
  EXPECT_EQ(ipudrv_read_tile(h.dev, 0, 2, at, nullptr, 16), IPUDRV_E_USAGE);
  EXPECT_EQ(last_error(), "null buffer pointer with a non-zero size");
  EXPECT_EQ(ipudrv_read_tile(nullptr, 0, 2, at, back.data(), 16), IPUDRV_E_USAGE);
  EXPECT_EQ(last_error(), "null device handle");
  EXPECT_EQ(back, std::vector<uint8_t>(bytes.size(), 0xEE));
}

TEST_P(CApiDevice, SmemFreeTakesBackOnlyWhatWasAllocated) {
  Handle h;
  ASSERT_NO_FATAL_FAILURE(open_c("configs/test/tiny4x2_smem.yaml", h));
  uint64_t a = 1, b = 1;
  ASSERT_EQ(ipudrv_smem_alloc(h.dev, 4096, 256, &a), IPUDRV_OK) << last_error();
  ASSERT_EQ(ipudrv_smem_alloc(h.dev, 8192, 256, &b), IPUDRV_OK) << last_error();
  EXPECT_NE(a, b);
  ASSERT_EQ(ipudrv_smem_free(h.dev, a, 4096), IPUDRV_OK) << last_error();
  // Freed once: a second free, a wrong length, an offset inside it, one never allocated.
  EXPECT_EQ(ipudrv_smem_free(h.dev, a, 4096), IPUDRV_E_USAGE);
  EXPECT_EQ(last_error(), "free_smem: [" + std::to_string(a) + ", +4096) is not an allocation");
  EXPECT_EQ(ipudrv_smem_free(h.dev, b, 4096), IPUDRV_E_USAGE);
  EXPECT_EQ(last_error(), "free_smem: [" + std::to_string(b) + ", +4096) is not an allocation");
  EXPECT_EQ(ipudrv_smem_free(h.dev, b + 256, 8192 - 256), IPUDRV_E_USAGE);
  EXPECT_EQ(ipudrv_smem_free(h.dev, 60ull << 20, 64), IPUDRV_E_USAGE);
  EXPECT_EQ(ipudrv_smem_free(nullptr, b, 8192), IPUDRV_E_USAGE);
  EXPECT_EQ(last_error(), "null device handle");
  // The refused frees changed nothing: b is still held, a's range is the first fit again.
  uint64_t again = 1;
  ASSERT_EQ(ipudrv_smem_alloc(h.dev, 4096, 256, &again), IPUDRV_OK) << last_error();
  EXPECT_EQ(again, a);
  ASSERT_EQ(ipudrv_smem_free(h.dev, b, 8192), IPUDRV_OK) << last_error();
  EXPECT_EQ(ipudrv_smem_free(h.dev, b, 8192), IPUDRV_E_USAGE) << "b was freed once already";
}

// Stream 0 from a host buffer and stream 1 into one; then the same through C callbacks
// in odd pieces; then stream 0 disconnected, which the run reports.
struct Source {
  const uint8_t* data;
  size_t size, given = 0, calls = 0;
};
size_t fill_odd(void* user, void* out, size_t capacity) {
  auto& s = *static_cast<Source*>(user);
  const size_t n = std::min({capacity, size_t(999), s.size - s.given});
  std::memcpy(out, s.data + s.given, n);
  s.given += n;
  ++s.calls;
  return n;
}
void drain_all(void* user, const void* data, size_t bytes) {
  auto& v = *static_cast<std::vector<uint8_t>*>(user);
  v.insert(v.end(), static_cast<const uint8_t*>(data), static_cast<const uint8_t*>(data) + bytes);
}

TEST_P(CApiDevice, StreamsThroughBuffersCallbacksAndDisconnect) {
  constexpr uint32_t kWords = 6000, kChunk = 4000;
  Handle h;
  ASSERT_NO_FATAL_FAILURE(open_c("configs/test/tiny4x2_smem.yaml", h));
  const std::vector<uint32_t> in = words(kWords, 1);

  // Buffers.
  ASSERT_NO_FATAL_FAILURE(load_xform(h.dev, kWords * 4, kChunk));
  std::vector<uint32_t> out(kWords, 0xDEADBEEF);
  ASSERT_EQ(ipudrv_stream_h2d_buffer(h.dev, 0, in.data(), in.size() * 4), IPUDRV_OK) << last_error();
  ASSERT_EQ(ipudrv_stream_d2h_buffer(h.dev, 1, out.data(), out.size() * 4), IPUDRV_OK) << last_error();
  ipudrv_run_result r{};
  ASSERT_EQ(ipudrv_run(h.dev, 0, 60000, &r), IPUDRV_OK) << last_error();
  EXPECT_EQ(r.halted, 1);
  EXPECT_GT(r.stream_services, 0u);
  expect_transformed(in, out);

  // Bad arguments: an id past 63, a null buffer with a size, a null callback, no device.
  EXPECT_EQ(ipudrv_stream_h2d_buffer(h.dev, IPU_STREAMS, in.data(), 4), IPUDRV_E_USAGE);
  EXPECT_EQ(last_error(), "stream id 64: ids are 0 .. 63");
  EXPECT_EQ(ipudrv_stream_d2h_buffer(h.dev, 99, out.data(), 4), IPUDRV_E_USAGE);
  EXPECT_EQ(last_error(), "stream id 99: ids are 0 .. 63");
  EXPECT_EQ(ipudrv_stream_h2d_buffer(h.dev, 0, nullptr, 4), IPUDRV_E_USAGE);
  EXPECT_EQ(last_error(), "null data pointer with a non-zero size");
  EXPECT_EQ(ipudrv_stream_d2h_buffer(h.dev, 1, nullptr, 4), IPUDRV_E_USAGE);
  EXPECT_EQ(last_error(), "null buffer pointer with a non-zero size");
  EXPECT_EQ(ipudrv_stream_h2d_callback(h.dev, 0, nullptr, nullptr), IPUDRV_E_USAGE);
  EXPECT_EQ(last_error(), "null fill callback");
  EXPECT_EQ(ipudrv_stream_d2h_callback(h.dev, 1, nullptr, nullptr), IPUDRV_E_USAGE);
  EXPECT_EQ(last_error(), "null drain callback");
  Source unused{nullptr, 0};
  EXPECT_EQ(ipudrv_stream_h2d_callback(h.dev, 64, fill_odd, &unused), IPUDRV_E_USAGE);
  EXPECT_EQ(last_error(), "stream id 64: ids are 0 .. 63");
  EXPECT_EQ(ipudrv_stream_d2h_callback(h.dev, 64, drain_all, nullptr), IPUDRV_E_USAGE);
  EXPECT_EQ(ipudrv_stream_disconnect(h.dev, 64), IPUDRV_E_USAGE);
  EXPECT_EQ(last_error(), "stream id 64: ids are 0 .. 63");
  EXPECT_EQ(ipudrv_stream_h2d_buffer(nullptr, 0, in.data(), 4), IPUDRV_E_USAGE);
  EXPECT_EQ(ipudrv_stream_disconnect(nullptr, 0), IPUDRV_E_USAGE);
  EXPECT_EQ(last_error(), "null device handle");

  // C callbacks, replacing the buffers.
  ASSERT_NO_FATAL_FAILURE(load_xform(h.dev, kWords * 4, kChunk));
  Source src{reinterpret_cast<const uint8_t*>(in.data()), in.size() * 4};
  std::vector<uint8_t> received;
  ASSERT_EQ(ipudrv_stream_h2d_callback(h.dev, 0, fill_odd, &src), IPUDRV_OK) << last_error();
  ASSERT_EQ(ipudrv_stream_d2h_callback(h.dev, 1, drain_all, &received), IPUDRV_OK) << last_error();
  ASSERT_EQ(ipudrv_run(h.dev, 0, 60000, &r), IPUDRV_OK) << last_error();
  EXPECT_EQ(r.halted, 1);
  EXPECT_EQ(src.given, in.size() * 4);
  EXPECT_GT(src.calls, in.size() * 4 / 999) << "pieces of at most 999 bytes";
  ASSERT_EQ(received.size(), in.size() * 4);
  std::vector<uint32_t> got(kWords);
  std::memcpy(got.data(), received.data(), received.size());
  expect_transformed(in, got);

  // Stream 0 disconnected (an id never connected is fine too): the run's stream error.
  ASSERT_EQ(ipudrv_stream_disconnect(h.dev, 0), IPUDRV_OK) << last_error();
  ASSERT_EQ(ipudrv_stream_disconnect(h.dev, 63), IPUDRV_OK) << last_error();
  ASSERT_NO_FATAL_FAILURE(load_xform(h.dev, kWords * 4, kChunk));
  EXPECT_EQ(ipudrv_run(h.dev, 0, 60000, &r), IPUDRV_E_STREAM);
  EXPECT_NE(last_error().find("host stream 0 (host to device)"), std::string::npos) << last_error();
  EXPECT_NE(last_error().find("not connected"), std::string::npos) << last_error();
}

TEST_P(CApiDevice, AbortEndsAnEndlessRun) {
  Handle h;
  ASSERT_NO_FATAL_FAILURE(open_c("configs/test/tiny4.yaml", h));
  ASSERT_EQ(ipudrv_load(h.dev, firmware("system/endless.elf").c_str()), IPUDRV_OK) << last_error();
  // The run waits on its own thread (the last error is per thread: it reports its own).
  auto run = std::async(std::launch::async, [dev = h.dev] {
    ipudrv_run_result r{};
    const int status = ipudrv_run(dev, 0, 0, &r);
    return std::make_pair(status, last_error());
  });
  const auto end = std::chrono::steady_clock::now() + 20s;
  while (state_of(h.dev) != uint32_t(IPU_STATE_RUNNING) && std::chrono::steady_clock::now() < end)
    std::this_thread::sleep_for(5ms);
  ASSERT_EQ(state_of(h.dev), uint32_t(IPU_STATE_RUNNING));
  EXPECT_EQ(ipudrv_abort(nullptr), IPUDRV_E_USAGE);
  EXPECT_EQ(last_error(), "null device handle");
  std::this_thread::sleep_for(100ms);
  EXPECT_EQ(state_of(h.dev), uint32_t(IPU_STATE_RUNNING)) << "a refused abort stops nothing";
  ASSERT_EQ(ipudrv_abort(h.dev), IPUDRV_OK) << last_error();
  ASSERT_EQ(run.wait_for(10s), std::future_status::ready) << "abort did not end the run";
  const auto [status, message] = run.get();
  EXPECT_EQ(status, IPUDRV_E_STATE) << message;
  EXPECT_NE(message.find("aborted"), std::string::npos) << message;
  EXPECT_EQ(state_of(h.dev), uint32_t(IPU_STATE_ERROR));
  // The device runs again after a load.
  ASSERT_EQ(ipudrv_load(h.dev, firmware("allreduce.elf").c_str()), IPUDRV_OK) << last_error();
  ipudrv_run_result r{};
  ASSERT_EQ(ipudrv_run(h.dev, 0, 60000, &r), IPUDRV_OK) << last_error();
  EXPECT_EQ(r.halted, 1);
  EXPECT_EQ(r.exit_code, 0);
}

// The trace file of a run, and the default console printer: set_console with it writes
// the lines `ipusim run` prints to the FILE* given.
TEST_P(CApiDevice, TraceAndConsolePrinter) {
  Handle h;
  ASSERT_NO_FATAL_FAILURE(open_c("configs/test/tiny4.yaml", h));
  const std::string trace = ::testing::TempDir() + "capi-trace-" + std::to_string(::getpid()) + ".json";
  std::remove(trace.c_str());
  ASSERT_EQ(ipudrv_set_trace(h.dev, trace.c_str()), IPUDRV_OK) << last_error();
  EXPECT_EQ(ipudrv_set_trace(h.dev, "/nonexistent-dir/t.json"), IPUDRV_E_USAGE);
  EXPECT_NE(last_error().find("/nonexistent-dir/t.json"), std::string::npos) << last_error();
  EXPECT_EQ(ipudrv_set_trace(nullptr, trace.c_str()), IPUDRV_E_USAGE);

  std::FILE* console = std::tmpfile();
  ASSERT_NE(console, nullptr);
  ASSERT_EQ(ipudrv_set_console(h.dev, ipudrv_console_print, console), IPUDRV_OK) << last_error();
  ASSERT_EQ(ipudrv_load(h.dev, firmware("hello.elf").c_str()), IPUDRV_OK) << last_error();
  ipudrv_run_result r{};
  ASSERT_EQ(ipudrv_run(h.dev, 0, 60000, &r), IPUDRV_OK) << last_error();
  EXPECT_EQ(r.halted, 1);
  // The printer's own line, and a NULL line ignored.
  const ipudrv_console_line line{1, 3, 2, "by hand", 7};
  ipudrv_console_print(console, &line);
  ipudrv_console_print(console, nullptr);
  std::fflush(console);
  std::rewind(console);
  std::string printed;
  char buf[4096];
  for (size_t n; (n = std::fread(buf, 1, sizeof buf, console)) > 0;) printed.append(buf, n);
  std::fclose(console);
  EXPECT_EQ(printed.rfind("[ipu 0 tile 0] ", 0), 0u) << printed;
  EXPECT_TRUE(printed.ends_with("\n[ipu 1 tile 3 w 2] by hand\n")) << printed;

  std::ifstream t(trace);
  std::stringstream json;
  json << t.rdbuf();
  EXPECT_NE(json.str().find("\"traceEvents\""), std::string::npos) << "the run wrote its trace: " << json.str().substr(0, 200);
  std::remove(trace.c_str());
}

DEVAPI_TRANSPORTS(CApiDevice);

}  // namespace
}  // namespace devapi
