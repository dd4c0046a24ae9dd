// Every error path of the device sets ERR_CODE and names what it can: tile faults (tile,
// thread, pc), exchange errors, deadlocks, bad descriptors, unmapped host memory, code
// writes into booted tiles, bad register accesses, bad boots and commands in the wrong
// state. Every case its own process.
#include <gtest/gtest.h>

#include <cstring>

#include "host_if/model_session.h"
#include "iss/program.h"
#include "common/config.h"
#include "sim_fixture.h"
#include "test_host.h"
#include "test_program.h"
#include "test_system.h"

namespace ipusim::test {
namespace {

using host_if::ModelSession;
using host_if::ModelOptions;

// The first error's code, once the device has recorded one.
uint32_t error_code(TestHost& host) {
  EXPECT_TRUE(TestHost::wait_for([&] { return host.reg(IPU_REG_ERR_CODE) != IPU_ERR_NONE; }, 10)) << "no error recorded";
  return host.reg(IPU_REG_ERR_CODE);
}

TEST(HostIfErrors, BadRegisterAccesses) {
  auto sys = ModelSession::open(tiny4(), quiet());
  TestHost host(sys->link(0));
  EXPECT_EQ(host.reg(0x002), 0xFFFFFFFFu);  // misaligned
  EXPECT_EQ(error_code(host), IPU_ERR_REG);
  EXPECT_EQ(host.reg64(IPU_REG_ERR_ADDR_LO), 0x002u);
  EXPECT_NE(host.err_text().find("0x002"), std::string::npos) << host.err_text();
  EXPECT_EQ(host.reg(IPU_REG_ERR_COUNT), 1u);
  EXPECT_EQ(host.reg(IPU_BAR0_BYTES), 0xFFFFFFFFu);  // outside BAR0
  EXPECT_EQ(host.reg(0x3FC), 0xFFFFFFFFu);           // no register there
  host.set(IPU_REG_ID, 1);                           // read-only
  host.set(IPU_REG_CTRL, IPU_CTRL_RUN_MASK | IPU_CTRL_RESET_MASK);  // two commands at once
  host.set(IPU_REG_DMA0_RING_SIZE, 3);               // not a power of 2
  EXPECT_EQ(host.reg(IPU_REG_ERR_COUNT), 6u);
  EXPECT_EQ(host.reg(IPU_REG_ERR_CODE), IPU_ERR_REG);  // the first is kept
  EXPECT_EQ(host.reg(IPU_REG_ID), IPU_ID_MAGIC);
  host.reset();
  sys->wait_idle();
  EXPECT_EQ(host.reg(IPU_REG_ERR_CODE), IPU_ERR_NONE);
  EXPECT_EQ(host.reg(IPU_REG_ERR_COUNT), 0u);
}

TEST(HostIfErrors, CommandsInTheWrongStateAndBadBoots) {
  auto sys = ModelSession::open(tiny4(), quiet());
  TestHost host(sys->link(0));
  host.set(IPU_REG_CTRL, IPU_CTRL_RUN_MASK);  // IDLE: nothing booted
  EXPECT_EQ(error_code(host), IPU_ERR_STATE);
  EXPECT_NE(host.err_text().find("RUN"), std::string::npos) << host.err_text();
  EXPECT_EQ(host.state(), IPU_STATE_IDLE);

  struct Case {
    uint32_t ipu, first, count, entry, base, size;
    const char* says;
  };
  const uint32_t b = iss::kSramBase;
  const Case cases[] = {
      {1, 0, 1, b, b, 64, "BOOT_IPU"},
      {0, 3, 2, b, b, 64, "BOOT_TILE"},
      {0, 0, 0, b, b, 64, "BOOT_TILE"},
      {0, 0, 1, b, b + 2, 64, "code range"},
      {0, 0, 1, b, b, 0, "code range"},
      {0, 0, 1, b, b, 624 * 1024 + 4, "outside SRAM"},
      {0, 0, 1, b + 64, b, 64, "BOOT_ENTRY"},
  };
  for (const Case& c : cases) {
    host.reset();
    sys->wait_idle();
    host.boot(c.ipu, c.first, c.count, c.entry, c.base, c.size);
    EXPECT_EQ(error_code(host), IPU_ERR_BOOT) << c.says;
    EXPECT_NE(host.err_text().find(c.says), std::string::npos) << host.err_text();
    EXPECT_EQ(host.state(), IPU_STATE_IDLE);
    EXPECT_EQ(host.reg(IPU_REG_BOOTED_TILES), 0u);
  }
}

TEST(HostIfErrors, BadDescriptorsHaltTheChannel) {
  auto sys = ModelSession::open(tiny4(), quiet());
  TestHost host(sys->link(0));
  struct Case {
    uint32_t ch;
    ipu_dma_desc d;
    uint32_t code;
    const char* says;
  };
  const uint64_t data = host.data_bus();
  const uint32_t b = iss::kSramBase;
  auto tile = [](uint64_t host, uint32_t addr, uint32_t length, uint32_t ipu, uint32_t first, uint32_t count = 1) {
    return TestHost::tile_desc(host, addr, length, ipu, first, count);
  };
  ipu_dma_desc smem = tile(data, 0, 64, 0, 0);
  smem.target = IPU_DMA_TARGET_SMEM;
  ipu_dma_desc stream = smem;
  stream.target = IPU_DMA_TARGET_STREAM;
  stream.ipu = IPU_STREAMS;  // no such stream id
  ipu_dma_desc too_long = smem;
  too_long.target = IPU_DMA_TARGET_STREAM;
  too_long.length = IPU_XFER_MAX + 4;  // more than a host-to-device FIFO holds
  ipu_dma_desc unknown = smem;
  unknown.target = 7;
  const Case cases[] = {
      {0, tile(data, b, 0, 0, 0), IPU_ERR_DMA_DESC, "length 0"},
      {0, tile(data, b, 64, 1, 0), IPU_ERR_DMA_DESC, "ipu 1"},
      {0, tile(data, b, 64, 0, 2, 3), IPU_ERR_DMA_DESC, "tiles 2 + 3"},
      {1, tile(data, b, 64, 0, 0, 2), IPU_ERR_DMA_DESC, "tile_count 2"},
      {0, smem, IPU_ERR_SMEM_RANGE, "the board has no streaming memory"},
      {1, stream, IPU_ERR_STREAM, "stream id 64"},
      {0, too_long, IPU_ERR_STREAM_OVERFLOW, "can never fit"},
      {0, unknown, IPU_ERR_DMA_DESC, "unknown target 7"},
      {0, tile(data, b - 4, 64, 0, 0), IPU_ERR_DMA_TILE, "outside SRAM"},
      {1, tile(data, b + 624 * 1024 - 4, 8, 0, 0), IPU_ERR_DMA_TILE, "outside SRAM"},
      {0, tile(0x10, b, 64, 0, 0), IPU_ERR_DMA_HOST_ADDR, "not in mapped host memory"},
      {1, tile(data + host.data_size() - 4, b, 8, 0, 0), IPU_ERR_DMA_HOST_ADDR, "not in mapped host memory"},
  };
  for (const Case& c : cases) {
    host.reset();
    sys->wait_idle();
    const uint32_t i = host.post(c.ch, c.d);
    EXPECT_EQ(host.wait_desc(c.ch, i), IPU_DESC_STATUS_ERROR) << c.says;
    EXPECT_EQ(host.desc(c.ch, i).error, c.code) << c.says;
    EXPECT_EQ(host.desc(c.ch, i).bytes_done, 0u);
    EXPECT_EQ(host.reg(IPU_REG_ERR_CODE), c.code) << c.says;
    EXPECT_NE(host.err_text().find(c.says), std::string::npos) << host.err_text();
    EXPECT_NE(host.err_text().find("DMA channel " + std::to_string(c.ch)), std::string::npos) << host.err_text();
    const uint32_t status = c.ch == 0 ? IPU_REG_DMA0_STATUS : IPU_REG_DMA1_STATUS;
    EXPECT_EQ(host.reg(status), IPU_DMA0_STATUS_HALTED_MASK);
    // A halted channel runs nothing more; rewriting RING_SIZE clears it.
    const uint32_t j = host.post(c.ch, TestHost::tile_desc(data, b, 4, 0, 0));
    sys->wait_idle();
    EXPECT_EQ(host.desc(c.ch, j).status, IPU_DESC_STATUS_PENDING);
    host.setup_ring(c.ch);
    EXPECT_EQ(host.reg(status), 0u);
    EXPECT_EQ(host.wait_desc(c.ch, host.post(c.ch, TestHost::tile_desc(data, b, 4, 0, 0))), IPU_DESC_STATUS_OK);
  }
}

TEST(HostIfErrors, UnmappedRingAndCodeWrites) {
  auto sys = ModelSession::open(tiny4(), quiet());
  TestHost host(sys->link(0));
  // A ring outside host memory: the descriptor cannot even be read.
  host.set(IPU_REG_DMA0_RING_LO, 0x4000);
  host.set(IPU_REG_DMA0_RING_HI, 0);
  host.set(IPU_REG_DMA0_RING_SIZE, 4);
  host.set(IPU_REG_DMA0_TAIL, 1);
  EXPECT_EQ(error_code(host), IPU_ERR_DMA_HOST_ADDR);
  EXPECT_EQ(host.reg64(IPU_REG_ERR_ADDR_LO), 0x4000u);
  EXPECT_TRUE(TestHost::wait_for([&] { return host.reg(IPU_REG_DMA0_STATUS) != 0; }, 5));

  host.reset();
  Asm a;
  a.li(a0, 0);
  a.halt(a0);
  auto p = program(a, "halt.elf");
  host.load(*p, 0, 0, 2);
  sys->wait_idle();
  EXPECT_EQ(host.reg(IPU_REG_ERR_CODE), IPU_ERR_NONE) << host.err_text();
  // Code of a booted tile is read-only to DMA; data is not.
  uint32_t word = 0;
  std::memcpy(host.data(), &word, 4);
  uint32_t i = host.post(0, TestHost::tile_desc(host.data_bus(), p->code_begin(), 4, 0, 1));
  EXPECT_EQ(host.wait_desc(0, i), IPU_DESC_STATUS_ERROR);
  EXPECT_EQ(host.desc(0, i).error, IPU_ERR_DMA_TILE);
  EXPECT_EQ(host.reg(IPU_REG_ERR_TILE), 1u);
  EXPECT_NE(host.err_text().find("read-only"), std::string::npos) << host.err_text();
  // Reading code back is fine, and the bytes are the program's.
  host.setup_ring(1);
  EXPECT_EQ(host.read_tile(0, 1, p->code_begin(), 4), std::vector<uint8_t>(p->segments()[0].bytes.begin(),
                                                                           p->segments()[0].bytes.begin() + 4));
}

TEST(HostIfErrors, DeadlockNamesTheTiles) {
  auto sys = ModelSession::open(tiny4(), quiet());
  TestHost host(sys->link(0));
  Asm a;  // tile 1 halts, the others sync forever
  a.csrr(t1, IPU_CSR_TILE);
  a.li(t2, 1);
  a.bne(t1, t2, "others");
  a.li(a0, 0);
  a.halt(a0);
  a.label("others");
  a.li(t0, 1);
  a.sync(t0);
  a.li(a0, 0);
  a.halt(a0);
  host.load(*program(a, "halt_early.elf"), 0, 0, 4);
  EXPECT_EQ(host.run(), IPU_STATE_ERROR);
  EXPECT_EQ(host.reg(IPU_REG_ERR_CODE), IPU_ERR_DEADLOCK);
  EXPECT_NE(host.err_text().find("deadlock"), std::string::npos) << host.err_text();
  EXPECT_NE(host.err_text().find("tile 1"), std::string::npos) << host.err_text();
  EXPECT_TRUE(host.reg(IPU_REG_IRQ_STATUS) & IPU_IRQ_STATUS_RUN_DONE_MASK);
  EXPECT_TRUE(host.reg(IPU_REG_IRQ_STATUS) & IPU_IRQ_STATUS_ERROR_MASK);
}

#ifdef IPUSIM_FIRMWARE_DIR
std::shared_ptr<const iss::Program> firmware(const std::string& name) {
  return iss::Program::load(std::string(IPUSIM_FIRMWARE_DIR) + "/" + name);
}

// Each fault program stops at its `fault_site`: ERR_* name the tile, the thread and that
// pc; the board is reset and reused between them.
TEST(HostIfErrors, TileFaultsNameTileThreadAndPc) {
  auto sys = ModelSession::open(tiny4(), quiet());
  TestHost host(sys->link(0));
  for (const char* name : {"fault_illegal", "fault_misaligned", "fault_out_of_sram", "fault_store_code",
                           "fault_worker_halt", "fault_ecall"}) {
    SCOPED_TRACE(name);
    host.reset();
    auto p = firmware(std::string("faults/") + name + ".elf");
    host.load(*p, 0, 2, 1);
    ASSERT_EQ(host.run(), IPU_STATE_ERROR);
    EXPECT_EQ(host.reg(IPU_REG_ERR_CODE), IPU_ERR_TILE_FAULT);
    EXPECT_EQ(host.reg(IPU_REG_ERR_IPU), 0u);
    EXPECT_EQ(host.reg(IPU_REG_ERR_TILE), 2u);
    EXPECT_EQ(host.reg(IPU_REG_ERR_PC), p->symbol("fault_site").value());
    EXPECT_LE(host.reg(IPU_REG_ERR_THREAD), 6u);
    if (std::string(name) == "fault_worker_halt") {
      EXPECT_NE(host.reg(IPU_REG_ERR_THREAD), 0u);
    }
    EXPECT_NE(host.err_text().find("tile 2 (ipu 0)"), std::string::npos) << host.err_text();
    EXPECT_GT(host.reg64(IPU_REG_ERR_CYCLE_LO), 0u);
  }
}

TEST(HostIfErrors, ExchangeErrorsNameTheTiles) {
  auto sys = ModelSession::open(tiny4(), quiet());
  TestHost host(sys->link(0));
  host.load(*firmware("system/xerr_no_recv.elf"), 0, 0, 4);
  EXPECT_EQ(host.run(), IPU_STATE_ERROR);
  EXPECT_EQ(host.reg(IPU_REG_ERR_CODE), IPU_ERR_EXCHANGE);
  EXPECT_NE(host.err_text().find("tile"), std::string::npos) << host.err_text();
  EXPECT_LT(host.reg(IPU_REG_ERR_TILE), 4u);
}
#endif

}  // namespace
}  // namespace ipusim::test
