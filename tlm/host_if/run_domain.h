// What the boards of a system share: the system is one run domain (docs/host_if.md "One
// device, many boards"), so a run starts, pauses, ends, aborts and resets for every board
// at once, while each board keeps its own host interface (BAR0, DMA, gateway, interrupt).
//
//   RunDomain
//     mutex          every board's register mirror, the shared STATE, the command queue
//     state          STATE of every board (they always read alike)
//     joined         the boards that wrote CTRL.RUN for the run that has not started: the
//                    run starts when the last one joins
//     queue          every board's commands in the order written, whatever the board, so
//                    a RESET written to one board acts before a doorbell written after it
//                    to another
//     model side     the run itself: its state is the platform's run state machine
//                    (common/run_state.h); how it ended or stopped after each simulate()
//                    (common/run_end.h) is rendered into every board's registers (STATE,
//                    ERR_*, RUN_DONE)
//
// Threads: the host side (under `mutex`) from any host thread through HostInterface; the
// model side (take_commands, after_simulate, busy, still) on the model thread only.
// Internal to tlm/host_if.
#pragma once

#include <array>
#include <cstdint>
#include <deque>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "host_if/device_link.h"
#include "platform/platform.h"

namespace ipusim::host_if {

class HostInterface;

// A channel's ring as a doorbell (a DMAn_TAIL write) left it. The model's channel issues
// only what the doorbells it has taken posted, never what the mirror says: a TAIL
// written after a RESET or a BOOT must not act before them.
struct Doorbell {
  uint64_t generation = 0;  // the mirror's channel generation when it was rung
  uint64_t ring = 0;
  uint32_t size = 0, tail = 0;
};

// A command a board's register write queued for the model thread.
struct Command {
  enum class Kind { Reset, Run, Abort, Boot, Kick, Irq } kind;
  uint32_t a = 0;                      // Kick: channel; Irq: causes
  uint32_t board = 0;                  // the board written (Run, Reset: every board)
  bool resume = false;                 // Run: from PAUSED / STREAM_WAIT
  std::vector<uint32_t> supersteps{};  // Run: each board's RUN_SUPERSTEPS
  platform::RunLimits limits{};        // Run from READY: the boards' RUN_MAX_* (the tightest)
  std::array<uint32_t, 6> boot{};      // Boot: BOOT_IPU .. BOOT_CODE_SIZE
  Doorbell doorbell{};                 // Kick
};

// A debugger holding the runs (device_debugger.h): the model thread asks it before and
// after every simulate(), and tells it when a run starts and ends. Model thread only.
class RunHold {
 public:
  virtual ~RunHold() = default;
  virtual void run_started() = 0;
  // The debugger holds the run (stopped in it): no simulate() until it lets go.
  virtual bool holding() const = 0;
  // After a simulate(): true if the kernel paused because the debugger stopped the run
  // (then the run is held, not classified).
  virtual bool after_simulate() = 0;
  virtual void run_ended() = 0;
};

class RunDomain {
 public:
  // `wake` is called (any thread) when a command is queued.
  RunDomain(platform::Platform& platform, std::function<void()> wake);
  void add_board(HostInterface& board);  // at elaboration, in board order
  void set_hold(RunHold* hold) { hold_ = hold; }  // model thread; nullptr: none
  // Model thread: a run that ends on a problem (a fault, an exchange error, a deadlock, a
  // budget) writes one ELF core per IPU there (platform/core_dump.h); "": none.
  void set_core_dir(std::string dir);
  uint32_t boards() const { return uint32_t(boards_.size()); }

  // ---- host side, with `mutex` held ------------------------------------------------
  std::mutex mutex;
  uint32_t state = IPU_STATE_IDLE;
  uint64_t reset_epoch = 0;  // host RESETs written; the model's updates of an older epoch are dropped
  void queue(Command c);
  // CTRL written to `board` (RESET, RUN or ABORT; validated by the caller).
  void reset_locked();
  void run_locked(uint32_t board, uint32_t supersteps, const platform::RunLimits& limits = {});
  void abort_locked(uint32_t board);
  // The model is up to date with the host's RESETs (its updates may land).
  bool current_locked() const { return reset_epoch == model_epoch_; }

  // ---- model thread ------------------------------------------------------------------
  // Acts on the queued commands in order (BOOT and RUN first let the DMA posted before
  // them retire).
  void take_commands();
  // Runs the kernel once (Platform::simulate) and classifies the run: every board's
  // registers follow, RUN_DONE and ERROR are raised. Paused on a host stream: only what
  // is due at the current time, until the host's DMA has retired.
  void step();
  // The kernel has work: a run, or DMA descriptors to retire.
  bool busy();
  // Paused on a host stream: simulated time stands still (the host's DMA takes none).
  bool still() const { return platform_.run_state() == RunState::StreamWait; }
  // Every board's statistics registers follow the model (the ticker's refresh).
  void update_stats();

  // ---- IPU-Links, shared by the boards (any thread) ------------------------------------
  // The faults of the runs started from READY from now on (DeviceLink::set_link_faults).
  void set_link_faults(const links::FaultPlan& plan);
  void set_link_faults_locked(const links::FaultPlan& plan) { next_faults_ = plan; }  // `mutex` held
  // The link figures as of the last stop of a run.
  std::vector<records::LinkStats> link_stats();

 private:
  void apply(const Command& c);
  void after_simulate(bool starved);
  void drain_dma();
  bool dma_busy();
  // Every board: the end's problem (if it failed) to ERR_*, statistics, then STATE and
  // RUN_DONE.
  void end_run(const RunEnd& end);
  void record_all(const Problem& e);
  std::string trace_path();
  void mirror_links();  // the link figures of the run so far, for link_stats()

  platform::Platform& platform_;
  std::function<void()> wake_;
  RunHold* hold_ = nullptr;
  std::string core_dir_;
  void write_cores(const Problem& reason);
  std::vector<HostInterface*> boards_;
  std::deque<Command> queue_;             // mutex
  std::vector<uint8_t> joined_;           // mutex: CTRL.RUN written, by board
  std::vector<uint32_t> joined_supersteps_;  // mutex: their RUN_SUPERSTEPS
  bool join_resumes_ = false;             // mutex: the joined run continues a paused one
  platform::RunLimits joined_limits_;     // mutex: the tightest RUN_MAX_* of the boards joined
  std::optional<links::FaultPlan> next_faults_;  // mutex: for the next RUN from READY
  std::vector<records::LinkStats> links_;       // mutex: as of the last stop
  // Model thread.
  uint64_t model_epoch_ = 0;
  bool running() const { return platform_.run_state() == RunState::Running; }
};

}  // namespace ipusim::host_if
