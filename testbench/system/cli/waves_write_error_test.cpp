// `ipusim run --waves` on a disk that fills (docs/cosim.md "Waveforms"): a failed write is
// a named error (the file and the OS's reason) and exit status 2, the cut file is removed,
// and the run never hangs (Verilator's VCD writer, left alone, waits for its own lock) or
// dies of a signal (its FST writer maps the files it failed to write: SIGBUS).
// A full disk is /dev/full, or a file size limit (RLIMIT_FSIZE, SIGXFSZ ignored: writes
// past it fail with EFBIG), so nothing here writes more than a few KiB.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "child_process.h"
#include "cli_run.h"

namespace ipusim {
namespace {

const std::string kBin = IPUSIM_BIN;
const std::string kFirmware = IPUSIM_FIRMWARE_DIR;
const std::string kTiny4 = "configs/test/tiny4.yaml";

// A fresh folder of the test's own.
std::string folder() {
  const std::string dir = test::temp_path("ipusim_waves_full_", "dir") + "/";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

// `ipusim run ARGS` under a shell prefix (ulimit), with a timeout that a hang would reach.
proc::Outcome run(const std::string& prefix, const std::string& args) {
  proc::Command command = proc::Command::shell(prefix + "exec " + kBin + " run " + args);
  command.out = proc::Stream::file(test::temp_path("ipusim_waves_full_", "stdout"));
  command.err = proc::Stream::file(test::temp_path("ipusim_waves_full_", "stderr"));
  command.timeout_seconds = 60;
  return proc::run(command);
}

const std::string kFileLimit = "trap '' XFSZ; ulimit -f 4; ";  // 4 KiB files

void expect_named_error(const proc::Outcome& o, const std::string& file, const std::string& reason) {
  ASSERT_TRUE(o.exited) << o.describe() << "\n" << o.err;
  EXPECT_EQ(o.exit_status, 2) << o.err;
  EXPECT_NE(o.err.find("ipusim: error: writing the waveform '" + file + "' failed: " + reason +
                       " (the file is removed)"),
            std::string::npos)
      << o.err;
}

// Nothing half-written stays: no waveform, no FST side file (.hier).
void expect_empty(const std::string& dir) {
  for (const auto& e : std::filesystem::directory_iterator(dir)) ADD_FAILURE() << "left behind: " << e.path();
}

TEST(WavesWriteError, VcdOnAFullDeviceIsANamedErrorNotAHang) {
  const std::string dir = folder();
  // Both sync controller instances' files are /dev/full.
  std::filesystem::create_symlink("/dev/full", dir + "w.ipu0.sync.vcd");
  std::filesystem::create_symlink("/dev/full", dir + "w.ipu0.sync.odd.vcd");
  const proc::Outcome o =
      run("", "--config " + kTiny4 + " --elf " + kFirmware + "/mb_sync.elf --rtl sync --waves " + dir + "w.vcd --quiet");
  expect_named_error(o, dir + "w.ipu0.sync.vcd", "No space left on device");
}

TEST(WavesWriteError, FstPastTheFileSizeLimitIsANamedErrorNotSigbus) {
  const std::string dir = folder();
  const proc::Outcome o = run(kFileLimit, "--config " + kTiny4 + " --elf " + kFirmware +
                                              "/xipu_tour.elf --rtl amp --waves " + dir + "w.fst --quiet");
  expect_named_error(o, dir + "w.ipu0.tile0.amp.fst", "File too large");
  expect_empty(dir);
}

TEST(WavesWriteError, VcdPastTheFileSizeLimitIsANamedError) {
  const std::string dir = folder();
  const proc::Outcome o = run(kFileLimit, "--config " + kTiny4 + " --elf " + kFirmware +
                                              "/xipu_tour.elf --rtl amp --waves " + dir + "w.vcd --quiet");
  expect_named_error(o, dir + "w.ipu0.tile0.amp.vcd", "File too large");
  expect_empty(dir);
}

// The sync controller's FST files are small: cut short, they were left behind unreadable
// and the run said nothing.
TEST(WavesWriteError, ASyncFstCutShortIsNamedAndRemoved) {
  const std::string dir = folder();
  const proc::Outcome o = run("trap '' XFSZ; ulimit -f 2; ", "--config " + kTiny4 + " --elf " + kFirmware +
                                                                  "/mb_sync.elf --rtl sync --waves " + dir + "w.fst --quiet");
  expect_named_error(o, dir + "w.ipu0.sync.fst", "File too large");
  expect_empty(dir);
}

// Room enough: the files are there and the run ends as it would without waves.
TEST(WavesWriteError, RoomEnoughWritesEveryFile) {
  const std::string dir = folder();
  const proc::Outcome o =
      run("", "--config " + kTiny4 + " --elf " + kFirmware + "/mb_sync.elf --rtl sync --waves " + dir + "w.fst --quiet");
  ASSERT_TRUE(o.exited) << o.describe();
  EXPECT_EQ(o.exit_status, 0) << o.err;
  EXPECT_TRUE(std::filesystem::exists(dir + "w.ipu0.sync.fst"));
  EXPECT_TRUE(std::filesystem::exists(dir + "w.ipu0.sync.odd.fst"));
}

}  // namespace
}  // namespace ipusim
