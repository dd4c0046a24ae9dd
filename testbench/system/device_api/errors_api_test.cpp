// Every error of docs/host_driver.md "Errors" through the public API, on the device model
// and both transports: the exception class, the device's error registers where the device
// reported it (code, kind, ipu, tile, thread, pc, peer, superstep, deadlock lists, text),
// and that reset() (or the next load) gives a board that runs a kernel normally again.
#include <ipu/hostif_regs.h>

#include <chrono>
#include <cstring>
#include <thread>

#include "device_fixture.h"
#include "ipudrv/ipudrv.h"
#include "test_elf.h"

namespace devapi {
namespace {

using namespace std::chrono_literals;
constexpr uint32_t kNone = ipudrv::DeviceErrorInfo::kNone;

// A program that syncs forever. (A tile looping without ever syncing: abort_api_test.cpp.)
ipudrv::Elf endless_loop() { return elf("device_api/endless_sync.elf"); }
// A tiny valid program for load-range checks.
ipudrv::Elf tiny_program() {
  testelf::Image img;
  img.code = {0x00000013, 0x0000006f};
  return ipudrv::Elf::from_bytes(testelf::build(img), "tiny.elf");
}

class Errors : public DeviceApiTest {
 protected:
  // The board works after an error: reset, load a kernel, run it to a clean halt.
  void expect_board_works(ipudrv::Device& dev, bool with_reset = true) {
    if (with_reset) dev.reset();
    expect_device_runs_a_kernel(dev);
  }
};

// Each fault program stops at `fault_site` (a fetch fault at `fault_target`), on tile 2 only.
TEST_P(Errors, TileFaultsNameTileThreadAndPc) {
  auto dev = open("configs/test/tiny4.yaml");
  struct Case {
    const char* name;
    bool worker, at_target;
  };
  for (const Case c : {Case{"fault_illegal", false, false}, Case{"fault_csr_write", false, false},
                       Case{"fault_worker_halt", true, false}, Case{"fault_misaligned", false, false},
                       Case{"fault_null", false, false}, Case{"fault_out_of_sram", false, false},
                       Case{"fault_store_code", false, false}, Case{"fault_jump_outside", false, true},
                       Case{"fault_worker_start", true, false}, Case{"fault_ecall", false, false}}) {
    SCOPED_TRACE(c.name);
    const ipudrv::Elf e = elf(std::string("faults/") + c.name + ".elf");
    const uint32_t pc = e.symbol(c.at_target ? "fault_target" : "fault_site").value();
    dev->reset();
    dev->load({{ipudrv::TileRange{0, 2, 1}, e}});
    const auto info = expect_error<ipudrv::TileFaultError>([&] { dev->run(0, 30s); }, "TILE_FAULT");
    ASSERT_TRUE(info);
    EXPECT_EQ(info->code, uint32_t(IPU_ERR_TILE_FAULT));
    EXPECT_EQ(info->ipu, 0u);
    EXPECT_EQ(info->tile, 2u);
    if (c.at_target) {  // a fetch fault is reported at the jump or at its target
      const uint32_t site = e.symbol("fault_site").value();
      EXPECT_TRUE(info->pc == pc || info->pc == site) << std::hex << info->pc << " vs " << pc << " / " << site;
    } else {
      EXPECT_EQ(info->pc, pc) << std::hex << info->pc << " vs " << pc;
      // The driver locates the pc in the ELF it loaded (the device boots an image).
      EXPECT_FALSE(info->function.empty());
      EXPECT_NE(info->function, "fault_site");
      EXPECT_EQ(info->source.rfind(std::string("faults/") + c.name + ".c:", 0), 0u) << info->source;
      EXPECT_NE(ipudrv::describe(*info).find(" in " + info->function + " (" + info->source + ")"), std::string::npos)
          << ipudrv::describe(*info);
    }
    if (c.worker) {
      EXPECT_GE(info->thread, 1u);
      EXPECT_LE(info->thread, 6u);
    } else {
      EXPECT_EQ(info->thread, 0u);
    }
    EXPECT_GT(info->cycle, 0u);
    EXPECT_FALSE(info->kind.empty());
    EXPECT_EQ(info->superstep, 0u);
    EXPECT_EQ(info->peer_tile, kNone);
    EXPECT_NE(info->text.find("tile 2"), std::string::npos) << info->text;
    EXPECT_EQ(dev->state(), uint32_t(IPU_STATE_ERROR));
    EXPECT_EQ(dev->error_registers().code, uint32_t(IPU_ERR_TILE_FAULT)) << "the registers keep the error";
  }
  expect_board_works(*dev);
}

// Both tiles of the broken pair: the one named first, and its peer.
TEST_P(Errors, ExchangeErrorsNameBothTiles) {
  auto dev = open("configs/test/tiny4.yaml");
  struct Case {
    const char* name;
    const char* kind;
    uint32_t tile, peer;
  };
  for (const Case c : {Case{"xerr_no_recv", "send without receive", 0, 1},
                       Case{"xerr_no_send", "receive without send", 1, 0},
                       Case{"xerr_length", "length mismatch", 0, 1},
                       Case{"xerr_short", "length mismatch", 0, 1}}) {
    SCOPED_TRACE(c.name);
    dev->load(elf(std::string("system/") + c.name + ".elf"));
    const auto info = expect_error<ipudrv::ExchangeError>([&] { dev->run(0, 30s); }, "EXCHANGE");
    ASSERT_TRUE(info);
    EXPECT_EQ(info->code, uint32_t(IPU_ERR_EXCHANGE));
    EXPECT_EQ(info->kind, c.kind);
    EXPECT_EQ(info->ipu, 0u);
    EXPECT_EQ(info->tile, c.tile);
    EXPECT_NE(info->pc, kNone);
    EXPECT_EQ(info->peer_ipu, 0u);
    EXPECT_EQ(info->peer_tile, c.peer);
    EXPECT_EQ(info->superstep, 1u);
    EXPECT_GT(info->cycle, 0u);
    EXPECT_NE(info->text.find("tile"), std::string::npos) << info->text;
    EXPECT_TRUE(info->text.ends_with(", in superstep 1")) << info->text;
  }
  // A receive buffer outside SRAM is the receiving tile's access fault, not the exchange's.
  dev->load(elf("system/xerr_outside.elf"));
  const auto info = expect_error<ipudrv::TileFaultError>([&] { dev->run(0, 30s); }, "outside SRAM");
  ASSERT_TRUE(info);
  EXPECT_EQ(info->code, uint32_t(IPU_ERR_TILE_FAULT));
  EXPECT_EQ(info->tile, 1u);
  expect_board_works(*dev);
}

TEST_P(Errors, DeadlockNamesTheTileThatNeverArrived) {
  auto dev = open("configs/test/tiny4.yaml");
  dev->load(elf("system/halt_early.elf"));
  const auto info = expect_error<ipudrv::DeadlockError>([&] { dev->run(0, 30s); }, "DEADLOCK");
  ASSERT_TRUE(info);
  EXPECT_EQ(info->code, uint32_t(IPU_ERR_DEADLOCK));
  EXPECT_EQ(info->kind, "sync");
  EXPECT_EQ(info->ipu, 0u);
  EXPECT_EQ(info->tile, 1u) << "the tile that halted early, not a waiting one";
  EXPECT_EQ(info->waiting, 3u);
  EXPECT_EQ(info->absent_count, 1u);
  ASSERT_EQ(info->absent.size(), 1u);
  EXPECT_EQ(info->absent[0].ipu, 0u);
  EXPECT_EQ(info->absent[0].tile, 1u);
  EXPECT_GT(info->cycle, 0u);
  // The text is whole: it ends with the last tile named, not mid-sentence.
  EXPECT_NE(info->text.find("1 tile(s) never arrive: ipu 0 tile 1 (halted at cycle "), std::string::npos) << info->text;
  EXPECT_EQ(info->text.back(), ')') << info->text;
  expect_board_works(*dev);
}

// 15 tiles waiting: the full text is longer than ERR_TEXT, so the device summarises the
// list ("..., and N more") and keeps the tile that never arrived; nothing is cut.
TEST_P(Errors, LongDeadlockTextIsSummarisedNotCut) {
  auto dev = open("configs/test/tiny16.yaml");
  dev->load(elf("system/halt_early.elf"));
  const auto info = expect_error<ipudrv::DeadlockError>([&] { dev->run(0, 30s); }, "DEADLOCK");
  ASSERT_TRUE(info);
  EXPECT_EQ(info->tile, 1u);
  EXPECT_EQ(info->waiting, 15u);
  ASSERT_FALSE(info->text.empty());
  EXPECT_LT(info->text.size(), size_t(IPU_ERR_TEXT_BYTES));
  EXPECT_EQ(info->text.rfind("sync deadlock: 15 tile(s) wait at a sync that can never complete", 0), 0u) << info->text;
  EXPECT_NE(info->text.find("more"), std::string::npos) << info->text;
  EXPECT_NE(info->text.find("1 tile(s) never arrive: ipu 0 tile 1 (halted at cycle "), std::string::npos) << info->text;
  EXPECT_EQ(info->text.back(), ')') << info->text;
  expect_board_works(*dev);
}

// A run that does not finish in time: TimeoutError, the run goes on; abort() ends it
// (DeviceStateError on the device), reset() makes the board usable again.
TEST_P(Errors, TimeoutThenAbortThenReuse) {
  auto dev = open("configs/test/tiny4.yaml");
  dev->load(endless_loop());
  const auto t0 = std::chrono::steady_clock::now();
  expect_error<ipudrv::TimeoutError>([&] { dev->run(0, 200ms); });
  EXPECT_GE(std::chrono::steady_clock::now() - t0, 200ms);
  EXPECT_EQ(dev->state(), uint32_t(IPU_STATE_RUNNING)) << "the run goes on after a timeout";
  const auto before = dev->stats();
  EXPECT_GT(before.supersteps, 0u);
  std::this_thread::sleep_for(100ms);
  EXPECT_GT(dev->stats().supersteps, before.supersteps) << "the statistics follow the run";
  dev->abort();
  // The command takes effect when the model next can (the next batch).
  for (int i = 0; i < 2000 && dev->state() != IPU_STATE_ERROR; ++i) std::this_thread::sleep_for(1ms);
  EXPECT_EQ(dev->state(), uint32_t(IPU_STATE_ERROR));
  const auto info = dev->error_registers();
  EXPECT_EQ(info.code, uint32_t(IPU_ERR_STATE));
  EXPECT_NE(info.text.find("abort"), std::string::npos) << info.text;
  expect_board_works(*dev);
}

TEST_P(Errors, AbortEndsAnAsyncRunWithDeviceStateError) {
  auto dev = open("configs/test/tiny4.yaml");
  dev->load(endless_loop());
  auto f = dev->run_async();
  EXPECT_EQ(f.wait_for(100ms), std::future_status::timeout);
  expect_error<ipudrv::UsageError>([&] { dev->load(endless_loop()); }, "busy");
  dev->abort();
  ASSERT_EQ(f.wait_for(10s), std::future_status::ready);
  const auto info = expect_error<ipudrv::DeviceStateError>([&] { f.get(); });
  ASSERT_TRUE(info);
  EXPECT_EQ(info->code, uint32_t(IPU_ERR_STATE));
  // The next load resets the board by itself.
  expect_board_works(*dev, false);
}

TEST_P(Errors, ProgramErrorsNameTheFile) {
  auto dev = open("configs/test/tiny4.yaml");
  expect_error<ipudrv::ProgramError>([] { ipudrv::Elf::from_file("configs/test/tiny4.yaml"); }, "tiny4.yaml");
  expect_error<ipudrv::ProgramError>([] { ipudrv::Elf::from_file("no/such/file.elf"); }, "no/such/file.elf");
  expect_error<ipudrv::ProgramError>([] { ipudrv::Elf::from_bytes({0x7f, 'E', 'L', 'F', 1, 1}, "short.elf"); },
                                     "short.elf");
  // An image beyond tile SRAM (624 KiB from 0x40000): refused before anything is sent.
  testelf::Image big;
  big.code = {0x00000013, 0x0000006f};
  big.data = {1, 2, 3, 4};
  big.bss_bytes = 700 * 1024;
  const auto too_big = ipudrv::Elf::from_bytes(testelf::build(big), "too_big.elf");
  expect_error<ipudrv::ProgramError>([&] { dev->load(too_big); }, "too_big.elf");
  EXPECT_EQ(dev->stats().booted_tiles, 0u);
  expect_board_works(*dev);
}

// Tile ranges the board does not have, overlapping ranges and an entry outside the code
// are refused by the driver before the device sees them; BOOT_* the device refuses
// (raw registers) are its ERR_BOOT.
TEST_P(Errors, BadLoadRangesAndBadBoots) {
  auto dev = open("configs/test/tiny4.yaml");
  const ipudrv::Elf e = tiny_program();
  expect_error<ipudrv::UsageError>([&] { dev->load({{ipudrv::TileRange{0, 3, 2}, e}}); }, "tile");
  expect_error<ipudrv::UsageError>([&] { dev->load({{ipudrv::TileRange{1, 0, 1}, e}}); }, "ipu");
  expect_error<ipudrv::UsageError>([&] { dev->load({{ipudrv::TileRange{0, 0, 0}, e}}); });
  expect_error<ipudrv::UsageError>(
      [&] { dev->load({{ipudrv::TileRange{0, 0, 2}, e}, {ipudrv::TileRange{0, 1, 2}, e}}); }, "overlap");
  testelf::Image bad_entry;
  bad_entry.code = {0x00000013, 0x0000006f};
  bad_entry.entry = 0x40100;  // beyond the 8 code bytes
  expect_error<ipudrv::ProgramError>(
      [&] { ipudrv::Elf::from_bytes(testelf::build(bad_entry), "bad_entry.elf"); }, "bad_entry.elf: entry point");
  // The device's own boot checks: BOOT_IPU beyond the board.
  dev->reset();
  dev->write_register(IPU_REG_BOOT_IPU, 1);
  dev->write_register(IPU_REG_BOOT_TILE_FIRST, 0);
  dev->write_register(IPU_REG_BOOT_TILE_COUNT, 1);
  dev->write_register(IPU_REG_BOOT_ENTRY, 0x40000);
  dev->write_register(IPU_REG_BOOT_CODE_BASE, 0x40000);
  dev->write_register(IPU_REG_BOOT_CODE_SIZE, 64);
  dev->write_register(IPU_REG_BOOT_CMD, 1);
  ipudrv::DeviceErrorInfo info;
  for (int i = 0; i < 1000 && (info = dev->error_registers()).code == 0; ++i) std::this_thread::sleep_for(1ms);
  EXPECT_EQ(info.code, uint32_t(IPU_ERR_BOOT));
  EXPECT_NE(info.text.find("BOOT_IPU"), std::string::npos) << info.text;
  EXPECT_EQ(dev->stats().booted_tiles, 0u);
  expect_board_works(*dev);
}

TEST_P(Errors, UsageErrors) {
  expect_error<ipudrv::UsageError>([] { ipudrv::open("bogus:thing"); }, "bogus:thing");
  expect_error<ipudrv::UsageError>([&] { ipudrv::open(start("configs/test/tiny4.yaml"), 5); }, "5");
  auto dev = ipudrv::open(locator());
  expect_error<ipudrv::UsageError>([&] { dev->run(); }, "");  // nothing loaded
  dev->load(elf("allreduce.elf"));
  std::array<std::byte, 32> buf{};
  expect_error<ipudrv::UsageError>([&] { dev->read_tile(0, 4, 0x40000, buf); }, "tiles 4");
  expect_error<ipudrv::UsageError>([&] { dev->read_tile(1, 0, 0x40000, buf); }, "ipu 1");
  expect_error<ipudrv::UsageError>([&] { dev->read_symbol(0, 0, "no_such_symbol", buf); }, "no_such_symbol");
  expect_error<ipudrv::UsageError>([&] { dev->write_symbol(0, 0, "no_such_symbol", buf); }, "no_such_symbol");
  expect_error<ipudrv::UsageError>([&] { (void)dev->symbol_address(0, 7, "kc_result"); }, "7");
  expect_error<ipudrv::UsageError>([&] { dev->connect_h2d_stream(999, std::span<const std::byte>(buf)); }, "999");
  expect_board_works(*dev);
}

// DMA the device refuses: into the code of a booted tile, outside tile SRAM. The channel
// recovers, the next transfer works.
TEST_P(Errors, DmaErrorsAreTypedAndTheChannelRecovers) {
  auto dev = open("configs/test/tiny4.yaml");
  const ipudrv::Elf e = elf("allreduce.elf");
  dev->load(e);
  const std::array<std::byte, 8> zeros{};
  auto info = expect_error<ipudrv::DmaError>([&] { dev->write_tile(0, 1, e.code_base(), zeros); }, "DMA_TILE");
  ASSERT_TRUE(info);
  EXPECT_EQ(info->code, uint32_t(IPU_ERR_DMA_TILE));
  EXPECT_EQ(info->tile, 1u);
  EXPECT_EQ(info->ipu, 0u);
  EXPECT_NE(info->text.find("read-only"), std::string::npos) << info->text;
  std::array<std::byte, 8> out{};
  info = expect_error<ipudrv::DmaError>([&] { dev->read_tile(0, 2, 0x40000 + 624 * 1024 - 4, out); }, "DMA_TILE");
  ASSERT_TRUE(info);
  EXPECT_EQ(info->code, uint32_t(IPU_ERR_DMA_TILE));
  EXPECT_EQ(info->tile, 2u);
  // ERR_* still hold the first error: the message names this descriptor's own code by
  // name (it said only "this descriptor's error code is 9", issue 37).
  EXPECT_NE(info->text.find("this descriptor failed with DMA_TILE (9); the error registers (ERR_*) hold an earlier "
                            "error, not this one"),
            std::string::npos)
      << info->text;
  // Reading code back is fine: the program's bytes.
  dev->read_tile(0, 1, e.code_base(), out);
  EXPECT_EQ(std::memcmp(out.data(), e.segments()[0].bytes.data(), out.size()), 0);
  expect_board_works(*dev);
}

TEST_P(Errors, CApiReportsCodeMessageAndRegisters) {
  const std::string loc = start("configs/test/tiny4.yaml");
  ipudrv_device* dev = nullptr;
  EXPECT_EQ(ipudrv_open("bogus:thing", 0, &dev), IPUDRV_E_USAGE);
  EXPECT_NE(std::string(ipudrv_last_error()).find("bogus:thing"), std::string::npos) << ipudrv_last_error();
  ASSERT_EQ(ipudrv_open(loc.c_str(), 0, &dev), IPUDRV_OK) << ipudrv_last_error();
  EXPECT_EQ(ipudrv_load(dev, "configs/test/tiny4.yaml"), IPUDRV_E_PROGRAM);
  EXPECT_NE(std::string(ipudrv_last_error()).find("tiny4.yaml"), std::string::npos) << ipudrv_last_error();
  const std::string fault = firmware("faults/fault_illegal.elf");
  const ipudrv_program p{0, 2, 1, fault.c_str()};
  ASSERT_EQ(ipudrv_load_programs(dev, &p, 1), IPUDRV_OK) << ipudrv_last_error();
  ipudrv_run_result r{};
  EXPECT_EQ(ipudrv_run(dev, 0, 30000, &r), IPUDRV_E_TILE_FAULT);
  EXPECT_NE(std::string(ipudrv_last_error()).find("TILE_FAULT"), std::string::npos) << ipudrv_last_error();
  ipudrv_device_error err{};
  ASSERT_EQ(ipudrv_last_device_error(&err), IPUDRV_OK);
  EXPECT_EQ(err.code, uint32_t(IPU_ERR_TILE_FAULT));
  EXPECT_EQ(err.tile, 2u);
  EXPECT_EQ(err.thread, 0u);
  EXPECT_EQ(err.pc, ipudrv::Elf::from_file(fault).symbol("fault_site").value());
  EXPECT_NE(std::string(err.text).find("illegal"), std::string::npos) << err.text;
  EXPECT_STREQ(err.kind, "illegal instruction");
  EXPECT_EQ(err.superstep, 0u);
  EXPECT_EQ(err.peer_tile, kNone);
  EXPECT_EQ(err.absent_count, 0u);
  // Then a clean run.
  EXPECT_EQ(ipudrv_reset(dev), IPUDRV_OK);
  ASSERT_EQ(ipudrv_load(dev, firmware("allreduce.elf").c_str()), IPUDRV_OK) << ipudrv_last_error();
  EXPECT_EQ(ipudrv_run(dev, 0, 60000, &r), IPUDRV_OK) << ipudrv_last_error();
  EXPECT_EQ(r.halted, 1);
  EXPECT_EQ(r.exit_code, 0);
  ipudrv_close(dev);
}

DEVAPI_TRANSPORTS(Errors);

// ---- socket only ---------------------------------------------------------------------

class ServeErrors : public DeviceApiTest {};

// The server killed mid-run: the waiting run, and every call after it, is a TransportError.
TEST_P(ServeErrors, ServerGoneMidRunIsATransportError) {
  auto dev = open("configs/test/tiny4.yaml");
  dev->load(endless_loop());
  auto f = dev->run_async();
  EXPECT_EQ(f.wait_for(100ms), std::future_status::timeout);
  const int status = server()->kill_now();
  EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL) << status;
  ASSERT_EQ(f.wait_for(10s), std::future_status::ready);
  expect_error<ipudrv::TransportError>([&] { f.get(); });
  std::array<std::byte, 4> buf{};
  expect_error<ipudrv::TransportError>([&] { dev->read_tile(0, 0, 0x40000, buf); });
  expect_error<ipudrv::TransportError>([&] { dev->reset(); });
}

// The server killed between calls.
TEST_P(ServeErrors, ServerGoneBetweenCallsIsATransportError) {
  auto dev = open("configs/test/tiny4.yaml");
  dev->load(elf("allreduce.elf"));
  server()->kill_now();
  expect_error<ipudrv::TransportError>([&] { dev->run(0, 10s); });
  expect_error<ipudrv::TransportError>([&] { ipudrv::open(locator()); });
}

// A second client while one is served: refused, the first goes on.
TEST_P(ServeErrors, SecondClientIsRefusedAndTheFirstGoesOn) {
  auto dev = open("configs/test/tiny4.yaml");
  expect_error<ipudrv::TransportError>([&] { ipudrv::open(locator()); }, "another client");
  dev->load(elf("allreduce.elf"));
  EXPECT_EQ(dev->run(0, 60s).exit_code, 0);
  dev.reset();
  // After the first leaves, the next finds a reset board.
  auto next = ipudrv::open(locator());
  EXPECT_EQ(next->stats().booted_tiles, 0u);
  EXPECT_EQ(next->state(), uint32_t(IPU_STATE_IDLE));
}

INSTANTIATE_TEST_SUITE_P(DeviceApi, ServeErrors, ::testing::Values(Transport::kServe), transport_name);

}  // namespace
}  // namespace devapi
