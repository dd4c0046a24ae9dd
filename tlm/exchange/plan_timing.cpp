// Timing of a valid exchange (docs/exchange.md, "Timing", which gives the formulas).
//
// Times are kept in ticks of 1 / (2 * out_rate * in_rate) cycle: every send duration,
// charge and drain in the model is then an exact integer, and each tile's done cycle is
// the exact model time rounded up once. Per tile:
// - out port: sends leave one after the other in posting order at out_rate, none before
//   the sender and all its destinations have reached `xwait`;
// - in port: a fluid queue drained at in_rate; each message's (possibly halved, pair
//   rule) charge arrives uniformly while its bytes arrive, latency after they leave.
// O(postings log postings) for the per-receiver sorts. Out ports run by chunks of
// senders, in ports by chunks of receivers, on the plan's threads; the links' schedule
// (one queue per link direction, shared by every tile) runs on the calling thread.
#include <algorithm>

#include "common/host_clock.h"
#include "exchange/plan_internal.h"

namespace ipusim::exchange::detail {
namespace {

struct Flow {
  uint64_t time = 0;  // ticks, relative to the receiver's first arrival
  uint64_t rate = 0;  // charge units per tick: 2 (whole length) or 1 (pair rule: half)
};

// One message into the port: its charge arrives over [start, end).
struct Arrival {
  uint64_t start = 0, end = 0, rate = 0;
};

class InPort {
 public:
  // What the caller adds up while it writes the arrivals (in locals: kept in registers,
  // which members written beside the arrivals would not be).
  struct Sums {
    uint64_t total = 0;     // charge: the sum of rate * duration
    uint64_t last_end = 0;  // the latest end
    bool uniform = true;    // every message as long as the first
  };
  // Room for the next port's `n` arrivals (their charge arrives over [start, end)).
  Arrival* open(size_t n) {
    arrivals_.resize(n);
    return arrivals_.data();
  }

  // When the port has accepted every byte (ticks). Charge units: 4 * in_rate per byte,
  // so a message of L bytes brings 4 * in_rate * L (2 * in_rate * L under the pair rule)
  // over 2 * in_rate * L ticks; the port drains 2 * in_rate / out_rate units per tick.
  //   done = max( last arrival end, max_i [ a_i + (W - A(a_i)) * out_rate / (2 * in_rate) ] )
  // with W the total charge and A(t) the charge arrived by t (docs/exchange.md). The
  // order of equal times does not matter (a message starting at t has brought nothing
  // by t), so one sort by start serves the ends too when every message takes as long
  // (messages of one length, the usual case): they then end in the order they start.
  // Times are taken relative to the first arrival, which keeps the products small.
  uint64_t done(const Sums& sums, uint64_t out_rate, uint64_t in_rate) {
    sort_by_start();
    const uint64_t t0 = arrivals_.front().start;
    if (sums.uniform) {
      return t0 + sweep(sums, out_rate, in_rate, t0, arrivals_.size(), [&](size_t e) {
               return Flow{arrivals_[e].end - t0, arrivals_[e].rate};
             });
    }
    ends_.clear();
    for (const Arrival& a : arrivals_) ends_.push_back({a.end - t0, a.rate});
    if (!std::is_sorted(ends_.begin(), ends_.end(), by_time)) std::sort(ends_.begin(), ends_.end(), by_time);
    return t0 + sweep(sums, out_rate, in_rate, t0, ends_.size(), [&](size_t e) { return ends_[e]; });
  }

 private:
  // `end_at(e)`: the e-th end (relative to t0) in time order.
  template <typename EndAt>
  uint64_t sweep(const Sums& sums, uint64_t out_rate, uint64_t in_rate, uint64_t t0, size_t ends,
                 EndAt end_at) const {
    uint64_t best = sums.last_end - t0;
    uint64_t started_rate = 0, started_weight = 0, ended_rate = 0, ended_weight = 0;
    size_t e = 0;
    for (const Arrival& a : arrivals_) {
      const uint64_t start = a.start - t0;
      started_rate += a.rate;
      started_weight += a.rate * start;
      for (; e < ends; ++e) {
        const Flow f = end_at(e);
        if (f.time > start) break;
        ended_rate += f.rate;
        ended_weight += f.rate * f.time;
      }
      const uint64_t arrived = (start * started_rate - started_weight) - (start * ended_rate - ended_weight);
      const uint64_t queued = (sums.total - arrived) * out_rate;
      best = std::max(best, start + (queued + 2 * in_rate - 1) / (2 * in_rate));
    }
    return best;
  }

  // Arrivals come nearly in order (a sender's messages leave in posting order, and an
  // all-to-all's receiver posts its receives in the order their senders send them, give
  // or take the latency): an insertion sort then moves each a step or two. Past a bound
  // on its moves, std::sort instead (which orders equal starts differently: that does not
  // matter, above).
  void sort_by_start() {
    const size_t n = arrivals_.size();
    size_t budget = 4 * n + 16;
    for (size_t i = 1; i < n; ++i) {
      if (arrivals_[i].start >= arrivals_[i - 1].start) continue;
      const Arrival a = arrivals_[i];
      size_t k = i;
      for (; k > 0 && arrivals_[k - 1].start > a.start && budget > 0; --k, --budget) arrivals_[k] = arrivals_[k - 1];
      arrivals_[k] = a;
      if (budget == 0) {
        std::sort(arrivals_.begin(), arrivals_.end(), [](const Arrival& x, const Arrival& y) { return x.start < y.start; });
        return;
      }
    }
  }

  // A function object, not a function pointer, so the sorts inline the comparison.
  struct ByTime {
    bool operator()(const Flow& a, const Flow& b) const { return a.time < b.time; }
  };
  static constexpr ByTime by_time{};
  std::vector<Arrival> arrivals_;
  std::vector<Flow> ends_;
};

// The messages between IPUs, timed by the links: legs[k] is the k-th such delivery in
// match order (the in-port loop walks them in the same order); first_leg[c] is the first
// of receiver chunk c's.
std::vector<links::LinkLeg> time_links(const TileIndex& index, const Matches& matches,
                                       const std::vector<uint64_t>& leaves, const ExchangeTiming& timing,
                                       links::LinkScheduler& links, std::vector<size_t>& first_leg) {
  const uint64_t ticks_per_cycle = timing.ticks_per_cycle();
  const uint64_t on_chip = uint64_t(std::max(timing.latency_max_cycles, timing.latency_min_cycles)) * ticks_per_cycle;
  std::vector<links::LinkLeg> legs;
  first_leg.assign(matches.chunk_begin.size(), 0);
  size_t chunk = 0;
  for (size_t i = 0; i < matches.deliveries.size(); ++i) {
    while (chunk + 1 < matches.chunk_begin.size() && matches.chunk_begin[chunk + 1] <= i) first_leg[++chunk] = legs.size();
    const Delivery& m = matches.deliveries[i];
    const uint32_t src = index.global(m.src_tile), dst = index.global(m.dst_tile);
    if (!timing.between_ipus(src, dst)) continue;
    links::LinkLeg leg;
    leg.src_ipu = timing.ipu_of(src);
    leg.dst_ipu = timing.ipu_of(dst);
    leg.spread = src;
    leg.len = m.len;
    leg.ready = leaves[matches.send_pair[i] >> 1] + on_chip;
    leg.ticks_per_byte = 2 * uint64_t(timing.in_bytes_per_cycle);
    legs.push_back(leg);
  }
  while (chunk + 1 < first_leg.size()) first_leg[++chunk] = legs.size();
  if (!legs.empty()) links.schedule(legs);
  return legs;
}

}  // namespace

void time_exchange(const TileIndex& index, const Postings& postings, Matches& matches,
                   const ExchangeTiming& timing, const Chunks& chunks, TimingStorage& storage, uint64_t& link_ticks) {
  const uint64_t out_rate = timing.out_bytes_per_cycle, in_rate = timing.in_bytes_per_cycle;
  const uint64_t ticks_per_cycle = timing.ticks_per_cycle();
  const uint32_t n = index.size();
  std::vector<TileOutcome>& outcome = storage.outcome;
  outcome.assign(n, TileOutcome{});
  std::vector<uint64_t>& start = storage.start;
  std::vector<uint64_t>& done = storage.done;
  start.resize(n);
  done.resize(n);
  for (uint32_t t = 0; t < n; ++t) start[t] = done[t] = index.tile[t]->start_cycle * ticks_per_cycle;

  // Out ports: the sends of a tile are consecutive in `sends`, in posting order (each
  // send's leave time is written before it is read).
  std::vector<uint64_t>& leaves = storage.leaves;
  leaves.resize(postings.sends.size());
  chunks.run([&](size_t c) {
    for (uint32_t t = chunks.begin(c); t < chunks.end(c); ++t) {
      uint64_t port_free = start[t];
      for (size_t i = postings.send_begin[t]; i < postings.send_begin[t + 1]; ++i) {
        const SendInfo& s = postings.sends[i];
        const uint32_t len = s.len;
        uint64_t ready = start[t];
        for (size_t d = postings.dest_begin(i); d < postings.dest_end(i); ++d)
          ready = std::max(ready, start[dest_tile(postings.send_dests[d])]);
        leaves[i] = std::max(port_free, ready);
        port_free = leaves[i] + 2 * in_rate * uint64_t(len);  // len / out_rate cycles
        outcome[t].bytes_out += len;
      }
      done[t] = std::max(done[t], port_free);
    }
  });

  const LatencyTable latency(index, timing);
  std::vector<Delivery>& legs = matches.deliveries;  // dense tile ids, renamed to global ones below
  // Messages between IPUs: the links decide when their last byte is in; it enters the
  // receiver's port at the sender's rate, ending then.
  std::vector<links::LinkLeg> link_legs;
  std::vector<size_t> first_link_leg;
  if (timing.links) {
    HostTicksScope timed(link_ticks);
    link_legs = time_links(index, matches, leaves, timing, *timing.links, first_link_leg);
  }

  // In ports: a valid plan's matches are its receive legs, slot for slot (plan_match.cpp),
  // so a receiver's are recvs[recv_begin[dst], recv_begin[dst + 1]). Each delivery read
  // here is also renamed to global tile ids, the plan's output (one pass over the
  // deliveries instead of two).
  const bool any_link_legs = !link_legs.empty();
  chunks.run([&](size_t c) {
    InPort port;
    size_t link_leg = any_link_legs ? first_link_leg[c] : 0;
    for (uint32_t dst = chunks.begin(c); dst < chunks.end(c); ++dst) {
      const size_t first = postings.recv_begin[dst], end = postings.recv_begin[dst + 1];
      if (first == end) continue;
      const uint32_t global_dst = index.global(dst);
      const uint64_t first_duration = 2 * in_rate * uint64_t(legs[first].len);
      Arrival* arrival = port.open(end - first);
      InPort::Sums sums;
      uint64_t bytes_in = 0;
      for (size_t i = first; i < end; ++i, ++arrival) {
        Delivery& m = legs[i];
        const uint32_t send = matches.send_pair[i] >> 1, pair = matches.send_pair[i] & 1;
        const uint64_t duration = 2 * in_rate * uint64_t(m.len), rate = pair ? 1 : 2;
        uint64_t arrive = leaves[send] + latency(m.src_tile, dst) * ticks_per_cycle;
        if (any_link_legs && timing.between_ipus(index.global(m.src_tile), global_dst)) {
          const links::LinkLeg& leg = link_legs[link_leg++];
          // Never before the bytes could have come over an ideal fabric at the sender's rate.
          arrive = std::max(leg.last, leg.ready + duration) - duration;
        }
        *arrival = {arrive, arrive + duration, rate};
        sums.total += rate * duration;
        sums.last_end = std::max(sums.last_end, arrive + duration);
        sums.uniform = sums.uniform && duration == first_duration;
        bytes_in += m.len;
        m.src_tile = index.global(m.src_tile);
        m.dst_tile = global_dst;
      }
      outcome[dst].bytes_in += bytes_in;
      done[dst] = std::max(done[dst], port.done(sums, out_rate, in_rate));
    }
  });

  for (uint32_t t = 0; t < n; ++t) outcome[t].done_cycle = (done[t] + ticks_per_cycle - 1) / ticks_per_cycle;
}

}  // namespace ipusim::exchange::detail
