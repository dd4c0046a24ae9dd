// A file the device writes for a run and cannot (docs/cosim.md "Waveforms", docs/host_driver.md
// "Errors"): a waveform on a full disk ends a run that had no problem of its own in
// OutputError (ERR_OUTPUT, kind 'waveform', the file and the OS's reason), through both
// transports; the device goes on, its next run halts as usual. (The trace's case:
// profile_api_test's ATraceThatCannotBeWrittenIsAnOutputErrorAndTheDeviceGoesOn.)
// A full disk is /dev/full under the file's name, so nothing here writes to disk.
#include <ipu/hostif_regs.h>

#include <chrono>
#include <filesystem>
#include <memory>
#include <string>

#include "device_fixture.h"
#include "ipudrv/errors.h"

namespace devapi {
namespace {

const std::string kTiny4 = "configs/test/tiny4.yaml";

// A fresh folder of this test's own.
std::string folder(const std::string& tag) {
  const std::string dir = ::testing::TempDir() + "devapi-output-" + tag + "-" + std::to_string(::getpid()) + "/";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

class OutputErrors : public DeviceApiTest {
 protected:
  // Board 0 of tiny4 with the RTL sync controller writing waveforms at `waves`: in this
  // process, or in an `ipusim serve --rtl sync --waves` child.
  std::unique_ptr<ipudrv::Device> open_with_waves(const std::string& waves) {
    if (!serve()) {
      ipudrv::OpenOptions o;
      o.rtl = "sync";
      o.waves = waves;
      return ipudrv::open("config:" + kTiny4, 0, o);
    }
    child_ = std::make_unique<ServeChild>(kTiny4, scratch_socket("waves"), "--rtl sync --waves " + waves);
    return ipudrv::open("unix:" + child_->socket(), 0);
  }
  // The serve child ends cleanly: the error was the run's, not the server's.
  void TearDown() override {
    if (child_) {
      const int status = child_->stop();
      EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status << ": " << child_->stderr_text();
    }
    DeviceApiTest::TearDown();
  }
  std::unique_ptr<ServeChild> child_;
};

TEST_P(OutputErrors, AWaveformOnAFullDiskEndsTheRunInOutputErrorAndTheDeviceGoesOn) {
  const std::string dir = folder("waves");
  // Both sync controller instances' files are /dev/full.
  std::filesystem::create_symlink("/dev/full", dir + "w.ipu0.sync.vcd");
  std::filesystem::create_symlink("/dev/full", dir + "w.ipu0.sync.odd.vcd");
  auto dev = open_with_waves(dir + "w.vcd");
  dev->load(elf("mb_sync.elf"));
  const auto info = expect_error<ipudrv::OutputError>(
      [&] { dev->run(0, std::chrono::seconds(60)); },
      "writing the waveform '" + dir + "w.ipu0.sync.vcd' failed: No space left on device (the file is removed)");
  ASSERT_TRUE(info);
  EXPECT_EQ(info->code, uint32_t{IPU_ERR_OUTPUT});
  EXPECT_EQ(info->kind, "waveform");
  EXPECT_EQ(dev->state(), uint32_t{IPU_STATE_ERROR});
  // A waveform covers the first run: the next one halts as usual.
  expect_device_runs_a_kernel(*dev);
}

// A run with a problem of its own reports that one, not the file (the file's is a line on
// stderr): the trace of a run that faults is named by the fault.
TEST_P(OutputErrors, ARunThatFailsReportsItsOwnProblemFirst) {
  const std::string dir = folder("fault");
  const std::string trace = dir + "t.json";
  std::filesystem::create_symlink("/dev/full", trace);
  auto dev = open(kTiny4);
  dev->set_trace(trace);
  dev->load(elf("faults/fault_illegal.elf"));
  const auto info = expect_error<ipudrv::TileFaultError>([&] { dev->run(0, std::chrono::seconds(60)); });
  ASSERT_TRUE(info);
  EXPECT_EQ(info->code, uint32_t{IPU_ERR_TILE_FAULT});
}

DEVAPI_TRANSPORTS(OutputErrors);

}  // namespace
}  // namespace devapi
