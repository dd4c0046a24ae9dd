// A device's runs served to gdb (ModelOptions::gdb_port: `ipusim serve --gdb PORT`,
// ipudrv::OpenOptions::gdb_port). docs/debugging.md, "Devices".
//
// The gdb stub (debug::GdbServer) runs on a thread of its own and serves one gdb at a
// time, one after another. Every run the host starts waits at its start for gdb: the
// run is held until a gdb attaches and continues it, and when it ends gdb sees the
// process exit. Meanwhile the model thread serves the host as always (registers, DMA,
// abort, reset): the debugger's requests are run on it between kernel steps
// (DeviceModel::run_on_model), and a stop the debugger asked for holds the run (RunHold)
// instead of ending it. A device with a debugger runs its tiles serially in the engine's
// cycle stepping (free at full interpreter speed when gdb has nothing set).
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>

#include "debug/debug_target.h"
#include "debug/gdb_server.h"
#include "debug/platform_target.h"
#include "host_if/run_domain.h"

namespace ipusim::host_if {

class DeviceModel;

class DeviceDebugger : public debug::DebugTarget, public RunHold {
 public:
  // On the model thread, after elaboration: attaches to `platform` and listens on
  // 127.0.0.1:`port` (0: any free port). Throws std::runtime_error if it cannot listen.
  DeviceDebugger(DeviceModel& model, platform::Platform& platform, uint16_t port);
  // Stops the stub's thread (a gdb connected is let go). Not on the model thread while
  // a request of the stub waits for it.
  ~DeviceDebugger() override;
  void stop();
  uint16_t port() const { return server_.port(); }

  // RunHold (model thread)
  void run_started() override;
  bool holding() const override { return held_; }
  bool after_simulate() override;
  void run_ended() override;

  // DebugTarget (the stub's thread): each request runs on the model thread.
  uint32_t ipus() const override;
  uint32_t tiles_per_ipu() const override;
  uint32_t slots_per_tile() const override;
  std::vector<debug::ThreadRef> threads() const override;
  bool alive(const debug::ThreadRef& thread) const override;
  std::string name(const debug::ThreadRef& thread) const override;
  std::string extra_info(const debug::ThreadRef& thread) const override;
  std::vector<CsrDesc> csrs() const override;
  std::string executable(uint32_t ipu) const override;
  std::optional<uint32_t> read_register(const debug::ThreadRef& thread, uint32_t regno) const override;
  bool write_register(const debug::ThreadRef& thread, uint32_t regno, uint32_t value) override;
  bool read_memory(const debug::ThreadRef& thread, uint32_t address, std::span<uint8_t> out) const override;
  bool write_memory(const debug::ThreadRef& thread, uint32_t address, std::span<const uint8_t> in) override;
  bool insert_breakpoint(uint32_t ipu, uint32_t address) override;
  bool remove_breakpoint(uint32_t ipu, uint32_t address) override;
  bool insert_watchpoint(uint32_t ipu, debug::WatchKind kind, uint32_t address, uint32_t length) override;
  bool remove_watchpoint(uint32_t ipu, debug::WatchKind kind, uint32_t address, uint32_t length) override;
  void set_catches(std::vector<debug::Catch> catches) override;
  debug::StopEvent resume(const debug::Resume& how) override;
  void interrupt() override;
  debug::StopEvent initial_stop() const override;

 private:
  // Runs `f` on the model thread and returns its result.
  template <typename F>
  auto on_model(F&& f) const -> decltype(f());
  void serve();  // the stub's thread
  void post(debug::StopEvent event);  // model thread: what the waiting resume() returns

  DeviceModel& model_;
  debug::PlatformTarget target_;  // model thread only
  std::atomic<bool> cancel_{false};
  debug::GdbServer server_;
  bool held_ = false;  // model thread: the run waits for the debugger
  std::mutex mutex_;
  std::condition_variable cv_;
  std::optional<debug::StopEvent> event_;  // mutex_: a stop for the waiting resume()
  std::thread thread_;
};

}  // namespace ipusim::host_if
