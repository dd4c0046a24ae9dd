// The C API (ipudrv.h) over the in-process fake board: handles, status codes, the last
// error message and the device's error registers.
#include "ipudrv/ipudrv.h"

#include <ipu/hostif_regs.h>

#include <cstring>
#include <fstream>
#include <string>

#include "c_records.h"

#include "driver_backend.h"
#include "test_elf.h"

extern "C" size_t ipudrv_abi_pinned_bytes(void);  // c_abi_layout.c

namespace drvtest {
namespace {

using fakedev::Step;

class CApi : public DriverTest {
 protected:
  std::string write_elf() {
    testelf::Image img;
    img.code = {0x00000013, 0x0000006f};
    img.data = {9, 8, 7, 6};
    img.data_addr = 0x48000;
    img.symbols = {{"buf", 0x48000}};
    img.symbol_sizes = {{"buf", 4}};
    const auto bytes = testelf::build(img);
    const std::string path = ::testing::TempDir() + "capi-" + std::to_string(::getpid()) + ".elf";
    std::ofstream(path, std::ios::binary).write(reinterpret_cast<const char*>(bytes.data()), long(bytes.size()));
    return path;
  }
};

TEST_P(CApi, LoadSymbolsSmemRunAndErrors) {
  size_t n = 0;
  ASSERT_EQ(ipudrv_count_devices(locator().c_str(), &n), IPUDRV_OK) << ipudrv_last_error();
  EXPECT_EQ(n, 1u);
  ipudrv_device* dev = nullptr;
  ASSERT_EQ(ipudrv_open(locator().c_str(), 0, &dev), IPUDRV_OK) << ipudrv_last_error();
  ipudrv_info info;
  ASSERT_EQ(ipudrv_get_info(dev, &info), IPUDRV_OK);
  EXPECT_EQ(info.tiles_per_ipu, 4u);

  const std::string elf = write_elf();
  ASSERT_EQ(ipudrv_load(dev, elf.c_str()), IPUDRV_OK) << ipudrv_last_error();
  const uint32_t word = 0xCAFEF00D;
  ASSERT_EQ(ipudrv_write_symbol(dev, 1, 2, "buf", &word, 4), IPUDRV_OK) << ipudrv_last_error();
  uint32_t back = 0;
  ASSERT_EQ(ipudrv_read_symbol(dev, 1, 2, "buf", &back, 4), IPUDRV_OK);
  EXPECT_EQ(back, word);
  EXPECT_EQ(ipudrv_read_symbol(dev, 1, 2, "nope", &back, 4), IPUDRV_E_USAGE);
  EXPECT_NE(std::string(ipudrv_last_error()).find("nope"), std::string::npos);
  // More bytes than the symbol's size (st_size 4) is a usage error, and nothing is written.
  const uint32_t two[2] = {1, 2};
  EXPECT_EQ(ipudrv_write_symbol(dev, 1, 2, "buf", two, sizeof two), IPUDRV_E_USAGE);
  EXPECT_STREQ(ipudrv_last_error(), "write_symbol: 'buf' is 4 bytes (ipu 1 tile 2), 8 given");
  uint32_t wide[2] = {};
  EXPECT_EQ(ipudrv_read_symbol(dev, 1, 2, "buf", wide, sizeof wide), IPUDRV_E_USAGE);
  EXPECT_STREQ(ipudrv_last_error(), "read_symbol: 'buf' is 4 bytes (ipu 1 tile 2), 8 given");
  ASSERT_EQ(ipudrv_read_symbol(dev, 1, 2, "buf", &back, 4), IPUDRV_OK);
  EXPECT_EQ(back, word);

  uint64_t off = 99;
  ASSERT_EQ(ipudrv_smem_alloc(dev, 128, 64, &off), IPUDRV_OK);
  const char msg[] = "streaming memory";
  ASSERT_EQ(ipudrv_smem_write(dev, off, msg, sizeof msg), IPUDRV_OK);
  char got[sizeof msg] = {};
  ASSERT_EQ(ipudrv_smem_read(dev, off, got, sizeof got), IPUDRV_OK);
  EXPECT_STREQ(got, msg);

  Step fault{Step::Kind::kError};
  fault.code = IPU_ERR_TILE_FAULT, fault.ipu = 0, fault.tile = 1, fault.thread = 0, fault.pc = 0x40004;
  fault.text = "misaligned load";
  fake().script({Step{Step::Kind::kPause}, fault});
  ipudrv_run_result r;
  EXPECT_EQ(ipudrv_run(dev, 0, 10000, &r), IPUDRV_E_TILE_FAULT);
  ipudrv_device_error e;
  ASSERT_EQ(ipudrv_last_device_error(&e), IPUDRV_OK);
  EXPECT_EQ(e.code, IPU_ERR_TILE_FAULT);
  EXPECT_EQ(e.tile, 1u);
  EXPECT_EQ(e.pc, 0x40004u);
  EXPECT_STREQ(e.text, "misaligned load");
  EXPECT_STREQ(ipudrv_status_name(IPUDRV_E_TILE_FAULT), "TILE_FAULT");

  ASSERT_EQ(ipudrv_reset(dev), IPUDRV_OK);
  ASSERT_EQ(ipudrv_load(dev, elf.c_str()), IPUDRV_OK);
  fake().script({Step{Step::Kind::kHalt, 5}});
  ASSERT_EQ(ipudrv_run(dev, 0, 0, &r), IPUDRV_OK) << ipudrv_last_error();
  EXPECT_EQ(r.halted, 1);
  EXPECT_EQ(r.exit_code, 5);
  ipudrv_close(dev);
}

// ipudrv_run_with: RunOptions from C; a budget the device reports is IPUDRV_E_BUDGET.
TEST_P(CApi, RunWithOptionsAndBudgetErrors) {
  ipudrv_device* dev = nullptr;
  ASSERT_EQ(ipudrv_open(locator().c_str(), 0, &dev), IPUDRV_OK) << ipudrv_last_error();
  const std::string elf = write_elf();
  ASSERT_EQ(ipudrv_load(dev, elf.c_str()), IPUDRV_OK) << ipudrv_last_error();
  ipudrv_run_result r;
  EXPECT_EQ(ipudrv_run_with(dev, nullptr, &r), IPUDRV_E_USAGE);
  Step budget{Step::Kind::kError};
  budget.code = IPU_ERR_BUDGET, budget.ipu = 0, budget.tile = 3, budget.thread = 0, budget.pc = 0x40024;
  budget.text = "the run used up its budget of 1000 cycles";
  fake().script({budget});
  const ipudrv_run_options o{.supersteps = 0, .timeout_ms = 10000, .max_cycles = 1000, .max_instructions = 0};
  EXPECT_EQ(ipudrv_run_with(dev, &o, &r), IPUDRV_E_BUDGET);
  EXPECT_STREQ(ipudrv_status_name(IPUDRV_E_BUDGET), "BUDGET");
  ipudrv_device_error e;
  ASSERT_EQ(ipudrv_last_device_error(&e), IPUDRV_OK);
  EXPECT_EQ(e.code, IPU_ERR_BUDGET);
  EXPECT_EQ(e.tile, 3u);
  EXPECT_EQ(e.pc, 0x40024u);
  ASSERT_EQ(ipudrv_reset(dev), IPUDRV_OK);
  ASSERT_EQ(ipudrv_load(dev, elf.c_str()), IPUDRV_OK);
  fake().script({Step{Step::Kind::kHalt, 7}});
  ASSERT_EQ(ipudrv_run_with(dev, &o, &r), IPUDRV_OK) << ipudrv_last_error();
  EXPECT_EQ(r.halted, 1);
  EXPECT_EQ(r.exit_code, 7);
  ipudrv_close(dev);
}

// A model that stopped the run (ERR_MODEL: an RTL block's failed check) is
// IPUDRV_E_MODEL, with the problem record; the C++ driver throws ModelError.
TEST_P(CApi, AModelErrorIsIpudrvEModel) {
  ipudrv_device* dev = nullptr;
  ASSERT_EQ(ipudrv_open(locator().c_str(), 0, &dev), IPUDRV_OK) << ipudrv_last_error();
  const std::string elf = write_elf();
  ASSERT_EQ(ipudrv_load(dev, elf.c_str()), IPUDRV_OK) << ipudrv_last_error();
  Step model{Step::Kind::kError};
  model.code = IPU_ERR_MODEL;
  model.text = "RTL assertion a_arrive_once failed in sync ipu0.sync (sync_ctrl) at cycle 2: twice";
  fake().script({model});
  ipudrv_run_result r;
  EXPECT_EQ(ipudrv_run(dev, 0, 10000, &r), IPUDRV_E_MODEL);
  EXPECT_STREQ(ipudrv_status_name(IPUDRV_E_MODEL), "MODEL");
  EXPECT_NE(std::string(ipudrv_last_error()).find("RTL assertion a_arrive_once"), std::string::npos)
      << ipudrv_last_error();
  ipudrv_device_error e;
  ASSERT_EQ(ipudrv_last_device_error(&e), IPUDRV_OK);
  EXPECT_EQ(e.code, IPU_ERR_MODEL);
  EXPECT_STREQ(e.text, model.text.c_str());
  ipudrv_close(dev);
}

TEST_P(CApi, NullsAndBadFilesAreReportedNotCrashed) {
  EXPECT_EQ(ipudrv_get_info(nullptr, nullptr), IPUDRV_E_USAGE);
  EXPECT_EQ(ipudrv_open(nullptr, 0, nullptr), IPUDRV_E_USAGE);
  ipudrv_device* dev = nullptr;
  EXPECT_EQ(ipudrv_open(locator().c_str(), 3, &dev), IPUDRV_E_USAGE);
  EXPECT_EQ(dev, nullptr);
  ASSERT_EQ(ipudrv_open(locator().c_str(), 0, &dev), IPUDRV_OK);
  EXPECT_EQ(ipudrv_load(dev, "/nonexistent.elf"), IPUDRV_E_PROGRAM);
  EXPECT_NE(std::string(ipudrv_last_error()).find("/nonexistent.elf"), std::string::npos) << ipudrv_last_error();
  ipudrv_device_error e;
  EXPECT_EQ(ipudrv_last_device_error(&e), IPUDRV_E_USAGE) << "a host-side error has no device registers";
  EXPECT_EQ(ipudrv_write_tile(dev, 0, 0, 0x40000, nullptr, 4), IPUDRV_E_USAGE);
  // The fake board has no IPU-Links: a fault spec is refused, naming the call; no figures.
  EXPECT_EQ(ipudrv_set_link_faults(dev, nullptr), IPUDRV_E_USAGE);
  EXPECT_EQ(ipudrv_set_link_faults(dev, "ber=1e-6"), IPUDRV_E_USAGE);
  EXPECT_NE(std::string(ipudrv_last_error()).find("set_link_faults"), std::string::npos) << ipudrv_last_error();
  size_t links = 99;
  EXPECT_EQ(ipudrv_link_stats(dev, nullptr, 0, &links), IPUDRV_OK) << ipudrv_last_error();
  EXPECT_EQ(links, 0u);
  EXPECT_EQ(ipudrv_link_stats(dev, nullptr, 0, nullptr), IPUDRV_E_USAGE);
  ipudrv_close(dev);
  ipudrv_close(nullptr);
}

// Tile memory, smem_free, raw registers and the stream calls' arguments on the fake board
// (devapi_c_api_test has them on the model, with runs).
TEST_P(CApi, TileMemorySmemFreeRegistersAndStreamArguments) {
  ipudrv_device* dev = nullptr;
  ASSERT_EQ(ipudrv_open(locator().c_str(), 0, &dev), IPUDRV_OK) << ipudrv_last_error();
  const uint32_t words[3] = {0x11111111, 0x22222222, 0x33333333};
  ASSERT_EQ(ipudrv_write_tile(dev, 1, 3, 0x44000, words, sizeof words), IPUDRV_OK) << ipudrv_last_error();
  uint32_t back[3] = {};
  ASSERT_EQ(ipudrv_read_tile(dev, 1, 3, 0x44000, back, sizeof back), IPUDRV_OK) << ipudrv_last_error();
  EXPECT_EQ(back[0], words[0]);
  EXPECT_EQ(back[2], words[2]);
  EXPECT_EQ(ipudrv_read_tile(dev, 1, 9, 0x44000, back, sizeof back), IPUDRV_E_USAGE);
  EXPECT_STREQ(ipudrv_last_error(), "tiles 9..9 of ipu 1: each IPU has 4 tiles");

  uint64_t off = 0;
  ASSERT_EQ(ipudrv_smem_alloc(dev, 256, 64, &off), IPUDRV_OK) << ipudrv_last_error();
  EXPECT_EQ(ipudrv_smem_free(dev, off, 128), IPUDRV_E_USAGE) << "not the length allocated";
  ASSERT_EQ(ipudrv_smem_free(dev, off, 256), IPUDRV_OK) << ipudrv_last_error();
  EXPECT_EQ(ipudrv_smem_free(dev, off, 256), IPUDRV_E_USAGE) << "freed twice";
  EXPECT_EQ(std::string(ipudrv_last_error()), "free_smem: [" + std::to_string(off) + ", +256) is not an allocation");

  uint32_t id = 0;
  ASSERT_EQ(ipudrv_read_register(dev, IPU_REG_ID, &id), IPUDRV_OK) << ipudrv_last_error();
  EXPECT_EQ(id, IPU_ID_MAGIC);
  EXPECT_EQ(ipudrv_read_register(dev, IPU_REG_ID, nullptr), IPUDRV_E_USAGE);

  const char data[8] = {};
  char sink[8];
  EXPECT_EQ(ipudrv_stream_h2d_buffer(dev, 3, data, sizeof data), IPUDRV_OK) << ipudrv_last_error();
  EXPECT_EQ(ipudrv_stream_d2h_buffer(dev, 3, sink, sizeof sink), IPUDRV_OK) << ipudrv_last_error();
  EXPECT_EQ(ipudrv_stream_disconnect(dev, 3), IPUDRV_OK) << ipudrv_last_error();
  EXPECT_EQ(ipudrv_stream_h2d_buffer(dev, 64, data, sizeof data), IPUDRV_E_USAGE);
  EXPECT_EQ(ipudrv_stream_h2d_callback(dev, 3, nullptr, nullptr), IPUDRV_E_USAGE);
  EXPECT_EQ(ipudrv_stream_d2h_callback(dev, 3, nullptr, nullptr), IPUDRV_E_USAGE);
  EXPECT_EQ(ipudrv_stream_disconnect(dev, 64), IPUDRV_E_USAGE);
  EXPECT_EQ(ipudrv_abort(nullptr), IPUDRV_E_USAGE);
  ipudrv_close(dev);
}

// c_abi_layout.c pins the generated structs' layout at compile time (a change does not
// build); this links it into the test.
TEST(CAbi, GeneratedStructsKeepTheirLayout) { EXPECT_EQ(ipudrv_abi_pinned_bytes(), 416u + 48u); }

// The generated C copy of the problem record: texts cut to their arrays, NUL-terminated;
// the first 8 absent tiles as parallel arrays; kNone kept; the located fields left out.
TEST(CAbi, TheProblemRecordIsCutToItsArrays) {
  ipudrv::DeviceErrorInfo e;
  e.code = IPU_ERR_DEADLOCK, e.tile = 5, e.addr = 0x1234567890ull, e.count = 2;
  e.text = std::string(300, 'x'), e.kind = std::string(40, 'k'), e.function = "f", e.source = "f.c:1";
  e.waiting = 3, e.absent_count = 10;
  for (uint32_t i = 0; i < 10; ++i) e.absent.push_back({i, 100 + i});
  const ipudrv_device_error c = ipudrv::detail::to_c(e);
  EXPECT_EQ(c.code, uint32_t(IPU_ERR_DEADLOCK));
  EXPECT_EQ(c.ipu, ipudrv::DeviceErrorInfo::kNone);
  EXPECT_EQ(c.tile, 5u);
  EXPECT_EQ(c.superstep, 0xFFFFFFFFu);
  EXPECT_EQ(c.addr, 0x1234567890ull);
  EXPECT_EQ(c.count, 2u);
  EXPECT_EQ(std::strlen(c.text), sizeof c.text - 1);
  EXPECT_EQ(std::strlen(c.kind), sizeof c.kind - 1);
  EXPECT_EQ(std::string(c.kind), std::string(31, 'k'));
  EXPECT_EQ(c.waiting, 3u);
  EXPECT_EQ(c.absent_count, 10u);
  for (uint32_t i = 0; i < 8; ++i) {
    EXPECT_EQ(c.absent_ipu[i], i);
    EXPECT_EQ(c.absent_tile[i], 100 + i);
  }
  e.absent.resize(1), e.text = "short";
  const ipudrv_device_error d = ipudrv::detail::to_c(e);
  EXPECT_STREQ(d.text, "short");
  EXPECT_EQ(d.absent_tile[0], 100u);
  EXPECT_EQ(d.absent_tile[1], 0u);
}

TEST(CAbi, RunResultIsHaltedExitCodeAndFigures) {
  ipudrv::RunResult r;
  r.state = ipudrv::RunState::kPaused, r.exit_code = -3, r.stream_services = 4;
  r.stats = {.cycles = 10, .instructions = 20, .exchange_bytes = 30, .sim_time_ns = 40, .supersteps = 5, .booted_tiles = 6};
  const ipudrv_run_result c = ipudrv::detail::to_c(r);
  EXPECT_EQ(c.halted, 0);
  EXPECT_EQ(c.exit_code, -3);
  EXPECT_EQ(c.cycles, 10u);
  EXPECT_EQ(c.instructions, 20u);
  EXPECT_EQ(c.exchange_bytes, 30u);
  EXPECT_EQ(c.sim_time_ns, 40u);
  EXPECT_EQ(c.supersteps, 5u);
  EXPECT_EQ(c.stream_services, 4u);
  r.state = ipudrv::RunState::kHalted;
  EXPECT_EQ(ipudrv::detail::to_c(r).halted, 1);
}

INSTANTIATE_TEST_SUITE_P(Transports, CApi, ::testing::Values(Backend::kInProcess, Backend::kSocket), backend_name);

}  // namespace
}  // namespace drvtest
