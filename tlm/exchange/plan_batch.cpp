#include "exchange/plan_batch.h"

#include <algorithm>

namespace ipusim::exchange {

PlanBatch::PlanBatch() {
  sc_core::sc_spawn_options options;
  options.dont_initialize();  // it waits for a hand-in before anything else
  options.set_sensitivity(&handed_in_event_);
  sc_core::sc_spawn([this] { batch_thread(); }, sc_core::sc_gen_unique_name("exchange_plan_batch"), &options);
}

ExchangePlan PlanBatch::plan(const std::vector<TilePostings>& tiles, const ExchangeTiming& timing,
                             const Deliver* deliver) {
  Job job;
  job.tiles = &tiles;
  job.timing = &timing;
  job.deliver = deliver;
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
  ++batches_;
  plans_ += jobs.size();
  // Group by group in hand-in order: a group's valid plans are delivered (in hand-in
  // order) before the next group is planned, and their storage planned into again.
  for (size_t first = 0; first < jobs.size(); first += plans_at_once_) {
    const size_t count = std::min(plans_at_once_, jobs.size() - first);
    plan_group(jobs.data() + first, count);
    for (size_t i = first; i < first + count; ++i) {
      Job& job = *jobs[i];
      host_ticks_.plan_links += job.plan.link_ticks;
      if (job.error || !job.deliver || !job.plan.errors.empty()) continue;
      try {
        (*job.deliver)(job.plan);
      } catch (...) {
        job.error = std::current_exception();  // the fabric rethrows it, as if it had delivered
        continue;
      }
      ++delivered_;
      std::vector<Delivery> storage = std::move(job.plan.deliveries);
      job.plan.deliveries = {};
      if (spare_deliveries_.size() < plans_at_once_) spare_deliveries_.push_back(std::move(storage));
    }
  }
}

void PlanBatch::plan_group(Job* const* jobs, size_t count) {
  HostTicksScope timed(host_ticks_.plan);
  ++groups_;
  std::vector<std::vector<Delivery>> storage(count);
  for (size_t i = 0; i < count && !spare_deliveries_.empty(); ++i) {
    storage[i] = std::move(spare_deliveries_.back());
    spare_deliveries_.pop_back();
  }
  auto plan_one = [&](size_t i, const PlanThreads* threads) {
    Job& job = *jobs[i];
    try {
      job.plan = plan_exchange(*job.tiles, *job.timing, threads, std::move(storage[i]));
    } catch (...) {
      job.error = std::current_exception();  // the fabric that handed it in rethrows it
    }
  };
  // One plan: on every thread, by chunks. Several: one plan per thread at a time (a
  // host pool runs one loop at a time, so a plan inside it plans on its thread alone).
  if (count == 1) {
    plan_one(0, threads_.into(host_ticks_.plan_parallel));
  } else if (const PlanThreads* threads = threads_.into(host_ticks_.plan_parallel)) {
    (*threads)(count, [&](size_t i) { plan_one(i, nullptr); });
  } else {
    for (size_t i = 0; i < count; ++i) plan_one(i, nullptr);
  }
}

}  // namespace ipusim::exchange
