#include "tile/host_pool.h"

#include <stdexcept>

namespace ipusim::tile {

HostPool::HostPool(unsigned threads) {
  if (threads == 0) throw std::invalid_argument("a host pool needs at least one thread");
  workers_.reserve(threads - 1);
  for (unsigned i = 1; i < threads; ++i) workers_.emplace_back([this] { worker_main(); });
}

HostPool::~HostPool() {
  stop_.store(true);
  generation_.fetch_add(1);
  generation_.notify_all();
  for (std::thread& t : workers_) t.join();
}

bool HostPool::work_one() {
  const size_t i = next_.fetch_add(1, std::memory_order_relaxed);
  if (i >= count_) return false;
  try {
    (*body_)(i);
  } catch (...) {
    if (!failed_.exchange(true)) error_ = std::current_exception();
  }
  if (!done_.empty()) {
    done_[i].store(1, std::memory_order_release);
    done_[i].notify_one();
  }
  return true;
}

void HostPool::work() {
  while (work_one()) {
  }
}

void HostPool::worker_main() {
  unsigned seen = 0;
  for (;;) {
    generation_.wait(seen);
    seen = generation_.load();
    if (stop_.load()) return;
    work();
    if (busy_.fetch_sub(1) == 1) busy_.notify_one();
  }
}

void HostPool::start(size_t count, const std::function<void(size_t)>& body) {
  body_ = &body;
  count_ = count;
  next_.store(0, std::memory_order_relaxed);
  failed_.store(false);
  error_ = nullptr;
  // A loop of one item (or a pool of one thread) is not worth waking anybody.
  parallel_ = !workers_.empty() && count > 1;
  if (parallel_) {
    busy_.store(unsigned(workers_.size()));
    generation_.fetch_add(1);  // release: the loop's fields above are visible to workers
    generation_.notify_all();
  }
}

void HostPool::finish() {
  if (parallel_) {
    for (unsigned b; (b = busy_.load()) != 0;) busy_.wait(b);
  }
  body_ = nullptr;
  if (failed_.load()) std::rethrow_exception(error_);
}

void HostPool::run(size_t count, const std::function<void(size_t)>& body) {
  done_.clear();
  start(count, body);
  work();
  finish();
}

void HostPool::run_ordered(size_t count, const std::function<void(size_t)>& body,
                           const std::function<void(size_t)>& then) {
  if (done_.size() < count) done_ = std::vector<std::atomic<uint32_t>>(count);
  for (size_t i = 0; i < count; ++i) done_[i].store(0, std::memory_order_relaxed);
  start(count, body);
  try {
    for (size_t next = 0; next < count;) {
      if (done_[next].load(std::memory_order_acquire)) {
        if (failed_.load()) break;
        then(next++);
      } else if (!work_one()) {
        done_[next].wait(0, std::memory_order_acquire);  // every body is taken: wait for this one
      }
    }
  } catch (...) {
    next_.store(count_);  // hand out no more bodies
    if (parallel_) {
      for (unsigned b; (b = busy_.load()) != 0;) busy_.wait(b);
    }
    body_ = nullptr;
    done_.clear();
    throw;
  }
  work();  // after a body's error: let the remaining items run, as run() does
  finish();
}

}  // namespace ipusim::tile
