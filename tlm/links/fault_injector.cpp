#include "links/fault_injector.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <stdexcept>
#include <string>

#include "links/prng.h"

namespace ipusim::links {
namespace {

uint64_t derive_seed(uint64_t seed, uint64_t kind) {
  uint64_t state = seed ^ (kind * 0xd1b54a32d192ed03ull);
  return splitmix64(state);
}

std::vector<uint64_t> rng_words(const Prng& rng) {
  const auto s = rng.state();
  return {s.begin(), s.end()};
}

// The first four words of `w` into `rng`; `w` must hold 4 + extra words.
void set_rng_words(Prng& rng, std::span<const uint64_t> w, size_t extra, const char* policy) {
  if (w.size() != 4 + extra)
    throw std::invalid_argument(std::string("fault policy '") + policy + "': " + std::to_string(w.size()) +
                                " state word(s), it has " + std::to_string(4 + extra));
  rng.set_state({w[0], w[1], w[2], w[3]});
}

void flip_bit(std::span<uint8_t> wire, uint64_t bit) {
  wire[bit / 8] ^= static_cast<uint8_t>(1u << (bit % 8));
}

// Errors as a Bernoulli process over the stream of every bit put on the wire: the gap
// to the next error bit is geometric, so a frame costs one draw per error, not per bit.
class BitErrorPolicy final : public FaultPolicy {
 public:
  BitErrorPolicy(double ber, uint64_t seed) : log_q_(std::log1p(-ber)), rng_(seed) {
    gap_ = draw_gap();
  }
  void on_frame(uint64_t, std::span<uint8_t> wire, FrameVerdict&, InjectedCounts& c) override {
    const uint64_t bits = wire.size() * 8ull;
    if (gap_ >= bits) {
      gap_ -= bits;
      return;
    }
    uint64_t at = gap_;
    ++c.ber_frames_hit;
    while (at < bits) {
      flip_bit(wire, at);
      ++c.ber_bits_flipped;
      const uint64_t next = draw_gap();
      at = next >= bits ? bits + next : at + 1 + next;  // no overflow for huge gaps
      if (at >= bits) {
        gap_ = at - bits;
        return;
      }
    }
  }
  std::vector<uint64_t> state() const override {
    std::vector<uint64_t> w = rng_words(rng_);
    w.push_back(gap_);
    return w;
  }
  void set_state(std::span<const uint64_t> w) override {
    set_rng_words(rng_, w, 1, "ber");
    gap_ = w[4];
  }

 private:
  uint64_t draw_gap() {
    const double g = std::floor(std::log(rng_.unit_open0()) / log_q_);
    return g >= 0x1.0p62 ? (1ull << 62) : static_cast<uint64_t>(g);
  }
  double log_q_;
  Prng rng_;
  uint64_t gap_ = 0;  // error-free bits before the next error
};

class PeriodicPolicy final : public FaultPolicy {
 public:
  PeriodicPolicy(uint64_t every, uint64_t seed) : every_(every), rng_(seed) {}
  void on_frame(uint64_t index, std::span<uint8_t> wire, FrameVerdict&, InjectedCounts& c) override {
    const uint64_t bit = rng_.below(wire.size() * 8ull);
    if (index % every_ != every_ - 1) return;
    flip_bit(wire, bit);
    ++c.periodic_frames_hit;
  }
  std::vector<uint64_t> state() const override { return rng_words(rng_); }
  void set_state(std::span<const uint64_t> w) override { set_rng_words(rng_, w, 0, "periodic"); }

 private:
  uint64_t every_;
  Prng rng_;
};

class BurstPolicy final : public FaultPolicy {
 public:
  BurstPolicy(uint64_t start, uint64_t length, uint64_t period, uint64_t seed)
      : start_(start), length_(length), period_(period), rng_(seed) {}
  void on_frame(uint64_t index, std::span<uint8_t> wire, FrameVerdict&, InjectedCounts& c) override {
    const uint64_t bit = rng_.below(wire.size() * 8ull);
    if (index < start_) return;
    const uint64_t offset = period_ ? (index - start_) % period_ : index - start_;
    if (offset >= length_) return;
    flip_bit(wire, bit);
    ++c.burst_frames_hit;
  }
  std::vector<uint64_t> state() const override { return rng_words(rng_); }
  void set_state(std::span<const uint64_t> w) override { set_rng_words(rng_, w, 0, "burst"); }

 private:
  uint64_t start_, length_, period_;
  Prng rng_;
};

// "Probability p or every N-th": both may be given; either one fires.
class Trigger {
 public:
  Trigger(double probability, uint64_t every, uint64_t seed) : p_(probability), every_(every), rng_(seed) {}
  bool fires(uint64_t index) {
    const bool random = p_ > 0 && rng_.chance(p_);
    return random || (every_ != 0 && index % every_ == every_ - 1);
  }
  Prng& rng() { return rng_; }
  const Prng& rng() const { return rng_; }

 private:
  double p_;
  uint64_t every_;
  Prng rng_;
};

// Drops or duplicates a frame: sets one flag of the verdict when its trigger fires.
class VerdictPolicy final : public FaultPolicy {
 public:
  VerdictPolicy(bool FrameVerdict::*flag, double p, uint64_t every, uint64_t seed)
      : flag_(flag), trigger_(p, every, seed) {}
  void on_frame(uint64_t index, std::span<uint8_t>, FrameVerdict& v, InjectedCounts&) override {
    if (trigger_.fires(index)) v.*flag_ = true;
  }
  std::vector<uint64_t> state() const override { return rng_words(trigger_.rng()); }
  void set_state(std::span<const uint64_t> w) override { set_rng_words(trigger_.rng(), w, 0, "drop / dup"); }

 private:
  bool FrameVerdict::*flag_;
  Trigger trigger_;
};

class AckDropPolicy final : public FaultPolicy {
 public:
  AckDropPolicy(double p, uint64_t every, uint64_t seed) : trigger_(p, every, seed) {}
  void on_frame(uint64_t, std::span<uint8_t>, FrameVerdict&, InjectedCounts&) override {}
  bool drop_dllp(uint64_t index, InjectedCounts&) override { return trigger_.fires(index); }
  std::vector<uint64_t> state() const override { return rng_words(trigger_.rng()); }
  void set_state(std::span<const uint64_t> w) override { set_rng_words(trigger_.rng(), w, 0, "ack_drop"); }

 private:
  Trigger trigger_;
};

enum PolicyKind : uint64_t { kBer = 1, kPeriodic, kBurst, kDrop, kDup, kAckDrop };

}  // namespace

std::unique_ptr<FaultPolicy> make_bit_error_policy(double ber, uint64_t seed) {
  return std::make_unique<BitErrorPolicy>(ber, seed);
}
std::unique_ptr<FaultPolicy> make_periodic_policy(uint64_t every, uint64_t seed) {
  return std::make_unique<PeriodicPolicy>(every, seed);
}
std::unique_ptr<FaultPolicy> make_burst_policy(uint64_t start, uint64_t length, uint64_t period,
                                               uint64_t seed) {
  return std::make_unique<BurstPolicy>(start, length, period, seed);
}
std::unique_ptr<FaultPolicy> make_drop_policy(double probability, uint64_t every, uint64_t seed) {
  return std::make_unique<VerdictPolicy>(&FrameVerdict::drop, probability, every, seed);
}
std::unique_ptr<FaultPolicy> make_duplicate_policy(double probability, uint64_t every, uint64_t seed) {
  return std::make_unique<VerdictPolicy>(&FrameVerdict::duplicate, probability, every, seed);
}
std::unique_ptr<FaultPolicy> make_ack_drop_policy(double probability, uint64_t every, uint64_t seed) {
  return std::make_unique<AckDropPolicy>(probability, every, seed);
}

FaultInjector::FaultInjector(const FaultSpec& s) {
  if (s.ber > 0) add(make_bit_error_policy(s.ber, derive_seed(s.seed, kBer)));
  if (s.periodic) add(make_periodic_policy(s.periodic, derive_seed(s.seed, kPeriodic)));
  if (s.burst_length)
    add(make_burst_policy(s.burst_start, s.burst_length, s.burst_period, derive_seed(s.seed, kBurst)));
  if (s.drop > 0 || s.drop_every) add(make_drop_policy(s.drop, s.drop_every, derive_seed(s.seed, kDrop)));
  if (s.dup > 0 || s.dup_every) add(make_duplicate_policy(s.dup, s.dup_every, derive_seed(s.seed, kDup)));
  if (s.ack_drop > 0 || s.ack_drop_every)
    add(make_ack_drop_policy(s.ack_drop, s.ack_drop_every, derive_seed(s.seed, kAckDrop)));
}

void FaultInjector::add(std::unique_ptr<FaultPolicy> policy) { policies_.push_back(std::move(policy)); }

FrameVerdict FaultInjector::on_frame(std::span<uint8_t> wire) {
  FrameVerdict verdict;
  const uint64_t index = counts_.wire_frames++;
  if (policies_.empty()) return verdict;
  clean_.assign(wire.begin(), wire.end());
  for (auto& p : policies_) p->on_frame(index, wire, verdict, counts_);
  if (verdict.drop) {
    verdict.duplicate = false;  // nothing arrives to be duplicated
    ++counts_.frames_dropped;
    return verdict;
  }
  if (verdict.duplicate) ++counts_.frames_duplicated;
  // Two policies may flip the same bit back; only a real difference is a corrupted frame.
  if (std::memcmp(clean_.data(), wire.data(), wire.size()) != 0) {
    ++counts_.frames_corrupted;
    counts_.corrupted_arrivals += verdict.duplicate ? 2 : 1;
  }
  return verdict;
}

FaultInjector::State FaultInjector::state() const {
  State s{counts_, {}};
  for (const auto& p : policies_) s.policies.push_back(p->state());
  return s;
}

void FaultInjector::restore(const State& s) {
  if (s.policies.size() != policies_.size())
    throw std::invalid_argument("fault injector: " + std::to_string(s.policies.size()) + " policy state(s) for " +
                                std::to_string(policies_.size()) + " polic(ies)");
  for (size_t i = 0; i < policies_.size(); ++i) policies_[i]->set_state(s.policies[i]);
  counts_ = s.counts;
}

bool FaultInjector::drop_dllp() {
  const uint64_t index = counts_.dllps_seen++;
  bool drop = false;
  for (auto& p : policies_) drop = p->drop_dllp(index, counts_) || drop;
  if (drop) ++counts_.dllps_dropped;
  return drop;
}

}  // namespace ipusim::links
