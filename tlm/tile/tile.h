// The SystemC tile: one iss::TileCore (core + SRAM) in a module.
//
// The tile's thread runs the core until it stops at a platform event (sync, halt,
// fault), then advances SystemC time by the cycles that stretch took: one wait per
// stop, never one per instruction. Between stops a tile touches nothing outside itself
// (BSP compute phase), so running it ahead of the kernel's time loses no exactness.
//
// Sockets
//   host_socket  TLM-2.0 target: host / debugger access to the tile's SRAM. Addresses are
//                tile addresses (SRAM at iss::kSramBase). b_transport and transport_dbg
//                read and write through TileCore::read/write, with zero delay added.
//                Errors are TLM responses: TLM_ADDRESS_ERROR_RESPONSE for bytes outside
//                SRAM or a tile with no program loaded, TLM_BYTE_ENABLE_ERROR_RESPONSE
//                for byte enables, TLM_BURST_ERROR_RESPONSE for a streaming width
//                shorter than the length. No DMI yet.
//
// Parameters (TileModuleConfig): identity, sram_bytes, workers, thread_quantum (all
// passed to the ISS) and clock_hz (cycles -> SystemC time).
//
// Statistics (valid once the tile stopped, or at any point between stops)
//   cycles()             tile cycle the tile has reached in simulated time: its last stop
//                        (or sync release) that SystemC time got to. A stretch runs whole
//                        before its wait, so when the simulation stops inside one (another
//                        tile faulted), the core is ahead of this; cycles() is not.
//   instructions()       instructions retired by all threads of the tile (including such
//                        a stretch run ahead)
//   syncs()              IPU / group syncs completed
//   sync_stall_cycles()  cycles spent between arriving at a sync and its release
//   exit_code()          the `halt` operand (state Halted)
//   fault()              what stopped the tile (state Faulted)
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_target_socket.h>

#include "iss/program.h"
#include "iss/tile_core.h"
#include "tile/sync_port.h"
#include "tile/tile_config.h"

namespace ipusim::tile {

enum class TileState {
  Idle,     // no program loaded: the tile does not run
  Running,  // between stops, or not started yet
  AtSync,   // waiting for its sync zone to release
  Halted,   // the supervisor halted and every worker exited
  Faulted,  // a thread faulted
};
const char* to_string(TileState state);

class Tile;

// What a tile tells the rest of the platform. Called from the tile's SC_THREAD.
class TileListener {
 public:
  virtual ~TileListener() = default;
  // A complete console line from `thread` (0 = supervisor), emitted during the compute
  // stretch that started at `stretch_start` (SystemC time, the tile's clock when it
  // resumed). Lines of one tile arrive in the order the core emitted them.
  virtual void console_line(const Tile& tile, const sc_core::sc_time& stretch_start,
                            uint32_t thread, std::string_view text) = 0;
  // The tile halted or faulted; SystemC time is at the tile's stop cycle. A fault is
  // the listener's to act on (the platform stops the simulation).
  virtual void tile_stopped(const Tile& tile) = 0;
};

class Tile : public sc_core::sc_module, private iss::ConsoleSink {
 public:
  tlm_utils::simple_target_socket_optional<Tile> host_socket;  // may stay unbound

  Tile(sc_core::sc_module_name name, const TileModuleConfig& config);
  ~Tile() override;

  // Elaboration-time set-up. load() creates the core with `program` in SRAM; a tile
  // never loaded stays Idle. connect() must precede the start of simulation for a
  // loaded tile; `sync` may be null if the program never syncs (a sync then faults).
  void load(std::shared_ptr<const iss::Program> program);
  void connect(SyncPort* sync, TileListener* listener);
  // Every retired instruction goes to `sink` (nullptr: the fast, untraced loop).
  void set_trace(iss::TraceSink* sink);

  const iss::TileIdentity& identity() const { return config_.core.id; }
  const TileModuleConfig& config() const { return config_; }
  const TileClock& clock() const { return clock_; }
  TileState state() const { return state_; }
  bool loaded() const { return core_ != nullptr; }
  // The core, for host-side inspection (nullptr while Idle).
  iss::TileCore* core() { return core_.get(); }
  const iss::TileCore* core() const { return core_.get(); }

  uint64_t cycles() const { return cycles_; }
  uint64_t instructions() const;
  uint32_t syncs() const { return syncs_; }
  uint64_t sync_stall_cycles() const { return sync_stall_cycles_; }
  int32_t exit_code() const { return exit_code_; }
  const std::optional<iss::Fault>& fault() const { return fault_; }
  // "tile 12 (ipu 0) thread 3 pc 0x...: kind: detail [disasm]" (empty unless Faulted).
  std::string fault_message() const;
  // While AtSync: the zone and the cycle the tile arrived.
  uint32_t sync_zone() const { return sync_zone_; }
  uint64_t sync_arrival_cycle() const { return sync_arrival_cycle_; }

 private:
  void run_thread();
  void run_core();  // returns when the tile halts or faults
  void advance_to(uint64_t cycle);
  void stop_with_fault(iss::Fault fault);

  // iss::ConsoleSink: the core's console lines, forwarded to the listener.
  void line(const iss::TileIdentity& who, uint32_t thread, std::string_view text) override;

  // host_socket
  void b_transport(tlm::tlm_generic_payload& trans, sc_core::sc_time& delay);
  unsigned int transport_dbg(tlm::tlm_generic_payload& trans);
  tlm::tlm_response_status access(tlm::tlm_generic_payload& trans);

  TileModuleConfig config_;
  TileClock clock_;
  std::unique_ptr<iss::TileCore> core_;
  SyncPort* sync_ = nullptr;
  TileListener* listener_ = nullptr;

  TileState state_ = TileState::Idle;
  sc_core::sc_time stretch_start_;
  sc_core::sc_event parked_;  // never notified: where a stopped tile's thread rests
  uint64_t cycles_ = 0;
  uint32_t syncs_ = 0;
  uint64_t sync_stall_cycles_ = 0;
  uint32_t sync_zone_ = 0;
  uint64_t sync_arrival_cycle_ = 0;
  int32_t exit_code_ = 0;
  std::optional<iss::Fault> fault_;
};

}  // namespace ipusim::tile
