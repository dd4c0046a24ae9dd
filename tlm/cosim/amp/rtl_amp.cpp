#include "cosim/amp/rtl_amp.h"

#include <cmath>
#include <stdexcept>
#include <variant>

#include "Vamp_r16_fst.h"
#include "Vamp_r16_vcd.h"
#include "cosim/amp/amp_transactor.h"
#include "cosim/rtl_clock.h"
#include "cosim/waves.h"
#include "cosim/wave_file.h"

namespace ipusim::cosim::amp {

using VcdTransactor = AmpTransactor<Vamp_r16_vcd, VcdWaveFile>;
using FstTransactor = AmpTransactor<Vamp_r16_fst, FstWaveFile>;

struct RtlAmp::Model {
  std::variant<std::unique_ptr<VcdTransactor>, std::unique_ptr<FstTransactor>> t;
};

RtlAmp::RtlAmp(RtlAmpConfig config) : config_(std::move(config)) {
  if (!(config_.clock_hz > 0)) throw std::invalid_argument(config_.instance + ": RTL AMP with a tile clock of 0 Hz");
  if (config_.waves != nullptr) config_.waves->add(config_.instance);
}

RtlAmp::~RtlAmp() = default;

void RtlAmp::build() {
  // The RTL's time precision is 1 ps (every hw/ file's `timescale); the period in it.
  const uint64_t period = static_cast<uint64_t>(std::llround(1e12 / config_.clock_hz));
  const bool waves = config_.waves != nullptr;
  const std::string path = waves ? config_.waves->path(config_.instance) : std::string();
  model_ = std::make_unique<Model>();
  if (waves && config_.waves->format() == WaveFormat::Fst)
    model_->t = std::make_unique<FstTransactor>(period, path, config_.instance);
  else
    model_->t = std::make_unique<VcdTransactor>(period, path, config_.instance);
}

void RtlAmp::mac(bool f16, uint32_t rows, const uint8_t* w, const uint8_t* x, float* acc) {
  if (!model_) build();
  std::visit([&](auto& t) { t->mac(f16, rows, w, x, acc); }, model_->t);
}

void RtlAmp::end_of_run() {
  if (model_) std::visit([](auto& t) { t->close_waves(); }, model_->t);
}

uint64_t RtlAmp::cycles() const {
  if (!model_) return 0;
  return std::visit([](const auto& t) { return t->cycles(); }, model_->t);
}

void check_rtl_amp_time_resolution() {
  VerilatedContext ctx;
  Vamp_r16_vcd model(&ctx, "amp_check");  // sets ctx's time unit and precision from the RTL
  check_time_resolution(ctx, "amp");
  model.final();
}

}  // namespace ipusim::cosim::amp
