#include "cosim/rtl_checks.h"

#include <unistd.h>

#include <atomic>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <utility>

#include <svdpi.h>
#include <verilated.h>
#if VM_COVERAGE
#include <verilated_cov.h>
#endif

namespace ipusim::cosim {
namespace {

// Contexts by their VerilatedContext: looked up only when a check fails, or at exit.
std::mutex& registry_mutex() {
  static std::mutex m;
  return m;
}
std::map<const VerilatedContext*, RtlContext*>& registry() {
  static std::map<const VerilatedContext*, RtlContext*> r;
  return r;
}

std::mutex& settings_mutex() {
  static std::mutex m;
  return m;
}
RtlRunSettings& settings() {
  static RtlRunSettings s;
  return s;
}

#if VM_COVERAGE
// A file name part from an instance name ("link3.a_to_b", "ipu0->ipu1"): only coverage
// files are named after instances.
std::string file_part(const std::string& s) {
  std::string out;
  for (char c : s) out += (std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_') ? c : '-';
  return out;
}

// Contexts never destroyed (the platform of `ipusim run` lives to the end of the
// process) write their coverage at exit.
void write_all_at_exit() {
  std::vector<RtlContext*> live;
  {
    std::lock_guard<std::mutex> lock(registry_mutex());
    for (auto& [ctx, rc] : registry()) live.push_back(rc);
  }
  for (RtlContext* rc : live) rc->write_coverage();
}
#endif

}  // namespace

std::string to_text(const RtlCheckFailure& f) {
  std::string s = "RTL assertion " + f.check + " failed in " + f.block + " " + f.instance;
  if (!f.scope.empty()) s += " (" + f.scope + ")";
  s += " at cycle " + std::to_string(f.cycle);
  if (!f.message.empty()) s += ": " + f.message;
  return s;
}

namespace {
std::mutex& noted_mutex() {
  static std::mutex m;
  return m;
}
std::optional<RtlCheckFailure>& noted() {
  static std::optional<RtlCheckFailure> f;
  return f;
}
}  // namespace

RtlCheckError::RtlCheckError(RtlCheckFailure f) : std::runtime_error(to_text(f)), failure_(std::move(f)) {
  std::lock_guard<std::mutex> lock(noted_mutex());
  noted() = failure_;
}

std::optional<RtlCheckFailure> take_rtl_failure(const std::string& text) {
  std::lock_guard<std::mutex> lock(noted_mutex());
  if (!noted() || text.find(to_text(*noted())) == std::string::npos) return std::nullopt;
  return std::exchange(noted(), std::nullopt);
}

void set_rtl_run_settings(const RtlRunSettings& s) {
  std::lock_guard<std::mutex> lock(settings_mutex());
  settings() = s;
}

RtlRunSettings rtl_run_settings() {
  std::lock_guard<std::mutex> lock(settings_mutex());
  return settings();
}

bool rtl_coverage_built() { return VM_COVERAGE != 0; }

RtlContext::RtlContext(std::string block, std::string instance)
    : block_(std::move(block)), instance_(std::move(instance)), ctx_(std::make_unique<VerilatedContext>()) {
  const RtlRunSettings s = rtl_run_settings();
  ctx_->randReset(s.rand_reset);
  if (s.seed != 0) ctx_->randSeed(static_cast<int>(s.seed));
  // A $stop the overrides below do not see (none should exist) still ends nothing.
  ctx_->fatalOnError(false);
  std::lock_guard<std::mutex> lock(registry_mutex());
  registry()[ctx_.get()] = this;
#if VM_COVERAGE
  static const bool at_exit = (std::atexit(write_all_at_exit), true);
  (void)at_exit;
#endif
}

RtlContext::~RtlContext() {
  std::lock_guard<std::mutex> lock(registry_mutex());
  registry().erase(ctx_.get());
}

RtlContext* RtlContext::of(const VerilatedContext* ctx) {
  std::lock_guard<std::mutex> lock(registry_mutex());
  auto it = registry().find(ctx);
  return it == registry().end() ? nullptr : it->second;
}

namespace {
thread_local std::vector<std::pair<std::string, std::string>> thread_stops;  // (check, message)
}  // namespace

thread_local bool RtlContext::stopped_on_thread = false;

void RtlContext::record_on_thread(std::string check, std::string message) {
  thread_stops.emplace_back(std::move(check), std::move(message));
  stopped_on_thread = true;
}

void RtlContext::record(std::string check, std::string scope, std::string message) {
  std::lock_guard<std::mutex> lock(mutex_);
  failures_.push_back({block_, instance_, std::move(check), std::move(scope), std::move(message), 0});
  failed_ = true;
}

std::vector<RtlCheckFailure> RtlContext::failures() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return failures_;
}

void RtlContext::raise(uint64_t cycle) {
  RtlCheckFailure first;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    for (auto& [check, message] : thread_stops)
      failures_.push_back({block_, instance_, std::move(check), "", std::move(message), cycle});
    thread_stops.clear();
    stopped_on_thread = false;
    for (size_t i = checked_; i < failures_.size(); ++i) failures_[i].cycle = cycle;
    first = failures_[checked_];
    checked_ = failures_.size();
    failed_ = false;
  }
  throw RtlCheckError(std::move(first));
}

std::string RtlContext::write_coverage() {
#if VM_COVERAGE
  if (coverage_written_) return "";
  std::string dir = rtl_run_settings().coverage_dir;
  if (dir.empty()) {
    const char* env = std::getenv("IPUSIM_RTL_COVERAGE_DIR");
    if (env) dir = env;
  }
  if (dir.empty()) return "";
  coverage_written_ = true;
  static std::atomic<uint64_t> serial{0};
  const std::string path = dir + "/" + block_ + "." + file_part(instance_) + "." + std::to_string(::getpid()) +
                           "." + std::to_string(serial++) + ".dat";
  ctx_->coveragep()->write(path.c_str());
  return path;
#else
  return "";
#endif
}

}  // namespace ipusim::cosim

using ipusim::cosim::RtlContext;

// The RTL's assertions call this (hw/<block>/rtl: `import "DPI-C" context function`):
// the failure goes to the instance whose model is evaluating (its scope's context;
// Verilator's thread context is only the last one made on the thread).
extern "C" void ipusim_rtl_assert_failed(const char* check, const char* message) {
  const auto* scope = static_cast<const VerilatedScope*>(svGetScope());
  const VerilatedContext* ctx = scope && scope->symsp() ? scope->symsp()->_vm_contextp__ : nullptr;
  const char* where = scope ? svGetNameFromScope(svGetScope()) : "";
  if (RtlContext* rc = RtlContext::of(ctx)) {
    rc->record(check ? check : "", where ? where : "", message ? message : "");
    return;
  }
  // A model on a bare VerilatedContext: say it, and go on.
  std::fprintf(stderr, "RTL assertion %s failed (%s): %s\n", check, where, message);
}

// Verilator's $stop and $fatal (and an assertion without its own action): a failure of
// the model this thread evaluates, raised by its next RtlContext::check(), never an
// abort (the RTL has none today; every assertion calls the function above).
void vl_stop(const char* filename, int linenum, const char* /*hier*/) {
  std::fprintf(stderr, "%%Error: %s:%d: Verilog $stop\n", filename ? filename : "", linenum);
  Verilated::threadContextp()->gotError(true);
  ipusim::cosim::RtlContext::record_on_thread(
      "$stop", std::string(filename ? filename : "") + ":" + std::to_string(linenum) + ": Verilog $stop");
}

void vl_fatal(const char* filename, int linenum, const char* /*hier*/, const char* msg) {
  std::fprintf(stderr, "%%Error: %s:%d: %s\n", filename ? filename : "", linenum, msg ? msg : "");
  Verilated::threadContextp()->gotError(true);
  ipusim::cosim::RtlContext::record_on_thread(
      "$fatal", std::string(filename ? filename : "") + ":" + std::to_string(linenum) + ": " + (msg ? msg : ""));
}
