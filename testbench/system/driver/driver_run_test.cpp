// Running through both transports: halt, pause after N supersteps, errors as typed
// exceptions with the device's registers, async runs, timeouts, abort, polling mode.
#include <ipu/hostif_regs.h>

#include "driver_backend.h"
#include "test_elf.h"

namespace drvtest {
namespace {

using fakedev::Step;
using Kind = fakedev::Step::Kind;

ipudrv::Elf tiny_program() {
  testelf::Image img;
  img.code = {0x00000013, 0x0000006f};
  return ipudrv::Elf::from_bytes(testelf::build(img), "tiny.elf");
}

class DriverRun : public DriverTest {
 protected:
  std::unique_ptr<ipudrv::Device> loaded(const ipudrv::OpenOptions& o = {}) {
    auto dev = open(o);
    dev->load(tiny_program());
    return dev;
  }
};

TEST_P(DriverRun, HaltReportsExitCodeAndStats) {
  auto dev = loaded();
  fake().script({Step{Kind::kPause}, Step{Kind::kHalt, 7}});
  const auto r = dev->run();
  EXPECT_EQ(r.state, ipudrv::RunState::kHalted);
  EXPECT_EQ(r.exit_code, 7);
  EXPECT_EQ(r.stats.supersteps, 1u);
  EXPECT_EQ(r.stats.cycles, 1200u);
  EXPECT_EQ(r.stats.instructions, 2u * 100 * 8);
  EXPECT_GT(r.stats.sim_time_ns, 0u);
  EXPECT_THROW(dev->run(), ipudrv::UsageError) << "a halted device needs reset and load";
}

TEST_P(DriverRun, PausesAfterTheSuperstepsAskedThenContinues) {
  auto dev = loaded();
  fake().script({Step{Kind::kPause}, Step{Kind::kPause}, Step{Kind::kPause}, Step{Kind::kHalt}});
  auto r = dev->run(2);
  EXPECT_EQ(r.state, ipudrv::RunState::kPaused);
  EXPECT_EQ(r.stats.supersteps, 2u);
  EXPECT_EQ(dev->state(), IPU_STATE_PAUSED);
  r = dev->run();
  EXPECT_EQ(r.state, ipudrv::RunState::kHalted);
  EXPECT_EQ(r.stats.supersteps, 3u);
}

TEST_P(DriverRun, TileFaultCarriesTileThreadPcAndText) {
  auto dev = loaded();
  Step fault{Kind::kError};
  fault.code = IPU_ERR_TILE_FAULT, fault.ipu = 1, fault.tile = 3, fault.thread = 2, fault.pc = 0x40010;
  fault.text = "illegal instruction 0x00000000";
  fake().script({fault});
  try {
    dev->run();
    FAIL() << "no exception";
  } catch (const ipudrv::TileFaultError& e) {
    ASSERT_TRUE(e.device_error());
    const auto& d = *e.device_error();
    EXPECT_EQ(d.code, IPU_ERR_TILE_FAULT);
    EXPECT_EQ(d.ipu, 1u);
    EXPECT_EQ(d.tile, 3u);
    EXPECT_EQ(d.thread, 2u);
    EXPECT_EQ(d.pc, 0x40010u);
    EXPECT_EQ(d.text, "illegal instruction 0x00000000");
    const std::string what = e.what();
    EXPECT_NE(what.find("ipu 1 tile 3 thread 2 pc 0x40010"), std::string::npos) << what;
  }
  EXPECT_EQ(dev->state(), IPU_STATE_ERROR);
  EXPECT_EQ(dev->error_registers().code, IPU_ERR_TILE_FAULT);
  dev->reset();
  EXPECT_EQ(dev->error_registers().code, 0u);
}

TEST_P(DriverRun, EveryRunErrorCodeHasItsExceptionClass) {
  struct Case {
    uint32_t code;
    std::function<bool(const ipudrv::Error&)> is;
  };
  const Case cases[] = {
      {IPU_ERR_EXCHANGE, [](const ipudrv::Error& e) { return dynamic_cast<const ipudrv::ExchangeError*>(&e) != nullptr; }},
      {IPU_ERR_DEADLOCK, [](const ipudrv::Error& e) { return dynamic_cast<const ipudrv::DeadlockError*>(&e) != nullptr; }},
      {IPU_ERR_SMEM_ALIGN, [](const ipudrv::Error& e) { return dynamic_cast<const ipudrv::StreamingMemoryError*>(&e) != nullptr; }},
      {IPU_ERR_STREAM, [](const ipudrv::Error& e) { return dynamic_cast<const ipudrv::StreamError*>(&e) != nullptr; }},
      {IPU_ERR_STREAM_OVERFLOW, [](const ipudrv::Error& e) { return dynamic_cast<const ipudrv::StreamError*>(&e) != nullptr; }},
  };
  auto dev = open();
  for (const auto& c : cases) {
    dev->load(tiny_program());
    Step s{Kind::kError};
    s.code = c.code;
    s.text = "case " + std::to_string(c.code);
    fake().script({s});
    try {
      dev->run();
      ADD_FAILURE() << "code " << c.code << ": no exception";
    } catch (const ipudrv::Error& e) {
      EXPECT_TRUE(c.is(e)) << "code " << c.code << ": " << e.what();
      ASSERT_TRUE(e.device_error());
      EXPECT_EQ(e.device_error()->code, c.code);
    }
  }
}

TEST_P(DriverRun, AsyncRunIsAFutureAndTheDeviceIsBusyMeanwhile) {
  auto dev = loaded();
  fake().set_run_delay(std::chrono::milliseconds(300));
  fake().script({Step{Kind::kHalt, 3}});
  auto future = dev->run_async();
  EXPECT_EQ(future.wait_for(std::chrono::milliseconds(20)), std::future_status::timeout);
  std::vector<std::byte> b(4);
  EXPECT_THROW(dev->read_tile(0, 0, 0x40000, b), ipudrv::UsageError);
  EXPECT_EQ(dev->state(), IPU_STATE_RUNNING) << "state() may be read during a run";
  ASSERT_EQ(future.wait_for(std::chrono::seconds(10)), std::future_status::ready);
  EXPECT_EQ(future.get().exit_code, 3);
  dev->read_tile(0, 0, 0x40000, b);  // free again
}

TEST_P(DriverRun, TimeoutThenAbortEndsInDeviceStateError) {
  auto dev = loaded();
  fake().script({Step{Kind::kHang}});
  EXPECT_THROW(dev->run(0, std::chrono::milliseconds(50)), ipudrv::TimeoutError);
  EXPECT_EQ(dev->state(), IPU_STATE_RUNNING);
  dev->abort();
  try {
    dev->run();
    FAIL();
  } catch (const ipudrv::DeviceStateError& e) {
    EXPECT_NE(std::string(e.what()).find("aborted"), std::string::npos) << e.what();
  }
}

TEST_P(DriverRun, AbortStopsAnAsyncRun) {
  auto dev = loaded();
  fake().script({Step{Kind::kHang}});
  auto future = dev->run_async();
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  dev->abort();
  ASSERT_EQ(future.wait_for(std::chrono::seconds(10)), std::future_status::ready);
  EXPECT_THROW(future.get(), ipudrv::DeviceStateError);
}

TEST_P(DriverRun, InterruptsDriveCompletionAndPollingWorksWithout) {
  {
    auto dev = loaded();
    fake().script({Step{Kind::kHalt}});
    const auto before = fake().counters().interrupts;
    dev->run();
    EXPECT_GT(fake().counters().interrupts, before);
  }
  ipudrv::OpenOptions polling;
  polling.use_interrupts = false;
  auto dev = loaded(polling);
  fake().script({Step{Kind::kPause}, Step{Kind::kHalt, 4}});
  const auto before = fake().counters().interrupts;
  EXPECT_EQ(dev->run().exit_code, 4);
  std::vector<std::byte> b(256, std::byte{1});
  dev->write_tile(0, 1, 0x48000, b);
  EXPECT_EQ(fake().counters().interrupts, before) << "IRQ_MASK is 0 when polling";
}

INSTANTIATE_TEST_SUITE_P(Transports, DriverRun, ::testing::Values(Backend::kInProcess, Backend::kSocket), backend_name);

}  // namespace
}  // namespace drvtest
