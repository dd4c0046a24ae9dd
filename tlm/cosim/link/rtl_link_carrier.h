// The link RTL in the platform's place of links::carry_phase(): one Verilated link_top
// per link direction, built at elaboration, each exchange phase carried through it the
// way carry_phase() carries it through links::LinkDirection (a fault-free run fixes the
// schedule, the run with faults is stalled against it; with no faults only the first).
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "cosim/waves.h"
#include "links/link_layer.h"

namespace ipusim::cosim::link {

class RtlLinkCarrier {
 public:
  // Throws std::invalid_argument, naming the config value and the model's limit, if no
  // verilated model can take `layer`. With `waves`, every direction is add()ed to it
  // under instances[direction] ("link3.a_to_b"); a direction opens its file when it
  // first carries a phase (a direction with no frames is not carried: it writes none). `period_ps`: one tile cycle in waveform time.
  RtlLinkCarrier(const links::LinkLayerConfig& layer, std::vector<std::string> instances,
                 std::shared_ptr<Waves> waves, uint64_t period_ps);
  ~RtlLinkCarrier();

  links::PhaseResult carry(uint32_t direction, const links::LinkLayerConfig& config, links::FaultInjector& injector,
                           std::span<const links::ScheduledFrame> frames);

  // The name a direction of a link goes by in waveforms: link<N>.a_to_b / .b_to_a.
  static std::string instance_name(uint32_t direction);

  struct Direction;  // one model and its transactor (rtl_link_carrier.cpp)

 private:
  Direction& model(uint32_t direction);

  links::LinkLayerConfig layer_;
  std::vector<std::string> instances_;
  std::shared_ptr<Waves> waves_;
  uint64_t period_ps_;
  bool wide_;
  std::vector<std::unique_ptr<Direction>> directions_;
};

}  // namespace ipusim::cosim::link
