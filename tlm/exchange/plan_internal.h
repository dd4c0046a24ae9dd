// Private to plan_exchange() (exchange_plan.cpp): the parts it is built from, each in
// its own plan_*.cpp, and the data they pass along. Not part of the contract.
//
// Every loop runs over tiles renamed 0..n-1 in ascending global id ("dense" ids), so the
// plan does not depend on the order of the input.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "exchange/exchange_plan.h"
#include "iss/posting_log.h"

namespace ipusim::exchange::detail {

inline constexpr uint32_t kNoTile = Problem::kNone;  // no tile (or pc): the record names none

// The plan's error list, capped at kMaxPlanErrors problems plus one that counts the rest.
class ErrorList {
 public:
  ErrorList(std::vector<Problem>& out, uint32_t tiles_per_ipu) : out_(out), tiles_per_ipu_(tiles_per_ipu) {}
  // A problem of `kind`: the tile named first (global id, kNoTile: none) with its
  // posting's pc, the other tile (kNoTile: none) with its pc if known, the sentence.
  void add(std::string kind, uint32_t tile, uint32_t pc, uint32_t peer, uint32_t peer_pc, std::string detail);
  void add(std::string kind, std::string detail) { add(std::move(kind), kNoTile, kNoTile, kNoTile, kNoTile, std::move(detail)); }
  bool any() const { return !out_.empty() || dropped_ > 0; }
  size_t dropped() const { return dropped_; }
  uint32_t tiles_per_ipu() const { return tiles_per_ipu_; }
  // Appends a chunk's problems (the first kMaxPlanErrors it found, and how many it
  // dropped) as if they had been added here one by one.
  void take(std::vector<Problem>& problems, size_t dropped);
  void finish();  // appends the "N further errors" problem

 private:
  std::vector<Problem>& out_;
  uint32_t tiles_per_ipu_;
  size_t dropped_ = 0;
};

// Input tiles by dense id.
struct TileIndex {
  std::vector<const TilePostings*> tile;  // dense -> the input entry
  std::vector<iss::PostingsRef> postings; // dense -> its postings
  std::vector<uint32_t> input_pos;        // dense -> position in the input
  // global id - by_global_base -> dense (kNoTile: absent), when compact: the ids of one
  // IPU of a system start at ipu x tiles, far from 0.
  std::vector<uint32_t> by_global;
  uint32_t by_global_base = 0;
  std::vector<uint32_t> sorted_global;    // dense -> global id (lookup when not compact)

  uint32_t size() const { return uint32_t(tile.size()); }
  uint32_t global(uint32_t dense) const { return sorted_global[dense]; }
  uint32_t find(uint32_t global) const {  // dense id or kNoTile
    if (!by_global.empty()) {
      const uint32_t at = global - by_global_base;  // wraps above the table for ids below the base
      return at < by_global.size() ? by_global[at] : kNoTile;
    }
    return find_sparse(global);
  }
  uint32_t find_sparse(uint32_t global) const;  // find() without the direct table
  iss::PostingView post(uint32_t dense, uint32_t index) const { return postings[dense].view(index); }
  uint32_t post_count(uint32_t dense) const { return uint32_t(postings[dense].size()); }
};

// Builds the index; false (with an error) if a tile id is given twice.
bool index_tiles(const std::vector<TilePostings>& in, TileIndex& index, ErrorList& errors);

// The plan's work is cut into chunks of consecutive dense tiles (by sender, by receiver,
// or by tile, depending on the step). The cut depends on the tile count alone, each
// chunk writes only its own results, and the chunks' results are put together in chunk
// order: the plan is the same whichever host thread runs a chunk, and when
// (docs/exchange.md, "Planning on several host threads").
inline constexpr uint32_t kTilesPerChunk = 32;
inline constexpr uint32_t kMaxChunks = 64;
// A plan of fewer postings runs its chunks on the calling thread alone: handing a step to
// the host threads costs a wake-up of each (tens of microseconds, milliseconds on a busy
// host), more than a small step's work. Which thread runs a chunk never changes the plan.
inline constexpr size_t kMinPostingsForThreads = 4096;

class Chunks {
 public:
  // `tiles_per_chunk`: the plan's kTilesPerChunk; tests choose others to prove that the
  // cut does not change the plan.
  Chunks(uint32_t tiles, uint32_t tiles_per_chunk, const PlanThreads* threads);
  size_t size() const { return begin_.size() - 1; }
  uint32_t begin(size_t c) const { return begin_[c]; }
  uint32_t end(size_t c) const { return begin_[c + 1]; }
  // body(c) for every chunk, on the plan's threads (or this one); returns when all have.
  void run(const std::function<void(size_t)>& body) const;
  // body(c) for `count` items (not necessarily chunks), likewise.
  void run(size_t count, const std::function<void(size_t)>& body) const;

 private:
  std::vector<uint32_t> begin_;  // chunk c: tiles [begin_[c], begin_[c + 1])
  const PlanThreads* threads_;
};

// A chunk's own error list, put into the plan's in chunk order (ErrorList::take).
struct ChunkErrors {
  std::vector<Problem> problems;
  size_t dropped = 0;
};

// The plan keeps per message only 32-bit indices; a posting's address and length are
// read back from the tile's postings when needed (docs/exchange.md, "Planning cost").

// One send posting, in (dense tile, posting order): 20 bytes. Its buffer is copied here
// when collected (a pass in posting order): matching and timing read sends in
// destination order, and one random read of this beats one of the tile's log.
struct SendInfo {
  uint32_t tile = 0;        // dense
  uint32_t post = 0;        // index in the tile's postings
  uint32_t dest_begin = 0;  // its destinations: Postings::dests(send)
  uint32_t addr = 0, len = 0;
};

// A destination of a send: its dense id, and kPairBit if the pair rule halves the
// receiver's charge (dense ids stay below 2^31).
inline constexpr uint32_t kPairBit = 1u << 31;
inline uint32_t dest_tile(uint32_t dest) { return dest & ~kPairBit; }

// One receive: its source (dense), the posting's index on its tile and its buffer: 16
// bytes. The buffer is copied here when collected (a pass in posting order), as a send's
// is into its SendInfo: the buffer rules and matching then read no log.
struct RecvLeg {
  uint32_t src = 0, post = 0;
  uint32_t addr = 0, len = 0;
};

struct Postings {
  std::vector<SendInfo> sends;       // grouped by tile, in posting order
  std::vector<uint32_t> send_dests;  // dense | kPairBit, sorted and unique per send (known tiles only)
  std::vector<RecvLeg> recvs;        // grouped by receiving tile, in posting order
  std::vector<uint32_t> send_begin;  // per dense tile t: its sends are sends[send_begin[t], send_begin[t + 1])
  std::vector<uint32_t> recv_begin;  // per dense tile t: its receives are recvs[recv_begin[t], recv_begin[t + 1])

  size_t dest_begin(size_t send) const { return sends[send].dest_begin; }
  size_t dest_end(size_t send) const {
    return send + 1 < sends.size() ? sends[send + 1].dest_begin : send_dests.size();
  }
};

// Sends and receive legs of every tile; errors for malformed postings and for peers that
// are not in the input. `out`'s storage is reused (its contents are replaced).
void collect_postings(const TileIndex& index, const ExchangeTiming& timing, const Chunks& chunks, Postings& out,
                      ErrorList& errors);

// Receive buffers of one tile must not overlap each other or one of its send buffers.
void check_overlaps(const TileIndex& index, const Postings& postings, const Chunks& chunks, ErrorList& errors);

// The matched legs: one delivery each, with dense tile ids until plan_exchange() renames
// them, and per delivery its send (SendInfo index << 1) | pair rule: 24 bytes. The
// deliveries are the caller's storage (plan_exchange's `deliveries`) while a plan runs.
struct Matches {
  std::vector<Delivery> deliveries;
  std::vector<uint32_t> send_pair;
  std::vector<size_t> chunk_begin;  // per receiver chunk c: its matches start at chunk_begin[c]
};

// Send legs in (dst, src, posting order): a send (SendInfo index) << 1 | the pair rule.
struct SendLegs {
  std::vector<uint32_t> legs;
  std::vector<uint32_t> begin;              // per dense tile d: its legs are legs[begin[d], begin[d + 1])
  std::vector<std::vector<uint32_t>> next;  // the counting sort's counts per group of senders, then places
};

// The k-th send from A naming B matches the k-th receive on B from A. Matches come in
// (dst, receive posting order on dst) into `out` (storage reused); errors for unmatched legs and length mismatches.
void match_postings(const TileIndex& index, const Postings& postings, const Chunks& chunks, SendLegs& by_dst,
                    Matches& out, ErrorList& errors);

// The timing's per-tile and per-send arrays (storage reused).
struct TimingStorage {
  std::vector<uint64_t> start, done, leaves;
  std::vector<TileOutcome> outcome;  // the result: per dense tile
};

// done_cycle / bytes of every tile (dense order, into storage.outcome) for a valid
// exchange, and the matches' deliveries renamed to global tile ids; adds the host ticks
// of the links' schedule to `link_ticks`.
void time_exchange(const TileIndex& index, const Postings& postings, Matches& matches,
                   const ExchangeTiming& timing, const Chunks& chunks, TimingStorage& storage, uint64_t& link_ticks);

// What a plan keeps for the next plan made on the same host thread: every array of
// the plan but the deliveries (the caller's). A large phase's arrays are tens of megabytes,
// which the allocator maps afresh and the kernel faults in page by page when each plan
// allocates its own (docs/exchange.md, "Storage kept between plans"). Each plan writes
// every element before it reads it, so nothing of one plan reaches the next.
struct PlanStorage {
  TileIndex index;
  Postings postings;
  SendLegs by_dst;
  Matches matches;
  TimingStorage timing;
};

// plan_exchange() with its work cut into chunks of `tiles_per_chunk` tiles (at most
// kMaxChunks), on `threads` if the tiles post at least `min_postings_for_threads`;
// plan_exchange() uses kTilesPerChunk and kMinPostingsForThreads. Any cut and any
// threads give the same plan.
ExchangePlan plan_exchange_in_chunks(const std::vector<TilePostings>& tiles, const ExchangeTiming& timing,
                                     const PlanThreads* threads, uint32_t tiles_per_chunk,
                                     size_t min_postings_for_threads = 0, std::vector<Delivery> deliveries = {});

// Latency between dense tiles (plan_distance.cpp): latency_cycles() from a table per
// tile place and per distance, for the hot loop of the timing.
class LatencyTable {
 public:
  LatencyTable(const TileIndex& index, const ExchangeTiming& timing);
  uint32_t operator()(uint32_t src, uint32_t dst) const {
    const Place &a = place_[src], &b = place_[dst];
    if (a.ipu != b.ipu) return across_ipus_;
    return by_distance_[span(a.column, b.column) + span(a.row, b.row)];
  }

 private:
  struct Place {
    uint32_t ipu, column, row;
  };
  static uint32_t span(uint32_t a, uint32_t b) { return a > b ? a - b : b - a; }
  std::vector<Place> place_;           // by dense id
  std::vector<uint32_t> by_distance_;  // latency for distance 0 .. max
  uint32_t across_ipus_ = 0;
};

// "pc 0x00040120": every message writes pcs alike.
std::string pc_text(uint32_t pc);

}  // namespace ipusim::exchange::detail
