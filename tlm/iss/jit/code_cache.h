// The translations of one DecodedCode (docs/iss.md "Translator (--iss jit)"): one per
// region start, shared by every tile running the Program on any host thread. Translating
// happens under one mutex; a translation is published with one atomic store, after its
// code is complete, and never changes or goes away while the cache lives. Translated
// code jumps from region to region through the same table (chaining), so the table is
// read by host code too: one 8-byte pointer per decoded entry.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>

#include "iss/decoded.h"
#include "iss/jit/context.h"
#include "iss/jit/jit.h"

namespace ipusim::iss::jit {

class Arena;

class CodeCache {
 public:
  CodeCache(const DecodedCode& code, uint32_t hot_entries, const Limits& limits);
  ~CodeCache();
  CodeCache(const CodeCache&) = delete;
  CodeCache& operator=(const CodeCache&) = delete;

  const DecodedCode& code() const { return code_; }
  const Limits& limits() const { return limits_; }
  // The translated region starting at entry `index`, or nullptr.
  const void* translation(uint32_t index) const { return entries_[index].load(std::memory_order_acquire); }
  // True once the region at `index` is known to start on an instruction the translator
  // leaves to the interpreter: the driver hands it over without counting.
  bool interpreted(uint32_t index) const { return interpreted_[index].load(std::memory_order_relaxed) != 0; }
  // One more entry at `index`, which has no translation: translates the region there when
  // it has been entered hot_entries times. Returns the translation or nullptr; adds the
  // time it took to `tile`.
  const void* count_entry(uint32_t index, Stats& tile);
  EnterFn enter() const { return enter_; }
  Stats stats() const;

 private:
  const void* translate(uint32_t index, Stats& tile);

  const DecodedCode& code_;
  const Limits limits_;  // the tiles' this cache serves: immediates in the bounds checks
  const uint32_t hot_entries_;
  std::unique_ptr<std::atomic<const void*>[]> entries_;
  std::unique_ptr<std::atomic<uint32_t>[]> hits_;  // relaxed: a lost count only delays a translation
  std::unique_ptr<std::atomic<uint8_t>[]> interpreted_;
  std::mutex mutex_;               // translating (the arena)
  std::unique_ptr<Arena> arena_;   // executable memory and the assembler writing into it
  EnterFn enter_ = nullptr;
  const void* leave_ = nullptr;    // where every region exit ends: back to the driver
  std::atomic<uint64_t> translate_ns_{0}, regions_{0}, code_bytes_{0}, hoisted_loops_{0};
};

}  // namespace ipusim::iss::jit
