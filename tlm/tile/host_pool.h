// A fixed pool of host threads that runs one parallel loop at a time (plain C++, no
// SystemC): run(count, body) calls body(i) once for every i in [0, count) on the calling
// thread and the pool's workers, and returns when every call has returned.
//
// Items are handed out one at a time from a shared counter, so a long item does not hold
// up a fixed share of the others (dynamic balancing). Which thread runs which item is
// unspecified: a body must touch only the state of its own item. The tile engine relies
// on exactly that (tiles are independent between syncs), which is why a run's results do
// not depend on the number of threads.
//
// Workers sleep (futex, via std::atomic::wait) between loops, so an idle pool costs no
// CPU while the SystemC kernel runs its serial part.
#pragma once

#include <atomic>
#include <cstddef>
#include <exception>
#include <functional>
#include <thread>
#include <vector>

namespace ipusim::tile {

class HostPool {
 public:
  // `threads` counts the calling thread: 1 runs everything on the caller, N starts N-1
  // workers. Throws std::invalid_argument for 0.
  explicit HostPool(unsigned threads);
  ~HostPool();
  HostPool(const HostPool&) = delete;
  HostPool& operator=(const HostPool&) = delete;

  unsigned threads() const { return unsigned(workers_.size()) + 1; }

  // Inside run_ordered()'s then(): body(i) has returned (its item's state may be read).
  // Lets then() prefetch the state of finished items only: prefetching an item still
  // running on another thread steals its cache lines mid-run and stalls the caller.
  bool body_done(size_t i) const {
    return i < done_.size() && done_[i].load(std::memory_order_acquire) != 0;
  }

  // Runs body(0) .. body(count - 1) in parallel and returns when all are done. If a body
  // throws, the first exception is rethrown here after the loop ends (the remaining items
  // still run). Not reentrant: one loop at a time, from one thread.
  void run(size_t count, const std::function<void(size_t)>& body);

  // Like run(), and also calls then(0), then(1), ... then(count - 1) on the calling
  // thread, in that order, each once body(i) has returned. The caller interleaves: it
  // runs then(i) for every finished item in order and computes bodies itself while the
  // next one is not finished, so the ordered work overlaps the parallel work instead of
  // following it. Returns when every then() has run. If a body throws, no then() runs
  // for that or any later item and the error is rethrown once every body has returned.
  void run_ordered(size_t count, const std::function<void(size_t)>& body,
                   const std::function<void(size_t)>& then);

 private:
  void worker_main();
  void work();        // takes items until none is left
  bool work_one();    // takes and runs one item; false if none was left
  void start(size_t count, const std::function<void(size_t)>& body);
  void finish();      // waits for the workers, rethrows a body's error

  std::vector<std::thread> workers_;
  // The current loop.
  const std::function<void(size_t)>* body_ = nullptr;
  size_t count_ = 0;
  // On its own cache line: every item handed out writes it, and the fields the workers
  // only read (body_, count_) must not be invalidated by that.
  alignas(64) std::atomic<size_t> next_{0};
  alignas(64) std::atomic<unsigned> busy_{0};        // workers still in the current loop
  std::atomic<unsigned> generation_{0};  // bumped to start a loop
  std::atomic<bool> stop_{false};
  std::exception_ptr error_;
  std::atomic<bool> failed_{false};
  bool parallel_ = false;                      // the current loop woke the workers
  std::vector<std::atomic<uint32_t>> done_;    // run_ordered: body(i) has returned
};

}  // namespace ipusim::tile
