// Stopping a device that would never stop by itself, through the public API on both
// transports (docs/host_driver.md "Run budgets, abort and close"): abort() of a tile in an
// endless loop and of a run paused in STREAM_WAIT, RunOptions' timeout and cycle budget,
// closing a device whose tiles spin, and `ipusim serve` ending on SIGTERM mid-run, with a
// host stream waiting and with gdb attached. After
// each stop the device runs another program correctly.
#include <arpa/inet.h>
#include <ipu/hostif_regs.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <future>
#include <thread>

#include "device_fixture.h"

namespace devapi {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;
constexpr auto kPrompt = 10s;             // "promptly": tiles pause within milliseconds

// Tile 3 of every IPU loops in spin_forever() without a sync; the others halt.
ipudrv::Elf endless() { return elf("system/endless.elf"); }

double seconds_since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

// Polls STATE until it is `want` or `limit` passes; returns the last state read.
uint32_t wait_state(ipudrv::Device& dev, uint32_t want, std::chrono::seconds limit = 20s) {
  const auto end = Clock::now() + limit;
  uint32_t s = dev.state();
  while (s != want && Clock::now() < end) {
    std::this_thread::sleep_for(5ms);
    s = dev.state();
  }
  return s;
}

class Abort : public DeviceApiTest {
 protected:
  // CTRL.RUN written directly: the tiles run with no driver call in flight.
  static void start_raw(ipudrv::Device& dev) { dev.write_register(IPU_REG_CTRL, IPU_CTRL_RUN_MASK); }
};

TEST_P(Abort, AbortStopsAnEndlessLoopAndTheDeviceRunsAgain) {
  auto dev = open("configs/test/tiny4.yaml");
  dev->load(endless());
  auto run = dev->run_async(ipudrv::RunOptions{});
  // Waited for, not slept on: a loaded machine may take a while to start the run.
  ASSERT_EQ(wait_state(*dev, IPU_STATE_RUNNING), uint32_t(IPU_STATE_RUNNING));
  std::this_thread::sleep_for(300ms);  // tile 3 is deep in its loop
  const auto t0 = Clock::now();
  dev->abort();
  ASSERT_EQ(run.wait_for(kPrompt), std::future_status::ready) << "abort did not stop the looping tile";
  EXPECT_LT(seconds_since(t0), 10.0);
  const auto info = expect_error<ipudrv::DeviceStateError>([&] { run.get(); }, "aborted");
  ASSERT_TRUE(info);
  EXPECT_EQ(info->code, uint32_t(IPU_ERR_STATE));
  EXPECT_EQ(dev->state(), uint32_t(IPU_STATE_ERROR));
  expect_device_runs_a_kernel(*dev);
}

// abort() at once after run_async returns, before its thread can have written RUN: the
// abort is not lost (it reached the device as "no run in progress" and the run went on).
TEST_P(Abort, AbortRightAfterRunAsyncIsNotLost) {
  auto dev = open("configs/test/tiny4.yaml");
  for (int round = 0; round < 3; ++round) {
    dev->load(endless());
    auto run = dev->run_async(ipudrv::RunOptions{.timeout = 60s});
    dev->abort();
    ASSERT_EQ(run.wait_for(kPrompt), std::future_status::ready) << "round " << round << ": the abort was lost";
    const auto info = expect_error<ipudrv::DeviceStateError>([&] { run.get(); }, "aborted");
    ASSERT_TRUE(info);
    EXPECT_NE(info->text.find("during the run"), std::string::npos) << info->text;  // the run's abort, not a stray one
    EXPECT_EQ(dev->state(), uint32_t(IPU_STATE_ERROR));
  }
  expect_device_runs_a_kernel(*dev);
}

// The must-show on a full GC200: tile 3 of 1472 loops; abort() stops it, then another
// program runs to a clean halt on every tile.
TEST_P(Abort, AbortStopsAnEndlessLoopOnAFullGc200) {
  auto dev = open("configs/gc200.yaml");
  dev->load(endless());
  auto run = dev->run_async();
  ASSERT_EQ(wait_state(*dev, IPU_STATE_RUNNING), uint32_t(IPU_STATE_RUNNING));
  std::this_thread::sleep_for(500ms);
  const auto t0 = Clock::now();
  dev->abort();
  ASSERT_EQ(run.wait_for(kPrompt), std::future_status::ready) << "abort did not stop the looping tile";
  EXPECT_LT(seconds_since(t0), 10.0);
  EXPECT_THROW(run.get(), ipudrv::DeviceStateError);
  dev->load(elf("hello.elf"));
  const auto r = dev->run(0, 60s);
  EXPECT_EQ(r.state, ipudrv::RunState::kHalted);
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.stats.booted_tiles, 1472u);
  EXPECT_GT(r.stats.instructions, 1472u * 50u) << "every tile ran hello";
}

TEST_P(Abort, AbortEndsARunPausedInStreamWait) {
  auto dev = open("configs/test/tiny4x2_smem.yaml");
  dev->load(elf("device_api/stream_xform.elf"));  // reads host stream 0: nobody fills it
  start_raw(*dev);
  ASSERT_EQ(wait_state(*dev, IPU_STATE_STREAM_WAIT), uint32_t(IPU_STATE_STREAM_WAIT));
  dev->abort();
  ASSERT_EQ(wait_state(*dev, IPU_STATE_ERROR), uint32_t(IPU_STATE_ERROR));
  const ipudrv::DeviceErrorInfo e = dev->error_registers();
  EXPECT_EQ(e.code, uint32_t(IPU_ERR_STATE));
  EXPECT_NE(e.text.find("aborted"), std::string::npos) << e.text;
  expect_device_runs_a_kernel(*dev);
}

TEST_P(Abort, RunOptionsTimeoutAbortsTheRun) {
  auto dev = open("configs/test/tiny4.yaml");
  dev->load(endless());
  const auto t0 = Clock::now();
  expect_error<ipudrv::TimeoutError>([&] { dev->run(ipudrv::RunOptions{.timeout = 500ms}); }, "aborted");
  EXPECT_GE(seconds_since(t0), 0.5);
  EXPECT_LT(seconds_since(t0), 10.0);
  EXPECT_EQ(dev->state(), uint32_t(IPU_STATE_ERROR));
  expect_device_runs_a_kernel(*dev);
}

TEST_P(Abort, CycleBudgetNamesTheLoopingTile) {
  auto dev = open("configs/test/tiny4.yaml");
  dev->load(endless());
  const auto info = expect_error<ipudrv::BudgetError>([&] { dev->run(ipudrv::RunOptions{.max_cycles = 200000}); },
                                                      "budget of 200000 cycles");
  ASSERT_TRUE(info);
  EXPECT_EQ(info->code, uint32_t(IPU_ERR_BUDGET));
  EXPECT_EQ(info->ipu, 0u);
  EXPECT_EQ(info->tile, 3u);
  EXPECT_EQ(info->thread, 0u);
  EXPECT_EQ(info->cycle, 200000u);
  EXPECT_EQ(info->kind, "cycle budget");
  const uint32_t pc = info->pc;
  EXPECT_EQ(dev->stats().cycles, 200000u);
  // Exact: the same stop again.
  dev->load(endless());
  const auto again = expect_error<ipudrv::BudgetError>([&] { dev->run(ipudrv::RunOptions{.max_cycles = 200000}); });
  ASSERT_TRUE(again);
  EXPECT_EQ(again->pc, pc);
  expect_device_runs_a_kernel(*dev);
}

TEST_P(Abort, InstructionBudgetNamesTheLoopingTile) {
  auto dev = open("configs/test/tiny4.yaml");
  dev->load(endless());
  const auto info = expect_error<ipudrv::BudgetError>(
      [&] { dev->run(ipudrv::RunOptions{.max_instructions = 100000}); }, "budget of 100000 instructions");
  ASSERT_TRUE(info);
  EXPECT_EQ(info->code, uint32_t(IPU_ERR_BUDGET));
  EXPECT_EQ(info->kind, "instruction budget");
  EXPECT_EQ(info->tile, 3u);
  EXPECT_GE(dev->stats().instructions, 100000u);
  expect_device_runs_a_kernel(*dev);
}

// reset() of a spinning run: prompt, and the device is IDLE (nothing booted).
TEST_P(Abort, ResetStopsAnEndlessLoop) {
  auto dev = open("configs/test/tiny4.yaml");
  dev->load(endless());
  start_raw(*dev);
  ASSERT_EQ(wait_state(*dev, IPU_STATE_RUNNING), uint32_t(IPU_STATE_RUNNING));
  std::this_thread::sleep_for(200ms);
  const auto t0 = Clock::now();
  dev->reset();
  EXPECT_EQ(wait_state(*dev, IPU_STATE_IDLE), uint32_t(IPU_STATE_IDLE));
  EXPECT_LT(seconds_since(t0), 10.0);
  EXPECT_EQ(dev->stats().booted_tiles, 0u);
  expect_device_runs_a_kernel(*dev);
}

// Closing never waits on a spinning tile: with no call in flight, and with a run in flight.
TEST_P(Abort, ClosingADeviceWithSpinningTilesIsPrompt) {
  {
    auto dev = open("configs/test/tiny4.yaml");
    dev->load(endless());
    start_raw(*dev);
    std::this_thread::sleep_for(200ms);
    const auto t0 = Clock::now();
    dev.reset();
    EXPECT_LT(seconds_since(t0), 10.0);
  }
  auto dev = ipudrv::open(locator());  // the same system, a new session
  dev->load(endless());
  auto run = dev->run_async();
  std::this_thread::sleep_for(200ms);
  const auto t0 = Clock::now();
  dev.reset();
  EXPECT_LT(seconds_since(t0), 10.0);
  ASSERT_EQ(run.wait_for(0s), std::future_status::ready);
  EXPECT_THROW(run.get(), ipudrv::DeviceStateError);
}

// `ipusim serve` ends on SIGTERM while its model spins: exit 0, socket removed.
TEST_P(Abort, ServeEndsOnSigtermWhileTilesSpin) {
  if (!serve()) GTEST_SKIP() << "the server's own test";
  auto dev = open("configs/test/tiny4.yaml");
  dev->load(endless());
  start_raw(*dev);
  std::this_thread::sleep_for(200ms);
  const std::string socket = server()->socket();
  const auto t0 = Clock::now();
  const int status = server()->stop();
  EXPECT_LT(seconds_since(t0), 10.0);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "wait status " << status << ": " << server()->stderr_text();
  EXPECT_NE(::access(socket.c_str(), F_OK), 0) << "the socket file is still there";
  // The client sees the server gone, and closing it does not hang.
  EXPECT_THROW(dev->stats(), ipudrv::TransportError);
  dev.reset();
}

// `ipusim serve` ends on SIGTERM while its run waits on a host stream nobody fills.
TEST(ServeSigterm, EndsTheServerWithAHostStreamWaiting) {
  ServeChild child("configs/test/tiny4x2_smem.yaml", scratch_socket("stream"));
  auto dev = ipudrv::open("unix:" + child.socket());
  dev->load(elf("device_api/stream_xform.elf"));  // reads host stream 0: nobody fills it
  dev->write_register(IPU_REG_CTRL, IPU_CTRL_RUN_MASK);
  ASSERT_EQ(wait_state(*dev, IPU_STATE_STREAM_WAIT), uint32_t(IPU_STATE_STREAM_WAIT));
  const auto t0 = Clock::now();
  const int status = child.stop();
  EXPECT_LT(seconds_since(t0), 10.0);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "wait status " << status << ": " << child.stderr_text();
  EXPECT_NE(::access(child.socket().c_str(), F_OK), 0) << "the socket file is still there";
  dev.reset();
}

// A port nobody listens on now (the kernel's choice for a socket bound to port 0).
uint16_t free_port() {
  const int s = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ::bind(s, reinterpret_cast<sockaddr*>(&a), sizeof a);
  socklen_t len = sizeof a;
  ::getsockname(s, reinterpret_cast<sockaddr*>(&a), &len);
  ::close(s);
  return ntohs(a.sin_port);
}

// `ipusim serve --gdb` ends on SIGTERM with a run held for gdb and a debugger connected
// to it that has asked why the run stopped and then says nothing.
TEST(ServeSigterm, EndsTheServerWithGdbAttached) {
  const uint16_t port = free_port();
  ServeChild child("configs/test/tiny4.yaml", scratch_socket("gdb"), "--gdb " + std::to_string(port));
  auto dev = ipudrv::open("unix:" + child.socket());
  dev->load(endless());
  dev->write_register(IPU_REG_CTRL, IPU_CTRL_RUN_MASK);
  const int gdb = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  a.sin_port = htons(port);
  ASSERT_EQ(::connect(gdb, reinterpret_cast<sockaddr*>(&a), sizeof a), 0);
  const std::string why = "$?#3f";
  ASSERT_EQ(::send(gdb, why.data(), why.size(), MSG_NOSIGNAL), ssize_t(why.size()));
  char reply[256];
  pollfd p{gdb, POLLIN, 0};
  ASSERT_EQ(::poll(&p, 1, 10000), 1) << "gdb got no answer";
  ASSERT_GT(::recv(gdb, reply, sizeof reply, 0), 0);
  EXPECT_EQ(dev->state(), uint32_t(IPU_STATE_RUNNING)) << "the run is held for gdb";
  const auto t0 = Clock::now();
  const int status = child.stop();
  EXPECT_LT(seconds_since(t0), 10.0);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "wait status " << status << ": " << child.stderr_text();
  EXPECT_NE(::access(child.socket().c_str(), F_OK), 0) << "the socket file is still there";
  ::close(gdb);
  dev.reset();
}

DEVAPI_TRANSPORTS(Abort);

}  // namespace
}  // namespace devapi
