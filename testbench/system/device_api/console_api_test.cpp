// The tiles' console through the driver (Device::set_console, ipudrv_set_console), on
// both transports: a host program gets every line, tagged with device IPU, tile and
// thread, in the order `ipusim run` prints them, on the thread calling run(); the default
// prints them to stdout as `ipusim run` does; a served device's lines reach the client and
// the server prints none of them; thousands of lines through the bounded queue (a slow
// handler makes the simulation wait) all arrive, in order; and the cycles and
// instructions of a run are the same with the console delivered, off, and over the
// socket or in process (docs/host_driver.md, "Console").
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include <ipu/hostif_regs.h>
#include <ipudrv/ipudrv.h>

#include "cli_run.h"
#include "device_fixture.h"

namespace devapi {
namespace {

using ipusim::test::read_file;

const std::string kConfig = "configs/test/tiny4_m2000.yaml";  // 4 IPUs of 4 tiles, one board
const std::string kElf = "device_api/console_chatter.elf";
constexpr uint32_t kIpus = 4, kTiles = 4;

std::string formatted(const std::vector<ipudrv::ConsoleLine>& lines) {
  std::string s;
  for (const auto& l : lines) s += ipudrv::format_console_line(l);
  return s;
}

// Runs `run` with this process's stdout (fd 1) in a file, and returns what it printed.
template <class Fn>
std::string captured_stdout(const std::string& path, Fn&& run) {
  std::fflush(stdout);
  const int saved = ::dup(1);
  std::FILE* f = std::fopen(path.c_str(), "w");
  ::dup2(::fileno(f), 1);
  try {
    run();
  } catch (...) {
    std::fflush(stdout);
    ::dup2(saved, 1);
    ::close(saved);
    std::fclose(f);
    throw;
  }
  std::fflush(stdout);
  ::dup2(saved, 1);
  ::close(saved);
  std::fclose(f);
  return read_file(path);
}

class Console : public DeviceApiTest {
 protected:
  std::string temp(const std::string& name) { return ipusim::test::temp_path("devapi_console_", name); }

  // What `ipusim run` prints for the program as built (3 numbered lines per tile).
  std::string ipusim_run_console() {
    const auto r = ipusim::test::run_cli(IPUSIM_BIN, "devapi_console_",
                                         "--config " + kConfig + " --elf " + firmware(kElf) + " --threads 1 --quiet");
    EXPECT_EQ(r.status, 0) << r.err;
    return r.out;
  }

  void load(ipudrv::Device& dev, uint32_t lines, uint32_t long_line) {
    dev.load(elf(kElf));
    for (uint32_t ipu = 0; ipu < kIpus; ++ipu)
      for (uint32_t tile = 0; tile < kTiles; ++tile) {
        dev.write_symbol(ipu, tile, "chatter_lines", bytes_of(lines));
        dev.write_symbol(ipu, tile, "chatter_long", bytes_of(long_line));
      }
  }
};

TEST_P(Console, LinesReachTheProgramTaggedInIpusimRunsOrder) {
  const std::string cli = ipusim_run_console();
  ASSERT_EQ(std::count(cli.begin(), cli.end(), '\n'), long(kIpus * kTiles * 6)) << cli;

  // The default: printed to this program's stdout, as `ipusim run` prints them.
  ::unsetenv("IPUSIM_CONSOLE");
  auto dev = open(kConfig);
  dev->load(elf(kElf));
  const std::string printed = captured_stdout(temp("stdout"), [&] { dev->run(0, std::chrono::seconds(30)); });
  EXPECT_EQ(printed, cli);

  // A handler: the same lines as records, on this thread.
  std::vector<ipudrv::ConsoleLine> lines;
  bool other_thread = false;
  const auto me = std::this_thread::get_id();
  dev->set_console([&](const ipudrv::ConsoleLine& l) {
    lines.push_back(l);
    other_thread = other_thread || std::this_thread::get_id() != me;
  });
  dev->reset();
  dev->load(elf(kElf));
  const std::string silent = captured_stdout(temp("stdout2"), [&] { dev->run(0, std::chrono::seconds(30)); });
  EXPECT_EQ(silent, "") << "a handler replaces the default printing";
  EXPECT_FALSE(other_thread) << "the handler ran on a thread other than run()'s";
  EXPECT_EQ(formatted(lines), cli);
  auto has = [&](const ipudrv::ConsoleLine& want) { return std::find(lines.begin(), lines.end(), want) != lines.end(); };
  EXPECT_TRUE(has({2, 3, 0, "tile 3 of ipu 2 starts"}));
  EXPECT_TRUE(has({3, 1, 0, "line 2 of tile 1"}));
  for (const auto& l : lines)
    if (l.text.rfind("worker ", 0) == 0) {
      EXPECT_EQ(l.text, "worker " + std::to_string(l.thread) + " of tile " + std::to_string(l.tile)) << "thread tag";
      EXPECT_GE(l.thread, 1u);
    }
  EXPECT_EQ(dev->console_lines_dropped(), 0u);

  // Off: nothing reaches the old handler, nothing is printed.
  lines.clear();
  dev->set_console({});
  dev->reset();
  dev->load(elf(kElf));
  const std::string off = captured_stdout(temp("stdout3"), [&] { dev->run(0, std::chrono::seconds(30)); });
  EXPECT_EQ(off, "");
  EXPECT_TRUE(lines.empty());
}

// 16 tiles x 3000 lines (about 1 MiB, four times the queue) and a handler that stalls at
// first: the simulation stops while it does (the queue is full: memory stays bounded; an
// unbounded queue would let the run finish), every line arrives in each tile's order, and
// the run's cycles and instructions are those of the run with the console off.
TEST_P(Console, FloodArrivesWholeWithTheCyclesOfASilentRun) {
  constexpr uint32_t kLines = 3000, kLong = 1500;
  auto dev = open(kConfig);
  std::vector<ipudrv::ConsoleLine> lines;
  bool stalled = false;
  dev->set_console([&](const ipudrv::ConsoleLine& l) {
    // The first line: wait until the simulation stands still (two readings 100 ms apart),
    // with the run still RUNNING: it waits for this handler.
    const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    while (lines.empty() && !stalled && std::chrono::steady_clock::now() < give_up) {
      const uint64_t before = dev->stats().cycles;
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
      stalled = dev->stats().cycles == before && dev->state() == IPU_STATE_RUNNING;
    }
    lines.push_back(l);
  });
  load(*dev, kLines, kLong);
  // The limits below add up to less than the suite's ctest TIMEOUT (120 s): a run that
  // hangs fails with this test's own message.
  const ipudrv::RunResult loud = dev->run(0, std::chrono::seconds(50));
  ASSERT_EQ(loud.state, ipudrv::RunState::kHalted);
  EXPECT_TRUE(stalled) << "the simulation ran on while the handler held the console";
  ASSERT_EQ(lines.size(), size_t(kIpus * kTiles * (3 + kLines + 1)));
  std::map<std::pair<uint32_t, uint32_t>, uint32_t> next;  // (ipu, tile) -> next numbered line
  size_t long_lines = 0;
  for (const auto& l : lines) {
    if (l.text.rfind("line ", 0) == 0) {
      uint32_t& n = next[{l.ipu, l.tile}];
      ASSERT_EQ(l.text, "line " + std::to_string(n) + " of tile " + std::to_string(l.tile));
      ++n;
    } else if (l.text.size() == kLong) {
      ++long_lines;
      EXPECT_EQ(l.text, std::string(kLong, char('a' + l.tile))) << "a long line arrives whole";
    }
  }
  EXPECT_EQ(long_lines, size_t(kIpus * kTiles));
  EXPECT_EQ(dev->console_lines_dropped(), 0u);

  dev->set_console({});
  dev->reset();
  load(*dev, kLines, kLong);
  const ipudrv::RunResult silent = dev->run(0, std::chrono::seconds(20));
  EXPECT_EQ(silent.stats.cycles, loud.stats.cycles);
  EXPECT_EQ(silent.stats.instructions, loud.stats.instructions);
  dev.reset();

  if (serve()) {
    // Over the socket, delivered to the client: the cycles of the same run in process.
    server()->stop();
    auto local = ipudrv::open("config:" + kConfig);
    size_t count = 0;
    local->set_console([&](const ipudrv::ConsoleLine&) { ++count; });
    load(*local, kLines, kLong);
    const ipudrv::RunResult here = local->run(0, std::chrono::seconds(20));
    EXPECT_EQ(here.stats.cycles, loud.stats.cycles);
    EXPECT_EQ(here.stats.instructions, loud.stats.instructions);
    EXPECT_EQ(count, lines.size());
  }
}

// A program that prints and syncs for ever: run() ends by its timeout having delivered
// lines, the run going on drops (and counts) its lines instead of waiting for a reader
// that is gone, abort() ends it, and a run_async is aborted while its thread delivers.
// Nothing waits for ever (the test's timeout would say).
TEST_P(Console, AnEndlessPrinterEndsByTimeoutAndAbortWithoutAHang) {
  auto dev = open(kConfig);
  std::atomic<size_t> count{0};
  dev->set_console([&](const ipudrv::ConsoleLine&) { ++count; });
  const uint32_t forever = 1;
  auto load_forever = [&] {
    load(*dev, 0, 0);
    for (uint32_t ipu = 0; ipu < kIpus; ++ipu)
      for (uint32_t tile = 0; tile < kTiles; ++tile) dev->write_symbol(ipu, tile, "chatter_forever", bytes_of(forever));
  };
  load_forever();
  expect_error<ipudrv::TimeoutError>([&] { dev->run(0, std::chrono::milliseconds(300)); });
  const size_t delivered = count;
  EXPECT_GT(delivered, 0u) << "lines of a run are delivered while it goes on";
  std::this_thread::sleep_for(std::chrono::milliseconds(100));  // the run prints on, to nobody
  dev->abort();
  const auto stopped_by = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (dev->state() == IPU_STATE_RUNNING && std::chrono::steady_clock::now() < stopped_by)
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  EXPECT_EQ(dev->state(), uint32_t(IPU_STATE_ERROR));
  EXPECT_EQ(count, delivered) << "lines reached the handler after run() returned";

  dev->reset();
  load_forever();
  auto future = dev->run_async();
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (count < delivered + 200 && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  EXPECT_GE(count, delivered + 200) << "run_async's thread delivers while the run goes on";
  dev->abort();
  expect_error<ipudrv::DeviceStateError>([&] { future.get(); });
  EXPECT_GT(dev->console_lines_dropped(), 0u) << "the lines printed after the timeout were counted";
}

// The peak resident memory of process `pid` (VmHWM), in KiB.
long peak_rss_kib(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("VmHWM:", 0) == 0) return std::stol(line.substr(6));
  return -1;
}

// Every tile printing "tile T tick N" for ever without a sync, to the cycle budget: 16
// stretches of 184,000 lines each in one batch, which the model used to hold whole
// (hundreds of MB); now at most a buffer per tile. Every line reaches the handler, in
// (ipu, tile) order and each tile's own order, and the process running the model (this
// one, or `ipusim serve`) stays under 100 MB.
TEST_P(Console, APrinterWithoutSyncKeepsTheModelSmall) {
  auto dev = open(kConfig);
  const pid_t model = GetParam() == Transport::kInProcess ? ::getpid() : server()->pid();
  std::vector<uint32_t> ticks(kIpus * kTiles, 0);
  uint32_t last = 0;
  size_t count = 0, bad = 0;
  dev->set_console([&](const ipudrv::ConsoleLine& l) {
    const uint32_t at = l.ipu * kTiles + l.tile;
    const std::string want = "tile " + std::to_string(l.tile) + " tick " + std::to_string(ticks[at]);
    if (at < last || l.text != want || l.thread != 0) ++bad;
    last = at;
    ++ticks[at];
    ++count;
  });
  dev->load(elf("system/chatter_forever.elf"));
  ipudrv::RunOptions options;
  options.max_cycles = 150'000'000;
  options.timeout = std::chrono::seconds(60);  // under the suite's ctest TIMEOUT (120 s)
  expect_error<ipudrv::BudgetError>([&] { dev->run(options); });
  EXPECT_EQ(bad, 0u) << "lines out of order or not as printed";
  EXPECT_GT(count, 2'500'000u);
  for (uint32_t t = 1; t < kIpus * kTiles; ++t) EXPECT_EQ(ticks[t], ticks[0]) << "every tile runs the same loop";
  const long rss = peak_rss_kib(model);
  EXPECT_GT(rss, 0);
  EXPECT_LT(rss, 100 * 1024) << "peak RSS of the model's process: " << rss / 1024 << " MiB";
}

// A handler that throws: run() leaves with its exception; the model, still printing, goes
// on to its budget without waiting for a reader (its lines are dropped), and the device
// runs again after reset().
TEST_P(Console, AHandlerThatThrowsLeavesRunAndNothingWaitsForIt) {
  auto dev = open(kConfig);
  size_t seen = 0;
  dev->set_console([&](const ipudrv::ConsoleLine&) {
    if (++seen == 1000) throw std::runtime_error("the handler gave up");
  });
  dev->load(elf("system/chatter_forever.elf"));
  ipudrv::RunOptions options;
  options.max_cycles = 150'000'000;
  try {
    dev->run(options);
    ADD_FAILURE() << "run() returned";
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(), "the handler gave up");
  }
  EXPECT_EQ(seen, 1000u);
  // With the run below, under the suite's ctest TIMEOUT (120 s).
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (dev->state() == IPU_STATE_RUNNING && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  EXPECT_EQ(dev->state(), uint32_t(IPU_STATE_ERROR)) << "the run went on to its cycle budget";
  EXPECT_EQ(seen, 1000u) << "lines reached the handler after run() left";
  dev->reset();
  dev->set_console([&](const ipudrv::ConsoleLine&) { ++seen; });
  dev->load(elf(kElf));
  const ipudrv::RunResult r = dev->run(0, std::chrono::seconds(30));
  EXPECT_EQ(r.state, ipudrv::RunState::kHalted);
  EXPECT_EQ(seen, 1000u + kIpus * kTiles * 6);
}

TEST_P(Console, CApiCallbackSeesTheLines) {
  const std::string cli = ipusim_run_console();
  start(kConfig);
  ipudrv_device* dev = nullptr;
  ASSERT_EQ(ipudrv_open(locator().c_str(), 0, &dev), IPUDRV_OK) << ipudrv_last_error();
  struct Seen {
    std::string text;
    uint32_t ipu2_tile3 = 0;  // lines of IPU 2 tile 3's supervisor
  } seen;
  auto fn = [](void* user, const ipudrv_console_line* l) {
    auto* s = static_cast<Seen*>(user);
    s->text += ipudrv::format_console_line({l->ipu, l->tile, l->thread, std::string(l->text, l->length)});
    if (l->ipu == 2 && l->tile == 3 && l->thread == 0) ++s->ipu2_tile3;
    EXPECT_EQ(l->text[l->length], '\0');
  };
  ASSERT_EQ(ipudrv_set_console(dev, fn, &seen), IPUDRV_OK) << ipudrv_last_error();
  ASSERT_EQ(ipudrv_load(dev, firmware(kElf).c_str()), IPUDRV_OK) << ipudrv_last_error();
  ipudrv_run_result r{};
  ASSERT_EQ(ipudrv_run(dev, 0, 60000, &r), IPUDRV_OK) << ipudrv_last_error();
  EXPECT_EQ(seen.text, cli);
  EXPECT_EQ(seen.ipu2_tile3, 4u);  // "starts" and three numbered lines
  uint64_t dropped = 1;
  ASSERT_EQ(ipudrv_console_dropped(dev, &dropped), IPUDRV_OK) << ipudrv_last_error();
  EXPECT_EQ(dropped, 0u);
  EXPECT_EQ(ipudrv_console_dropped(dev, nullptr), IPUDRV_E_USAGE);

  // NULL: off.
  seen = {};
  ASSERT_EQ(ipudrv_set_console(dev, nullptr, nullptr), IPUDRV_OK);
  ASSERT_EQ(ipudrv_reset(dev), IPUDRV_OK);
  ASSERT_EQ(ipudrv_load(dev, firmware(kElf).c_str()), IPUDRV_OK);
  ASSERT_EQ(ipudrv_run(dev, 0, 60000, &r), IPUDRV_OK) << ipudrv_last_error();
  EXPECT_EQ(seen.text, "");
  ipudrv_close(dev);
}

DEVAPI_TRANSPORTS(Console);

// A served device's console goes to the client that asks for it, not to the server's
// stdout (which prints it for a client that does not: console off here).
TEST(ConsoleServe, TheServerPrintsNothingOfWhatItsClientReceives) {
  ::setenv("IPUSIM_THREADS", "1", 1);
  const std::string out = ipusim::test::temp_path("devapi_console_", "server.stdout");
  ServeChild server(kConfig, scratch_socket("console"), "", out);
  size_t count = 0;
  {
    auto dev = ipudrv::open("unix:" + server.socket());
    dev->set_console([&](const ipudrv::ConsoleLine&) { ++count; });
    dev->load(elf(kElf));
    dev->run(0, std::chrono::seconds(30));
    dev->set_console({});
    dev->reset();
    dev->load(elf(kElf));
    dev->run(0, std::chrono::seconds(30));
  }
  const int status = server.stop();
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << server.stderr_text();
  EXPECT_EQ(count, size_t(kIpus * kTiles * 6));
  EXPECT_EQ(read_file(out), "") << "the server printed its client's console";
}

}  // namespace
}  // namespace devapi
