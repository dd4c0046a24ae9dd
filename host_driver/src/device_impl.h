// The state behind ipudrv::Device: one session per board (transport, the two DMA
// channels, the streaming-memory allocator, the host streams), the interrupt event every
// board fires, and what is loaded where. Calls are routed by device IPU (board = ipu /
// ipus_per_board). device.cpp has the API calls, run.cpp the run loop with stream
// service, console.cpp the tiles' console on its way to the program.
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

// One board of the device: its host interface's transport and what the driver keeps of it.
struct BoardSession {
  BoardSession(std::unique_ptr<detail::Transport> transport, uint64_t smem_bytes)
      : t(std::move(transport)), smem(smem_bytes) {}
  std::unique_ptr<detail::Transport> t;
  std::vector<std::unique_ptr<detail::DmaChannel>> dma;  // channel 0 (to device), 1 (from)
  detail::SmemAllocator smem;
  detail::StreamTable streams;
  // Device-reachable host memory the tensor calls pack into (tensor_io.cpp): grown to the
  // largest tensor share of this board so far, kept until close.
  std::unique_ptr<detail::HostMemory> tensor_buffer;
};

class DeviceImpl {
 public:
  // `transports`: one per board, in board order.
  DeviceImpl(std::vector<std::unique_ptr<detail::Transport>> transports, std::string locator,
             const OpenOptions& options);
  ~DeviceImpl();

  // Reads the identification registers of every board; refuses a device that is not an
  // ipusim system, whose register map major this driver does not know, or whose boards
  // do not make up the whole system (a run needs every board).
  static DeviceInfo read_info(std::span<const std::unique_ptr<detail::Transport>> boards, std::string locator);

  // Holds the API gate for one call; a call while a run is in flight is a UsageError.
  ApiGate::Hold lock_api(const char* what) { return gate.try_enter(what); }

  void reset_locked();
  void load_locked(const std::map<TileRange, Elf>& programs);
  BoardSession& board(uint32_t b);                 // UsageError past the device's boards
  BoardSession& board_of(uint32_t ipu) { return *boards.at(ipu / info.ipus_per_board); }
  uint32_t local(uint32_t ipu) const { return ipu % info.ipus_per_board; }
  void dma_to_device(BoardSession& b, const detail::DmaRequest& r) { b.dma.at(0)->transfer({&r, 1}); }
  uint64_t dma_from_device(BoardSession& b, const detail::DmaRequest& r) { return b.dma.at(1)->transfer({&r, 1}).at(0); }
  const Elf& program_on(uint32_t ipu, uint32_t tile) const;
  const Elf* find_program(uint32_t ipu, uint32_t tile) const;  // null: none loaded there
  void check_tile(uint32_t ipu, uint32_t tile, uint32_t count = 1) const;

  // A run, with the console collected while it goes on and delivered before it returns.
  // At `deadline`: TimeoutError, the run going on, or (abort_at_deadline) aborted first.
  RunResult run_locked(const RunOptions& options, std::chrono::steady_clock::time_point deadline,
                       bool abort_at_deadline);
  RunStats read_stats();
  std::vector<std::vector<SuperstepStats>> read_supersteps();
  uint32_t read_state();
  // The first board's error registers that hold an error (else board 0's).
  DeviceErrorInfo read_errors();  // the first board in error's registers, pcs located
  void locate(DeviceErrorInfo& e) const;

  std::vector<std::unique_ptr<BoardSession>> boards;
  DeviceInfo info;
  OpenOptions options;
  detail::IrqEvent irq;  // every board's interrupt fires it
  std::map<TileRange, Elf> loaded;
  ApiGate gate;
  std::atomic<bool> running{false};
  // abort() before the run call in flight has written RUN would reach the device first,
  // as an ABORT with no run in progress, and the run would start after it and go on; so
  // it is left to the run, which writes it right after its RUN (run.cpp).
  std::mutex start_mutex;
  bool run_started = false;   // the run call in flight has written RUN
  bool abort_pending = false;  // abort() came before that
  void begin_run();            // a run call starts: running, neither of the above
  void run_written();          // RUN written on every board: the pending abort, if any
  std::thread async_run;  // run_async's, joined by the next run_async or ~Device

  // The console (console.cpp). The device holds it from open (ConsoleRoute::kDrop:
  // nothing printed by the device or the server) and collects it during a run when the
  // program has a handler.
  ConsoleHandler console;                  // empty: off
  std::atomic<bool> console_pending{false};  // the device said lines wait
  std::atomic<uint64_t> console_dropped{0};  // as of the last delivery
  bool console_threw = false;  // the handler threw in this run: it is not called again
  void open_console();   // the handler IPUSIM_CONSOLE chooses; the device's console held
  void close_console();  // no more pending calls into this DeviceImpl
  // Calls `console` with the lines waiting at the device, on this thread: `all`: until
  // none waits; else only if the device said some wait, and a bounded number of pages
  // (the run loop must get back to the registers).
  void deliver_console(bool all);

 private:
  RunResult run_loop(const RunOptions& options, std::chrono::steady_clock::time_point deadline,
                     bool abort_at_deadline);
  uint32_t serve_stream_wait(uint32_t board);
  void drain_d2h_streams();
  // Throws TimeoutError past `deadline`, StopRequested when `stop` says so.
  struct StopRequested {};
  uint32_t wait_run_done(std::chrono::steady_clock::time_point deadline, const std::function<bool()>& stop = {});
  uint32_t superstep_board();  // the board whose SUPERSTEPS counts the run's supersteps
};

}  // namespace ipudrv
