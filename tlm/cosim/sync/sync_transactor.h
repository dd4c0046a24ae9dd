// The transactor between SyncController's bookkeeping and the Verilated sync_ctrl
// (hw/sync): a sync::ReleaseTiming that replays a complete sync's arrivals into the RTL
// in cycle order, clocks it with the tile clock (one eval per clock level, none across
// idle stretches: idle_o), and reads the releases back as cycles. hw/sync/README.md has
// the pin timing; docs/sync.md "RTL" the design.
//
// Why two model instances ("lanes", taking the syncs in turn): tiles compute ahead, so
// the controller only learns a tile's next arrival after it has answered the tile's
// release. A tile released early may arrive at the next sync before the last tile of
// this sync is released; one model clocked in cycle order would need that arrival before
// the answer that causes it. A lane's syncs cannot overlap (sync k + 2 starts after the
// last release of sync k, as latency_min >= 1), so each lane sees its own syncs' inputs
// complete and in cycle order; the overlap itself (a tile's way in while others are on
// their way out, a request in the cycle of the release) is what the RTL's per-tile
// slices are built for, and the pin-level test drives one model through it.
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "cosim/verilated_sc.h"  // first: verilated.h under SystemC
#include "cosim/rtl_checks.h"
#include "cosim/rtl_clock.h"
#include "cosim/sync/pins.h"
#include "cosim/waves.h"
#include "sync/release_timing.h"
#include "sync/sync_latency.h"

namespace ipusim::cosim {

struct SyncRtlParams {
  uint32_t ipu = 0;
  uint32_t tiles = 1;        // the chip's tiles (<= the model's TILES)
  uint32_t model_tiles = 1;  // the model's TILES
  uint32_t delay_bits = 8;   // the model's DW
  uint32_t latency_min_cycles = 16, latency_max_cycles = 80;
  uint64_t clock_hz = 1000000000;
  Waves* waves = nullptr;    // nullptr: no waves
};

// What the wrapper sees of a transactor, whatever its model point.
class SyncRtl : public sync::ReleaseTiming {
 public:
  // Model evaluations and syncs timed so far (the benchmark's and the tests' measure).
  virtual uint64_t evals() const = 0;
  virtual uint64_t syncs() const = 0;
};

template <class Model, class Trace>
class SyncTransactor final : public SyncRtl {
 public:
  explicit SyncTransactor(const SyncRtlParams& p)
      : p_(p), latency_(p.tiles, p.latency_min_cycles, p.latency_max_cycles) {
    period_ = std::max<uint64_t>(2, (uint64_t(1000000000000ull) + p.clock_hz / 2) / p.clock_hz);
    const bool waves = p.waves != nullptr;
    for (unsigned i = 0; i < 2; ++i) {
      Lane& l = lanes_[i];
      l.name = fmt::format("ipu{}.sync{}", p.ipu, i == 0 ? "" : ".odd");
      l.ctx = std::make_unique<RtlContext>("sync", l.name);
      if (waves) l.ctx->context().traceEverOn(true);
      l.model = std::make_unique<Model>(l.ctx->get(), "sync_ctrl");
      if (i == 0) check_time_resolution(l.ctx->context(), "sync");
      tie_straps(*l.model);
      reset_model(*l.model);
      if (waves) p.waves->add(l.name);
    }
    slot_.assign(p.tiles, -1);
  }

  ~SyncTransactor() override {
    if (close_id_) p_.waves->forget(*close_id_);
    close_waves();
    for (Lane& l : lanes_) {
      l.ctx->write_coverage();
      l.model->final();
      l.model.reset();  // before its context
    }
  }

  // ReleaseTiming
  void release_zone1(std::span<const sync::SyncArrival> arrivals, std::span<uint64_t> release) override {
    Lane& l = lanes_[turn_];
    begin(l, arrivals, release);
    feed(l, arrivals, /*zone2=*/false, /*stop_at_gather=*/false);
    finish(l);
  }

  uint64_t gather_zone2(std::span<const sync::SyncArrival> arrivals) override {
    Lane& l = lanes_[turn_];
    begin(l, arrivals, {});
    return feed(l, arrivals, /*zone2=*/true, /*stop_at_gather=*/true);
  }

  void release_zone2(uint64_t base_cycle, std::span<uint64_t> release) override {
    Lane& l = lanes_[turn_];
    if (release.size() != expected_) throw error(l, "a zone-2 release for another sync than the one gathered");
    release_ = release;
    std::fill(release_.begin(), release_.end(), 0);
    // The lane stands before the edge of the gather cycle (l.pending).
    if (base_cycle < l.next) throw error(l, fmt::format("group release base {} before the gather", base_cycle));
    if (base_cycle == l.next) {
      l.model->group_release_i = 1;
      l.model->eval();
      ++evals_;
      edge(l, l.next);
    } else {
      edge(l, l.next);
      if (!l.idle) throw error(l, "not idle while it waits for the group");
      l.model->group_release_i = 1;
      pre(l, base_cycle);
      edge(l, base_cycle);
    }
    finish(l);
  }

  void reset() override {
    for (Lane& l : lanes_) {
      reset_model(*l.model);
      l.wave_base += l.next + 2;
      l.next = 0;
      l.pending = false;
      l.idle = true;
      l.participants.clear();
    }
    turn_ = 0;
    expected_ = released_ = 0;
  }

  uint64_t evals() const override { return evals_; }
  uint64_t syncs() const override { return syncs_; }

 private:
  struct Lane {
    std::string name;                  // the waves instance
    std::unique_ptr<RtlContext> ctx;   // its assertions' failures, its coverage
    std::unique_ptr<Model> model;
    std::unique_ptr<Trace> trace;      // opened at the first cycle with waves on
    uint64_t next = 0;                 // the next cycle to clock: cycles go forward only
    uint64_t wave_base = 0;            // cycles before the last reset (waves' time goes on)
    bool pending = false;              // pre(next) done, its edge not yet
    bool idle = true;
    std::vector<uint32_t> participants;  // the participate straps now
  };

  std::runtime_error error(const Lane& l, const std::string& what) const {
    return std::runtime_error(fmt::format("RTL sync controller {}: {}", l.name, what));
  }

  void tie_straps(Model& m) {
    pins::clear(m.participate_i);
    pins::clear(m.way_in_i);
    pins::clear(m.way_out_i);
    const uint32_t dw = p_.delay_bits;
    for (uint32_t t = 0; t < p_.tiles; ++t) {
      pins::set_field(m.way_in_i, t * dw, dw, latency_.to_controller(t));
      pins::set_field(m.way_out_i, t * dw, dw, latency_.from_controller(t));
    }
    m.latency_min_i = p_.latency_min_cycles;
    pins::clear(m.arrive_i);
    pins::clear(m.zone2_i);
    m.group_release_i = 0;
    m.clk_i = 0;
  }

  // A falling edge of rst_ni whatever it was before (the first time, whatever
  // --x-initial left in it).
  void reset_model(Model& m) {
    m.clk_i = 0;
    m.rst_ni = 1;
    m.eval();
    m.rst_ni = 0;
    m.eval();
    m.rst_ni = 1;
    m.eval();
    evals_ += 3;
  }

  // A sync starts on the lane: the participate straps (the arriving tiles: every
  // participant arrived), where its releases go.
  void begin(Lane& l, std::span<const sync::SyncArrival> arrivals, std::span<uint64_t> release) {
    if (l.pending || !l.idle) throw error(l, "a new sync while the last one is in flight");
    std::vector<uint32_t> tiles;
    tiles.reserve(arrivals.size());
    for (const auto& a : arrivals) tiles.push_back(a.tile);
    if (tiles != l.participants) {
      pins::clear(l.model->participate_i);
      for (uint32_t t : tiles) pins::set_bit(l.model->participate_i, t, true);
      l.participants = std::move(tiles);
    }
    std::fill(slot_.begin(), slot_.end(), -1);
    for (size_t i = 0; i < arrivals.size(); ++i) slot_[arrivals[i].tile] = int32_t(i);
    expected_ = arrivals.size();
    released_ = 0;
    release_ = release;
    std::fill(release_.begin(), release_.end(), 0);
    ++syncs_;
  }

  // Replays the arrivals in cycle order (ties: tile order), jumping over the cycles where
  // the RTL is idle. Zone 2 (stop_at_gather): goes on until gathered_o and stops before
  // that cycle's edge (the group's release may come in that very cycle); returns G.
  uint64_t feed(Lane& l, std::span<const sync::SyncArrival> arrivals, bool zone2, bool stop_at_gather) {
    order_.assign(arrivals.begin(), arrivals.end());
    std::stable_sort(order_.begin(), order_.end(),
                     [](const sync::SyncArrival& a, const sync::SyncArrival& b) { return a.cycle < b.cycle; });
    if (!order_.empty() && order_.front().cycle < l.next)
      throw error(l, fmt::format("tile {} arrives at cycle {}, before the cycle the RTL has reached ({})",
                                 order_.front().tile, order_.front().cycle, l.next));
    size_t i = 0;
    const uint64_t limit = (order_.empty() ? l.next : order_.back().cycle) + kMaxDelay;
    for (;;) {
      uint64_t c = l.next;
      if (l.idle) {
        if (i == order_.size()) {
          if (stop_at_gather) throw error(l, fmt::format("idle at cycle {} before the gather", l.next));
          return 0;
        }
        c = order_[i].cycle;  // nothing moves until the next arrival
      }
      if (c > limit) throw error(l, fmt::format("no end by cycle {}", c));
      for (; i < order_.size() && order_[i].cycle == c; ++i) {
        pins::set_bit(l.model->arrive_i, order_[i].tile, true);
        pins::set_bit(l.model->zone2_i, order_[i].tile, zone2);
      }
      pre(l, c);
      if (stop_at_gather && l.model->gathered_o) {
        l.pending = true;
        return c;
      }
      edge(l, c);
      if (!stop_at_gather && i == order_.size()) return 0;  // finish() clocks the rest
    }
  }

  // After the releases started: clock until every tile is released.
  void finish(Lane& l) {
    while (released_ < expected_) {
      if (l.idle) throw error(l, fmt::format("idle at cycle {} with {} tile(s) not released", l.next,
                                             expected_ - released_));
      const uint64_t c = l.next;
      pre(l, c);
      edge(l, c);
    }
    turn_ ^= 1u;
  }

  // The first half of cycle c: the clock low with the cycle's inputs (set by the caller)
  // and the combinational outputs.
  void pre(Lane& l, uint64_t c) {
    if (!l.trace && p_.waves && !waves_closed_) open_waves(l);
    l.model->clk_i = 0;
    l.model->eval();
    ++evals_;
    l.next = c;
    l.pending = true;
  }

  // The edge that ends cycle c: the registered outputs are cycle c's releases.
  void edge(Lane& l, uint64_t c) {
    Model& m = *l.model;
    const bool trace = l.trace && !waves_closed_;
    if (trace) l.trace->dump(wave_time(l, c));
    m.clk_i = 1;
    m.eval();
    ++evals_;
    if (trace) l.trace->dump(wave_time(l, c) + period_ / 2);
    pins::for_each_set(m.release_o, [&](uint32_t t) {
      const int32_t s = t < slot_.size() ? slot_[t] : -1;
      if (s < 0 || release_[size_t(s)] != 0)
        throw error(l, fmt::format("releases tile {} at cycle {}, which does not wait", t, c));
      release_[size_t(s)] = c;
      ++released_;
    });
    l.idle = m.idle_o;
    l.next = c + 1;
    l.pending = false;
    pins::clear(m.arrive_i);
    m.group_release_i = 0;
    if (trace) {  // the inputs fall just after the edge, not at the next cycle clocked
      m.eval();
      ++evals_;
      l.trace->dump(wave_time(l, c) + period_ / 2 + 1);
    }
    l.ctx->check(c);  // an assertion that failed at this edge stops the run, named
  }

  void open_waves(Lane& l) {
    l.trace = std::make_unique<Trace>();
    l.model->trace(l.trace.get(), 99);
    l.trace->open(p_.waves->path(l.name).c_str());
    if (!close_id_) close_id_ = p_.waves->on_close([this] { close_waves(); });
  }

  // The end of the run (Waves::close) or of the transactor.
  void close_waves() {
    if (waves_closed_) return;
    waves_closed_ = true;
    for (Lane& l : lanes_)
      if (l.trace) l.trace->close();
  }

  uint64_t wave_time(const Lane& l, uint64_t c) const { return (l.wave_base + c) * period_; }

  // No sync takes longer than its last arrival plus the longest way in, latency_min and
  // the longest way out (each < 2^8); a bound far above that catches an RTL that hangs.
  static constexpr uint64_t kMaxDelay = 1u << 12;

  SyncRtlParams p_;
  sync::SyncLatency latency_;
  uint64_t period_;                 // of the tile clock, in the RTL's time precision (1 ps)
  Lane lanes_[2];
  unsigned turn_ = 0;               // the lane of the next (or current) sync
  std::vector<int32_t> slot_;       // tile -> index in the sync's arrivals, -1: not in it
  std::vector<sync::SyncArrival> order_;
  std::span<uint64_t> release_;
  size_t expected_ = 0, released_ = 0;
  uint64_t evals_ = 0, syncs_ = 0;
  std::optional<size_t> close_id_;  // our closer in p_.waves
  bool waves_closed_ = false;
};

}  // namespace ipusim::cosim
