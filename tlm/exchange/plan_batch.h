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
// Why nothing simulated changes (docs/exchange.md, "Planning the IPUs together"): a plan
// is a pure function of its inputs and of nothing else (plan_exchange); the batch adds no
// delta cycle and no simulated time; and the fabrics go on in the order they handed in,
// which is the order they ran in before, so what they do after the plan (delivery,
// streaming copies, answers) happens in the same order as when each planned alone.
//
// One per run domain, owned by its ExchangeGroup; its process is spawned when it is made
// (during elaboration).
#pragma once

#include <cstdint>
#include <exception>
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

  // The host threads the batch plans on (null: the calling thread alone).
  void set_plan_threads(const PlanThreads* threads) { threads_.set(threads); }

  // From a SystemC thread process: plan_exchange(tiles, timing, deliveries) made in this
  // evaluation phase's batch. `tiles` and `timing` must stay as they are until it
  // returns. Rethrows what the plan threw.
  ExchangePlan plan(const std::vector<TilePostings>& tiles, const ExchangeTiming& timing,
                    std::vector<Delivery> deliveries = {});

  // Host figures since the last reset: the batches' ticks (plan: the batch's wall time;
  // plan_parallel: of which on the host threads; plan_links: the links' schedule).
  const ExchangeHostTicks& host_ticks() const { return host_ticks_; }
  uint64_t batches() const { return batches_; }  // batches run
  uint64_t plans() const { return plans_; }      // plans made in them
  void reset_figures() {
    host_ticks_ = {};
    batches_ = plans_ = 0;
  }

 private:
  struct Job {
    const std::vector<TilePostings>* tiles = nullptr;
    const ExchangeTiming* timing = nullptr;
    std::vector<Delivery> deliveries;  // the fabric's storage for the plan's
    ExchangePlan plan;
    std::exception_ptr error;
    bool done = false;
    sc_core::sc_event planned;
  };
  void batch_thread();  // the spawned process
  void run(std::vector<Job*>& jobs);

  std::vector<Job*> handed_in_;  // waiting for the next batch, in hand-in order
  std::vector<Job*> running_;    // the batch being planned (storage reused)
  sc_core::sc_event handed_in_event_;
  TimedPlanThreads threads_;
  ExchangeHostTicks host_ticks_;
  uint64_t batches_ = 0, plans_ = 0;
};

}  // namespace ipusim::exchange
