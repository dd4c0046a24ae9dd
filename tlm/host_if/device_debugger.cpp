#include "host_if/device_debugger.h"

#include <stdexcept>

#include "host_if/device_model.h"

namespace ipusim::host_if {
namespace {

debug::GdbServerOptions server_options(uint16_t port, const std::atomic<bool>* cancel) {
  debug::GdbServerOptions o;
  o.port = port;
  o.cancel = cancel;
  return o;
}

}  // namespace

DeviceDebugger::DeviceDebugger(DeviceModel& model, platform::Platform& platform, uint16_t port)
    : model_(model), target_(platform), server_(*this, server_options(port, &cancel_)) {
  if (const auto error = server_.listen()) throw std::runtime_error("gdb: " + *error);
  thread_ = std::thread([this] { serve(); });
}

DeviceDebugger::~DeviceDebugger() { stop(); }

void DeviceDebugger::stop() {
  cancel_ = true;
  {
    std::lock_guard lock(mutex_);
    if (!event_) event_ = debug::StopEvent{};  // a resume() waiting: let it go
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

// One gdb after another until stopped. gdb leaving lets a held run go on.
void DeviceDebugger::serve() {
  while (!cancel_) {
    server_.serve();
    if (cancel_) return;
    model_.run_on_model([this] {
      target_.clear_all();  // gdb gone without detaching: nothing may stop the run again
      target_.begin_resume({});
      held_ = false;
    });
    model_.wake();
  }
}

template <typename F>
auto DeviceDebugger::on_model(F&& f) const -> decltype(f()) {
  std::optional<decltype(f())> r;
  model_.run_on_model([&] { r = f(); });
  if (!r) return decltype(f()){};  // the model has stopped
  return *r;
}

// ---- RunHold (model thread) ---------------------------------------------------------------

void DeviceDebugger::run_started() {
  target_.new_run();
  held_ = true;  // until gdb continues it
}

bool DeviceDebugger::after_simulate() {
  std::optional<debug::StopEvent> e = target_.take_stop();
  if (!e) return false;
  held_ = true;
  post(std::move(*e));
  return true;
}

void DeviceDebugger::run_ended() {
  held_ = false;
  post(target_.run_over(/*starved=*/true));
}

void DeviceDebugger::post(debug::StopEvent event) {
  {
    std::lock_guard lock(mutex_);
    event_ = std::move(event);
  }
  cv_.notify_all();
}

// ---- DebugTarget (the stub's thread) ---------------------------------------------------------

debug::StopEvent DeviceDebugger::resume(const debug::Resume& how) {
  {
    std::lock_guard lock(mutex_);
    event_.reset();
  }
  bool over = false;
  model_.run_on_model([&] {
    if (target_.over()) {
      over = true;
      post(target_.initial_stop());  // the run's end, kept until the next run
      return;
    }
    target_.begin_resume(how);
    held_ = false;
  });
  if (!over) model_.wake();
  std::unique_lock lock(mutex_);
  cv_.wait(lock, [&] { return event_.has_value() || cancel_; });
  return event_.value_or(debug::StopEvent{});
}

void DeviceDebugger::interrupt() { target_.interrupt(); }

debug::StopEvent DeviceDebugger::initial_stop() const {
  return on_model([&] { return target_.initial_stop(); });
}

uint32_t DeviceDebugger::ipus() const { return target_.ipus(); }  // fixed at elaboration
uint32_t DeviceDebugger::tiles_per_ipu() const { return target_.tiles_per_ipu(); }
uint32_t DeviceDebugger::slots_per_tile() const { return target_.slots_per_tile(); }
std::vector<debug::DebugTarget::CsrDesc> DeviceDebugger::csrs() const { return target_.csrs(); }

std::string DeviceDebugger::executable(uint32_t ipu) const {
  return on_model([&] { return target_.executable(ipu); });
}

std::vector<debug::ThreadRef> DeviceDebugger::threads() const {
  return on_model([&] { return target_.threads(); });
}
bool DeviceDebugger::alive(const debug::ThreadRef& t) const {
  return on_model([&] { return target_.alive(t); });
}
std::string DeviceDebugger::name(const debug::ThreadRef& t) const { return target_.name(t); }
std::string DeviceDebugger::extra_info(const debug::ThreadRef& t) const {
  return on_model([&] { return target_.extra_info(t); });
}
std::optional<uint32_t> DeviceDebugger::read_register(const debug::ThreadRef& t, uint32_t regno) const {
  return on_model([&] { return target_.read_register(t, regno); });
}
bool DeviceDebugger::write_register(const debug::ThreadRef& t, uint32_t regno, uint32_t value) {
  return on_model([&] { return target_.write_register(t, regno, value); });
}
bool DeviceDebugger::read_memory(const debug::ThreadRef& t, uint32_t address, std::span<uint8_t> out) const {
  return on_model([&] { return target_.read_memory(t, address, out); });
}
bool DeviceDebugger::write_memory(const debug::ThreadRef& t, uint32_t address, std::span<const uint8_t> in) {
  return on_model([&] { return target_.write_memory(t, address, in); });
}
bool DeviceDebugger::insert_breakpoint(uint32_t ipu, uint32_t address) {
  return on_model([&] { return target_.insert_breakpoint(ipu, address); });
}
bool DeviceDebugger::remove_breakpoint(uint32_t ipu, uint32_t address) {
  return on_model([&] { return target_.remove_breakpoint(ipu, address); });
}
bool DeviceDebugger::insert_watchpoint(uint32_t ipu, debug::WatchKind kind, uint32_t address, uint32_t length) {
  return on_model([&] { return target_.insert_watchpoint(ipu, kind, address, length); });
}
bool DeviceDebugger::remove_watchpoint(uint32_t ipu, debug::WatchKind kind, uint32_t address, uint32_t length) {
  return on_model([&] { return target_.remove_watchpoint(ipu, kind, address, length); });
}
void DeviceDebugger::set_catches(std::vector<debug::Catch> catches) {
  model_.run_on_model([&] { target_.set_catches(std::move(catches)); });
}

}  // namespace ipusim::host_if
