// What a Verilated model's own checks find, as values: the RTL's SVA assertions (each
// calls ipusim_rtl_assert_failed through DPI with its name and message), and any $stop or
// $fatal (Verilator's vl_stop / vl_fatal, overridden here: VL_USER_STOP, VL_USER_FATAL),
// none of which may abort the process. docs/cosim.md "Assertions and coverage".
//
// Each transactor makes its models' contexts with RtlContext: it registers the context,
// so that a failure found while that context's model evaluates lands in the instance's
// list (a model runs on one host thread at a time; instances may run on several), applies
// the process's unknown-value settings (random initial values and their seed, for the
// --x-initial unique runs) and, in a coverage build (IPUSIM_RTL_COVERAGE), writes the
// context's coverage when its transactor ends (write_coverage(), before the model goes:
// the counters are the model's) or, for a model never destroyed, at process exit.
//
// Plain C++ (no SystemC): compiled into ipusim_rtl, beside Verilator's runtime.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

class VerilatedContext;

namespace ipusim::cosim {

// One failed check of an RTL instance.
struct RtlCheckFailure {
  std::string block;     // "sync", "link", "amp"
  std::string instance;  // the transactor's name for it: "ipu0.sync", "link3.a_to_b", "ipu0.tile5.amp"
  std::string check;     // the assertion's label ("a_seq_advances"), or "$stop" / "$fatal"
  std::string scope;     // the RTL hierarchy it is in ("link_top.u_tx")
  std::string message;   // what it says
  uint64_t cycle = 0;    // the block's clock cycle it was found at (its transactor's count)
  bool operator==(const RtlCheckFailure&) const = default;
};

// "RTL assertion a_seq_advances failed in link link3.a_to_b (link_top.u_tx) at cycle 812:
// a new frame's sequence number is the last one plus 1"
std::string to_text(const RtlCheckFailure& f);

// Thrown by RtlContext::check(): the run stops with this failure named. An exception,
// not an abort: the platform ends the run with the failure as its error.
class RtlCheckError : public std::runtime_error {
 public:
  explicit RtlCheckError(RtlCheckFailure f);
  const RtlCheckFailure& failure() const { return failure_; }

 private:
  RtlCheckFailure failure_;
};

// The platform's way back to the record: SystemC hands an exception thrown in a process
// back from sc_start as an sc_report, which keeps the text but not the type. Every
// RtlCheckError made is noted here (the latest); take_rtl_failure(text) gives it back,
// once, if `text` (the report's message) is its text, so an unrelated error is never
// taken for it.
std::optional<RtlCheckFailure> take_rtl_failure(const std::string& text);

// Process-wide settings for the contexts made from now on.
struct RtlRunSettings {
  // Verilator's +verilator+rand+reset: 0 every initial value 0 (the default), 2 random
  // (with models verilated --x-initial unique, their registers start random).
  int rand_reset = 0;
  // +verilator+seed (0: Verilator picks one); the same seed gives the same values.
  uint32_t seed = 0;
  // Coverage builds: the folder coverage files go to (empty: $IPUSIM_RTL_COVERAGE_DIR,
  // and if that is unset too, none are written).
  std::string coverage_dir;
};
void set_rtl_run_settings(const RtlRunSettings& s);
RtlRunSettings rtl_run_settings();

// Whether the models were verilated with --coverage (cmake -DIPUSIM_RTL_COVERAGE=ON).
bool rtl_coverage_built();

// A model's VerilatedContext, registered for its checks (see above). Build the model on
// context() after this is made; destroy the model before it.
class RtlContext {
 public:
  RtlContext(std::string block, std::string instance);
  ~RtlContext();
  RtlContext(const RtlContext&) = delete;
  RtlContext& operator=(const RtlContext&) = delete;

  VerilatedContext& context() { return *ctx_; }
  VerilatedContext* get() { return ctx_.get(); }
  const std::string& block() const { return block_; }
  const std::string& instance() const { return instance_; }

  // Throws RtlCheckError with the first failure since the last check(), stamped with
  // `cycle`, if there is one. Transactors call it after each clock edge, on the thread
  // that evaluated the model: a $stop or $fatal (which Verilator reports without naming
  // the model) waits on that thread for the next check() there.
  void check(uint64_t cycle) {
    if (failed_ || stopped_on_thread) raise(cycle);
  }
  // Every failure so far (stamped by check(); cycle 0 if never checked).
  std::vector<RtlCheckFailure> failures() const;

  // Coverage builds: writes this context's coverage (once; later calls do nothing) to
  // <dir>/<block>.<instance>.<pid>.<n>.dat and returns the file, or "" (no folder named,
  // or not a coverage build). Call it before destroying the model; contexts still
  // registered at process exit are written then.
  std::string write_coverage();

  // The RtlContext of a VerilatedContext (null: not one of ours), for the DPI function.
  static RtlContext* of(const VerilatedContext* ctx);
  void record(std::string check, std::string scope, std::string message);
  // vl_stop / vl_fatal: a failure of whichever model this thread evaluated last.
  static void record_on_thread(std::string check, std::string message);
  static thread_local bool stopped_on_thread;

 private:
  [[noreturn]] void raise(uint64_t cycle);

  std::string block_, instance_;
  std::unique_ptr<VerilatedContext> ctx_;
  mutable std::mutex mutex_;
  std::vector<RtlCheckFailure> failures_;
  size_t checked_ = 0;  // failures_ before this were raised already
  bool failed_ = false; // a failure not raised yet
  bool coverage_written_ = false;
};

}  // namespace ipusim::cosim
