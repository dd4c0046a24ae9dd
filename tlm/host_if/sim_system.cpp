// SimSystem: the process-wide model (elaborated once, on its own thread) and the
// sessions that open it. The model thread loops: take every board's queued commands,
// then, while some board runs or has DMA to retire, run the kernel (Platform::simulate)
// and let each board classify what happened. A host write sets the attention flag, so a
// running kernel pauses at the engine's next batch and the command is taken promptly; a
// ticker does the same every 20 ms of a run, so the statistics registers follow it.
#include "host_if/sim_system.h"

#include <chrono>
#include <condition_variable>
#include <exception>
#include <future>
#include <mutex>
#include <stdexcept>
#include <thread>
#include <vector>

#include "host_if/host_interface.h"
#include "platform/platform.h"

namespace ipusim::host_if {

class SimModel {
 public:
  SimModel(const config::SystemConfig& config, const SimSystemOptions& options) : config_(config) {
    std::promise<void> built;
    auto ready = built.get_future();
    thread_ = std::thread([this, options, &built] {
      try {
        elaborate(options);
        built.set_value();
      } catch (...) {
        failed_ = true;
        built.set_exception(std::current_exception());
        return;
      }
      loop();
    });
    thread_.detach();  // lives as long as the process (SystemC elaborates once)
    ready.get();
    // The statistics registers of a long run follow it: every kRefresh the kernel pauses
    // at its next batch and the boards update their mirrors.
    std::thread([this] {
      for (;;) {
        std::this_thread::sleep_for(kRefresh);
        if (simulating_.load(std::memory_order_relaxed)) attention_.store(true, std::memory_order_release);
      }
    }).detach();
  }

  const config::SystemConfig& config() const { return config_; }
  bool failed() const { return failed_; }
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
  void elaborate(const SimSystemOptions& options) {
    platform::PlatformOptions po;
    po.device = true;
    po.stream_host = true;  // the driver serves the host streams (STREAM_WAIT)
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

  void loop() {
    const std::function<void()> simulate = [this] { step(); };
    for (;;) {
      std::vector<std::function<void()>> calls;
      {
        std::unique_lock<std::mutex> lock(mutex_);
        cv_.wait(lock, [&] { return pending_ || busy_; });
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
  std::thread thread_;
  bool failed_ = false;
  std::unique_ptr<platform::Platform> platform_;
  std::vector<std::unique_ptr<HostInterface>> boards_;
  static constexpr auto kRefresh = std::chrono::milliseconds(20);
  std::atomic<bool> attention_{false};
  std::atomic<bool> simulating_{false};
  std::mutex mutex_;
  std::condition_variable cv_;
  bool pending_ = false;
  bool busy_ = false;
  std::vector<std::function<void()>> calls_;
};

namespace {

std::mutex g_open_mutex;
SimModel* g_model = nullptr;  // never destroyed: the process elaborates once

}  // namespace

std::unique_ptr<SimSystem> SimSystem::open(const config::SystemConfig& config, const SimSystemOptions& options) {
  std::lock_guard<std::mutex> lock(g_open_mutex);
  if (g_model) {
    if (g_model->open) throw std::runtime_error("SimSystem::open: a simulated system is already open in this process");
    if (!(g_model->config() == config))
      throw std::runtime_error("SimSystem::open: this process already elaborated the system '" + g_model->config().name +
                               "'; SystemC elaborates once per process, so a different config ('" + config.name +
                               "') needs a new process");
    g_model->set_console(options.console);
  } else {
    if (options.host_threads == 0) throw std::invalid_argument("SimSystem: host_threads must be at least 1");
    auto* model = new SimModel(config, options);  // throws what elaboration throws
    g_model = model;
  }
  g_model->open = true;
  return std::unique_ptr<SimSystem>(new SimSystem(*g_model));
}

SimSystem::~SimSystem() {
  for (uint32_t b = 0; b < model_.boards(); ++b) model_.board(b).write32(IPU_REG_CTRL, IPU_CTRL_RESET_MASK);
  wait_idle();
  for (uint32_t b = 0; b < model_.boards(); ++b) model_.board(b).detach_host();
  std::lock_guard<std::mutex> lock(g_open_mutex);
  model_.open = false;
}

uint32_t SimSystem::boards() const { return model_.boards(); }
const config::SystemConfig& SimSystem::config() const { return model_.config(); }
DeviceLink& SimSystem::link(uint32_t board) { return host_interface(board); }

HostInterface& SimSystem::host_interface(uint32_t board) {
  if (board >= model_.boards())
    throw std::out_of_range("SimSystem: board " + std::to_string(board) + " (the system has " +
                            std::to_string(model_.boards()) + ")");
  return model_.board(board);
}

void SimSystem::wait_idle() { model_.run_on_model([] {}); }

}  // namespace ipusim::host_if
