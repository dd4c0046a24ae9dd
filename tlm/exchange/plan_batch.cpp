#include "exchange/plan_batch.h"

namespace ipusim::exchange {

PlanBatch::PlanBatch() {
  sc_core::sc_spawn_options options;
  options.dont_initialize();  // it waits for a hand-in before anything else
  options.set_sensitivity(&handed_in_event_);
  sc_core::sc_spawn([this] { batch_thread(); }, sc_core::sc_gen_unique_name("exchange_plan_batch"), &options);
}

ExchangePlan PlanBatch::plan(const std::vector<TilePostings>& tiles, const ExchangeTiming& timing,
                             std::vector<Delivery> deliveries) {
  Job job;
  job.tiles = &tiles;
  job.timing = &timing;
  job.deliveries = std::move(deliveries);
  handed_in_.push_back(&job);
  // Immediate: the batch runs in this evaluation phase, after the processes already
  // runnable in it (the other fabrics whose phases completed at the same time).
  if (handed_in_.size() == 1) handed_in_event_.notify();
  while (!job.done) sc_core::wait(job.planned);
  if (job.error) std::rethrow_exception(job.error);
  return std::move(job.plan);
}

void PlanBatch::batch_thread() {
  for (;;) {
    running_.swap(handed_in_);
    handed_in_.clear();
    run(running_);
    // In hand-in order, immediately: each fabric goes on in this evaluation phase, in
    // the order the fabrics ran before the batch.
    for (Job* job : running_) {
      job->done = true;
      job->planned.notify();
    }
    running_.clear();
    sc_core::wait();  // the next first hand-in (static sensitivity)
  }
}

void PlanBatch::run(std::vector<Job*>& jobs) {
  if (jobs.empty()) return;
  HostTicksScope timed(host_ticks_.plan);
  ++batches_;
  plans_ += jobs.size();
  auto plan_one = [](Job& job, const PlanThreads* threads) {
    try {
      job.plan = plan_exchange(*job.tiles, *job.timing, threads, std::move(job.deliveries));
    } catch (...) {
      job.error = std::current_exception();  // the fabric that handed it in rethrows it
    }
  };
  // One plan: on every thread, by chunks. Several: one plan per thread at a time (a
  // host pool runs one loop at a time, so a plan inside it plans on its thread alone).
  if (jobs.size() == 1) {
    plan_one(*jobs[0], threads_.into(host_ticks_.plan_parallel));
  } else if (const PlanThreads* threads = threads_.into(host_ticks_.plan_parallel)) {
    (*threads)(jobs.size(), [&](size_t i) { plan_one(*jobs[i], nullptr); });
  } else {
    for (Job* job : jobs) plan_one(*job, nullptr);
  }
  for (Job* job : jobs) host_ticks_.plan_links += job->plan.link_ticks;
}

}  // namespace ipusim::exchange
