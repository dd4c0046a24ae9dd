// A device's run under gdb-multiarch (ipudrv OpenOptions::gdb_port): the host program
// runs the program as always while gdb stops tile 7 worker 3 in it, reads a variable and
// lets it go on; the run then ends for the host with the cycles of `ipusim run`. And a
// device's core files (OpenOptions::core_dir) read back by gdb.
#include <gtest/gtest.h>

#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <future>
#include <regex>
#include <string>

#include <ipudrv/device.h>
#include <ipudrv/elf.h>

#include "cli_run.h"

namespace ipusim {
namespace {

const std::string kElf = std::string(IPUSIM_FIRMWARE_DIR) + "/debug/gdb_target.elf";
const std::string kConfig = "configs/test/tiny16.yaml";

// A port nobody listens on now (the kernel's choice for a socket bound to port 0).
uint16_t free_port() {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof a;
  uint16_t port = 0;
  if (bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0 &&
      getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len) == 0)
    port = ntohs(a.sin_port);
  close(fd);
  return port;
}

TEST(GdbDevice, AHostProgramsRunStopsInGdbAndEndsAsWithout) {
  const test::CliResult plain =
      test::run_cli(IPUSIM_BIN, "gdb_device_plain_", "--config " + kConfig + " --elf " + kElf);
  ASSERT_EQ(plain.status, 0) << plain.err;
  std::smatch m;
  ASSERT_TRUE(std::regex_search(plain.err, m, std::regex(R"(tile cycles +(\d+))")));
  const uint64_t plain_cycles = std::stoull(m[1]);

  ipudrv::OpenOptions options;
  options.gdb_port = free_port();
  auto dev = ipudrv::open("config:" + kConfig, 0, options);
  dev->load(ipudrv::Elf::from_file(kElf));
  // The run waits for gdb; the host waits for the run.
  std::future<ipudrv::RunResult> run = dev->run_async();

  const std::string script = test::temp_path("gdb_device_", "script.gdb");
  std::ofstream(script) << "set pagination off\n"
                           "set confirm off\n"
                           "target remote 127.0.0.1:" << *options.gdb_port << "\n"
                           "break accumulate if $tile == 7 && $thread == 3\n"
                           "continue\n"
                           "print count\n"
                           "print first\n"
                           "delete\n"
                           "continue\n";
  const test::CliResult gdb =
      test::run_command("timeout 60 gdb-multiarch", "gdb_device_gdb_", "-batch -nx -x " + script + " " + kElf);
  EXPECT_EQ(gdb.status, 0) << gdb.out << gdb.err;
  EXPECT_TRUE(std::regex_search(gdb.out, std::regex(R"("tile 7 w3" hit Breakpoint 1, accumulate \(first=300, count=30\))")))
      << gdb.out;
  EXPECT_NE(gdb.out.find("$1 = 30"), std::string::npos) << gdb.out;
  EXPECT_NE(gdb.out.find("$2 = 300"), std::string::npos) << gdb.out;
  EXPECT_NE(gdb.out.find("[Inferior 1 (process 1) exited normally]"), std::string::npos) << gdb.out;

  ASSERT_EQ(run.wait_for(std::chrono::seconds(60)), std::future_status::ready);
  const ipudrv::RunResult r = run.get();
  EXPECT_EQ(r.state, ipudrv::RunState::kHalted);
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.stats.cycles, plain_cycles);

  // The next run waits for a gdb of its own, which finds it stopped at its start.
  dev->load(ipudrv::Elf::from_file(kElf));
  std::future<ipudrv::RunResult> again = dev->run_async();
  const std::string script2 = test::temp_path("gdb_device_", "script2.gdb");
  std::ofstream(script2) << "set pagination off\n"
                            "target remote 127.0.0.1:" << *options.gdb_port << "\n"
                            "info registers pc tile thread\n"
                            "continue\n";
  const test::CliResult gdb2 =
      test::run_command("timeout 60 gdb-multiarch", "gdb_device_gdb2_", "-batch -nx -x " + script2 + " " + kElf);
  EXPECT_TRUE(std::regex_search(gdb2.out, std::regex(R"(pc\s+0x[0-9a-f]+\s+0x[0-9a-f]+ <_start>)"))) << gdb2.out << gdb2.err;
  EXPECT_NE(gdb2.out.find("[Inferior 1 (process 1) exited normally]"), std::string::npos) << gdb2.out << gdb2.err;
  ASSERT_EQ(again.wait_for(std::chrono::seconds(60)), std::future_status::ready);
  EXPECT_EQ(again.get().stats.cycles, plain_cycles);
}

// OpenOptions::core_dir: a device's faulting run leaves a core gdb-multiarch reads.
TEST(CoreDevice, AFaultingRunOfAnInProcessDeviceWritesCores) {
  const std::string dir = test::temp_path("core_device_", "cores");
  std::filesystem::remove_all(dir);
  const std::string elf = std::string(IPUSIM_FIRMWARE_DIR) + "/faults/fault_worker_halt.elf";
  ipudrv::OpenOptions options;
  options.core_dir = dir;
  auto dev = ipudrv::open("config:configs/test/tiny4.yaml", 0, options);
  dev->load(ipudrv::Elf::from_file(elf));
  EXPECT_ANY_THROW(dev->run());
  ASSERT_TRUE(std::filesystem::exists(dir + "/ipu0.core"));
  const test::CliResult gdb = test::run_command("timeout 60 gdb-multiarch", "core_device_gdb_",
                                                "-batch -nx -ex bt " + elf + " " + dir + "/ipu0.core");
  EXPECT_NE(gdb.out.find("halt_from_worker"), std::string::npos) << gdb.out << gdb.err;
  EXPECT_NE(gdb.out.find("in worker"), std::string::npos) << gdb.out;
}

}  // namespace
}  // namespace ipusim
