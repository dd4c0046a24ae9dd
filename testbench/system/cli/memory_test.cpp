// A system's memory is estimated before it is elaborated (docs/platform.md "Memory
// estimate"): `ipusim info` prints the estimate, which is close to the peak resident set
// of real runs; `run`, `serve` and in-process devices refuse a system whose estimate
// exceeds the limit (the machine's, or --max-memory / OpenOptions::max_memory) at once,
// with the estimate and the limit (a GC200's SRAM mapping past an address-space limit
// too); an elaboration that fails anyway (out of address
// space) ends at once with what was being built, not minutes later in SystemC's clean-up.
#include <fcntl.h>
#include <poll.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>

#include "cli_run.h"
#include "ipudrv/device.h"

namespace ipusim {
namespace {

using Clock = std::chrono::steady_clock;

const std::string kBin = IPUSIM_BIN;
const std::string kHello = std::string(IPUSIM_FIRMWARE_DIR) + "/hello.elf";

test::CliResult ipusim(const std::string& args) { return test::run_command(kBin, "memory_", args); }
std::string temp_path(const std::string& name) { return test::temp_path("memory_", name); }
double seconds_since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

// 4096 M2000 boards: 16384 IPUs, 24 million tiles; `info` accepts it.
std::string huge_system() {
  const std::string path = temp_path("huge.yaml");
  std::ofstream(path) << "kind: system\nname: huge\nboard: " << std::filesystem::absolute("configs/m2000.yaml").string()
                      << "\nboards: 4096\n";
  return path;
}

// Where the machine's limit may come from, as the refusal names it: MemAvailable, or a
// cgroup (v2) limit when the machine runs the tests in a container.
bool names_a_machine_limit(const std::string& text) {
  return text.find("(MemAvailable in /proc/meminfo)") != std::string::npos ||
         text.find(" less the working set (memory.current - inactive_file) of cgroup ") != std::string::npos;
}

// The refusal names the system, the estimate and the limit with where it comes from
// (`limit_source`, or any of the machine's when empty).
void expect_refused_before_elaboration(const std::string& text, const std::string& limit_source = "") {
  EXPECT_NE(text.find("config 'huge' (16384 IPUs, 24117248 tiles): the system needs an estimated"), std::string::npos)
      << text;
  EXPECT_NE(text.find("GiB of memory, more than the"), std::string::npos) << text;
  if (limit_source.empty()) EXPECT_TRUE(names_a_machine_limit(text)) << text;
  else EXPECT_NE(text.find(limit_source), std::string::npos) << text;
  EXPECT_NE(text.find("it was not elaborated"), std::string::npos) << text;
}

uint64_t info_estimate(const std::string& config) {
  const test::CliResult r = ipusim("info --json --config " + config);
  EXPECT_EQ(r.status, 0) << r.err;
  return nlohmann::json::parse(r.out)["derived"]["memory_estimate_bytes"].get<uint64_t>();
}

TEST(Memory, InfoPrintsTheEstimateAndTheLimit) {
  const test::CliResult r = ipusim("info --config configs/gc200.yaml");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("memory estimate"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("MiB resident with a short program on every tile"), std::string::npos) << r.out;
  EXPECT_TRUE(names_a_machine_limit(r.out)) << r.out;
  const uint64_t gc200 = info_estimate("configs/gc200.yaml");
  EXPECT_GT(gc200, uint64_t{30} << 20);
  EXPECT_GT(info_estimate("configs/m2000.yaml"), 3 * gc200) << "four IPUs cost more than three times one";
}

// The estimate against the peak resident set (wait4's ru_maxrss) of real runs of a short
// program on every tile: within 20 % for an M2000, whose tiles dominate. A tiny system's
// peak is mostly the process's shared libraries, which depend on the build (sanitizers,
// debug info): its estimate only must not fall short by more than a few MiB.
TEST(Memory, TheEstimateIsCloseToMeasuredPeakMemory) {
  const auto measured_peak = [](const std::string& config) {
    const test::CliResult r = ipusim("run --quiet --threads 1 --config " + config + " --elf " + kHello);
    EXPECT_EQ(r.status, 0) << r.err;
    return double(r.max_rss_kib) * 1024;
  };
  const double m2000 = measured_peak("configs/m2000.yaml");
  const uint64_t m2000_estimate = info_estimate("configs/m2000.yaml");
  EXPECT_LT(std::abs(double(m2000_estimate) - m2000) / m2000, 0.20)
      << "m2000: estimate " << m2000_estimate << " bytes, measured peak " << m2000 << " bytes";
  const double tiny4 = measured_peak("configs/test/tiny4.yaml");
  const uint64_t tiny4_estimate = info_estimate("configs/test/tiny4.yaml");
  EXPECT_GE(double(tiny4_estimate), tiny4 - double(4 << 20))
      << "tiny4: estimate " << tiny4_estimate << " bytes, measured peak " << tiny4 << " bytes";
}

TEST(Memory, AHugeSystemIsRefusedByRunAtOnce) {
  const std::string huge = huge_system();
  ASSERT_EQ(ipusim("info --config " + huge).status, 0) << "info accepts it";
  const auto t0 = Clock::now();
  const test::CliResult r = ipusim("run --config " + huge + " --elf " + kHello);
  EXPECT_LT(seconds_since(t0), 15.0);
  EXPECT_EQ(r.status, 2) << r.err;
  expect_refused_before_elaboration(r.err);
  EXPECT_LT(r.max_rss_kib, 200 * 1024) << "nothing was elaborated";
}

TEST(Memory, AHugeSystemIsRefusedByServeAtOnce) {
  const std::string huge = huge_system();
  const std::string socket = temp_path("s");
  const auto t0 = Clock::now();
  const test::CliResult r = ipusim("serve --config " + huge + " --socket " + socket);
  EXPECT_LT(seconds_since(t0), 15.0);
  EXPECT_EQ(r.status, 2) << r.err;
  expect_refused_before_elaboration(r.err);
  EXPECT_NE(::access(socket.c_str(), F_OK), 0) << "no socket for a system that was refused";
}

TEST(Memory, AHugeSystemIsRefusedByAnInProcessDeviceAtOnce) {
  const std::string huge = huge_system();
  const auto t0 = Clock::now();
  try {
    ipudrv::open("config:" + huge);
    ADD_FAILURE() << "opened a system of 24 million tiles";
  } catch (const ipudrv::UsageError& e) {
    expect_refused_before_elaboration(e.what());
  }
  EXPECT_LT(seconds_since(t0), 15.0);
  // The same with the driver's own limit.
  try {
    ipudrv::OpenOptions options;
    options.max_memory = uint64_t{64} << 30;
    ipudrv::open("config:" + huge, 0, options);
    ADD_FAILURE() << "opened a system of 24 million tiles";
  } catch (const ipudrv::UsageError& e) {
    expect_refused_before_elaboration(e.what(), "64.0 GiB allowed (OpenOptions::max_memory)");
    EXPECT_NE(std::string(e.what()).find("(OpenOptions::max_memory or IPUSIM_MAX_MEMORY=SIZE sets another limit)"),
              std::string::npos)
        << e.what();
  }
}

// Hosts that open devices without OpenOptions (enumerate(), DeviceRef::open, the C API)
// set the limit with IPUSIM_MAX_MEMORY; OpenOptions::max_memory overrides it; a bad value
// is a UsageError naming the variable.
TEST(Memory, IpusimMaxMemorySetsADevicesLimit) {
  ::setenv("IPUSIM_MAX_MEMORY", "4M", 1);
  try {
    ipudrv::open("config:configs/test/tiny4.yaml");
    ADD_FAILURE() << "opened tiny4 within 4 MiB";
  } catch (const ipudrv::UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("more than the 4.0 MiB allowed (IPUSIM_MAX_MEMORY); it was not elaborated "
                                         "(OpenOptions::max_memory or IPUSIM_MAX_MEMORY=SIZE sets another limit)"),
              std::string::npos)
        << e.what();
  }
  try {
    ipudrv::OpenOptions options;
    options.max_memory = uint64_t{2} << 20;
    ipudrv::open("config:configs/test/tiny4.yaml", 0, options);
    ADD_FAILURE() << "opened tiny4 within 2 MiB";
  } catch (const ipudrv::UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("the 2.0 MiB allowed (OpenOptions::max_memory)"), std::string::npos)
        << e.what();
  }
  ::setenv("IPUSIM_MAX_MEMORY", "12Q", 1);
  try {
    ipudrv::open("config:configs/test/tiny4.yaml");
    ADD_FAILURE() << "opened with IPUSIM_MAX_MEMORY=12Q";
  } catch (const ipudrv::UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("IPUSIM_MAX_MEMORY '12Q': unknown unit"), std::string::npos) << e.what();
  }
  ::unsetenv("IPUSIM_MAX_MEMORY");
}

TEST(Memory, MaxMemoryBelowASmallSystemsEstimateRefusesIt) {
  const test::CliResult r = ipusim("run --config configs/test/tiny4.yaml --elf " + kHello + " --max-memory 4M");
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_NE(r.err.find("config 'tiny4' (1 IPUs, 4 tiles): the system needs an estimated 13.2 MiB of memory, "
                       "more than the 4.0 MiB allowed (--max-memory); it was not elaborated (--max-memory SIZE sets "
                       "another limit)"),
            std::string::npos)
      << r.err;
  EXPECT_EQ(r.out, "") << "nothing ran";
  // Enough for it: it runs.
  EXPECT_EQ(ipusim("run --quiet --config configs/test/tiny4.yaml --elf " + kHello + " --max-memory 64MiB").status, 0);
  const test::CliResult s = ipusim("serve --config configs/test/tiny4.yaml --socket " + temp_path("s") +
                                   " --max-memory 1.5m");
  EXPECT_EQ(s.status, 2) << s.err;
  EXPECT_NE(s.err.find("more than the 1.5 MiB allowed (--max-memory)"), std::string::npos) << s.err;
}

TEST(Memory, ABadMaxMemoryIsAnError) {
  for (const std::string bad : {"12Q", "-1G", "G", "0", "1e3"}) {
    const test::CliResult r =
        ipusim("run --config configs/test/tiny4.yaml --elf " + kHello + " --max-memory " + bad);
    EXPECT_EQ(r.status, 2) << bad << ": " << r.err;
    EXPECT_NE(r.err.find("--max-memory '" + bad + "'"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("a size such as 512M, 4G"), std::string::npos) << r.err;
  }
}

// `ipusim ARGS` in a child whose address space is limited to `as_bytes` (RLIMIT_AS): its
// exit status (-1 when killed), how long it took, its stderr.
// A child still running after `limit` is killed.
struct Limited {
  int status = -1;
  double seconds = 0;
  std::string err;
};
Limited run_with_address_limit(const std::string& args, uint64_t as_bytes, std::chrono::seconds limit) {
  proc::Command command = proc::Command::shell("exec " + kBin + " " + args);
  command.out = proc::Stream::null();
  command.err = proc::Stream::file(temp_path("stderr"));
  command.address_space_bytes = as_bytes;
  command.timeout_seconds = double(limit.count());
  const proc::Outcome o = proc::run(command);
  Limited r;
  r.seconds = o.wall_seconds;
  r.status = o.exited ? o.exit_status : -1;
  r.err = o.err;
  return r;
}

// Every loaded tile maps its whole SRAM: a GC200's 1472 x 624 KiB = 897 MiB of address
// space, though a short program makes few of those pages resident. Under a 700 MiB
// address-space limit (ulimit -v) `ipusim run` and an in-process device refuse it before
// elaboration, at once; an estimate that forgot the SRAM mapping would start elaborating.
TEST(Memory, ASystemWhoseSramMappingExceedsTheAddressLimitIsRefusedByRunAndDriver) {
  const Limited run = run_with_address_limit("run --threads 1 --config configs/gc200.yaml --elf " + kHello,
                                             uint64_t{700} << 20, std::chrono::seconds(30));
  EXPECT_EQ(run.status, 2) << run.err;
  EXPECT_LT(run.seconds, 15.0);
  EXPECT_NE(run.err.find("of address space, more than the"), std::string::npos) << run.err;
  EXPECT_NE(run.err.find("RLIMIT_AS (ulimit -v)"), std::string::npos) << run.err;
  EXPECT_NE(run.err.find("it was not elaborated"), std::string::npos) << run.err;

  int out[2];
  ASSERT_EQ(::pipe(out), 0);
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::close(out[0]);
    ::setenv("IPUSIM_CONSOLE", "none", 1);
    std::ifstream status("/proc/self/status");
    uint64_t vm_kib = 0;
    for (std::string line; std::getline(status, line);)
      if (line.rfind("VmSize:", 0) == 0) vm_kib = std::stoull(line.substr(7));
    rlimit before{};
    ::getrlimit(RLIMIT_AS, &before);
    const rlimit limit{(vm_kib << 10) + (uint64_t{700} << 20), before.rlim_max};
    ::setrlimit(RLIMIT_AS, &limit);
    std::string said = "opened a GC200 within 700 MiB of address space";
    try {
      ipudrv::open("config:configs/gc200.yaml");
    } catch (const std::exception& e) {
      said = e.what();
    }
    (void)!::write(out[1], said.data(), said.size());
    ::_exit(0);
  }
  ::close(out[1]);
  std::string said;
  char buf[512];
  for (ssize_t n; (n = ::read(out[0], buf, sizeof buf)) > 0;) said.append(buf, size_t(n));
  ::close(out[0]);
  int status = 0;
  ::waitpid(pid, &status, 0);
  EXPECT_NE(said.find("of address space, more than the"), std::string::npos) << said;
  EXPECT_NE(said.find("it was not elaborated"), std::string::npos) << said;
}

// Out of address space half-way through a POD16's netlist (--max-memory lets it past the
// estimate): a located error and exit 2 within seconds (it sat minutes in SystemC's
// clean-up, silent).
TEST(Memory, AnElaborationThatRunsOutOfMemoryEndsAtOnceNamingWhatWasBuilt) {
  // Whether the failing allocation is a tile's or one between two IPUs is luck of the heap
  // layout, so the message must name the IPU; a tile only when it was one.
  const uint64_t as = uint64_t{150} << 20;
  const Limited run = run_with_address_limit(
      "run --config configs/pod16.yaml --elf " + kHello + " --tiles 0 --threads 1 --max-memory 1T", as,
      std::chrono::seconds(30));
  EXPECT_EQ(run.status, 2) << run.err;
  EXPECT_LT(run.seconds, 15.0);
  EXPECT_NE(run.err.find("ipusim: error: config 'configs/pod16.yaml': building ipu "), std::string::npos) << run.err;

  const Limited serve = run_with_address_limit("serve --config configs/pod16.yaml --socket " + temp_path("s") +
                                                   " --max-memory 1T",
                                               as, std::chrono::seconds(30));
  EXPECT_EQ(serve.status, 2) << serve.err;
  EXPECT_LT(serve.seconds, 15.0);
  EXPECT_NE(serve.err.find("building ipu "), std::string::npos) << serve.err;
}

// The same for an in-process device, in a forked child (the elaboration leaves this
// process unable to elaborate again): a UsageError naming what was being built, at once;
// a later open in that process runs its system in an `ipusim serve` child of the driver's
// (docs/host_driver.md "Locators").
TEST(Memory, AnInProcessElaborationThatRunsOutOfMemoryIsAUsageErrorNamingWhatWasBuilt) {
  int out[2];
  ASSERT_EQ(::pipe(out), 0);
  const auto t0 = Clock::now();
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::close(out[0]);
    ::setenv("IPUSIM_CONSOLE", "none", 1);
    std::string said = "opened";
    // What the process maps already, and 96 MiB more: far less than a POD16's netlist.
    std::ifstream status("/proc/self/status");
    uint64_t vm_kib = 0;
    for (std::string line; std::getline(status, line);)
      if (line.rfind("VmSize:", 0) == 0) vm_kib = std::stoull(line.substr(7));
    const rlim_t as = (vm_kib << 10) + (uint64_t{96} << 20);
    rlimit before{};
    ::getrlimit(RLIMIT_AS, &before);
    const rlimit limit{as, before.rlim_max};
    ::setrlimit(RLIMIT_AS, &limit);
    ipudrv::OpenOptions options;
    options.max_memory = uint64_t{1} << 40;  // past the estimate: the elaboration fails
    auto open = [&](const std::string& config) {
      try {
        auto dev = ipudrv::open("config:" + config, 0, options);
        return std::string(dev->info().in_process ? "opened in process" : "opened in a child");
      } catch (const ipudrv::UsageError& e) {
        return std::string("UsageError: ") + e.what();
      } catch (const std::exception& e) {
        return std::string("other: ") + e.what();
      }
    };
    said = open("configs/pod16.yaml");
    // The abandoned netlist holds this process's address space: give the next system
    // room (a thread stack or two here; the child has its own address space).
    ::setrlimit(RLIMIT_AS, &before);
    // A small system after it would be built next to the abandoned modules: a child's.
    said += "\n" + open("configs/test/tiny4.yaml");
    ssize_t ignored = ::write(out[1], said.data(), said.size());
    static_cast<void>(ignored);
    ::_exit(0);
  }
  ::close(out[1]);
  std::string said;
  char buf[4096];
  pollfd p{out[0], POLLIN, 0};
  while (seconds_since(t0) < 30 && ::poll(&p, 1, 100) >= 0) {
    if (!(p.revents & (POLLIN | POLLHUP))) continue;
    const ssize_t n = ::read(out[0], buf, sizeof buf);
    if (n <= 0) break;
    said.append(buf, size_t(n));
  }
  ::close(out[0]);
  const double seconds = seconds_since(t0);
  ::kill(pid, SIGKILL);
  int raw = 0;
  ::waitpid(pid, &raw, 0);
  EXPECT_LT(seconds, 15.0);
  EXPECT_EQ(said.rfind("UsageError: in-process device for 'configs/pod16.yaml': building ipu ", 0), 0u) << said;
  const size_t newline = said.find('\n');
  ASSERT_NE(newline, std::string::npos) << said;
  EXPECT_EQ(said.substr(newline + 1), "opened in a child") << said;
}

}  // namespace
}  // namespace ipusim
