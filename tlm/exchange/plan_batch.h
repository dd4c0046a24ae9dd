// The per-IPU exchange plans of a system, made together across the host threads.
//
// Each IPU's fabric plans the phases that stay on its IPU (after a zone-1 sync) in its own
// SystemC process. On a system of several IPUs these phases mostly complete in the same
// evaluation phase (the IPUs run one program in step), and planning them one fabric after
// the other leaves every plan's serial steps (the index, the merges between its parallel
// steps, each hand-off to the host threads) in series. Instead a fabric hands its plan's
// inputs in (plan()) and waits. The first hand-in wakes the batch's own process by an
// immediate notification, so it runs in the same evaluation phase, after every fabric
// that was already runnable there has handed in its inputs too; it plans them all across
// the host threads (one plan per thread at a time, each on that thread alone; a batch of
// one plans on all of them) and wakes each fabric, again immediately and in the order they
// handed in, each then going on with exactly the plan it would have made alone.
//
// The plans are made in groups of consecutive hand-ins, as many at once as the batch may
// hold (set_plan_threads: the host threads). A fabric that can deliver at once (its phase
// has no streaming copies) hands in its delivery too: the batch delivers each valid plan
// of a group through it, in hand-in order, before it plans the next group, and reuses the
// plan's deliveries for the next one. So a batch holds the deliveries of one group, not of
// every IPU (a POD64's reduce-scatter: 2.17 M deliveries an IPU, 43 MB each).
//
// Why nothing simulated changes (docs/exchange.md, "Planning the IPUs together"): a plan
// is a pure function of its inputs and of nothing else (plan_exchange); the batch adds no
// delta cycle and no simulated time; the fabrics go on in the order they handed in, which
// is the order they ran in before, so what they do after the plan (streaming copies,
// answers) happens in the same order as when each planned alone; and a delivery the batch
// makes is the one its fabric would have made, the same deliveries through the same
// function, in the same delta cycle: it reads and writes only its own IPU's SRAMs (a
// message to another IPU fails a plan of one IPU), which nothing between the batch and
// the fabric going on reads or writes (the plans read postings, not SRAM).
//
// One per run domain, owned by its ExchangeGroup; its process is spawned when it is made
// (during elaboration).
#pragma once

#include <cstdint>
#include <exception>
#include <functional>
#include <vector>

#include <systemc>

#include "exchange/exchange_host_time.h"
#include "exchange/exchange_plan.h"

namespace ipusim::exchange {

class PlanBatch {
 public:
  PlanBatch();
  PlanBatch(const PlanBatch&) = delete;
  PlanBatch& operator=(const PlanBatch&) = delete;

  // The host threads the batch plans on (null: the calling thread alone), and how many
  // plans it makes (and holds) at once: their number (at least 1).
  void set_plan_threads(const PlanThreads* threads, size_t plans_at_once = 1) {
    threads_.set(threads);
    plans_at_once_ = plans_at_once ? plans_at_once : 1;
  }
  size_t plans_at_once() const { return plans_at_once_; }

  // Moves a valid plan's messages (the fabric's delivery); called from the batch's
  // process, before the fabric that handed it in goes on.
  using Deliver = std::function<void(const ExchangePlan&)>;

  // From a SystemC thread process: plan_exchange(tiles, timing) made in this evaluation
  // phase's batch. `tiles` and `timing` must stay as they are until it returns. With
  // `deliver`, a plan without errors is delivered through it by the batch and comes back
  // with no deliveries (the batch keeps their storage); without, or with errors, the
  // plan comes back whole. Rethrows what the plan threw.
  ExchangePlan plan(const std::vector<TilePostings>& tiles, const ExchangeTiming& timing,
                    const Deliver* deliver = nullptr);

  // Host figures since the last reset: the batches' ticks (plan: the batch's wall time;
  // plan_parallel: of which on the host threads; plan_links: the links' schedule).
  const ExchangeHostTicks& host_ticks() const { return host_ticks_; }
  uint64_t batches() const { return batches_; }  // batches run
  uint64_t plans() const { return plans_; }      // plans made in them
  uint64_t groups() const { return groups_; }    // groups of plans made at once
  uint64_t delivered() const { return delivered_; }  // plans delivered by the batch
  void reset_figures() {
    host_ticks_ = {};
    batches_ = plans_ = groups_ = delivered_ = 0;
  }

 private:
  struct Job {
    const std::vector<TilePostings>* tiles = nullptr;
    const ExchangeTiming* timing = nullptr;
    const Deliver* deliver = nullptr;
    ExchangePlan plan;
    std::exception_ptr error;
    bool done = false;
    sc_core::sc_event planned;
  };
  void batch_thread();  // the spawned process
  void run(std::vector<Job*>& jobs);
  void plan_group(Job* const* jobs, size_t count);

  std::vector<Job*> handed_in_;  // waiting for the next batch, in hand-in order
  std::vector<Job*> running_;    // the batch being planned (storage reused)
  // Storage for a group's deliveries: a delivered plan's, given to the next group's plans
  // (at most plans_at_once_ of them).
  std::vector<std::vector<Delivery>> spare_deliveries_;
  size_t plans_at_once_ = 1;
  sc_core::sc_event handed_in_event_;
  TimedPlanThreads threads_;
  ExchangeHostTicks host_ticks_;
  uint64_t batches_ = 0, plans_ = 0, groups_ = 0, delivered_ = 0;
};

}  // namespace ipusim::exchange
