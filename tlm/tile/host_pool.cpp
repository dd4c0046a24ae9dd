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

void HostPool::work() {
  for (size_t i; (i = next_.fetch_add(1, std::memory_order_relaxed)) < count_;) {
    try {
      (*body_)(i);
    } catch (...) {
      if (!failed_.exchange(true)) error_ = std::current_exception();
    }
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

void HostPool::run(size_t count, const std::function<void(size_t)>& body) {
  body_ = &body;
  count_ = count;
  next_.store(0, std::memory_order_relaxed);
  failed_.store(false);
  error_ = nullptr;
  // A loop of one item (or a pool of one thread) is not worth waking anybody.
  const bool parallel = !workers_.empty() && count > 1;
  if (parallel) {
    busy_.store(unsigned(workers_.size()));
    generation_.fetch_add(1);  // release: the loop's fields above are visible to workers
    generation_.notify_all();
  }
  work();
  if (parallel) {
    for (unsigned b; (b = busy_.load()) != 0;) busy_.wait(b);
  }
  body_ = nullptr;
  if (failed_.load()) std::rethrow_exception(error_);
}

}  // namespace ipusim::tile
