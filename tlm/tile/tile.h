// The SystemC tile: one iss::TileCore (core + SRAM) in a module, with sockets to its
// IPU's sync controller and exchange fabric.
//
// A tile has no SystemC process of its own. The TileEngine (tile_engine.h) runs the
// compute stretches of every ready tile as one parallel batch on host threads (compute():
// the ISS runs to the tile's next stop, touching nothing outside the tile), then, back in
// the SystemC kernel, calls finish_compute() on each tile in (ipu, tile) order; that sends
// the stop out through the tile's sockets. The controller's and the fabric's responses
// (nb_transport_bw) put the tile back on the engine's ready list. So SystemC time never
// advances per instruction, nor per tile: only the controller and the fabric wait.
//
// Sockets
//   mem_socket       TLM-2.0 target (multi-passthrough, zero or more initiators: the host,
//                    a debugger, the IPU's exchange fabric). Addresses are tile addresses
//                    (SRAM at iss::kSramBase). b_transport and transport_dbg read and
//                    write through TileCore::read/write with zero delay added and never
//                    wait. Errors are TLM responses: TLM_ADDRESS_ERROR_RESPONSE for bytes
//                    outside SRAM, a write into code, or a tile with no program;
//                    TLM_BYTE_ENABLE_ERROR_RESPONSE for byte enables;
//                    TLM_BURST_ERROR_RESPONSE for a streaming width shorter than the
//                    length. DMI (get_direct_mem_ptr): a read request is granted read
//                    access to the whole SRAM; a write request read-write access to the
//                    widest range around its address that holds no code (a write into
//                    code is refused, as b_transport refuses it); nothing outside SRAM or
//                    before give_sram(). Answers end (invalidate_direct_mem_ptr to every
//                    initiator) when the SRAM or its program changes: give_sram, boot,
//                    unboot. The
//                    exchange fabric copies its messages through these grants
//                    (docs/exchange.md, "Delivery").
//   sync_socket      TLM-2.0 initiator to the sync controller; payload and protocol:
//                    sync/sync_payload.h. May stay unbound if the program never syncs
//                    (a sync then faults).
//   exchange_socket  TLM-2.0 initiator to the exchange fabric; payload and protocol:
//                    exchange/exchange_payload.h. May stay unbound if the program never
//                    exchanges.
//
// Parameters (TileModuleConfig): identity, sram_bytes, workers, thread_quantum, AMP rates
// (all passed to the ISS) and clock_hz (cycles -> SystemC time).
//
// Statistics (valid between stops and at the end)
//   stop_cycle()          the tile cycle of its latest stop (sync, xwait, halt, fault)
//   cycles_at(end)        the latest cycle of the tile's history (stops and resumes) not
//                         after `end`: what simulated time reached when the run ended at
//                         `end` (cores run ahead: a stretch is simulated whole)
//   instructions()        instructions retired by all threads of the tile
//   syncs()               IPU / group syncs completed
//   sync_stall_cycles()   cycles between arriving at a sync and its release
//   exchanges()           exchanges completed (phases the tile ended with an `xwait`)
//   exchange_stall_cycles() cycles between `xwait` and the exchange's completion
//   exchange_bytes_out() / exchange_bytes_in()  bytes the tile sent (a multicast once) /
//                         received in its completed exchanges
//   exit_code()           the `halt` operand (state Halted)
//   fault()               what stopped the tile (state Faulted)
//   exchange_errors()     every problem of the failed exchange (state ExchangeFailed)
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <systemc>
#include <tlm>
#include <tlm_utils/multi_passthrough_target_socket.h>
#include <tlm_utils/simple_initiator_socket.h>

#include "exchange/exchange_payload.h"
#include "iss/amp_datapath.h"
#include "iss/program.h"
#include "iss/sram.h"
#include "iss/tile_core.h"
#include "sync/sync_payload.h"
#include "tile/superstep.h"
#include "tile/tile_config.h"

namespace ipusim::tile {

// What a checkpoint saves of a tile stopped at a sync (docs/checkpoints.md): its core's
// architectural state and the tile's own run figures; the SRAM is saved apart.
struct TileSnapshot {
  iss::CoreSnapshot core;
  uint64_t resume_cycle = 0, stop_cycle = 0, prev_stop_cycle = 0, last_stretch_cycles = 0;
  uint64_t instret = 0;
  uint32_t sync_zone = 0;
  uint64_t sync_arrival = 0;
  uint32_t syncs = 0;
  uint64_t sync_stall_cycles = 0;
  uint32_t exchanges = 0;
  uint64_t exchange_stall_cycles = 0, exchange_bytes_out = 0, exchange_bytes_in = 0;
  SuperstepTracker::State supersteps;
  // A tile that halted before the checkpoint: its exit code (stop_cycle is its halt).
  bool halted = false;
  int32_t exit_code = 0;
};

// A tile's console buffer: the lines of its running stretch wait here until the engine
// hands them to the platform. When they reach this size (the default of
// Tile::set_console_buffer; a line counts its text plus kConsoleLineCost) the core pauses (iss::PauseReason::ConsoleFull) and the engine takes
// them before it goes on (tile_engine.h, "Console"). The size is checked after each
// console instruction, which is buffered whole (a pause inside one would change what the
// core did), so the buffer holds this much plus the rest of the instruction that filled
// it (a cwrite: up to its length, at most the tile's SRAM, plus kConsoleLineCost per
// line in it) and, when workers run, what the printing thread prints in the rest of its
// quantum (up to the quantum's instructions, each possibly such a cwrite). A tile
// printing lines one by one, as firmware does, stays within about one line of this.
inline constexpr size_t kConsoleBufferBytes = size_t{8} << 10;
inline constexpr size_t kConsoleLineCost = 48;  // a buffered line's own size, near enough

enum class TileState {
  Idle,            // no program loaded: the tile does not run
  Running,         // computing, or ready to (not started yet, released)
  AtSync,          // waiting for its sync zone to release
  AtExchange,      // waiting for its exchange to complete
  Halted,          // the supervisor halted and every worker exited
  Faulted,         // a thread faulted
  ExchangeFailed,  // the fabric rejected the exchange the tile took part in
};
const char* to_string(TileState state);

class Tile;
class TileEngine;

// What a tile tells the rest of the platform. Called in the SystemC kernel's thread.
class TileListener {
 public:
  virtual ~TileListener() = default;
  // A complete console line from `thread` (0 = supervisor), emitted during the compute
  // stretch the engine ran in its batch number `batch`. Lines of one tile arrive in the
  // order the core emitted them; tiles of one batch arrive in (ipu, tile) order.
  virtual void console_line(const Tile& tile, uint64_t batch, uint32_t thread,
                            std::string_view text) = 0;
  // The tile halted, faulted or saw its exchange fail (its state says which).
  virtual void tile_stopped(const Tile& tile) = 0;
  // One of the tile's supersteps closed (superstep.h).
  virtual void superstep_closed(const Tile& tile, const SuperstepRecord& record) = 0;
  // The tile paused before an instruction at one of its RunBounds (pause() says why);
  // it computes no more until Tile::resume_paused().
  virtual void tile_paused(const Tile& tile) { (void)tile; }
};

class Tile : public sc_core::sc_module, private iss::ConsoleSink {
 public:
  using MemSocket = tlm_utils::multi_passthrough_target_socket<
      Tile, 32, tlm::tlm_base_protocol_types, 0, sc_core::SC_ZERO_OR_MORE_BOUND>;
  MemSocket mem_socket;
  tlm_utils::simple_initiator_socket_optional<Tile> sync_socket;
  tlm_utils::simple_initiator_socket_optional<Tile> exchange_socket;

  Tile(sc_core::sc_module_name name, const TileModuleConfig& config);
  ~Tile() override;

  // A program's life on the tile. The tile owns its SRAM (give_sram(), at elaboration for
  // a device; an on-demand mapping, so untouched SRAM costs nothing), and mem_socket
  // serves it with no core, so a host can write a program in by DMA. boot() creates the
  // core over the SRAM as it is and connects the tile to the engine and its listener;
  // load() is a host's load done here: the program's image written into SRAM, then
  // boot(). start() puts a booted tile on the engine's ready list (before or during
  // simulation). unboot() returns the tile to Idle with every byte zero and every
  // statistic cleared. A tile never booted stays Idle. sram() is null before give_sram().
  void give_sram();
  iss::Sram* sram() { return sram_.get(); }
  void load(std::shared_ptr<const iss::Program> program, TileEngine& engine, TileListener& listener);
  void boot(std::shared_ptr<const iss::Program> program, TileEngine& engine, TileListener& listener);
  void start();
  void unboot();
  // Cycle 0 is SystemC time *epoch (its run domain's last start).
  void set_epoch(const sc_core::sc_time* epoch) { clock_.set_epoch(epoch); }
  // Every retired instruction goes to `sink` (nullptr: the fast, untraced loop), also
  // after a later boot. The engine computes a traced tile on the kernel's thread (the
  // sink is shared and its line order must not depend on the host).
  void set_trace(iss::TraceSink* sink);
  // Profiles the tile (borrowed; nullptr: not): given to every core booted, like the trace.
  void set_profile(iss::ProfileSink* sink);
  // Limits and a debug probe for the tile's compute stretches (iss::RunBounds; nullptr:
  // none). Kept across boots; the caller keeps it alive.
  void set_bounds(const iss::RunBounds* bounds);
  // amp.mac's arithmetic on `datapath` (owned; nullptr: the ISS's own), also after a later
  // boot: the co-simulated RTL AMP (tlm/cosim/amp), attached at elaboration.
  void set_amp_datapath(std::unique_ptr<iss::AmpDatapath> datapath);
  iss::AmpDatapath* amp_datapath() const { return amp_datapath_.get(); }
  // The console buffer's size (kConsoleBufferBytes by default): the core pauses when its
  // lines reach it. Any size gives the same lines, order and cycles (tile_engine.h).
  void set_console_buffer(size_t bytes) { console_buffer_bytes_ = bytes; }
  // Paused at a bound (the listener was told): why, which thread issues next, at what
  // cycle and pc. resume_paused() puts the tile back on the engine's ready list; its
  // stretch goes on from where it paused.
  bool paused() const { return run_.paused; }
  const iss::StopInfo& pause() const { return run_.stop; }
  void resume_paused();
  bool traced() const { return trace_ != nullptr; }

  // The engine's interface. compute() runs the core to its next stop; it touches only
  // this tile, so the engine calls it for many tiles at once on host threads.
  // finish_compute() (SystemC thread) delivers the stretch's console lines, stamped with
  // `batch`, and sends the stop through the sockets.
  void compute();
  void finish_compute(uint64_t batch);
  // After a compute that paused (cycle stepping): only the stretch's console lines so far.
  void deliver_console(uint64_t batch);
  // The last compute paused because the console buffer was full
  // (kConsoleBufferBytes): finish_compute() delivered the lines and nothing else; the
  // next compute() goes on with the same stretch.
  bool console_full() const {
    return run_.stop.reason == iss::StopReason::Paused && run_.stop.pause == iss::PauseReason::ConsoleFull;
  }
  // Cycles of the last compute stretch: the engine starts the longest first.
  uint64_t last_stretch_cycles() const { return run_.last_stretch_cycles; }
  // Asks the CPU to fetch the members finish_compute() touches (engine_ .. notice_trans_). In
  // the serial pass over a thousand tiles every tile is cold; the engine calls this a
  // few tiles ahead (measured: the pass 15-20 % shorter).
  void prefetch_for_finish() const;

  const iss::TileIdentity& identity() const { return config_.core.id; }
  const TileModuleConfig& config() const { return config_; }
  const TileClock& clock() const { return clock_; }
  TileState state() const { return run_.state; }
  bool loaded() const { return core_ != nullptr; }
  // The core, for host-side inspection (nullptr while Idle).
  iss::TileCore* core() { return core_.get(); }
  const iss::TileCore* core() const { return core_.get(); }

  uint64_t stop_cycle() const { return run_.stop_cycle; }
  uint64_t cycles_at(uint64_t end_cycle) const;
  // The state simulated time saw at `end_cycle`: Running if the tile's latest stop lies
  // beyond it (its core ran ahead), else state().
  TileState state_at(uint64_t end_cycle) const;
  uint64_t instructions() const;
  uint32_t syncs() const { return run_.syncs; }
  uint64_t sync_stall_cycles() const { return run_.sync_stall_cycles; }
  uint32_t exchanges() const { return run_.exchanges; }
  uint64_t exchange_stall_cycles() const { return run_.exchange_stall_cycles; }
  uint64_t exchange_bytes_out() const { return run_.exchange_bytes_out; }
  uint64_t exchange_bytes_in() const { return run_.exchange_bytes_in; }
  int32_t exit_code() const { return run_.exit_code; }
  // State Faulted: the fault (the ISS's problem record, with the cycle and superstep).
  const iss::Fault* fault() const { return run_.fault.get(); }  // nullptr: none
  const std::vector<Problem>& exchange_errors() const { return run_.exchange_errors; }
  // State ExchangeFailed: the cycle the exchange failed (its last participant's xwait).
  uint64_t exchange_failure_cycle() const { return run_.exchange_failure_cycle; }
  // While AtSync: the zone and the cycle the tile arrived.
  uint32_t sync_zone() const { return run_.sync_msg.zone; }
  uint64_t sync_arrival_cycle() const { return run_.sync_msg.cycle; }
  // Closes the open superstep at the end of a run that did not end with this tile's halt.
  void end_accounting();

  // Checkpoints (docs/checkpoints.md). snapshot(): the tile waits at a sync with its
  // stretch's console lines delivered, or has halted; throws std::logic_error naming the
  // tile and its state otherwise. restore(): after boot() on the same program, before
  // start(); the tile then starts by sending its saved arrival to the sync controller
  // again (the release is computed from the arrivals, so it comes at the cycle it would
  // have), and goes on from there. A tile restored halted stays so (start() does not run
  // it): the platform tells the sync controller and counts the halt. Throws
  // std::invalid_argument for a state its core cannot take.
  TileSnapshot snapshot() const;
  void restore(const TileSnapshot& snapshot);

 private:
  void restore_halted(const TileSnapshot& snapshot);
  void restore_figures(const TileSnapshot& snapshot);  // restore's and restore_halted's
  enum class Release { None, Sync, Exchange };
  void resume(uint64_t cycle, Release release);
  void arrive_at_sync(uint32_t zone);
  void send_arrival();
  void post_exchange();
  void close_exchange_phase();
  void halt();
  void stop_with_fault(iss::Fault fault);
  void fault_here(std::string kind, std::string detail);
  sc_core::sc_time delay_to(uint64_t cycle) const;
  SuperstepTracker::Sink superstep_sink();
  void unboot_core();
  void connect(TileEngine& engine, TileListener& listener);

  // iss::ConsoleSink: buffered while the core runs on a host thread.
  bool line(const iss::TileIdentity& who, uint32_t thread, std::string_view text) override;

  // Responses from the sync controller and the exchange fabric.
  tlm::tlm_sync_enum sync_bw(tlm::tlm_generic_payload& trans, tlm::tlm_phase& phase,
                             sc_core::sc_time& delay);
  tlm::tlm_sync_enum exchange_bw(tlm::tlm_generic_payload& trans, tlm::tlm_phase& phase,
                                 sc_core::sc_time& delay);

  // mem_socket
  void b_transport(int id, tlm::tlm_generic_payload& trans, sc_core::sc_time& delay);
  unsigned int transport_dbg(int id, tlm::tlm_generic_payload& trans);
  tlm::tlm_response_status access(tlm::tlm_generic_payload& trans);
  bool get_direct_mem_ptr(int id, tlm::tlm_generic_payload& trans, tlm::tlm_dmi& dmi);
  void invalidate_direct_access();  // every DMI answer given ends (the SRAM or its code changed)

  TileModuleConfig config_;
  TileClock clock_;
  std::unique_ptr<iss::Sram> sram_;  // the SRAM the core boots over (from load / give_sram)
  std::unique_ptr<iss::TileCore> core_;
  bool dmi_answered_ = false;  // a DMI request was answered (invalidate_direct_access() has work)
  const iss::RunBounds* bounds_ = nullptr;
  size_t console_buffer_bytes_ = kConsoleBufferBytes;
  iss::ProfileSink* profile_ = nullptr;
  iss::TraceSink* trace_ = nullptr;  // set_trace(): given to every core booted
  std::unique_ptr<iss::AmpDatapath> amp_datapath_;  // set_amp_datapath(): likewise
  // engine_ .. notice_trans_: the members finish_compute() and the responses touch, kept
  // together for prefetch_for_finish().
  TileEngine* engine_ = nullptr;
  TileListener* listener_ = nullptr;

  struct ConsoleLine {
    uint32_t thread;
    std::string text;
  };
  // Everything one run of a program changes. unboot resets it by assignment, so a field
  // added here can never be left over from the previous program.
  struct RunState {
    explicit RunState(SuperstepTracker::Sink sink) : supersteps(std::move(sink)) {}
    SuperstepTracker supersteps;
    TileState state = TileState::Idle;
    iss::StopInfo stop;                 // of the last compute()
    // Work done in compute(), on the host thread that runs the tile, while its state is in
    // that thread's cache: the release that resumes the core, and the stop's figures.
    Release pending_release = Release::None;
    uint64_t computed_stop_cycle = 0;
    uint64_t instret = 0;               // at the last stop
    std::vector<ConsoleLine> console;   // lines of the running stretch not yet delivered
    size_t console_bytes = 0;           // their cost (console_buffer_bytes_)
    uint64_t resume_cycle = 0;          // start of the current stretch
    uint64_t stop_cycle = 0;            // end of the last computed stretch
    uint64_t prev_stop_cycle = 0;       // the stop before it
    bool computed = false;              // the current stretch has run (stop_cycle is its end)
    uint64_t last_stretch_cycles = 0;
    bool exchange_phase_open = false;   // released from a sync, no xwait yet
    bool paused = false;                // the stretch paused at a RunBounds (stop says why)
    bool replay_arrival = false;        // restored at a sync: the first stop sends its arrival only
    // The messages of the transactions in flight (one of each at most).
    sync::SyncMessage sync_msg, leave_msg;
    exchange::ExchangeMessage exchange_msg, close_msg;

    uint32_t syncs = 0;
    uint64_t sync_stall_cycles = 0;
    uint32_t exchanges = 0;
    uint64_t exchange_stall_cycles = 0;
    uint64_t exchange_bytes_out = 0, exchange_bytes_in = 0;
    int32_t exit_code = 0;
    std::shared_ptr<const iss::Fault> fault;  // a pointer: most tiles never fault (648 bytes)
    std::vector<Problem> exchange_errors;
    uint64_t exchange_failure_cycle = 0;
  };
  RunState run_;

  // Transactions in flight (one of each at most); the one-shot Close and Leave reuse one
  // payload. Not run state: constructing a payload allocates, so they live as long as
  // the tile.
  tlm::tlm_generic_payload sync_trans_, exchange_trans_, notice_trans_;
};

}  // namespace ipusim::tile
