// A pod through the driver: configs/test/tiny4_pod16.yaml (4 boards of 4 tiny IPUs joined
// by IPU-Links) is one device of 16 IPUs, in process ("config:") and through one `ipusim
// serve` socket ("unix:") alike (each test below runs on both, device_fixture.h). A zone-2
// all-reduce across the boards gives what `ipusim run` gives (results, cycles, bytes,
// supersteps, trace); a host-stream wait on board 2 is reported at the cycle it starts,
// while the other boards still have their compute ahead, and the run's results do not
// depend on when the host serves it, on the host threads nor on the transport; a fault on
// board 3 is the device's error naming device IPU 13; CTRL.ABORT written to any one board
// is seen in every board's registers.
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <future>
#include <fstream>
#include <sstream>
#include <thread>

#include <ipu/hostif_regs.h>
#include <nlohmann/json.hpp>

#include "cli_run.h"
#include "config/config_loader.h"
#include "device_fixture.h"
#include "superstep_json.h"
#include "kernels_ref.h"

namespace devapi {
namespace {

using ipusim::test::read_file;

const std::string kPod = "configs/test/tiny4_pod16.yaml";

std::string temp(const std::string& name) { return ipusim::test::temp_path("devapi_pod_", name); }

// The child of StreamWaitOnBoard2...: in process, with the host threads its parent sets.
class PodDevice : public ::testing::Test {
 protected:
  void SetUp() override {
    ::setenv("IPUSIM_CONSOLE", "none", 1);
    ::setenv("IPUSIM_THREADS", "1", 0);  // the child of StreamWait... sets 2
  }
};

// The pod through this test's transport (in process, or an `ipusim serve` child).
class PodDeviceApi : public DeviceApiTest {};
DEVAPI_TRANSPORTS(PodDeviceApi);

TEST_P(PodDeviceApi, IsOneDeviceWithEveryIpuOfEveryBoard) {
  const std::string locator = start(kPod);
  auto refs = ipudrv::enumerate(locator);
  ASSERT_EQ(refs.size(), 1u) << "a pod is one device";
  const ipudrv::DeviceInfo& i = refs[0].info();
  EXPECT_EQ(i.locator, locator);
  EXPECT_EQ(i.boards, 4u);
  EXPECT_EQ(i.ipus_per_board, 4u);
  EXPECT_EQ(i.ipus, 16u);
  EXPECT_EQ(i.system_ipus, 16u);
  EXPECT_EQ(i.board_index, 0u);
  auto dev = refs[0].open();
  EXPECT_EQ(dev->state(), IPU_STATE_IDLE);
  for (uint32_t b = 0; b < 4; ++b) EXPECT_EQ(dev->read_register(b, IPU_REG_BOARD_INDEX), b);
  // Each board's host memory and DMA: a tile of every board written and read back.
  for (uint32_t ipu : {1u, 6u, 11u, 15u}) {
    const uint32_t v = 0xB0A4D000u + ipu;
    uint32_t back = 0;
    dev->write_tile(ipu, 2, 0x40100, bytes_of(v));
    dev->read_tile(ipu, 2, 0x40100, writable_bytes_of(back));
    EXPECT_EQ(back, v) << "device IPU " << ipu << " (board " << ipu / 4 << ")";
  }
  expect_error<ipudrv::UsageError>([&] { dev->read_tile(16, 0, 0x40000, {}); }, "the device has 16 IPUs");
  expect_error<ipudrv::UsageError>([&] { dev->alloc_smem(64, 64, 4); }, "the device has 4 board(s)");
  dev.reset();
  refs.clear();  // a DeviceRef keeps the in-process system open
  expect_error<ipudrv::UsageError>([&] { ipudrv::open(locator, 1); }, "1 device(s)");
}

// ipu_allreduce: zone-2 supersteps whose ring exchanges cross the boards' IPU-Links.
TEST_P(PodDeviceApi, AllreduceAcrossBoardsEqualsIpusimRun) {
  const ipusim::config::SystemConfig sys = ipusim::config::load_system(kPod);
  const kref::IpuAllreduceExpect want =
      kref::ipu_allreduce(sys.board.chip.tiles, uint32_t(sys.board.chip.tile.sram_bytes), sys.total_ipus());
  ASSERT_NE(want.chunk, 0u);
  const std::string elf_path = firmware("ipu_allreduce.elf");
  const std::string json_path = temp("cli.json"), cli_trace = temp("cli.trace.json"), trace = temp("dev.trace.json");
  const auto cli = ipusim::test::run_command(IPUSIM_BIN, "devapi_pod_",
                                             "run --config " + kPod + " --elf " + elf_path +
                                                 " --threads 1 --json " + json_path + " --trace " + cli_trace);
  ASSERT_EQ(cli.status, 0) << cli.err;
  const nlohmann::json json = nlohmann::json::parse(read_file(json_path));

  ipudrv::OpenOptions o;
  o.trace_path = trace;  // over the socket, the server writes it (on this host)
  auto dev = open(kPod, o);
  dev->load(ipudrv::Elf::from_file(elf_path));
  const ipudrv::RunResult r = dev->run(0, std::chrono::seconds(60));
  ASSERT_EQ(r.state, ipudrv::RunState::kHalted);
  EXPECT_EQ(r.exit_code, 0);
  for (uint32_t ipu = 0; ipu < 16; ++ipu) {
    struct {
      uint32_t magic, hash, value[6];
    } k{};
    dev->read_symbol(ipu, 0, "kc_result", writable_bytes_of(k));
    EXPECT_EQ(k.magic, 0x4B524553u) << "ipu " << ipu;
    EXPECT_EQ(k.hash, want.hash) << "ipu " << ipu;
    EXPECT_EQ(k.value[1], want.chunk);
    EXPECT_EQ(k.value[2], 16u) << "every IPU of the pod takes part";
  }
  EXPECT_EQ(r.stats.cycles, json["tile_cycles"].get<uint64_t>());
  EXPECT_EQ(r.stats.instructions, json["instructions"].get<uint64_t>());
  EXPECT_EQ(r.stats.exchange_bytes, json["exchange_bytes"].get<uint64_t>());
  EXPECT_GT(r.stats.exchange_bytes, 0u);
  EXPECT_EQ(r.stats.booted_tiles, 64u);
  EXPECT_EQ(r.stats.supersteps, 2u * 16) << "syncs: on chip, 2 (N - 1) ring steps (zone 2), the gather to tile 0";
  ASSERT_EQ(r.supersteps.size(), 16u);
  EXPECT_GT(expect_supersteps_equal(json, r.supersteps), 16u);
  EXPECT_EQ(read_file(trace), read_file(cli_trace)) << "one trace of every IPU, byte for byte `ipusim run --trace`'s";
}

// Faults on the pod's IPU-Links through the driver (in process and over the socket: the
// figures travel in LINK_STATS pages): the same link figures, cycles and sum as `ipusim
// run --link-faults` of the same items; "none" runs clean again; a bad item is a
// UsageError naming it.
TEST_P(PodDeviceApi, LinkFaultsThroughTheDriverEqualIpusimRuns) {
  const ipusim::config::SystemConfig sys = ipusim::config::load_system(kPod);
  const kref::IpuAllreduceExpect want =
      kref::ipu_allreduce(sys.board.chip.tiles, uint32_t(sys.board.chip.tile.sram_bytes), sys.total_ipus());
  const std::string elf_path = firmware("ipu_allreduce.elf");
  const std::string items = "ber=1e-4,seed=3; 5:burst=2:3";
  const std::string json_path = temp("faults.json");
  const auto cli = ipusim::test::run_command(IPUSIM_BIN, "devapi_pod_faults_",
                                             "run --config " + kPod + " --elf " + elf_path + " --json " + json_path +
                                                 " --link-faults '" + items + "'");
  ASSERT_EQ(cli.status, 0) << cli.err;
  const nlohmann::json json = nlohmann::json::parse(read_file(json_path));

  auto dev = open(kPod);
  try {
    dev->set_link_faults("99:ber=1e-6");
    ADD_FAILURE() << "link 99 of a 76-link pod was accepted";
  } catch (const ipudrv::UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("link 99: the system has 76 IPU-Links"), std::string::npos) << e.what();
  }
  dev->set_link_faults(items);
  dev->load(ipudrv::Elf::from_file(elf_path));
  const ipudrv::RunResult r = dev->run(0, std::chrono::seconds(60));
  ASSERT_EQ(r.state, ipudrv::RunState::kHalted);
  for (uint32_t ipu = 0; ipu < 16; ++ipu) {
    struct {
      uint32_t magic, hash, value[6];
    } k{};
    dev->read_symbol(ipu, 0, "kc_result", writable_bytes_of(k));
    EXPECT_EQ(k.hash, want.hash) << "ipu " << ipu;
  }
  EXPECT_EQ(r.stats.cycles, json["tile_cycles"].get<uint64_t>());
  EXPECT_EQ(r.link_cycles_lost, json["link_cycles_lost"].get<uint64_t>());
  EXPECT_GT(r.link_cycles_lost, 0u);
  ASSERT_EQ(r.links.size(), json["links"].size());
  uint64_t errors = 0;
  for (size_t i = 0; i < r.links.size(); ++i) {
    const nlohmann::json& l = json["links"][i];
    EXPECT_EQ(r.links[i].link, l["link"].get<uint32_t>()) << i;
    EXPECT_EQ(r.links[i].from_ipu, l["from_ipu"].get<uint32_t>()) << i;
    EXPECT_EQ(r.links[i].bytes, l["bytes"].get<uint64_t>()) << i;
    EXPECT_EQ(r.links[i].crc_errors, l["crc_errors"].get<uint64_t>()) << i;
    EXPECT_EQ(r.links[i].replays, l["replays"].get<uint64_t>()) << i;
    EXPECT_EQ(r.links[i].retrains, l["retrains"].get<uint64_t>()) << i;
    EXPECT_EQ(r.links[i].cycles_lost, l["cycles_lost"].get<uint64_t>()) << i;
    errors += r.links[i].crc_errors;
  }
  EXPECT_GT(errors, 0u);
  EXPECT_EQ(dev->link_stats(), r.links);

  // Every program run starts from cycle 0 with its links idle and its injectors at their
  // seeds: the same items give the same run again, and "none" gives `ipusim run`'s.
  dev->load(ipudrv::Elf::from_file(elf_path));
  const ipudrv::RunResult again = dev->run(0, std::chrono::seconds(60));
  EXPECT_EQ(again.stats.cycles, r.stats.cycles);
  EXPECT_EQ(again.links, r.links);
  const std::string clean_json = temp("clean.json");
  const auto cli_clean = ipusim::test::run_command(IPUSIM_BIN, "devapi_pod_clean_",
                                                   "run --config " + kPod + " --elf " + elf_path + " --json " + clean_json);
  ASSERT_EQ(cli_clean.status, 0) << cli_clean.err;
  dev->set_link_faults("none");
  dev->load(ipudrv::Elf::from_file(elf_path));
  const ipudrv::RunResult clean = dev->run(0, std::chrono::seconds(60));
  EXPECT_EQ(clean.link_cycles_lost, 0u);
  ASSERT_EQ(clean.links.size(), r.links.size()) << "the same links carry the clean run";
  for (const ipudrv::LinkStats& l : clean.links) EXPECT_EQ(l.crc_errors, 0u) << "link " << l.link;
  EXPECT_EQ(clean.stats.cycles, nlohmann::json::parse(read_file(clean_json))["tile_cycles"].get<uint64_t>());
}

// A device's link faults end with it: the next session (a new open in process, the next
// client of `ipusim serve`) runs with the config's (none), as the first did.
TEST_P(PodDeviceApi, ClosingTheDeviceRestoresTheConfigsLinkFaults) {
  const std::string locator = start(kPod);
  const ipudrv::Elf program = ipudrv::Elf::from_file(firmware("ipu_allreduce.elf"));
  ipudrv::RunResult first;
  {
    auto dev = ipudrv::open(locator);
    dev->load(program);
    first = dev->run(0, std::chrono::seconds(60));
    EXPECT_EQ(first.link_cycles_lost, 0u);
    dev->set_link_faults("ber=1e-4,seed=3; 5:burst=2:3");
    dev->load(program);
    EXPECT_GT(dev->run(0, std::chrono::seconds(60)).link_cycles_lost, 0u) << "the faults were in force";
  }
  auto dev = ipudrv::open(locator);
  dev->load(program);
  const ipudrv::RunResult next = dev->run(0, std::chrono::seconds(60));
  EXPECT_EQ(next.link_cycles_lost, 0u);
  EXPECT_EQ(next.stats.cycles, first.stats.cycles);
  EXPECT_EQ(next.links, first.links);
  EXPECT_FALSE(next.links.empty()) << "the ring crossed the links";
}

// ---- a host stream waited on by board 2 ------------------------------------------------

struct StreamOutcome {
  uint64_t cycles = 0, instructions = 0, exchange_bytes = 0;
  uint64_t wait_cycles = 0;  // the device's cycles when the host was asked
  uint64_t wait_ns = 0, end_ns = 0;  // SIM_TIME_NS then, and at the end
  uint32_t services = 0;
  std::vector<uint32_t> hashes;  // every tile's pod_hash, device IPU order
  bool operator==(const StreamOutcome&) const = default;
};

std::string to_line(const StreamOutcome& o) {
  std::ostringstream s;
  s << o.cycles << ' ' << o.instructions << ' ' << o.exchange_bytes << ' ' << o.wait_cycles << ' ' << o.wait_ns << ' '
    << o.end_ns << ' ' << o.services;
  for (uint32_t h : o.hashes) s << ' ' << h;
  return s.str();
}

StreamOutcome from_line(const std::string& line) {
  std::istringstream s(line);
  StreamOutcome o;
  s >> o.cycles >> o.instructions >> o.exchange_bytes >> o.wait_cycles >> o.wait_ns >> o.end_ns >> o.services;
  for (uint32_t h; s >> h;) o.hashes.push_back(h);
  return o;
}

// Loads pod_stream (reader: tile 0 of IPU 8, on board 2) and runs it, serving stream 2 of
// board 2 from a callback that looks at the device when it is asked (and, `late`, keeps
// the device waiting 300 ms of host time first).
StreamOutcome run_pod_stream(ipudrv::Device& dev, bool late) {
  dev.load(elf("device_api/pod_stream.elf"));
  std::vector<uint32_t> words(16);
  for (uint32_t i = 0; i < words.size(); ++i) words[i] = 0x01020304u * (i + 1);
  const auto bytes = std::as_bytes(std::span(words));
  size_t given = 0;
  StreamOutcome out;
  bool asked = false;
  dev.connect_h2d_stream(2, 2, [&](std::span<std::byte> room) -> size_t {
    if (!asked) {
      asked = true;
      const ipudrv::RunStats at = dev.stats();
      out.wait_cycles = at.cycles;
      out.wait_ns = at.sim_time_ns;
      EXPECT_EQ(dev.state(), IPU_STATE_STREAM_WAIT);
      for (uint32_t b = 0; b < 4; ++b) {
        EXPECT_EQ(dev.read_register(b, IPU_REG_STATUS) & IPU_STATUS_STATE_MASK, IPU_STATE_STREAM_WAIT) << "board " << b;
        // Board 2's copy waits; the other boards name none (STREAM_WAIT_BYTES 0).
        EXPECT_EQ(dev.read_register(b, IPU_REG_STREAM_WAIT_BYTES), b == 2 ? 64u : 0u) << "board " << b;
      }
      EXPECT_EQ(dev.read_register(2, IPU_REG_STREAM_WAIT_ID), 2u);
      if (late) std::this_thread::sleep_for(std::chrono::milliseconds(300));
    }
    const size_t n = std::min(room.size(), bytes.size() - given);
    std::copy_n(bytes.begin() + long(given), n, room.begin());
    given += n;
    return n;
  });
  const ipudrv::RunResult r = dev.run(0, std::chrono::seconds(60));
  EXPECT_EQ(r.state, ipudrv::RunState::kHalted);
  EXPECT_TRUE(asked) << "the host was asked for the stream";
  EXPECT_EQ(given, bytes.size());
  out.cycles = r.stats.cycles;
  out.end_ns = r.stats.sim_time_ns;
  out.instructions = r.stats.instructions;
  out.exchange_bytes = r.stats.exchange_bytes;
  out.services = r.stream_services;
  for (uint32_t ipu = 0; ipu < 16; ++ipu)
    for (uint32_t t = 0; t < 4; ++t) {
      uint32_t h = 0;
      dev.read_symbol(ipu, t, "pod_hash", writable_bytes_of(h));
      out.hashes.push_back(h);
    }
  return out;
}

// Run by StreamWaitOnBoard2... in a child process with IPUSIM_THREADS=2 (the model's host
// threads are fixed per process): writes the outcome of a prompt and a late service.
TEST_F(PodDevice, StreamWaitChild) {
  const char* out = std::getenv("POD_STREAM_OUT");
  if (!out) GTEST_SKIP() << "the child of StreamWaitOnBoard2IsReportedAtOnceAndServedAnyTime";
  auto dev = ipudrv::open("config:" + kPod);
  const StreamOutcome prompt = run_pod_stream(*dev, false), late = run_pod_stream(*dev, true);
  std::ofstream(out) << to_line(prompt) << '\n' << to_line(late) << '\n';
}

TEST_P(PodDeviceApi, StreamWaitOnBoard2IsReportedAtOnceAndServedAnyTime) {
  auto dev = open(kPod);
  const StreamOutcome prompt = run_pod_stream(*dev, false);
  EXPECT_EQ(prompt.services, 1u);
  // Asked at the cycle the copy began to wait, with the other boards' 20 000 rounds of
  // compute still ahead: long before the rest of the pod would have run out of work.
  EXPECT_GT(prompt.wait_cycles, 0u);
  EXPECT_LT(prompt.wait_cycles * 20, prompt.cycles) << "asked at " << prompt.wait_cycles << " of " << prompt.cycles;
  EXPECT_LT(prompt.wait_ns * 20, prompt.end_ns) << "simulated time: asked at " << prompt.wait_ns << " ns of " << prompt.end_ns;
  // The reader mixed the host's words in: its hash differs from its neighbours' pattern.
  EXPECT_NE(prompt.hashes.at(8 * 4), 0u);
  // Served 300 ms of host time later: simulated time stood still, nothing differs.
  const StreamOutcome late = run_pod_stream(*dev, true);
  EXPECT_EQ(to_line(late), to_line(prompt));

  if (serve()) {
    // The same run in this process: the transport changes nothing the device does.
    dev.reset();
    auto local = ipudrv::open("config:" + kPod);
    EXPECT_EQ(to_line(run_pod_stream(*local, false)), to_line(prompt)) << "in process vs over the socket";
    return;  // the host threads are the in-process case's (the server runs with one)
  }

  // Two host threads (a child process: threads are fixed per process), prompt and late.
  const std::string file = temp("child.txt");
  const std::string cmd = "POD_STREAM_OUT=" + file + " IPUSIM_THREADS=2 /proc/" + std::to_string(::getpid()) +
                          "/exe --gtest_filter=PodDevice.StreamWaitChild >" + temp("child.log") + " 2>&1";
  dev.reset();
  const int status = std::system(cmd.c_str());
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << read_file(temp("child.log"));
  std::istringstream lines(read_file(file));
  std::string a, b;
  ASSERT_TRUE(std::getline(lines, a) && std::getline(lines, b)) << read_file(temp("child.log"));
  EXPECT_EQ(a, to_line(prompt)) << "2 host threads, prompt";
  EXPECT_EQ(b, to_line(prompt)) << "2 host threads, late";
  EXPECT_EQ(from_line(a), prompt);
}

// ---- a fault on board 3 ----------------------------------------------------------------

TEST_P(PodDeviceApi, FaultOnBoard3IsTheDevicesErrorNamingTheDeviceIpu) {
  auto dev = open(kPod);
  dev->load(elf("device_api/pod_fault.elf"));
  const auto e = expect_error<ipudrv::TileFaultError>([&] { dev->run(0, std::chrono::seconds(60)); }, "ipu 13 tile 1");
  ASSERT_TRUE(e);
  EXPECT_EQ(e->code, uint32_t(IPU_ERR_TILE_FAULT));
  EXPECT_EQ(e->ipu, 13u);
  EXPECT_EQ(e->tile, 1u);
  // Every board records the run's error, with the system's IPU numbers; STATE is ERROR on all.
  for (uint32_t b = 0; b < 4; ++b) {
    EXPECT_EQ(dev->read_register(b, IPU_REG_ERR_CODE), uint32_t(IPU_ERR_TILE_FAULT)) << "board " << b;
    EXPECT_EQ(dev->read_register(b, IPU_REG_ERR_IPU), 13u) << "board " << b;
    EXPECT_EQ(dev->read_register(b, IPU_REG_STATUS) & IPU_STATUS_STATE_MASK, IPU_STATE_ERROR) << "board " << b;
  }
  EXPECT_EQ(dev->error_registers().ipu, 13u);
  // The fault stopped the run at its cycle: the other tiles had 100x the work to do.
  EXPECT_LT(dev->stats().cycles, 20000u);
  dev->reset();
  EXPECT_EQ(dev->state(), IPU_STATE_IDLE);
  EXPECT_EQ(dev->read_register(3, IPU_REG_ERR_CODE), uint32_t(IPU_ERR_NONE)) << "a RESET of the device clears every board";
}

// CTRL.ABORT written to any one board ends the pod's one run on every board: each
// board's STATUS is ERROR with ERR_STATE, whichever board took the write.
TEST_P(PodDeviceApi, AbortWrittenToEachBoardIsSeenByEveryBoard) {
  auto dev = open(kPod);
  for (uint32_t aborted = 0; aborted < 4; ++aborted) {
    SCOPED_TRACE("CTRL.ABORT on board " + std::to_string(aborted));
    dev->load(elf("device_api/endless_sync.elf"));
    auto run = dev->run_async();
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    while (dev->stats().supersteps < 3 && std::chrono::steady_clock::now() < deadline)
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    ASSERT_GE(dev->stats().supersteps, 3u) << "the run never got going";
    dev->write_register(aborted, IPU_REG_CTRL, IPU_CTRL_ABORT_MASK);
    ASSERT_EQ(run.wait_for(std::chrono::seconds(30)), std::future_status::ready) << "the abort did not end the run";
    expect_error<ipudrv::DeviceStateError>([&] { run.get(); }, "abort");
    for (uint32_t b = 0; b < 4; ++b) {
      EXPECT_EQ(dev->read_register(b, IPU_REG_STATUS) & IPU_STATUS_STATE_MASK, IPU_STATE_ERROR) << "board " << b;
      EXPECT_EQ(dev->read_register(b, IPU_REG_ERR_CODE), uint32_t(IPU_ERR_STATE)) << "board " << b;
    }
    dev->reset();
  }
}

}  // namespace
}  // namespace devapi
