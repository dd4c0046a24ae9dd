// Lockstep (TileParams::Core::lockstep, `ipusim run --iss lockstep`; docs/iss.md
// "Translator", "Lockstep"): the tile runs on the translator, and a shadow CoreState over
// its own SRAM runs the same quanta on the interpreter. Both engines are stepped to each
// taken control transfer (budget 1, the quantum's progress lent as run_jit lends it to
// interpreted blocks), so the quantum's accounting is a plain run's; after every step the
// thread's registers, pc and counters are compared, and after every quantum the SRAM,
// the postings, the console lines, the exchange state, the AMP state and a fault. A
// difference stops the tile with a "lockstep divergence" fault record. ISS-internal.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "iss/interp.h"
#include "iss/sram.h"
#include "iss/tile_core.h"

namespace ipusim::iss {

class CoreState;
struct Thread;

namespace jit {
class CodeCache;
struct Stats;
}  // namespace jit

class Lockstep {
 public:
  // The shadow of `real` (a Core::lockstep tile with its translations): same program and
  // parameters, the interpreter, an SRAM of its own (filled from the real one before its
  // first quantum).
  explicit Lockstep(CoreState& real);
  ~Lockstep();
  Lockstep(const Lockstep&) = delete;
  Lockstep& operator=(const Lockstep&) = delete;

  // One fast-loop quantum of q.thread on both engines (run_jit's contract for the real
  // one). A divergence stops the real tile with the fault record and q.exit = Fault.
  void run_quantum(Quantum& q, jit::CodeCache& cache, jit::Stats& tile_stats);
  // The real SRAM may have changed outside a compared quantum (the host, the exchange,
  // a stepping quantum): the shadow copies the pages that differ before its next quantum.
  void sram_changed_outside() { sram_stale_ = true; }
  // The tile's code changed (CoreState::set_profile): the shadow runs the same entries
  // (it takes over the threads' ip), reporting nothing.
  void code_changed();
  // The real tile emitted a console line (`accepted`: its sink's answer); the shadow's
  // same line is compared with it and gets the same answer.
  void real_line(uint32_t thread, std::string_view text, bool accepted);

  // Tests only: called after each step of the real engine, before the comparison, with
  // the real thread and the pc the step started at (plants a divergence).
  using Tamper = std::function<void(Thread& real, uint32_t step_pc)>;
  void set_tamper(Tamper tamper) { tamper_ = std::move(tamper); }

 private:
  class ShadowConsole;
  struct Line {
    uint32_t thread;
    std::string text;
    bool accepted;
  };
  void sync_shadow(uint32_t running);
  std::optional<std::string> compare_step(const Quantum& real_q, const Quantum& shadow_q) const;
  std::optional<std::string> compare_quantum(const Thread& real_t, size_t real_posts, size_t shadow_posts);
  void diverged(Quantum& q, uint32_t pc, uint64_t done, std::string detail);

  CoreState& real_;
  Sram sram_;
  std::unique_ptr<ShadowConsole> console_;
  std::unique_ptr<CoreState> shadow_;
  bool sram_stale_ = true;
  std::vector<uint8_t> real_touched_, shadow_touched_;  // touched_pages(), reused
  std::vector<Line> real_lines_;  // this quantum's, in order
  size_t replayed_ = 0;           // of them, the shadow's so far
  std::string console_mismatch_;  // the shadow's first line that was not the real one's
  Tamper tamper_;
};

}  // namespace ipusim::iss
