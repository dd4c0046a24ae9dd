// A tile's postings of one exchange phase (docs/xipu.md, funct3 = 2, 3 and 4), and the
// compact form the ISS keeps them in while the tile waits for its exchange.
//
// An all-to-all over a GC200 posts 1471 sends and 1471 receives on each of its 1472
// tiles, and every tile of every IPU holds its postings until its exchange is planned:
// the record of one posting is most of what a message costs (docs/exchange.md,
// "Planning cost"). ExchangePost, with its own peer vector, took 64 bytes plus a 32-byte
// heap block; PostingLog keeps 20 bytes per posting in blocks that double up to 256
// postings (little slack, no copy when it grows, 80 bytes for a tile that posts
// little) and one flat array for the peers of multicasts.
#pragma once

#include <bit>
#include <cstdint>
#include <memory>
#include <span>
#include <utility>
#include <vector>

namespace ipusim::iss {

// One posting as a plain value: what tests and error paths read
// (PostingLog::at() builds it).
struct ExchangePost {
  enum class Kind {
    Send,         // message to `peers`
    Recv,         // message from peers[0]
    SmemRead,     // streaming memory [smem_addr, +len) -> tile buffer
    SmemWrite,    // tile buffer -> streaming memory [smem_addr, +len)
    StreamRead,   // host-to-device FIFO of `stream` -> tile buffer
    StreamWrite,  // tile buffer -> device-to-host FIFO of `stream`
  };
  Kind kind = Kind::Send;
  uint32_t addr = 0;               // tile address of the buffer (checked by the ISS)
  uint32_t len = 0;                // bytes (multiple of 4)
  std::vector<uint32_t> peers;     // Send: destination global tile ids; Recv: the one source;
                                   // copies: empty
  uint32_t pc = 0;                 // of the posting instruction, for error messages
  uint32_t stream = 0;             // StreamRead / StreamWrite: the stream id (< IPU_STREAMS)
  uint64_t cycle = 0;              // tile cycle the posting instruction issued
  uint64_t smem_addr = 0;          // SmemRead / SmemWrite: byte offset in streaming memory

  bool is_message() const { return kind == Kind::Send || kind == Kind::Recv; }
  bool operator==(const ExchangePost&) const = default;
};

// What the exchange plan reads of a posting, without copying its peers.
struct PostingView {
  ExchangePost::Kind kind = ExchangePost::Kind::Send;
  uint32_t addr = 0, len = 0, pc = 0;
  std::span<const uint32_t> peers;  // valid while the log (or the ExchangePost) is unchanged

  bool is_message() const { return kind == ExchangePost::Kind::Send || kind == ExchangePost::Kind::Recv; }
};

class PostingLog {
 public:
  using Kind = ExchangePost::Kind;

  // Empties the log and gives back its blocks but one: a phase's postings do not
  // outlive it.
  void clear();
  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }

  // A message (Send to `peers`, Recv from peers[0]); `peers` as the ISS checked it.
  void add_message(Kind kind, uint32_t addr, uint32_t len, std::span<const uint32_t> peers, uint32_t pc,
                   uint64_t cycle);
  // A streaming-memory or host-stream copy.
  void add_copy(Kind kind, uint32_t addr, uint32_t len, uint32_t pc, uint64_t cycle, uint32_t stream,
                uint64_t smem_addr);
  void add(const ExchangePost& p);

  PostingView view(size_t i) const {  // inline: the plan reads every posting several times
    const Record& r = record(i);
    PostingView v{Kind(r.meta & (kIndexed - 1)), r.addr, r.len, r.pc, {}};
    if (!v.is_message()) return v;
    if (r.meta & kIndexed)
      v.peers = std::span<const uint32_t>(peers_.data() + r.ref + 1, peers_[r.ref]);
    else
      v.peers = std::span<const uint32_t>(&r.ref, 1);
    return v;
  }
  ExchangePost at(size_t i) const;
  std::vector<ExchangePost> posts() const;

  // Counts since the last clear(), so that a reader can size its arrays exactly.
  size_t sends() const { return sends_; }
  size_t send_peers() const { return send_peers_; }  // destinations of every send together
  size_t recvs() const { return recvs_; }

 private:
  // 20 bytes: `ref` is the tile of a Send to one tile or of a Recv, else an index into
  // peers_ (a count, then the peers) or copies_; `meta` holds the kind, whether `ref` is
  // an index, and the cycle after the first posting's (kFarCycle: look in far_cycles_).
  struct Record {
    uint32_t addr, len, pc, ref, meta;
  };
  struct Copy {
    uint32_t stream;
    uint64_t smem_addr;
  };
  static constexpr uint32_t kKindBits = 3, kIndexed = 1u << kKindBits, kCycleShift = kKindBits + 1;
  static constexpr uint32_t kFarCycle = UINT32_MAX >> kCycleShift;

  // Block b holds 4 << b records up to b = 6, then 256 each: 508 records in the first
  // seven blocks.
  static constexpr uint32_t kFirstBlock = 4, kLastBlock = 256, kGrowing = 7, kInGrowing = 508;
  static uint32_t block_size(size_t b) { return b < kGrowing ? kFirstBlock << b : kLastBlock; }
  // (block, offset) of record i.
  static std::pair<size_t, size_t> place(size_t i) {
    if (i < kInGrowing) {
      const size_t b = size_t(std::bit_width(i / kFirstBlock + 1) - 1);
      return {b, i - kFirstBlock * ((size_t{1} << b) - 1)};
    }
    return {kGrowing + (i - kInGrowing) / kLastBlock, (i - kInGrowing) % kLastBlock};
  }
  const Record& record(size_t i) const {
    const auto [b, offset] = place(i);
    return blocks_[b][offset];
  }
  void add_record(Kind kind, uint32_t addr, uint32_t len, uint32_t pc, uint64_t cycle, uint32_t ref, bool indexed);
  uint64_t cycle_of(size_t i) const;

  std::vector<std::unique_ptr<Record[]>> blocks_;
  size_t size_ = 0;
  std::vector<uint32_t> peers_;  // multicasts: count, then the destinations
  std::vector<Copy> copies_;
  std::vector<std::pair<uint32_t, uint64_t>> far_cycles_;  // (posting, cycle), rare
  uint64_t first_cycle_ = 0;
  size_t sends_ = 0, send_peers_ = 0, recvs_ = 0;
};

// A tile's postings given either way: the ISS's log, or ExchangePosts (tests build
// those). Exactly one of the two is set, or neither (no postings).
struct PostingsRef {
  const PostingLog* log = nullptr;
  const std::vector<ExchangePost>* posts = nullptr;

  size_t size() const { return log ? log->size() : posts ? posts->size() : 0; }
  PostingView view(size_t i) const {
    if (log) return log->view(i);
    const ExchangePost& p = (*posts)[i];
    return {p.kind, p.addr, p.len, p.pc, p.peers};
  }
  ExchangePost at(size_t i) const { return log ? log->at(i) : (*posts)[i]; }
};

}  // namespace ipusim::iss
