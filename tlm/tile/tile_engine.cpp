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

void TileEngine::set_frozen(uint32_t ipu, bool frozen) {
  if (frozen_.size() <= ipu) frozen_.resize(ipu + 1, 0);
  frozen_[ipu] = frozen ? 1 : 0;
  if (frozen) {
    std::erase_if(ready_, [ipu](const Tile* t) { return t->identity().ipu == ipu; });
    std::erase_if(stepping_, [ipu](const Tile* t) { return t->identity().ipu == ipu; });
  }
}

void TileEngine::schedule(Tile& tile) {
  const uint32_t ipu = tile.identity().ipu;
  if (ipu < frozen_.size() && frozen_[ipu]) return;
  ready_.push_back(&tile);
  if (!wake_pending_ && driving_) {
    work_.notify(sc_core::SC_ZERO_TIME);
    wake_pending_ = true;
  }
}

double TileEngine::iss_seconds() const { return timer_.seconds(batch_ticks_ - finish_ticks_); }
double TileEngine::batch_seconds() const { return timer_.seconds(batch_ticks_); }

void TileEngine::drive() {
  driving_ = true;  // from now on schedule() must wake this thread
  for (;;) {
    // A wake that finds nothing (set_frozen emptied the list after the notify: an abort
    // right after RUN) still clears the flag, or no schedule() would wake us again.
    while (ready_.empty()) {
      wait(work_);
      wake_pending_ = false;
    }
    wake_pending_ = false;
    if (attention_ && attention_->load(std::memory_order_acquire)) {
      sc_core::sc_pause();
      wait(sc_core::SC_ZERO_TIME);  // runs when the kernel is started again
      continue;
    }
    if (cycle_stepping_)
      run_cycle_stepping();
    else
      run_batch();
  }
}

void TileEngine::run_batch() {
  // A batch whose compute or finish threw (the exception ended that run) left both set;
  // a later run on this engine must not finish its tiles again.
  batch_.clear();
  console_full_.clear();
  batch_.swap(ready_);
  ++batches_;
  tiles_computed_ += batch_.size();
  // The batch's order, the same for every host thread count: longest previous stretch
  // first (so a long tile does not start last), ties in (ipu, tile) order.
  std::sort(batch_.begin(), batch_.end(), [](const Tile* a, const Tile* b) {
    if (a->last_stretch_cycles() != b->last_stretch_cycles())
      return a->last_stretch_cycles() > b->last_stretch_cycles();
    return std::tie(a->identity().ipu, a->identity().tile) < std::tie(b->identity().ipu, b->identity().tile);
  });

  const uint64_t batch = batches_;
  constexpr size_t kAhead = 3;  // tiles prefetched ahead of the one being finished
  const auto finish = [&](size_t i) {
    if (batch_[i]->traced()) batch_[i]->compute();  // here, in order: see the header
    const uint64_t start = timer_.ticks();
    // With other threads, only a tile whose compute is done: one still computing there would
    // lose its lines to this prefetch, and the prefetches would wait for them.
    if (i + kAhead < batch_.size() && (pool_.threads() == 1 || pool_.body_done(i + kAhead)))
      batch_[i + kAhead]->prefetch_for_finish();
    batch_[i]->finish_compute(batch);
    if (batch_[i]->console_full()) console_full_.push_back(batch_[i]);  // its state is in cache here
    finish_ticks_ += timer_.ticks() - start;
  };
  const uint64_t start = timer_.ticks();
  pool_.run_ordered(
      batch_.size(),
      [this](size_t i) {
        if (!batch_[i]->traced()) batch_[i]->compute();
      },
      finish);
  finish_console_stretches(batch);
  batch_ticks_ += timer_.ticks() - start;
  batch_.clear();
  if (console_ready_) console_ready_(batch, nullptr);
  if (batch_end_) batch_end_();
}

// The stretches that paused on a full console buffer, each to its end, in (ipu, tile)
// order: the lines of the tiles before it are all in, so the platform prints each buffer
// as it comes (see the header).
void TileEngine::finish_console_stretches(uint64_t batch) {
  if (console_full_.empty()) return;
  std::sort(console_full_.begin(), console_full_.end(), [](const Tile* a, const Tile* b) {
    return std::tie(a->identity().ipu, a->identity().tile) < std::tie(b->identity().ipu, b->identity().tile);
  });
  for (Tile* t : console_full_) {
    if (console_ready_) console_ready_(batch, t);
    while (t->console_full()) {
      t->compute();
      const uint64_t start = timer_.ticks();
      t->finish_compute(batch);
      finish_ticks_ += timer_.ticks() - start;
      if (console_ready_) console_ready_(batch, t);
    }
  }
  console_full_.clear();
}

}  // namespace ipusim::tile
