// Any number of systems per process (docs/host_driver.md "Locators"): the process's model
// takes the first config (and the same config again once it is closed); any other open of
// a config: locator runs in an `ipusim serve` child of the driver's own, behind the same
// Device API. Each case runs in a process of its own (gtest_discover_tests), so "the
// first" is the case's first.
#include <dirent.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <future>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <ipu/hostif_regs.h>

#include "device_fixture.h"
#include "ipudrv/ipudrv.h"

namespace devapi {
namespace {

using Clock = std::chrono::steady_clock;
namespace fs = std::filesystem;

constexpr const char* kTiny16 = "config:configs/test/tiny16.yaml";
constexpr const char* kTiny4 = "config:configs/test/tiny4.yaml";
constexpr const char* kGc200 = "config:configs/gc200.yaml";
constexpr unsigned kVecN = 1536;  // firmware/examples/vecadd

double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

// This process's children, zombies included (/proc/PID/stat: "pid (comm) state ppid").
std::vector<pid_t> children() {
  std::vector<pid_t> out;
  for (const auto& e : fs::directory_iterator("/proc")) {
    const std::string name = e.path().filename();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::ifstream f(e.path() / "stat");
    std::string stat;
    std::getline(f, stat);
    const size_t close = stat.rfind(')');
    if (close == std::string::npos) continue;
    std::istringstream rest(stat.substr(close + 1));
    char state = 0;
    pid_t ppid = 0;
    rest >> state >> ppid;
    if (ppid == ::getpid()) out.push_back(pid_t(std::stol(name)));
  }
  return out;
}

// The argument after `option` on `pid`'s command line.
std::string argument_of(pid_t pid, const std::string& option) {
  std::ifstream f("/proc/" + std::to_string(pid) + "/cmdline");
  std::vector<std::string> args;
  for (std::string a; std::getline(f, a, '\0');) args.push_back(a);
  for (size_t i = 0; i + 1 < args.size(); ++i)
    if (args[i] == option) return args[i + 1];
  return {};
}

// A process that is gone, or a zombie nobody reaped yet.
bool ended(pid_t pid) {
  std::ifstream f("/proc/" + std::to_string(pid) + "/stat");
  std::string stat;
  if (!std::getline(f, stat)) return true;
  const size_t close = stat.rfind(')');
  return close != std::string::npos && close + 2 < stat.size() && stat[close + 2] == 'Z';
}

float in_a(unsigned i) { return float(i) * 0.5f; }
float in_b(unsigned i) { return 1000.0f - float(i) * 0.25f; }

// Loads vecadd on `ranges`, runs it to halt and checks c = a + b on the first and last
// tile of each range, bit for bit (the kernel also checks itself: exit code 0).
void run_vecadd(ipudrv::Device& dev, const std::vector<ipudrv::TileRange>& ranges) {
  std::map<ipudrv::TileRange, ipudrv::Elf> programs;
  for (const auto& r : ranges) programs.emplace(r, elf("vecadd.elf"));
  dev.load(programs);
  const ipudrv::RunResult r = dev.run(0, std::chrono::seconds(60));
  EXPECT_EQ(r.state, ipudrv::RunState::kHalted);
  EXPECT_EQ(r.exit_code, 0);
  uint32_t tiles = 0;
  for (const auto& t : ranges) tiles += t.tile_count;
  EXPECT_EQ(r.stats.booted_tiles, tiles);
  for (const auto& range : ranges) {
    for (uint32_t tile : {range.tile_first, range.tile_first + range.tile_count - 1}) {
      std::vector<float> c(kVecN);
      dev.read_symbol(range.ipu, tile, "c", std::as_writable_bytes(std::span(c)));
      unsigned wrong = 0;
      for (unsigned i = 0; i < kVecN; ++i) wrong += c[i] != in_a(i) + in_b(i);
      EXPECT_EQ(wrong, 0u) << dev.info().locator << " tile " << tile;
    }
  }
}

// Writes `seed`'s pattern to tile 1 of `dev` (after its program's data) and returns it.
std::vector<uint32_t> write_pattern(ipudrv::Device& dev, uint32_t seed) {
  std::vector<uint32_t> words(4096);
  for (size_t i = 0; i < words.size(); ++i) words[i] = seed * 2654435761u + uint32_t(i);
  dev.write_tile(0, 1, IPU_SRAM_BASE + 0x40000, std::as_bytes(std::span(words)));
  return words;
}
std::vector<uint32_t> read_pattern(ipudrv::Device& dev) {
  std::vector<uint32_t> words(4096);
  dev.read_tile(0, 1, IPU_SRAM_BASE + 0x40000, std::as_writable_bytes(std::span(words)));
  return words;
}

class MultiSystem : public ::testing::Test {
 protected:
  void SetUp() override {
    ::setenv("IPUSIM_CONSOLE", "none", 1);
    ::setenv("IPUSIM_THREADS", "1", 1);
    ::unsetenv("IPUSIM_BIN");
  }
  // The one child the driver started for a device: its pid, its socket's directory.
  static pid_t only_child() {
    const auto kids = children();
    EXPECT_EQ(kids.size(), 1u);
    return kids.empty() ? -1 : kids.front();
  }
  static std::string socket_dir(pid_t child) { return fs::path(argument_of(child, "--socket")).parent_path(); }
};

// The case: tiny16 and a GC200 one after the other, then side by side, a kernel on
// each; the GC200 (a second, different config) runs in a child.
TEST_F(MultiSystem, Tiny16AndGc200OneAfterTheOtherAndSideBySide) {
  auto tiny = ipudrv::open(kTiny16);
  EXPECT_TRUE(tiny->info().in_process);
  EXPECT_EQ(tiny->info().tiles_per_ipu, 16u);
  run_vecadd(*tiny, {{0, 0, 16}});
  tiny.reset();
  EXPECT_TRUE(children().empty()) << "the first system runs in this process";

  auto gc = ipudrv::open(kGc200);
  EXPECT_FALSE(gc->info().in_process);
  EXPECT_EQ(gc->info().locator, kGc200);
  EXPECT_EQ(gc->info().tiles_per_ipu, 1472u);
  EXPECT_EQ(gc->info().ipus, 1u);
  EXPECT_EQ(children().size(), 1u);
  run_vecadd(*gc, {{0, 0, 4}, {0, 1468, 4}});

  // Side by side: tiny16 again (the process's model, closed, takes its own config back).
  tiny = ipudrv::open(kTiny16);
  EXPECT_TRUE(tiny->info().in_process);
  EXPECT_EQ(tiny->info().tiles_per_ipu, 16u);
  EXPECT_EQ(gc->info().tiles_per_ipu, 1472u);
  const auto tiny_words = write_pattern(*tiny, 1);
  const auto gc_words = write_pattern(*gc, 2);
  EXPECT_EQ(read_pattern(*tiny), tiny_words);
  EXPECT_EQ(read_pattern(*gc), gc_words);
  // Both running at once, each on its own thread.
  auto on_gc = std::async(std::launch::async, [&] { run_vecadd(*gc, {{0, 700, 8}}); });
  run_vecadd(*tiny, {{0, 0, 16}});
  on_gc.get();
  gc.reset();
  EXPECT_TRUE(children().empty()) << "the GC200's child ended with its device";
}

// The same config twice at once: the second open runs in a child; both work, each its own.
TEST_F(MultiSystem, TheSameConfigTwiceSideBySide) {
  auto first = ipudrv::open(kTiny16);
  auto second = ipudrv::open(kTiny16);
  EXPECT_TRUE(first->info().in_process);
  EXPECT_FALSE(second->info().in_process);
  EXPECT_EQ(first->info().locator, kTiny16);
  EXPECT_EQ(second->info().locator, kTiny16);
  const auto a = write_pattern(*first, 11);
  const auto b = write_pattern(*second, 12);
  EXPECT_EQ(read_pattern(*first), a);
  EXPECT_EQ(read_pattern(*second), b);
  run_vecadd(*first, {{0, 0, 8}});
  run_vecadd(*second, {{0, 8, 8}});
  // A third, from enumerate(): another child.
  auto refs = ipudrv::enumerate(kTiny16);
  ASSERT_EQ(refs.size(), 1u);
  EXPECT_FALSE(refs[0].info().in_process);
  auto third = refs[0].open();
  EXPECT_EQ(children().size(), 2u);
  run_vecadd(*third, {{0, 0, 16}});
  // The in-process one closed and opened again: in process again, the children untouched
  // (load() reset the tiles' memory: the pattern is written again).
  const auto c = write_pattern(*second, 13);
  first.reset();
  first = ipudrv::open(kTiny16);
  EXPECT_TRUE(first->info().in_process);
  EXPECT_EQ(read_pattern(*second), c);
  EXPECT_EQ(read_pattern(*first), std::vector<uint32_t>(4096, 0)) << "closing reset the model's tiles";
}

// A bad second config is refused as in process, by the config loader in this process:
// no child is started (an IPUSIM_BIN that names nothing would say so if one were).
TEST_F(MultiSystem, ABadSecondConfigIsTheLoadersErrorAndStartsNoChild) {
  auto tiny = ipudrv::open(kTiny16);
  const std::string bad = ::testing::TempDir() + "multisys-bad-" + std::to_string(::getpid()) + ".yaml";
  {
    std::ofstream f(bad);
    f << "kind: chip\nname: bad\ntiles: 16\nclock_mhz: -5\n";
  }
  ::setenv("IPUSIM_BIN", "/nonexistent/ipusim", 1);
  try {
    ipudrv::open("config:" + bad);
    ADD_FAILURE() << "opened";
  } catch (const ipudrv::UsageError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find(bad + ":4:"), std::string::npos) << what;
    EXPECT_EQ(what.find("IPUSIM_BIN"), std::string::npos) << what;
  }
  // A system too large for the memory allowed: refused here too, before any child.
  ipudrv::OpenOptions small;
  small.max_memory = 1 << 20;
  try {
    ipudrv::open(kTiny4, 0, small);
    ADD_FAILURE() << "opened";
  } catch (const ipudrv::UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("OpenOptions::max_memory"), std::string::npos) << e.what();
  }
  EXPECT_TRUE(children().empty());
  fs::remove(bad);
}

// Closing the device ends its child (reaped: no zombie) and removes its private directory.
TEST_F(MultiSystem, ClosingTheDeviceEndsItsChildAndRemovesItsDirectory) {
  auto tiny = ipudrv::open(kTiny16);
  auto other = ipudrv::open(kTiny4);
  EXPECT_FALSE(other->info().in_process);
  const pid_t child = only_child();
  ASSERT_GT(child, 0);
  const std::string dir = socket_dir(child);
  struct stat st{};
  ASSERT_EQ(::stat(dir.c_str(), &st), 0) << dir;
  EXPECT_EQ(st.st_mode & 0777, 0700u) << dir;
  EXPECT_EQ(st.st_uid, ::getuid());
  EXPECT_EQ(argument_of(child, "--idle-timeout"), "0");
  const auto t0 = Clock::now();
  other.reset();
  EXPECT_LT(seconds_since(t0), 5.0);
  EXPECT_TRUE(children().empty()) << "reaped, not a zombie";
  EXPECT_FALSE(fs::exists(dir)) << dir;
  EXPECT_EQ(::kill(child, 0), -1);
}

// A child killed mid-run: the run and every later call fail with TransportError at once,
// and closing the device still reaps it and removes its directory.
TEST_F(MultiSystem, AChildKilledMidRunIsATransportError) {
  auto tiny = ipudrv::open(kTiny16);
  auto other = ipudrv::open(kTiny4);
  const pid_t child = only_child();
  ASSERT_GT(child, 0);
  const std::string dir = socket_dir(child);
  other->load(elf("system/endless.elf"));
  auto run = other->run_async();
  EXPECT_EQ(run.wait_for(std::chrono::milliseconds(300)), std::future_status::timeout) << "an endless loop";
  ASSERT_EQ(::kill(child, SIGKILL), 0);
  const auto t0 = Clock::now();
  ASSERT_EQ(run.wait_for(std::chrono::seconds(10)), std::future_status::ready) << "the run noticed";
  EXPECT_THROW(run.get(), ipudrv::TransportError);
  EXPECT_THROW(other->read_register(IPU_REG_STATUS), ipudrv::TransportError);
  EXPECT_LT(seconds_since(t0), 10.0);
  other.reset();
  EXPECT_LT(seconds_since(t0), 10.0);
  EXPECT_TRUE(children().empty());
  EXPECT_FALSE(fs::exists(dir)) << dir;
}

// IPUSIM_BIN names the ipusim to start: a missing file, and children that fail, are
// clear errors carrying what they printed; nothing is left behind.
TEST_F(MultiSystem, IpusimBinNamesTheChildAndItsFailuresAreClear) {
  auto tiny = ipudrv::open(kTiny16);
  ::setenv("IPUSIM_BIN", "/nonexistent/ipusim", 1);
  try {
    ipudrv::open(kTiny4);
    ADD_FAILURE() << "opened";
  } catch (const ipudrv::UsageError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("IPUSIM_BIN='/nonexistent/ipusim' is not an executable file"), std::string::npos) << what;
    EXPECT_NE(what.find("config:configs/test/tiny4.yaml"), std::string::npos) << what;
  }
  const std::string script = ::testing::TempDir() + "multisys-fake-ipusim-" + std::to_string(::getpid());
  for (const auto& [status, type] : {std::pair{3, "TransportError"}, std::pair{2, "UsageError"}}) {
    {
      std::ofstream f(script);
      f << "#!/bin/sh\necho \"fake ipusim: refusing $1 $2 $3\" >&2\nexit " << status << "\n";
    }
    fs::permissions(script, fs::perms::owner_all);
    ::setenv("IPUSIM_BIN", script.c_str(), 1);
    std::string caught, what;
    try {
      ipudrv::open(kTiny4);
    } catch (const ipudrv::UsageError& e) {
      caught = "UsageError";
      what = e.what();
    } catch (const ipudrv::TransportError& e) {
      caught = "TransportError";
      what = e.what();
    }
    EXPECT_EQ(caught, type) << what;
    EXPECT_NE(what.find("exit status " + std::to_string(status)), std::string::npos) << what;
    EXPECT_NE(what.find("fake ipusim: refusing serve --config configs/test/tiny4.yaml"), std::string::npos) << what;
    EXPECT_TRUE(children().empty());
  }
  fs::remove(script);
}

// A parent that dies without closing its device (SIGKILL) takes its child with it.
TEST_F(MultiSystem, TheChildEndsWhenItsParentDies) {
  int report[2];
  ASSERT_EQ(::pipe(report), 0);
  const pid_t parent = ::fork();  // before this process has any thread or model
  if (parent == 0) {
    ::close(report[0]);
    pid_t child = -1;
    try {
      auto tiny = ipudrv::open(kTiny16);
      auto other = ipudrv::open(kTiny4);
      for (pid_t p : children()) child = p;
      ssize_t ignored = ::write(report[1], &child, sizeof child);
      static_cast<void>(ignored);
      for (;;) ::pause();  // killed here, the devices open
    } catch (...) {
    }
    ::_exit(1);
  }
  ::close(report[1]);
  pid_t child = -1;
  ASSERT_EQ(::read(report[0], &child, sizeof child), ssize_t(sizeof child));
  ::close(report[0]);
  ASSERT_GT(child, 0);
  const std::string dir = socket_dir(child);
  EXPECT_FALSE(ended(child));
  ::kill(parent, SIGKILL);
  ::waitpid(parent, nullptr, 0);
  const auto t0 = Clock::now();
  while (!ended(child) && seconds_since(t0) < 10) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  EXPECT_TRUE(ended(child)) << "ipusim serve " << child << " outlived its parent";
  EXPECT_FALSE(fs::exists(dir + "/serve.sock")) << "the server removed its socket";
  std::error_code ec;
  fs::remove_all(dir, ec);  // the directory of a parent that never closed its device
}

// OpenOptions reach the child: core_dir (a faulting run leaves the core there), max_memory
// and gdb_port (on its command line; nothing here attaches).
TEST_F(MultiSystem, OpenOptionsReachTheChild) {
  auto tiny = ipudrv::open(kTiny16);
  const std::string dir = ::testing::TempDir() + "multisys-cores-" + std::to_string(::getpid());
  fs::remove_all(dir);
  ipudrv::OpenOptions options;
  options.core_dir = dir;
  options.max_memory = uint64_t{3} << 30;
  auto other = ipudrv::open(kTiny4, 0, options);
  EXPECT_FALSE(other->info().in_process);
  const pid_t child = only_child();
  EXPECT_EQ(argument_of(child, "--core"), dir);
  EXPECT_EQ(argument_of(child, "--max-memory"), std::to_string(uint64_t{3} << 30));
  other->load(elf("faults/fault_illegal.elf"));
  EXPECT_THROW(other->run(0, std::chrono::seconds(30)), ipudrv::TileFaultError);
  EXPECT_TRUE(fs::exists(dir + "/ipu0.core")) << "written by the child";
  other.reset();
  fs::remove_all(dir);

  ipudrv::OpenOptions gdb;
  gdb.gdb_port = 0;
  ::testing::internal::CaptureStderr();
  other = ipudrv::open(kTiny4, 0, gdb);
  const std::string said = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(argument_of(only_child(), "--gdb"), "0");
  EXPECT_NE(said.find("ipudrv: gdb: every run of config:configs/test/tiny4.yaml (ipusim serve child"), std::string::npos)
      << said;
}

// The C API calls the C++ one: a second config through ipudrv_open is a child's device.
TEST_F(MultiSystem, TheCApiOpensASecondSystem) {
  ipudrv_device* tiny = nullptr;
  ipudrv_device* other = nullptr;
  ASSERT_EQ(ipudrv_open(kTiny16, 0, &tiny), IPUDRV_OK) << ipudrv_last_error();
  ASSERT_EQ(ipudrv_open(kTiny4, 0, &other), IPUDRV_OK) << ipudrv_last_error();
  ipudrv_info a{}, b{};
  ASSERT_EQ(ipudrv_get_info(tiny, &a), IPUDRV_OK);
  ASSERT_EQ(ipudrv_get_info(other, &b), IPUDRV_OK);
  EXPECT_EQ(a.tiles_per_ipu, 16u);
  EXPECT_EQ(b.tiles_per_ipu, 4u);
  EXPECT_EQ(a.in_process, 1u);
  EXPECT_EQ(b.in_process, 0u);
  EXPECT_EQ(children().size(), 1u);
  const uint32_t x = 0x1234abcd, y = 0x9876fedc;
  ASSERT_EQ(ipudrv_write_tile(tiny, 0, 3, IPU_SRAM_BASE + 0x1000, &x, 4), IPUDRV_OK);
  ASSERT_EQ(ipudrv_write_tile(other, 0, 3, IPU_SRAM_BASE + 0x1000, &y, 4), IPUDRV_OK);
  uint32_t rx = 0, ry = 0;
  ASSERT_EQ(ipudrv_read_tile(tiny, 0, 3, IPU_SRAM_BASE + 0x1000, &rx, 4), IPUDRV_OK);
  ASSERT_EQ(ipudrv_read_tile(other, 0, 3, IPU_SRAM_BASE + 0x1000, &ry, 4), IPUDRV_OK);
  EXPECT_EQ(rx, x);
  EXPECT_EQ(ry, y);
  ipudrv_close(other);
  EXPECT_TRUE(children().empty());
  ipudrv_close(tiny);
}

}  // namespace
}  // namespace devapi
