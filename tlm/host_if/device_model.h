// The process's device model: the system elaborated once (platform::Platform with one
// run domain per board, and one HostInterface per board) and the two threads that run
// it. The model thread loops: take every board's queued commands, then, while some
// board runs or has DMA to retire, run the kernel (Platform::simulate) and let each
// board classify what happened. A host write sets the attention flag, so a running
// kernel pauses at the engine's next batch and the command is taken promptly; the ticker
// does the same every 20 ms of a run, so the statistics registers follow it. Sessions
// (model_session.h) open it; the process owns it (model_session.cpp). Internal to
// tlm/host_if.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <exception>
#include <functional>
#include <future>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "host_if/host_interface.h"
#include "host_if/model_session.h"
#include "platform/platform.h"

namespace ipusim::host_if {

class DeviceModel {
 public:
  DeviceModel(const config::SystemConfig& config, const ModelOptions& options) : config_(config) {
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

  // Stops and joins the model thread and the ticker. The model thread stops at the next
  // point it can: idle, or between two batches of a run (a batch that never ends, a tile
  // in an endless loop without a sync, cannot be interrupted). The platform stays: see
  // ModelOwner.
  void stop() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (stopping_) return;
      stopping_ = true;
    }
    attention_.store(true, std::memory_order_release);
    cv_.notify_all();
    tick_cv_.notify_all();
    if (thread_.joinable()) thread_.join();
    if (ticker_.joinable()) ticker_.join();
  }

  // Hands over the elaborated modules (ModelOwner keeps them past the threads).
  std::unique_ptr<platform::Platform> release_platform() { return std::move(platform_); }
  std::vector<std::unique_ptr<HostInterface>> release_boards() { return std::move(boards_); }

  const config::SystemConfig& config() const { return config_; }
  bool open = false;
  HostInterface& board(uint32_t b) { return *boards_.at(b); }
  uint32_t boards() const { return uint32_t(boards_.size()); }
  void set_console(std::FILE* out) {
    run_on_model([this, out] { platform_->set_console(out); });
  }

  void wake() {
    attention_.store(true, std::memory_order_release);
    {
      std::lock_guard<std::mutex> lock(mutex_);
      pending_ = true;
    }
    cv_.notify_one();
  }

  // Runs `f` on the model thread after every command queued before, and waits for it.
  void run_on_model(std::function<void()> f) {
    std::promise<void> done;
    auto fut = done.get_future();
    {
      std::lock_guard<std::mutex> lock(mutex_);
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

 private:
  void elaborate(const ModelOptions& options) {
    platform::PlatformOptions po;
    po.scope = platform::PlatformOptions::RunScope::Board;  // each board is a device of its own
    po.host_threads = options.host_threads;
    po.console_out = options.console;
    po.console = options.console_mode;
    platform_ = std::make_unique<platform::Platform>(config_, po);
    platform_->set_attention(&attention_);
    for (uint32_t b = 0; b < config_.boards; ++b) {
      const std::string name = "host_if" + std::to_string(b);
      boards_.push_back(std::make_unique<HostInterface>(name.c_str(), config_, b, *platform_, [this] { wake(); }));
    }
    platform_->simulate();  // ends elaboration, starts the processes; nothing runs yet
  }

  void step() {
    const bool starved = platform_->simulate();
    for (auto& b : boards_) b->after_simulate(starved);
  }

  // The statistics registers of a long run follow it: every kRefresh of a run the kernel
  // pauses at its next batch and the boards update their mirrors.
  void tick() {
    std::unique_lock<std::mutex> lock(mutex_);
    while (!tick_cv_.wait_for(lock, kRefresh, [&] { return stopping_; }))
      if (simulating_.load(std::memory_order_relaxed)) attention_.store(true, std::memory_order_release);
  }

  void loop() {
    const std::function<void()> simulate = [this] { step(); };
    for (;;) {
      std::vector<std::function<void()>> calls;
      {
        std::unique_lock<std::mutex> lock(mutex_);
        cv_.wait(lock, [&] { return pending_ || busy_ || stopping_; });
        if (stopping_) return;
        pending_ = false;
        calls.swap(calls_);
      }
      attention_.store(false, std::memory_order_release);
      for (auto& b : boards_) b->take_commands(simulate);
      for (auto& c : calls) c();
      bool busy = false;
      for (auto& b : boards_) busy = busy || b->busy();
      simulating_.store(busy, std::memory_order_relaxed);
      if (busy) step();
      busy = false;
      for (auto& b : boards_) busy = busy || b->busy();
      std::lock_guard<std::mutex> lock(mutex_);
      busy_ = busy;
    }
  }

  const config::SystemConfig config_;
  std::thread thread_;  // the model: elaboration, then loop()
  std::thread ticker_;  // tick()
  std::unique_ptr<platform::Platform> platform_;
  std::vector<std::unique_ptr<HostInterface>> boards_;
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
