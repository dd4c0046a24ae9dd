// The transactor between the ISS's AMP seam (iss::AmpDatapath) and the pins of one
// Verilated amp_top: an amp.mac's operands go in through the input handshake, the
// tile clock runs the pipeline (LATENCY = 5 cycles, hw/amp/README.md), the bank's new
// accumulators come out through the output handshake. eval() runs only while an amp.mac is
// in the array: between amp.macs the model is idle and not evaluated at all.
//
// A template over the Verilated class and its trace file class (Vamp_r16_vcd with
// VerilatedVcdC, _fst with VerilatedFstC): both have the same members. Plain C++, no
// SystemC; one instance per tile (rtl_amp.h), used by one host thread at a time.
//
// Waves: each amp.mac takes the cycles it occupies the array, back to back on the
// datapath's own clock (falling edge at cycle * period, rising edge half a period later,
// in the RTL's time precision): the ISS runs a tile's threads quantum by quantum, not
// cycle by cycle, so the tile cycles at which its amp.macs issue are not monotonic in the
// order they are simulated; the datapath's own cycle count is, and it is the same run
// after run (docs/xipu.md "The AMP as RTL").
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>

#include "cosim/amp/amp_pins.h"
#include "cosim/rtl_checks.h"
#include "iss/amp_state.h"
#include "verilated.h"

namespace ipusim::cosim::amp {

// Cycles one row chunk may take before the transactor gives up (the pipeline answers in
// LATENCY = 5 without back-pressure; more means a broken model, never a hang).
inline constexpr uint32_t kMaxCyclesPerChunk = 64;

template <class Model, class TraceFile>
class AmpTransactor {
 public:
  using Pins = AmpPins<Model>;
  static constexpr uint32_t kRows = Pins::kRows;

  // period: the tile clock period in the RTL's time precision (ps). wave_path: the file
  // to trace to, empty for none. instance: its name in a failed assertion ("ipu0.tile5.amp").
  AmpTransactor(uint64_t period, const std::string& wave_path, const std::string& instance = "amp")
      : ctx_(std::make_unique<RtlContext>("amp", instance)), period_(std::max<uint64_t>(period, 2)) {
    if (!wave_path.empty()) ctx_->context().traceEverOn(true);
    model_ = std::make_unique<Model>(ctx_->get(), "amp");
    if (!wave_path.empty()) {
      trace_ = std::make_unique<TraceFile>();
      model_->trace(trace_.get(), 99);
      trace_->open(wave_path.c_str());
      if (!trace_->isOpen()) throw std::runtime_error("amp RTL: cannot open the waveform file " + wave_path);
    }
    Model& m = *model_;
    m.clk_i = 0;
    m.in_valid_i = 0;
    m.out_ready_i = 1;
    // A falling edge of rst_ni whatever it held (what --x-initial left in it).
    m.rst_ni = 1;
    m.eval();
    m.rst_ni = 0;
    m.eval();
    dump(0);
    m.rst_ni = 1;
  }

  ~AmpTransactor() {
    close_waves();
    ctx_->write_coverage();
    model_->final();
    model_.reset();  // before its context
  }

  // Completes and closes the waveform file (if any); nothing is traced after it.
  void close_waves() {
    if (!trace_) return;
    trace_->close();
    trace_.reset();
  }
  AmpTransactor(const AmpTransactor&) = delete;
  AmpTransactor& operator=(const AmpTransactor&) = delete;

  RtlContext& checks() { return *ctx_; }
  uint64_t cycles() const { return cycle_; }

  // One amp.mac of `rows` rows (any number up to the ISS's most: more than kRows go
  // through the pipeline as consecutive transactions of kRows rows each).
  void mac(bool f16, uint32_t rows, const uint8_t* w, const uint8_t* x, float* acc) {
    uint32_t bits[kMaxRowsPerMac];
    if (rows > kMaxRowsPerMac) throw std::invalid_argument("amp RTL: an amp.mac of more rows than the ISS has");
    std::memcpy(bits, acc, rows * 4);
    Model& m = *model_;
    const uint32_t chunks = (rows + kRows - 1) / kRows;
    uint32_t sent = 0, received = 0;
    auto drive = [&](uint32_t chunk) {
      const uint32_t first = chunk * kRows;
      Pins::drive(m, f16, first, std::min(kRows, rows - first), w, x, bits);
    };
    drive(0);
    m.in_valid_i = 1;
    m.out_ready_i = 1;
    const uint64_t limit = uint64_t{chunks} * kMaxCyclesPerChunk;
    for (uint64_t n = 0; received < chunks; ++n) {
      if (n == limit) throw std::runtime_error("amp RTL: no result from the array after " + std::to_string(n) + " cycles");
      m.clk_i = 0;
      m.eval();
      dump((cycle_ + 1) * period_);  // + 1: the reset has cycle 0 of the waveform
      const bool in_fire = m.in_valid_i && m.in_ready_o;
      if (m.out_valid_o) {  // out_ready_i is high: the handshake is this cycle's edge
        const uint32_t first = received * kRows;
        Pins::read(m, first, std::min(kRows, rows - first), bits);
        ++received;
      }
      m.clk_i = 1;
      m.eval();
      dump((cycle_ + 1) * period_ + period_ / 2);
      ctx_->check(cycle_);  // an assertion that failed at this edge stops the amp.mac, named
      ++cycle_;
      if (in_fire) {
        if (++sent < chunks)
          drive(sent);
        else
          m.in_valid_i = 0;
      }
    }
    std::memcpy(acc, bits, rows * 4);
  }

 private:
  static constexpr uint32_t kMaxRowsPerMac = iss::kAmpMaxRows;
  void dump(uint64_t time) {
    if (trace_) trace_->dump(time);
  }

  std::unique_ptr<RtlContext> ctx_;  // its assertions' failures, its coverage
  std::unique_ptr<Model> model_;
  std::unique_ptr<TraceFile> trace_;
  uint64_t period_;
  uint64_t cycle_ = 0;
};

}  // namespace ipusim::cosim::amp
