// The seeded fault injector of one link direction: a list of policies, each with its own
// random stream, consulted for every frame transmission and every ACK / NAK. Each policy
// draws the same numbers whatever the others decide, so combining policies never shifts
// another one's pattern. The injector keeps its state across exchange phases: a burst
// at transmission 1000 is at the 1000th transmission of the run.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "links/fault_spec.h"
#include "links/link_counters.h"

namespace ipusim::links {

struct FrameVerdict {
  bool drop = false;
  bool duplicate = false;
};

// One kind of fault. on_frame may flip bits of the wire copy and set the verdict; both
// hooks count what they did in `counts`.
class FaultPolicy {
 public:
  virtual ~FaultPolicy() = default;
  virtual void on_frame(uint64_t wire_index, std::span<uint8_t> wire, FrameVerdict& verdict,
                        InjectedCounts& counts) = 0;
  // True to lose the `dllp_index`-th ACK / NAK of the run.
  virtual bool drop_dllp(uint64_t /*dllp_index*/, InjectedCounts& /*counts*/) { return false; }
  // Its state between two transmissions (random generator, a bit-error gap), as words
  // for a checkpoint; set_state throws std::invalid_argument for words of another shape.
  virtual std::vector<uint64_t> state() const = 0;
  virtual void set_state(std::span<const uint64_t> words) = 0;
};

class FaultInjector {
 public:
  FaultInjector() = default;            // injects nothing
  explicit FaultInjector(const FaultSpec& spec);
  void add(std::unique_ptr<FaultPolicy> policy);
  bool active() const { return !policies_.empty(); }

  // A frame transmission: `wire` is the copy on the wire, corrupted in place.
  FrameVerdict on_frame(std::span<uint8_t> wire);
  // An ACK or NAK on the return path: true when it is lost.
  bool drop_dllp();

  const InjectedCounts& counts() const { return counts_; }

  // Everything a later transmission depends on (docs/checkpoints.md): the counts (they
  // number the transmissions) and each policy's state, in the order they were added.
  struct State {
    InjectedCounts counts;
    std::vector<std::vector<uint64_t>> policies;
  };
  State state() const;
  // Throws std::invalid_argument if `s` is of another set of policies.
  void restore(const State& s);

 private:
  std::vector<std::unique_ptr<FaultPolicy>> policies_;
  InjectedCounts counts_;
  std::vector<uint8_t> clean_;  // the frame before the policies, to tell real corruption
};

// The built-in policies (FaultInjector(spec) adds those the spec asks for). Seeds are
// derived from the spec's seed and the policy's kind.
std::unique_ptr<FaultPolicy> make_bit_error_policy(double ber, uint64_t seed);
std::unique_ptr<FaultPolicy> make_periodic_policy(uint64_t every, uint64_t seed);
std::unique_ptr<FaultPolicy> make_burst_policy(uint64_t start, uint64_t length, uint64_t period,
                                               uint64_t seed);
std::unique_ptr<FaultPolicy> make_drop_policy(double probability, uint64_t every, uint64_t seed);
std::unique_ptr<FaultPolicy> make_duplicate_policy(double probability, uint64_t every, uint64_t seed);
std::unique_ptr<FaultPolicy> make_ack_drop_policy(double probability, uint64_t every, uint64_t seed);

}  // namespace ipusim::links
