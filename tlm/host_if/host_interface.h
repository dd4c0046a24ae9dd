// One board's host interface: the PCIe-like endpoint a driver programs (docs/host_if.md,
// register map hw/host_if/registers.yaml -> ipu/hostif_regs.h). The boards of a system
// are one run domain (run_domain.h): STATE, the run and its end, ABORT and RESET are
// the domain's; registers, DMA, streams and the interrupt are the board's own.
//
//   HostInterface (SystemC module, one per board; it is also the board's DeviceLink)
//     BAR0 register file     a mirror under the domain's mutex: host threads read it at
//                            once, even mid-run; writes with side effects become commands
//                            the model thread takes in order (RunDomain's queue)
//     dma0, dma1             one SC_THREAD per channel walking its descriptor ring in
//                            mapped host memory (dma_channel.cpp)
//     tile_socket            TLM-2.0 initiator (multi-passthrough), binding
//                            i * tiles + t = tile t of the board's IPU i (its mem_socket):
//                            DMA reads and writes of tile SRAM, b_transport, zero delay
//     smem / streams         DmaPort endpoints over the board's streaming::Gateway
//                            (gateway_ports.h): DMA targets SMEM and STREAM
//     stream mirror          FIFO levels (a gateway listener keeps them) and the
//                            STREAM_WAIT_* values of the last STREAM_WAIT stop
//
// Parameters: the system config (identity registers: board index, IPUs, tiles, SRAM,
// clock, streaming memory size, workers; the host link's rate and latency time the DMA).
// Statistics: the BAR0 registers themselves (CYCLES, INSTRET, SUPERSTEPS, ...).
//
// Threads: read32 / write32 / map / unmap / set_interrupt_handler from any host thread.
// Everything else is the model thread's (RunDomain, the SystemC processes). Interrupts are
// delivered on the model thread.
//
// Command order: commands act in the order written, doorbells too: a channel issues the
// descriptors of the doorbells the model has taken from the queue, so a TAIL written
// after a RESET acts after it even if the kernel was running when the host wrote both.
// BOOT_CMD and CTRL.RUN first let the DMA descriptors posted before them retire: the
// model simulates until both channels are idle, so "DMA the program, BOOT, RUN" needs no
// wait between. Register state
// the host changes (STATE after RUN / BOOT / RESET, DMA ring set-up, IRQ_STATUS) is
// updated in the mirror at once, so a read right after a write sees it.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include <systemc>
#include <tlm>
#include <tlm_utils/multi_passthrough_initiator_socket.h>

#include "host_if/device_link.h"
#include "host_if/dma_port.h"
#include "host_if/gateway_ports.h"
#include "host_if/host_memory.h"
#include "host_if/run_domain.h"
#include "iss/program.h"
#include "common/config.h"
#include "platform/platform.h"

namespace ipusim::host_if {

class HostInterface : public sc_core::sc_module, public DeviceLink {
 public:
  using TileSocket = tlm_utils::multi_passthrough_initiator_socket<
      HostInterface, 32, tlm::tlm_base_protocol_types, 0, sc_core::SC_ZERO_OR_MORE_BOUND>;
  TileSocket tile_socket;

  // Binds tile_socket to the board's tiles and gives each its SRAM; joins `domain`.
  HostInterface(sc_core::sc_module_name name, const config::SystemConfig& config, uint32_t board,
                platform::Platform& platform, RunDomain& domain);
  ~HostInterface() override;
  // The system this board belongs to, for tests in the model (a stand-in model planted
  // on a tile); a host reaches it only through the registers.
  platform::Platform& platform() { return platform_; }

  // DeviceLink (any host thread)
  uint32_t read32(uint32_t offset) override;
  void write32(uint32_t offset, uint32_t value) override;
  void map_host_memory(uint64_t bus_addr, std::span<std::byte> memory) override;
  void unmap_host_memory(uint64_t bus_addr) override;
  void set_interrupt_handler(InterruptHandler handler) override;
  void set_trace_file(const std::string& path) override;
  std::vector<records::SuperstepStats> supersteps(uint32_t ipu) override;
  void set_link_faults(const std::string& items) override;
  std::vector<records::LinkStats> link_stats() override;
  void set_console_handler(ConsoleHandler handler) override;

  // Streaming memory and stream FIFO endpoints (elaboration time; null: not available).
  // The constructor attaches the board gateway's (gateway_ports.h).
  void attach_smem(DmaPort* port) { smem_ = port; }
  void attach_streams(DmaPort* port) { streams_ = port; }

  // Forgets host memory, the interrupt handler, IRQ_MASK, the DMA rings and the BOOT_* /
  // RUN_SUPERSTEPS values (ModelSession close; call after a RESET).
  void detach_host();
  uint32_t board() const { return board_; }

 private:
  friend class RunDomain;  // the domain's commands and run end act on every board

  struct Channel {
    uint64_t ring = 0;        // bus address, taken when RING_SIZE is written
    uint32_t ring_lo = 0, ring_hi = 0, size = 0, head = 0, tail = 0;
    bool halted = false;
    uint64_t generation = 0;  // RING_SIZE writes and resets: a descriptor in flight is dropped
    bool has_work() const { return size != 0 && !halted && head != tail; }
  };
  // An error: the problem record; its IPUs are the system's (board b's IPU i is
  // b * IPUS + i), as ERR_IPU, ERR_PEER_IPU and ERR_ABSENT show them.
  using Error = Problem;

  // Host side (register file), with mutex_ held.
  uint32_t read_locked(uint32_t offset);
  void write_locked(uint32_t offset, uint32_t value);
  void command_locked(Command c);
  void ctrl_locked(uint32_t value);
  void boot_cmd_locked(uint32_t value);
  void reset_mirror_locked();  // a RESET written to any board of the domain
  // Records the first error since reset (all count); returns true if ERR_CODE just
  // became non-zero (the ERROR interrupt cause).
  // `text`: ERR_TEXT rendered already (once for every board); empty: to_text(e).
  bool record_locked(const Error& e, const std::string& text = {});
  void reg_error_locked(uint32_t offset, const std::string& what);

  // Model side (the domain calls them).
  void model_reset();  // after the platform's reset: streams, programs, mirrors
  void boot(const std::array<uint32_t, 6>& regs);
  void kick(uint32_t channel, const Doorbell& doorbell);
  void kick_all();  // both channels look at their rings again
  void raise(uint32_t causes);  // IRQ_STATUS |= causes; interrupt if enabled
  void record(const Error& e, const std::string& text = {});  // with the ERROR cause
  void set_stream_wait(const std::optional<streaming::StreamWait>& wait);
  std::string trace_path();
  void update_stats();
  void update_sim_time();    // update_stats' sim_time_ps alone: the DMA of an idle device moves it
  void update_supersteps();  // the mirror of the board's superstep totals, at each stop of a run
  void level_changed(uint32_t stream, bool d2h);  // the gateway's listener (model thread)
  void refresh_levels();
  bool dma_busy();

  // DMA (dma_channel.cpp). A descriptor's problem goes to `e` (code None: fine).
  struct DmaInFlight {  // a descriptor issued onto the host link, retired in order
    uint32_t index = 0;
    uint64_t desc_addr = 0;
    ipu_dma_desc d{};
    bool have_desc = false;
    Error e;
    sc_core::sc_time done;
    uint32_t bytes_done = 0;
  };
  void channel_thread(unsigned ch);
  // Reads descriptor `index` of the ring and checks it (f.e says what is wrong).
  DmaInFlight issue(unsigned ch, uint32_t index, uint64_t ring, uint32_t size);
  // Moves its bytes, writes its status back, advances HEAD (halting the channel on an
  // error, recorded) and raises the interrupt cause; false if the ring changed meanwhile.
  bool retire(unsigned ch, DmaInFlight& f, uint64_t generation);
  // The kernel cannot run any more (Platform::gave_up): every descriptor posted retires
  // at once, on the model thread, so a host can still read and write the device's memory.
  void retire_without_kernel(unsigned ch);
  void check_descriptor(unsigned ch, const ipu_dma_desc& d, Error& e);
  uint32_t transfer(unsigned ch, const ipu_dma_desc& d, Error& e);  // returns bytes_done
  void tile_transfer(unsigned ch, const ipu_dma_desc& d, std::byte* host, Error& e);
  DmaPort* port_of(uint16_t target) const;

  const config::SystemConfig config_;
  const uint32_t board_;
  const uint32_t first_ipu_;
  platform::Platform& platform_;
  RunDomain& domain_;
  streaming::Gateway& gateway_;
  SmemPort smem_port_;
  StreamPort stream_port_;
  DmaPort* smem_ = nullptr;
  DmaPort* streams_ = nullptr;
  const uint32_t fifo_bytes_;  // STREAM_FIFO_BYTES
  HostMemory host_memory_;
  std::mutex handler_mutex_;
  InterruptHandler handler_;

  // The register mirror (domain_.mutex; STATE is the domain's).
  std::mutex& mutex_;
  uint32_t run_supersteps_ = 0;
  std::array<uint32_t, 4> run_max_{};  // RUN_MAX_CYCLES_LO / HI, RUN_MAX_INSTRUCTIONS_LO / HI
  std::array<uint32_t, 6> boot_regs_{};
  uint32_t irq_status_ = 0, irq_mask_ = 0;
  platform::BoardStats stats_;
  std::string trace_path_;                               // set_trace_file: for the next RUN from READY
  std::vector<std::vector<records::SuperstepStats>> supersteps_;  // per IPU of the board, at the last stop
  Error error_;
  std::string error_text_;  // ERR_TEXT: to_text(error_) fitted to the window
  uint32_t error_count_ = 0;
  std::array<Channel, 2> channels_;
  std::array<uint32_t, IPU_STREAMS> h2d_level_{}, d2h_level_{};  // the gateway's FIFO levels
  streaming::StreamWait stream_wait_;  // STREAM_WAIT_*: the stop's (zero otherwise)
  std::unordered_map<uint32_t, uint32_t> latched_hi_;  // _HI offset -> value latched by its _LO read

  // Model-thread state.
  std::array<sc_core::sc_event, 2> kick_;
  std::array<Doorbell, 2> doorbell_;  // the last doorbell of each channel the model took
  // Programs built by BOOT_CMD, deduplicated by the code's content.
  std::unordered_multimap<uint64_t, std::shared_ptr<const iss::Program>> programs_;
};

}  // namespace ipusim::host_if
