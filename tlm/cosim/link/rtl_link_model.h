// One Verilated link_top (hw/link/rtl) with its own VerilatedContext and, when waves are
// on, its own trace file. It lives as long as its link direction in the platform: each
// exchange phase resets it and runs an RtlLinkDirection on it, and its waveform runs on
// across phases (each phase after the last one's final cycle).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>

#include <fmt/format.h>

#include "cosim/verilated_sc.h"  // before any Verilator header
#include "cosim/link/link_rate.h"
#include "cosim/link/link_shape.h"
#include "cosim/rtl_checks.h"
#include "cosim/rtl_clock.h"
#include "cosim/waves.h"
#include "links/link_config.h"

namespace ipusim::cosim::link {

template <class Model, class Trace>
class RtlLinkModel {
 public:
  // `waves` may be null (no waveform); `instance` names this one in it ("link3.a_to_b").
  // `period_ps` is a cycle in the waveform's time.
  RtlLinkModel(const LinkModelShape& shape, std::shared_ptr<Waves> waves = {}, std::string instance = "link",
               uint64_t period_ps = 1000)
      : shape_(shape), waves_(std::move(waves)), instance_(std::move(instance)), period_ps_(period_ps),
        ctx_(std::make_unique<RtlContext>("link", instance_)) {
    if (tracing()) ctx_->context().traceEverOn(true);
    model_ = std::make_unique<Model>(ctx_->get(), instance_.c_str());
    // The model sets its context's timeprecision when it is built: check after.
    check_time_resolution(ctx_->context(), "link");
    if (sizeof(model_->rd_data_i) != shape.data_bytes)
      throw std::logic_error(fmt::format("link RTL model '{}': {}-byte beats, its shape says {}", shape.name,
                                         sizeof(model_->rd_data_i), shape.data_bytes));
  }
  ~RtlLinkModel() { close(); }
  RtlLinkModel(const RtlLinkModel&) = delete;
  RtlLinkModel& operator=(const RtlLinkModel&) = delete;

  Model& model() { return *model_; }
  // After each clock edge: an assertion that failed stops the phase (RtlCheckError).
  void check(uint64_t cycle) { ctx_->check(cycle); }
  const LinkModelShape& shape() const { return shape_; }

  // The rate and the sizes must fit the verilated parameters; std::invalid_argument
  // naming the field otherwise.
  RtlRate check(const links::LinkLayerConfig& c) const { return fit(shape_, c); }

  // Reset, and the phase's configuration on the cfg_* inputs.
  void begin_phase(const links::LinkLayerConfig& c, const RtlRate& rate) {
    open_waves();
    Model& m = *model_;
    m.cfg_replay_frames_i = c.replay_buffer_frames;
    m.cfg_credit_frames_i = c.credit_frames;
    m.cfg_ack_coalesce_i = c.ack_coalesce_frames;
    m.cfg_ack_timeout_i = c.ack_timeout_cycles;
    m.cfg_replay_timeout_i = static_cast<uint32_t>(c.effective_replay_timeout());
    m.cfg_replay_limit_i = c.replay_limit;
    m.cfg_retrain_cycles_i = c.retrain_cycles;
    m.cfg_rate_int_i = rate.whole;
    m.cfg_rate_rem_i = rate.rem;
    m.cfg_rate_den_i = rate.den;
    m.clk_i = 0;
    m.now_i = 0;
    m.rxw_valid_i = 0;
    m.tx_dllp_valid_i = 0;
    m.tx_credit_valid_i = 0;
    m.src_valid_i = 0;
    m.src_ready_i = 0;
    m.inj_dup_i = 0;
    m.inj_drop_i = 0;
    m.drain_ready_i = 0;
    // A falling edge of rst_ni whatever it held (the first time, what --x-initial left).
    m.rst_ni = 1;
    m.eval();
    m.rst_ni = 0;
    m.eval();
    m.rst_ni = 1;
    m.eval();
  }
  // With waves: this instance's file, if it is not open yet (at its first phase: a link
  // direction that carries nothing writes no file). Closed for good by Waves::close() at the end of the system's first run (a later run is
  // not traced: reopening would truncate the file).
  void open_waves() {
    if (!tracing() || trace_ || waves_closed_) return;
    trace_ = std::make_unique<Trace>();
    model_->trace(trace_.get(), 99);
    trace_->open(waves_->path(instance_).c_str());
    if (!close_id_) close_id_ = waves_->on_close([this] { close_waves(); });
  }
  // The phase ended after cycle `last`: the next one's cycle 0 follows it in the waves.
  void end_phase(uint64_t last) {
    base_ps_ += (last + 1) * period_ps_;
    if (trace_) trace_->flush();
  }
  // After the cycle's inputs have settled (clock low) and after its rising edge.
  void dump(uint64_t cycle, bool edge) {
    if (trace_) trace_->dump(base_ps_ + cycle * period_ps_ + (edge ? period_ps_ / 2 : 0));
  }
  void close() {
    if (close_id_) waves_->forget(*close_id_);
    close_waves();
    if (model_ && !finished_) {
      ctx_->write_coverage();
      model_->final();
    }
    finished_ = true;
  }

 private:
  bool tracing() const { return waves_ != nullptr; }
  void close_waves() {
    waves_closed_ = true;
    if (trace_) {
      trace_->close();
      trace_.reset();
    }
  }

  LinkModelShape shape_;
  std::shared_ptr<Waves> waves_;
  std::optional<size_t> close_id_;  // our closer in waves_
  bool waves_closed_ = false;
  std::string instance_;
  uint64_t period_ps_;
  uint64_t base_ps_ = 0;
  bool finished_ = false;
  std::unique_ptr<RtlContext> ctx_;  // its assertions' failures, its coverage
  std::unique_ptr<Model> model_;
  std::unique_ptr<Trace> trace_;
};

}  // namespace ipusim::cosim::link
