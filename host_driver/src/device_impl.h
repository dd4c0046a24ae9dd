// The state behind ipudrv::Device: the transport, the two DMA channels, what is loaded
// where, the streaming-memory allocator and the host streams. device.cpp has the API
// calls, run.cpp the run loop with stream service.
#pragma once

#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <semaphore>
#include <thread>
#include <utility>

#include "dma_channel.h"
#include "ipudrv/device.h"
#include "irq_event.h"
#include "smem_allocator.h"
#include "stream_table.h"
#include "transport.h"

namespace ipudrv {

// One API call at a time. A semaphore rather than a mutex: run_async's thread releases
// what the calling thread took.
class ApiGate {
 public:
  class Hold {
   public:
    explicit Hold(ApiGate* g) : g_(g) {}
    Hold(Hold&& o) noexcept : g_(std::exchange(o.g_, nullptr)) {}
    Hold& operator=(Hold&&) = delete;
    ~Hold() { release(); }
    void release() {
      if (g_) std::exchange(g_, nullptr)->sem_.release();
    }

   private:
    ApiGate* g_;
  };
  // Throws UsageError naming `what` when another call (or a run) holds the gate.
  Hold try_enter(const char* what);
  Hold enter() {
    sem_.acquire();
    return Hold(this);
  }

 private:
  std::binary_semaphore sem_{1};
};

class DeviceImpl {
 public:
  DeviceImpl(std::unique_ptr<detail::Transport> transport, std::string locator, const OpenOptions& options);
  ~DeviceImpl();

  // Reads the identification registers; refuses a device that is not an ipusim board
  // or whose register map major this driver does not know.
  static DeviceInfo read_info(detail::Transport& t, std::string locator);

  // Holds the API gate for one call; a call while a run is in flight is a UsageError.
  ApiGate::Hold lock_api(const char* what) { return gate.try_enter(what); }

  void reset_locked();
  void load_locked(const std::map<TileRange, Elf>& programs);
  void dma_to_device(const detail::DmaRequest& r) { dma.at(0)->transfer({&r, 1}); }
  uint64_t dma_from_device(const detail::DmaRequest& r) { return dma.at(1)->transfer({&r, 1}).at(0); }
  const Elf& program_on(uint32_t ipu, uint32_t tile) const;
  void check_tile(uint32_t ipu, uint32_t tile, uint32_t count = 1) const;

  RunResult run_locked(uint32_t supersteps, std::chrono::steady_clock::time_point deadline);
  RunStats read_stats();
  std::vector<std::vector<SuperstepStats>> read_supersteps();
  uint32_t read_state();

  std::unique_ptr<detail::Transport> t;
  DeviceInfo info;
  OpenOptions options;
  detail::IrqEvent irq;
  std::vector<std::unique_ptr<detail::DmaChannel>> dma;
  std::map<TileRange, Elf> loaded;
  detail::SmemAllocator smem;
  detail::StreamTable streams;
  ApiGate gate;
  std::atomic<bool> running{false};
  std::thread async_run;  // run_async's, joined by the next run_async or ~Device

 private:
  void serve_stream_wait();
  void drain_d2h_streams();
  uint32_t wait_run_done(std::chrono::steady_clock::time_point deadline);
};

}  // namespace ipudrv
