// The RTL AMP datapath of one tile: an iss::AmpDatapath whose amp.mac runs on a Verilated
// hw/amp array (amp_transactor.h), chosen by `cosim: {amp: rtl}` (or `--rtl amp`). The
// platform attaches one to every tile at elaboration (attach_rtl_amp); the Verilated
// model is built at the tile's first amp.mac, so tiles that never use the AMP cost no
// model. One model per tile: a tile runs on one host thread at a time, so no model is
// ever shared between threads, and what each model sees (its tile's amp.macs, in the
// ISS's deterministic order) does not depend on the host thread count.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "iss/amp_datapath.h"

namespace ipusim::cosim {
class Waves;
}

namespace ipusim::cosim::amp {

struct RtlAmpConfig {
  std::string instance;   // unique, e.g. "ipu0.tile5.amp": the waveform's instance name
  double clock_hz = 0;    // the tile clock (the wave's time axis)
  std::shared_ptr<Waves> waves;  // null: no waveform
};

class RtlAmp final : public iss::AmpDatapath {
 public:
  // Registers the instance with `waves` (at elaboration, before Waves::freeze()).
  explicit RtlAmp(RtlAmpConfig config);
  ~RtlAmp() override;
  void mac(bool f16, uint32_t rows, const uint8_t* w, const uint8_t* x, float* acc) override;
  // Closes the waveform file, complete; later amp.macs (a host's next run) are not traced.
  void end_of_run() override;
  // The datapath's clock cycles so far (0 before the first amp.mac).
  uint64_t cycles() const;

 private:
  struct Model;  // the transactor of the Verilated model with the wave format's tracing
  void build();
  RtlAmpConfig config_;
  std::unique_ptr<Model> model_;
};

// Throws std::runtime_error unless SystemC's time resolution is the RTL's timeprecision
// (cosim::check_time_resolution on a model built for the check). Called once per
// platform, before any RtlAmp runs.
void check_rtl_amp_time_resolution();

}  // namespace ipusim::cosim::amp
