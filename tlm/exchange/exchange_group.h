// The exchange across the IPUs of a run domain (its sync group), after a zone-2 sync.
//
// An exchange phase that a zone-2 (group) sync opened spans every member IPU: tiles send
// to tiles of other IPUs by global tile id. Each member's ExchangeFabric collects its own
// tiles' postings as for any phase and hands them here (exchange()); when every member
// has, the last one plans the phase over all of them at once (plan_exchange with the
// IPU-Links' timing, links::LinkScheduler), moves every message from its sender's SRAM
// to its receiver's, and wakes the others, each of which then answers its own tiles. The
// rules of the chip's exchange hold across IPUs (docs/exchange.md, "Between IPUs"): a
// problem anywhere fails the whole phase on every member, nothing is delivered, and each
// problem names both tiles with their IPUs.
//
// One per run domain, owned by the platform. A phase after a zone-1 sync stays on its IPU;
// its plan is made in the group's PlanBatch (plan_batch.h) with the other IPUs' plans of
// the same moment, across the host threads.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include <systemc>

#include "common/problem.h"
#include "exchange/exchange_host_time.h"
#include "exchange/exchange_plan.h"
#include "exchange/plan_batch.h"
#include "links/link_faults.h"
#include "links/link_timing.h"

namespace ipusim::exchange {

class ExchangeFabric;

class ExchangeGroup {
 public:
  // `timing`: the chip's exchange timing (tiles_per_ipu = tiles of an IPU); its `links`
  // is set to a scheduler over `topology` (which must outlive the group).
  ExchangeGroup(const links::Topology& topology, const links::LinkTimingConfig& links, ExchangeTiming timing);
  ~ExchangeGroup();

  // Before a run: a member IPU (one with participating tiles), in any order.
  void join(ExchangeFabric& fabric);
  size_t members() const { return members_.size(); }
  // Back to no member and no phase (a device reset); a member waiting in exchange() returns false.
  void reset();

  // One member's side of a joint phase.
  struct Part {
    const std::vector<TilePostings>* postings = nullptr;  // its tiles (global ids, ascending)
    const std::vector<Problem>* problems = nullptr;       // found by the member itself (copies)
    // Results: the member's tiles' outcomes (postings order), and every problem of the
    // phase (empty: it succeeded and every message has been delivered).
    std::vector<TileOutcome> outcomes;
    std::vector<Problem> errors;
    bool done = false;  // the phase was planned (not dropped by a reset)
  };
  // Called from `fabric`'s thread: waits (SystemC) until every member handed in its part
  // of the phase, then returns with the results. False if the group was reset meanwhile.
  bool exchange(ExchangeFabric& fabric, Part& part);

  // Fault injection on the links (null: none). With faults, the messages between IPUs go
  // through the link layer frame by frame, and each phase lasts the cycles its links
  // lost longer (links/link_faults.h).
  void set_faults(std::unique_ptr<links::LinkFaults> faults);
  // Host threads for the joint plans and the batched ones (null: the calling thread
  // alone), and how many they are: the batch makes and holds that many plans at once.
  void set_plan_threads(const PlanThreads* threads, size_t host_threads = 1) {
    plan_threads_.set(threads);
    batch_.set_plan_threads(threads, host_threads);
  }
  // The members' plans of phases that stay on their IPU, made together (plan_batch.h).
  PlanBatch& batch() { return batch_; }
  const links::LinkFaults* faults() const { return faults_.get(); }

  // Totals since the last reset (the batch's included).
  ExchangeHostTicks host_ticks() const {
    ExchangeHostTicks t = host_ticks_;
    t += batch_.host_ticks();
    return t;
  }
  uint64_t phases() const { return phases_; }
  // No phase under way: no member has handed in a part that is not answered yet.
  bool quiet() const { return parts_.empty(); }
  // A checkpoint's view at a sync (docs/checkpoints.md): the phases so far, the links'
  // timing state and, with faults, each direction's injector and statistics.
  struct Saved {
    uint64_t phases = 0;
    links::LinkScheduler::Saved links;
    std::optional<std::vector<links::LinkFaults::DirectionState>> faults;
  };
  Saved saved() const;
  // Throws std::invalid_argument for the state of another system, or faults saved for a
  // group without them (or the reverse).
  void restore(const Saved& s);
  links::LinkScheduler& links() { return *scheduler_; }
  const links::LinkScheduler& links() const { return *scheduler_; }

 private:
  void plan_and_deliver();

  // The link layer's part of a valid phase: carries the messages between IPUs through
  // it (their bytes into `data`, by leg) and returns the cycles lost, or a problem.
  uint64_t carry_over_links(const ExchangePlan& plan, std::vector<std::vector<uint8_t>>& data,
                            std::vector<Problem>& errors);

  std::unique_ptr<links::LinkScheduler> scheduler_;
  std::unique_ptr<links::LinkFaults> faults_;
  uint64_t ticks_per_cycle_ = 1;
  ExchangeTiming timing_;
  TimedPlanThreads plan_threads_;
  PlanBatch batch_;
  std::vector<ExchangeFabric*> members_;
  std::vector<std::pair<ExchangeFabric*, Part*>> parts_;  // handed in for the current phase
  std::vector<TilePostings> all_;                         // the joint plan's input (storage reused)
  std::vector<Delivery> kept_deliveries_;                 // the last joint plan's, delivered: storage for the next
  std::vector<ExchangeFabric*> by_ipu_;                   // the members of the current phase
  sc_core::sc_event planned_;
  uint64_t generation_ = 0;  // phases planned + resets: a waiter knows its phase is over
  ExchangeHostTicks host_ticks_;
  uint64_t phases_ = 0;
};

}  // namespace ipusim::exchange
