// The process's device model: the system elaborated once (platform::Platform, the whole
// system one run domain, RunDomain; one HostInterface per board) and the two threads
// that run it. The model thread loops: take the boards' queued commands in the order
// written, then, while the run goes on or some board has DMA to retire, run the kernel
// and let the domain classify what happened. A host write sets the attention flag, so a running
// kernel pauses at the engine's next batch and the command is taken promptly; the ticker
// does the same every 20 ms of a run, so the statistics registers follow it. Sessions
// (model_session.h) open it; the process owns it (model_session.cpp). Internal to
// tlm/host_if.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "common/config.h"
#include "host_if/device_debugger.h"
#include "host_if/host_interface.h"
#include "host_if/model_session.h"
#include "host_if/run_domain.h"
#include "platform/platform.h"

namespace ipusim::host_if {

class DeviceModel {
 public:
  // Elaborates on the model thread and returns once that is done; throws what
  // elaboration throws (the thread is joined first).
  DeviceModel(const config::SystemConfig& config, const ModelOptions& options);

  // Stops and joins the model thread and the ticker. The model thread stops at the next
  // point it can: idle, or between two batches of a run (the interrupt flag of the
  // platform's budget ends a batch whose tile loops for ever). Calls queued before run
  // first; after it, run_on_model() and wake() do nothing. The model itself stays: see
  // ModelOwner (model_session.cpp).
  void stop();

  const config::SystemConfig& config() const { return config_; }
  const std::string& waves() const { return waves_; }  // ModelOptions::waves
  bool open = false;  // a session has it (ModelSession, under its open mutex)
  HostInterface& board(uint32_t b) { return *boards_.at(b); }
  uint32_t boards() const { return uint32_t(boards_.size()); }
  void set_console(std::FILE* out);
  // From now on every run waits for gdb on 127.0.0.1:`port` (0: any free port) and is
  // debugged by it (device_debugger.h). Returns the port; the same one again if a
  // debugger is already there. Throws std::runtime_error if it cannot listen.
  uint16_t serve_gdb(uint16_t port);
  // From now on a run that ends on a problem writes ELF cores to `dir` (RunDomain).
  void set_core_dir(const std::string& dir);

  // A board queued a command (any thread): the model thread takes it soon.
  void wake();
  // Runs `f` on the model thread after every command queued before, and waits for it
  // (once stop() began: returns at once without running it).
  void run_on_model(std::function<void()> f);

 private:
  void elaborate(const ModelOptions& options);
  void tick();  // the ticker thread
  void loop();  // the model thread after elaboration

  const config::SystemConfig config_;
  const std::string waves_;
  std::thread thread_;  // the model: elaboration, then loop()
  std::thread ticker_;  // tick()
  std::unique_ptr<platform::Platform> platform_;
  std::unique_ptr<RunDomain> domain_;
  std::vector<std::unique_ptr<HostInterface>> boards_;
  std::unique_ptr<DeviceDebugger> debugger_;  // ModelOptions::gdb_port
  static constexpr auto kRefresh = std::chrono::milliseconds(20);
  std::atomic<bool> attention_{false};
  std::atomic<bool> simulating_{false};
  std::mutex mutex_;
  std::condition_variable cv_;       // the model thread waits for work on it
  std::condition_variable tick_cv_;  // the ticker's own: a wake-up for the model is never its
  bool pending_ = false;
  bool busy_ = false;
  bool stopping_ = false;
  std::vector<std::function<void()>> calls_;
};

}  // namespace ipusim::host_if
