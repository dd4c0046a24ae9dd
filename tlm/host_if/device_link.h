// The device side of a host transport: one board's PCIe-like endpoint as a host sees it.
//
// Everything a driver can do to a device goes through this: 32-bit register reads and
// writes of BAR0 (hw/host_if/registers.yaml, generated ipu/hostif_regs.h), host memory the
// device's DMA engine may read and write (descriptor rings and data buffers live there),
// and one interrupt vector. The in-process transport calls it directly; `ipusim serve`
// calls it for each validated message of its socket client. docs/host_if.md.
//
// Thread safety: every function may be called from any host thread, concurrently with
// the simulation, which runs on the model's own thread. Register side effects
// (doorbells, commands) take effect in simulated time at the next point the model can
// take them (when it is idle, or between batches of a run), in the order they were made.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include <ipu/host_records.h>  // SuperstepStats, LinkStats, ConsoleLine (hw/host_if/records.yaml)

namespace ipusim::host_if {

// One line of a tile's console: the host record (hw/host_if/records.yaml), the driver's
// ipudrv::ConsoleLine too.
using ConsoleLine = records::ConsoleLine;

class DeviceLink {
 public:
  virtual ~DeviceLink() = default;

  // BAR0. Offsets not 4-aligned or not below IPU_BAR0_BYTES read 0xFFFFFFFF / are
  // ignored, and record IPU_ERR_REG (never throw: a bad access is the device's to report).
  virtual uint32_t read32(uint32_t offset) = 0;
  virtual void write32(uint32_t offset, uint32_t value) = 0;

  // Host memory the DMA engine may access: bus addresses [bus_addr, bus_addr + size)
  // are `memory`, which must stay valid until unmapped. Ranges may not overlap; throws
  // std::invalid_argument for an empty or overlapping range or an unknown unmap. A DMA
  // outside every mapped range fails its descriptor with IPU_ERR_DMA_HOST_ADDR.
  virtual void map_host_memory(uint64_t bus_addr, std::span<std::byte> memory) = 0;
  virtual void unmap_host_memory(uint64_t bus_addr) = 0;

  // Called on a device thread each time the interrupt fires (a cause enabled in
  // IRQ_MASK was raised); the handler reads IRQ_STATUS to see why. Keep it short: it
  // must not call back into the DeviceLink. Replaces any previous handler; empty = none.
  using InterruptHandler = std::function<void()>;
  virtual void set_interrupt_handler(InterruptHandler handler) = 0;

  // The simulator's profiling side channel (what a hardware trace unit streams to the
  // host, outside BAR0). A device without one (a test's fake) keeps these defaults.
  //
  // The superstep trace (Chrome / Perfetto JSON, docs/chip.md "Trace") of the runs started
  // from READY after this call, written when such a run ends (HALTED, ERROR, or a RESET of
  // a paused run), before RUN_DONE is raised; "" writes none. Throws std::runtime_error if
  // `path` cannot be opened for writing.
  virtual void set_trace_file(const std::string& path) {
    if (!path.empty()) throw std::runtime_error("this device writes no superstep trace");
  }
  // IPU `ipu` of the board, per superstep since the last RUN from READY, as of the last
  // stop of the run (RUN_DONE); empty after RESET. Throws std::out_of_range for an IPU the
  // board does not have. The records' fields: docs/host_records.md.
  virtual std::vector<records::SuperstepStats> supersteps(uint32_t ipu) {
    (void)ipu;
    return {};
  }
  // Fault injection on the system's IPU-Links for the runs started from READY after this
  // call, replacing the config's: `items` as `ipusim run --link-faults` takes them
  // ("[LINK:]SPEC" items separated by ';'; "none": no faults; docs/links.md). The system's
  // links are shared by its boards: any board's link sets them for all. Throws
  // std::invalid_argument naming the bad item. A session's end restores the config's.
  virtual void set_link_faults(const std::string& items) {
    (void)items;
    throw std::runtime_error("this device injects no IPU-Link faults");
  }
  // Every link direction of the system that carried something, over the runs since the
  // last RUN from READY, as of the last stop of the run (RUN_DONE); empty after RESET.
  virtual std::vector<records::LinkStats> link_stats() { return {}; }
  // The tiles' console, the system's (any board's link sets it for all): every line, in
  // the order `ipusim run` prints them, goes to `handler` instead of the device's own
  // output (empty: back to it). A run's lines all reach it before the run's RUN_DONE (and
  // before a STREAM_WAIT stop's). It runs on a device thread and may wait (a full queue):
  // the simulation waits with it, which changes no simulated cycle; it must not call
  // back into the DeviceLink. A device without a console (a test's fake) has no lines.
  using ConsoleHandler = std::function<void(const ConsoleLine& line)>;
  virtual void set_console_handler(ConsoleHandler handler) { (void)handler; }
};

}  // namespace ipusim::host_if
