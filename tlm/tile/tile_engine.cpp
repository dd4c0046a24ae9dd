#include "tile/tile_engine.h"

#include <algorithm>
#include <chrono>
#include <tuple>

#include "tile/tile.h"

namespace ipusim::tile {

TileEngine::TileEngine(sc_core::sc_module_name name, unsigned host_threads)
    : sc_module(name), pool_(host_threads) {
  SC_HAS_PROCESS(TileEngine);
  SC_THREAD(drive);
  // The ISS runs on this thread's stack when the batch's work reaches it: give it the
  // room of an ordinary thread, not a coroutine's default 64 KiB.
  set_stack_size(8 << 20);
}

TileEngine::~TileEngine() = default;

void TileEngine::schedule(Tile& tile) {
  ready_.push_back(&tile);
  if (!wake_pending_ && sc_core::sc_is_running()) {
    work_.notify(sc_core::SC_ZERO_TIME);
    wake_pending_ = true;
  }
}

void TileEngine::drive() {
  for (;;) {
    while (ready_.empty()) wait(work_);
    wake_pending_ = false;
    run_batch();
  }
}

void TileEngine::run_batch() {
  batch_.swap(ready_);
  ready_.clear();
  const auto by_place = [](const Tile* a, const Tile* b) {
    return std::tie(a->identity().ipu, a->identity().tile) <
           std::tie(b->identity().ipu, b->identity().tile);
  };
  if (!std::is_sorted(batch_.begin(), batch_.end(), by_place))  // releases come in order
    std::sort(batch_.begin(), batch_.end(), by_place);
  ++batches_;
  tiles_computed_ += batch_.size();

  const auto start = std::chrono::steady_clock::now();
  if (serial_ || pool_.threads() == 1 || batch_.size() == 1) {
    for (Tile* t : batch_) t->compute();
  } else {
    order_ = batch_;
    std::stable_sort(order_.begin(), order_.end(), [](const Tile* a, const Tile* b) {
      return a->last_stretch_cycles() > b->last_stretch_cycles();
    });
    pool_.run(order_.size(), [this](size_t i) { order_[i]->compute(); });
  }
  iss_seconds_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

  const uint64_t batch = batches_;
  constexpr size_t kAhead = 3;  // tiles prefetched ahead of the one being finished
  for (size_t i = 0; i < batch_.size(); ++i) {
    if (i + kAhead < batch_.size()) batch_[i + kAhead]->prefetch_for_finish();
    batch_[i]->finish_compute(batch);
  }
  batch_.clear();
}

}  // namespace ipusim::tile
