// The shared translations of one DecodedCode: the entry table, the hotness counts, the
// executable arena and the two stubs every region shares (enter from C++, leave to C++).
#include "iss/jit/code_cache.h"

#include <chrono>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "iss/jit/translator.h"

namespace ipusim::iss::jit {

namespace {
// Host code for every region of one Program: untouched pages of the mapping cost nothing.
// A full arena only stops further translation (those regions run in the interpreter).
constexpr size_t kArenaBytes = size_t{32} << 20;
// IPUSIM_JIT_DUMP=<dir>: every region's host code to <dir>/region_<entry index>.bin, for
// `objdump -D -b binary -mi386:x86-64` (reading what the emitter makes of a loop).
void dump_region(uint32_t index, const void* code, size_t bytes) {
  static const char* const dir = std::getenv("IPUSIM_JIT_DUMP");
  if (dir == nullptr) return;
  const std::string path = std::string(dir) + "/region_" + std::to_string(index) + ".bin";
  if (std::FILE* f = std::fopen(path.c_str(), "wb")) {
    std::fwrite(code, 1, bytes, f);
    std::fclose(f);
  }
}

}  // namespace

class Arena : public Xbyak::CodeGenerator {
 public:
  Arena() : Xbyak::CodeGenerator(kArenaBytes) { setDefaultJmpNEAR(true); }
  bool full = false;
};

CodeCache::CodeCache(const DecodedCode& code, uint32_t hot_entries, const Limits& limits)
    : code_(code),
      limits_(limits),
      hot_entries_(hot_entries == 0 ? 1 : hot_entries),
      entries_(new std::atomic<const void*>[code.insns.size()]),
      hits_(new std::atomic<uint32_t>[code.insns.size()]),
      interpreted_(new std::atomic<uint8_t>[code.insns.size()]),
      arena_(std::make_unique<Arena>()) {
  for (size_t i = 0; i < code.insns.size(); ++i) {
    entries_[i].store(nullptr, std::memory_order_relaxed);
    hits_[i].store(0, std::memory_order_relaxed);
    interpreted_[i].store(0, std::memory_order_relaxed);
  }
  using namespace Xbyak::util;
  Arena& g = *arena_;
  // enter(ctx, code): the callee-saved registers hold what every region uses (see
  // translator.cpp); 6 pushes + 8 keep the stack 16-byte aligned for calls out.
  enter_ = g.getCurr<EnterFn>();
  g.push(rbx); g.push(rbp); g.push(r12); g.push(r13); g.push(r14); g.push(r15);
  g.sub(rsp, 8);
  g.mov(rbx, rdi);
  g.mov(rbp, g.qword[rbx + offsetof(Context, regs)]);
  g.mov(r12, g.qword[rbx + offsetof(Context, load_base)]);
  g.mov(r13, g.qword[rbx + offsetof(Context, store_base)]);
  g.mov(r14, g.qword[rbx + offsetof(Context, room)]);
  g.mov(r15, g.qword[rbx + offsetof(Context, q)]);
  g.jmp(rsi);
  g.align(16);
  leave_ = g.getCurr();
  g.mov(g.qword[rbx + offsetof(Context, room)], r14);
  g.add(rsp, 8);
  g.pop(r15); g.pop(r14); g.pop(r13); g.pop(r12); g.pop(rbp); g.pop(rbx);
  g.ret();
}

CodeCache::~CodeCache() = default;

const void* CodeCache::count_entry(uint32_t index, Stats& tile) {
  const uint32_t n = hits_[index].load(std::memory_order_relaxed) + 1;
  hits_[index].store(n, std::memory_order_relaxed);
  if (n < hot_entries_) return nullptr;
  return translate(index, tile);
}

const void* CodeCache::translate(uint32_t index, Stats& tile) {
  const std::lock_guard lock(mutex_);
  // Another tile may have translated it (or found it untranslatable) meanwhile.
  if (const void* done = entries_[index].load(std::memory_order_acquire)) return done;
  if (interpreted_[index].load(std::memory_order_relaxed) || arena_->full) return nullptr;
  const auto t0 = std::chrono::steady_clock::now();
  const size_t before = arena_->getSize();
  const void* region = nullptr;
  bool hoisted = false;
  try {
    region = translate_region(*arena_, RegionSite{code_, limits_, entries_.get(), leave_}, index, hoisted);
  } catch (const Xbyak::Error&) {
    arena_->full = true;  // the partial region is unreachable: nothing points at it
    return nullptr;
  }
  const auto ns = static_cast<uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - t0).count());
  translate_ns_.fetch_add(ns, std::memory_order_relaxed);
  tile.translate_ns += ns;
  if (region == nullptr) {
    interpreted_[index].store(1, std::memory_order_relaxed);
    return nullptr;
  }
  dump_region(index, region, arena_->getSize() - before);
  regions_.fetch_add(1, std::memory_order_relaxed);
  if (hoisted) hoisted_loops_.fetch_add(1, std::memory_order_relaxed);
  code_bytes_.fetch_add(arena_->getSize() - before, std::memory_order_relaxed);
  ++tile.regions;
  tile.code_bytes += arena_->getSize() - before;
  entries_[index].store(region, std::memory_order_release);
  return region;
}

Stats CodeCache::stats() const {
  return Stats{translate_ns_.load(std::memory_order_relaxed), regions_.load(std::memory_order_relaxed),
               code_bytes_.load(std::memory_order_relaxed), hoisted_loops_.load(std::memory_order_relaxed)};
}

Stats stats(const CodeCache& cache) { return cache.stats(); }

bool available() { return true; }

std::shared_ptr<CodeCache> cache_for(const DecodedCode& code, uint32_t hot_entries, const Limits& limits) {
  const std::lock_guard lock(code.jit_mutex);
  for (const std::shared_ptr<void>& p : code.jit_caches) {
    auto cache = std::static_pointer_cast<CodeCache>(p);
    if (cache->limits() == limits) return cache;
  }
  auto cache = std::make_shared<CodeCache>(code, hot_entries, limits);
  code.jit_caches.push_back(cache);
  return cache;
}

}  // namespace ipusim::iss::jit
