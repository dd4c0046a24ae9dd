// DeviceModel (device_model.h): elaboration on the model thread, the model loop, the
// ticker. The loop takes the queued commands, then, while the run goes on or some board
// has DMA to retire, runs the kernel and lets the run domain classify what happened.
#include "host_if/device_model.h"

#include <cstdio>
#include <exception>
#include <future>
#include <string>

#include "platform/memory_reserve.h"
#include "platform/netlist.h"

namespace ipusim::host_if {

DeviceModel::DeviceModel(const config::SystemConfig& config, const ModelOptions& options)
    : config_(config), waves_(options.waves) {
  std::promise<void> built;
  auto ready = built.get_future();
  thread_ = std::thread([this, options, &built] {
    try {
      elaborate(options);
      built.set_value();
    } catch (...) {
      built.set_exception(std::current_exception());
      return;
    }
    loop();
  });
  try {
    ready.get();
  } catch (...) {
    thread_.join();  // it has returned: elaboration failed
    throw;
  }
  ticker_ = std::thread([this] { tick(); });
}

void DeviceModel::stop() {
  if (debugger_) debugger_->stop();  // its requests wait for this thread
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (stopping_) return;
    stopping_ = true;
  }
  // A batch whose tile loops for ever ends at the tiles' next quantum (RunBounds'
  // interrupt), so the model thread can be joined; the run is never resumed.
  if (platform_) platform_->budget().interrupt();
  attention_.store(true, std::memory_order_release);
  cv_.notify_all();
  tick_cv_.notify_all();
  if (thread_.joinable()) thread_.join();
  if (ticker_.joinable()) ticker_.join();
}

void DeviceModel::set_console(std::FILE* out) {
  run_on_model([this, out] { platform_->set_console(out); });
}

void DeviceModel::wake() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (stopping_) return;
    pending_ = true;
  }
  attention_.store(true, std::memory_order_release);
  cv_.notify_one();
}

void DeviceModel::run_on_model(std::function<void()> f) {
  std::promise<void> done;
  auto fut = done.get_future();
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (stopping_) return;  // the model thread is gone, or runs the queued calls and ends
    calls_.push_back([&] {
      f();
      done.set_value();
    });
    pending_ = true;
  }
  attention_.store(true, std::memory_order_release);
  cv_.notify_one();
  fut.get();
}

void DeviceModel::elaborate(const ModelOptions& options) {
  platform::PlatformOptions po;
  po.host_threads = options.host_threads;
  po.console_out = options.console;
  po.console = options.console_mode;
  if (!options.waves.empty()) po.waves = std::make_shared<cosim::Waves>(options.waves);
  platform_ = std::make_unique<platform::Platform>(config_, po);  // abandons its own netlist if it fails
  platform::MemoryReserve reserve(size_t{4} << 20);  // room to report a failure (platform/memory_reserve.h)
  try {
    platform_->set_attention(&attention_);
    // The device's own console (the model's IPUSIM_CONSOLE, `ipusim serve`'s stdout) that
    // cannot be written: said once on stderr; the run goes on, its lines are dropped (a
    // host's run is the host's to end).
    platform_->set_console_write_error_hook([](const std::string& error) {
      std::fprintf(stderr, "ipusim: error: console: writing the device's console failed: %s (later lines dropped)\n",
                   error.c_str());
    });
    domain_ = std::make_unique<RunDomain>(*platform_, [this] { wake(); });
    for (uint32_t b = 0; b < config_.boards; ++b) {
      const std::string name = "host_if" + std::to_string(b);
      boards_.push_back(std::make_unique<HostInterface>(name.c_str(), config_, b, *platform_, *domain_));
    }
  } catch (const std::exception& e) {
    reserve.release();
    const size_t failed_board = boards_.size();
    // Not destroyed: tearing down a big netlist takes minutes (platform::ElaborationError).
    for (auto& board : boards_) static_cast<void>(board.release());
    static_cast<void>(domain_.release());
    static_cast<void>(platform_.release());
    if (dynamic_cast<const platform::ElaborationError*>(&e)) throw;
    throw platform::ElaborationError("building board " + std::to_string(failed_board) + "'s host interface: " +
                                     e.what());
  }
  platform_->simulate();  // ends elaboration, starts the processes; nothing runs yet
}

void DeviceModel::set_core_dir(const std::string& dir) {
  run_on_model([&] { domain_->set_core_dir(dir); });
}

uint16_t DeviceModel::serve_gdb(uint16_t port) {
  std::exception_ptr error;
  run_on_model([&] {
    if (debugger_) return;
    try {
      debugger_ = std::make_unique<DeviceDebugger>(*this, *platform_, port);
      domain_->set_hold(debugger_.get());
    } catch (...) {
      error = std::current_exception();
    }
  });
  if (error) std::rethrow_exception(error);
  if (!debugger_) throw std::runtime_error("gdb: the device model has stopped");
  return debugger_->port();
}

// The statistics registers of a long run follow it: every kRefresh of a run the kernel
// pauses at its next batch and the boards update their mirrors.
void DeviceModel::tick() {
  std::unique_lock<std::mutex> lock(mutex_);
  while (!tick_cv_.wait_for(lock, kRefresh, [&] { return stopping_; }))
    if (simulating_.load(std::memory_order_relaxed)) attention_.store(true, std::memory_order_release);
}

void DeviceModel::loop() {
  for (;;) {
    std::vector<std::function<void()>> calls;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      cv_.wait(lock, [&] { return pending_ || busy_ || stopping_; });
      pending_ = false;
      calls.swap(calls_);
      if (stopping_) {
        // Their callers wait for them; no call can be queued any more.
        lock.unlock();
        for (auto& c : calls) c();
        return;
      }
    }
    attention_.store(false, std::memory_order_release);
    domain_->take_commands();
    for (auto& c : calls) c();
    bool busy = domain_->busy();
    simulating_.store(busy, std::memory_order_relaxed);
    if (busy) domain_->step();
    busy = domain_->busy();
    simulating_.store(busy, std::memory_order_relaxed);  // idle: the ticker stops nudging
    std::lock_guard<std::mutex> lock(mutex_);
    busy_ = busy;
  }
}

}  // namespace ipusim::host_if
