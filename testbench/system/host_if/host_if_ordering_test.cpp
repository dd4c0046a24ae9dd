// Command order against the model thread: a host write acts after every write made before
// it, even when the model is in the middle of a simulate() when the host writes. The
// model is held there deterministically by blocking its thread in the interrupt handler
// of a DMA descriptor (the handler runs inside the DMA channel's SystemC process), which
// is what a loaded machine does at random by preempting the model thread. Held there, a
// descriptor posted stays in flight, so STATUS's busy bits are read while it is.
//
// Regression: a driver's "DMA to streaming memory, then load" (CTRL.RESET, ring set-up,
// the program's DMA, BOOT) sometimes booted tiles over zeroed SRAM: the DMA channel read
// the doorbell straight from the register mirror, so the program's descriptors retired
// in the simulate() that was still finishing the earlier DMA, before the model took the
// queued RESET, which then zeroed the SRAM they had written.
#include <gtest/gtest.h>

#include <chrono>
#include <condition_variable>
#include <cstring>
#include <mutex>

#include "host_if/model_session.h"
#include "iss/program.h"
#include "iss/tile_core.h"
#include "common/config.h"
#include "sim_fixture.h"
#include "test_host.h"

namespace ipusim::test {
namespace {

using host_if::ModelSession;
using host_if::ModelOptions;
using namespace std::chrono_literals;

// Blocks the model thread in the first interrupt until the test lets it go.
class ModelGate {
 public:
  void in_interrupt() {
    std::unique_lock lock(m_);
    if (entered_) return;  // later interrupts pass
    entered_ = true;
    cv_.notify_all();
    cv_.wait_for(lock, 30s, [&] { return released_; });
  }
  bool wait_entered() {
    std::unique_lock lock(m_);
    return cv_.wait_for(lock, 30s, [&] { return entered_; });
  }
  void release() {
    std::lock_guard lock(m_);
    released_ = true;
    cv_.notify_all();
  }

 private:
  std::mutex m_;
  std::condition_variable cv_;
  bool entered_ = false, released_ = false;
};

// Descriptor A (with IRQ) retires; while the model thread is held in A's interrupt, i.e.
// inside the simulate() that retired A, the host resets the board, sets its rings up
// again and posts B to tile SRAM. B must act after the RESET: its bytes are in SRAM.
TEST(HostIfOrdering, DmaPostedAfterResetActsAfterTheReset) {
  ModelGate gate;  // outlives the session (the handler refers to it)
  auto sys = ModelSession::open(tiny4(), quiet());
  TestHost host(sys->link(0));
  sys->link(0).set_interrupt_handler([&] { gate.in_interrupt(); });
  host.set(IPU_REG_IRQ_MASK, IPU_IRQ_STATUS_DMA0_MASK);

  std::memset(host.data(0), 0x5a, 256);
  ipu_dma_desc a = TestHost::tile_desc(host.data_bus(0), iss::kSramBase + 0x8000, 256, 0, 0, 4);
  a.flags = IPU_DESC_FLAG_IRQ;
  host.post(0, a);
  ASSERT_TRUE(gate.wait_entered()) << "descriptor A's interrupt never came";

  // The model thread is inside simulate(), in A's interrupt.
  host.reset();
  std::vector<uint8_t> code(4096);
  for (size_t i = 0; i < code.size(); ++i) code[i] = uint8_t(i * 13 + 1);
  std::memcpy(host.data(8192), code.data(), code.size());
  const uint32_t b = host.post(0, TestHost::tile_desc(host.data_bus(8192), iss::kSramBase, uint32_t(code.size()), 0, 0, 4));
  gate.release();

  ASSERT_EQ(host.wait_desc(0, b), IPU_DESC_STATUS_OK) << host.err_text();
  sys->wait_idle();
  for (uint32_t t = 0; t < 4; ++t)
    EXPECT_EQ(host.read_tile(0, t, iss::kSramBase, uint32_t(code.size())), code) << "tile " << t;
  // A's bytes went before the RESET, which zeroed them.
  EXPECT_EQ(host.read_tile(0, 0, iss::kSramBase + 0x8000, 256), std::vector<uint8_t>(256, 0));
  EXPECT_EQ(host.reg(IPU_REG_ERR_CODE), IPU_ERR_NONE) << host.err_text();
  sys->link(0).set_interrupt_handler({});
}

// STATUS.DMA0_BUSY / DMA1_BUSY: each channel's own bit while a descriptor posted to it is
// in flight (the model held in the other channel's interrupt, so it stays so), neither
// once it has retired.
TEST(HostIfOrdering, StatusBusyBitsAreEachChannelsOwn) {
  constexpr uint32_t kBusy = IPU_STATUS_DMA0_BUSY_MASK | IPU_STATUS_DMA1_BUSY_MASK;
  ModelGate on_ch0, on_ch1;  // outlive the session (the handler refers to them)
  auto sys = ModelSession::open(tiny4(), quiet());
  TestHost host(sys->link(0));
  std::memset(host.data(0), 0x3c, 256);
  EXPECT_EQ(host.reg(IPU_REG_STATUS) & kBusy, 0u) << "nothing posted";

  // Held in channel 0's interrupt: a read of tile 1 posted on channel 1 stays in flight.
  sys->link(0).set_interrupt_handler([&] { on_ch0.in_interrupt(); });
  host.set(IPU_REG_IRQ_MASK, IPU_IRQ_STATUS_DMA0_MASK);
  ipu_dma_desc a = TestHost::tile_desc(host.data_bus(0), iss::kSramBase + 0x8000, 256, 0, 0, 4);
  a.flags = IPU_DESC_FLAG_IRQ;
  const uint32_t ia = host.post(0, a);
  ASSERT_TRUE(on_ch0.wait_entered()) << "channel 0's interrupt never came";
  ASSERT_EQ(host.desc(0, ia).status, IPU_DESC_STATUS_OK) << "the interrupt follows the descriptor's retirement";
  EXPECT_EQ(host.reg(IPU_REG_STATUS) & kBusy, 0u) << "channel 0's descriptor has retired";
  const uint32_t ib = host.post(1, TestHost::tile_desc(host.data_bus(4096), iss::kSramBase + 0x8000, 256, 0, 1));
  EXPECT_EQ(host.reg(IPU_REG_STATUS) & kBusy, IPU_STATUS_DMA1_BUSY_MASK) << "only channel 1 is busy";
  on_ch0.release();
  ASSERT_EQ(host.wait_desc(1, ib), IPU_DESC_STATUS_OK) << host.err_text();
  sys->wait_idle();
  EXPECT_EQ(host.reg(IPU_REG_STATUS) & kBusy, 0u) << "channel 1's descriptor has retired";
  EXPECT_EQ(std::memcmp(host.data(4096), host.data(0), 256), 0) << "tile 1 holds the broadcast bytes";

  // Held in channel 1's interrupt: a broadcast posted on channel 0 stays in flight.
  sys->link(0).set_interrupt_handler([&] { on_ch1.in_interrupt(); });
  host.set(IPU_REG_IRQ_MASK, IPU_IRQ_STATUS_DMA1_MASK);
  ipu_dma_desc c = TestHost::tile_desc(host.data_bus(8192), iss::kSramBase + 0x8000, 256, 0, 2);
  c.flags = IPU_DESC_FLAG_IRQ;
  const uint32_t ic = host.post(1, c);
  ASSERT_TRUE(on_ch1.wait_entered()) << "channel 1's interrupt never came";
  ASSERT_EQ(host.desc(1, ic).status, IPU_DESC_STATUS_OK);
  EXPECT_EQ(host.reg(IPU_REG_STATUS) & kBusy, 0u) << "channel 1's descriptor has retired";
  const uint32_t id = host.post(0, TestHost::tile_desc(host.data_bus(0), iss::kSramBase + 0x9000, 256, 0, 0, 4));
  EXPECT_EQ(host.reg(IPU_REG_STATUS) & kBusy, IPU_STATUS_DMA0_BUSY_MASK) << "only channel 0 is busy";
  on_ch1.release();
  ASSERT_EQ(host.wait_desc(0, id), IPU_DESC_STATUS_OK) << host.err_text();
  sys->wait_idle();
  EXPECT_EQ(host.reg(IPU_REG_STATUS) & kBusy, 0u) << "channel 0's descriptor has retired";
  EXPECT_EQ(host.reg(IPU_REG_ERR_CODE), IPU_ERR_NONE) << host.err_text();
  sys->link(0).set_interrupt_handler({});
}

// The same with a BOOT after B: the tiles boot over B's bytes (the code decoded from
// SRAM is B's), so a run of a program loaded this way does what it says.
#ifdef IPUSIM_FIRMWARE_DIR
TEST(HostIfOrdering, ProgramLoadedAfterResetMidSimulateBootsAndRuns) {
  ModelGate gate;
  auto sys = ModelSession::open(tiny4(), quiet());
  TestHost host(sys->link(0));
  sys->link(0).set_interrupt_handler([&] { gate.in_interrupt(); });
  host.set(IPU_REG_IRQ_MASK, IPU_IRQ_STATUS_DMA0_MASK);

  ipu_dma_desc a = TestHost::tile_desc(host.data_bus(0), iss::kSramBase, 64, 0, 0, 4);
  a.flags = IPU_DESC_FLAG_IRQ;
  host.post(0, a);
  ASSERT_TRUE(gate.wait_entered()) << "descriptor A's interrupt never came";

  // Post every segment with one doorbell, then BOOT, while the model is held.
  host.reset();
  auto prog = iss::Program::load(std::string(IPUSIM_FIRMWARE_DIR) + "/vecadd.elf");
  std::vector<ipu_dma_desc> ds;
  size_t at = 0;
  for (const iss::Segment& s : prog->segments()) {
    std::memset(host.data(at), 0, s.mem_size);
    std::memcpy(host.data(at), s.bytes.data(), s.bytes.size());
    ds.push_back(TestHost::tile_desc(host.data_bus(at), s.vaddr, s.mem_size, 0, 0, 4));
    at += (s.mem_size + 63) / 64 * 64;
  }
  ASSERT_LE(at, host.data_size());
  host.post_batch(0, ds);
  host.boot(0, 0, 4, prog->entry(), prog->code_begin(), prog->code_end() - prog->code_begin());
  gate.release();

  ASSERT_EQ(host.run(), IPU_STATE_HALTED) << host.err_text();
  EXPECT_EQ(host.reg(IPU_REG_EXIT_CODE), 0u);
  EXPECT_EQ(host.reg(IPU_REG_ERR_CODE), IPU_ERR_NONE) << host.err_text();
  sys->link(0).set_interrupt_handler({});
}
#endif

}  // namespace
}  // namespace ipusim::test
