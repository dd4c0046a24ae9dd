// Turns every tile's postings into sends (with their destination sets) and receive legs,
// naming peers by dense id; reports postings the ISS should already have refused and
// peers that are not taking part in the exchange (e.g. a halted tile).
#include <algorithm>

#include <fmt/format.h>

#include "exchange/plan_internal.h"

namespace ipusim::exchange::detail {
namespace {

using iss::ExchangePost;

constexpr const char* kAbsent = "takes no part in this exchange (halted, not loaded or not a tile)";

// Where a chunk of tiles writes its sends, destinations and receive legs: its own ranges
// of the plan's arrays, as long as the chunk's counts (an upper bound) make them.
struct PartWriter {
  SendInfo* sends;
  uint32_t* dests;
  RecvLeg* recvs;
  uint32_t dest_base;  // the index in the plan's send_dests of dests[0]
  size_t n_sends = 0, n_dests = 0, n_recvs = 0;
};

// The pair rule (docs/exchange.md): tiles 2k and 2k+1 of one IPU share a double-width
// receive path, so a send naming both charges each half its length.
// `dests[i]` is in the set dests[begin, end) (sorted, unique; a pair bit may be set).
bool has_partner(const TileIndex& index, const uint32_t* dests, size_t begin, size_t end, size_t i,
                 uint32_t tiles_per_ipu) {
  const uint32_t g = index.global(dest_tile(dests[i]));
  const uint32_t local = g % tiles_per_ipu;
  const uint32_t partner_local = local ^ 1u;
  if (partner_local >= tiles_per_ipu) return false;
  const uint32_t partner = g - local + partner_local;
  // Dense ids follow global ids, so the partner, if present, is the set's neighbour.
  if (partner > g) return i + 1 < end && index.global(dest_tile(dests[i + 1])) == partner;
  return i > begin && index.global(dest_tile(dests[i - 1])) == partner;
}

[[gnu::cold]] void collect_send(const TileIndex& index, uint32_t tile, uint32_t p, const iss::PostingView& post,
                  uint32_t tiles_per_ipu, PartWriter& out, ErrorList& errors) {
  const uint32_t me = index.global(tile);
  if (post.peers.empty()) {
    errors.add("send without destination", me, post.pc, kNoTile, kNoTile,
               fmt::format("tile {} posts a send of {} bytes with no destination ({})", me, post.len,
                           pc_text(post.pc)));
    return;
  }
  const size_t begin = out.n_dests;
  for (uint32_t peer : post.peers) {
    const uint32_t d = index.find(peer);
    if (d == kNoTile) {
      errors.add("peer not in the exchange", me, post.pc, peer, kNoTile,
                 fmt::format("tile {} sends {} bytes to tile {} ({}) but tile {} {}", me, post.len, peer,
                             pc_text(post.pc), peer, kAbsent));
      continue;
    }
    out.dests[out.n_dests++] = d;
  }
  // A destination set is a set: naming a tile twice sends to it once.
  uint32_t* first = out.dests + begin;
  if (out.n_dests - begin > 1) {
    std::sort(first, out.dests + out.n_dests);
    out.n_dests = size_t(std::unique(first, out.dests + out.n_dests) - out.dests);
  }
  out.sends[out.n_sends++] = SendInfo{tile, p, out.dest_base + uint32_t(begin), post.addr, post.len};
  const size_t end = out.n_dests;
  if (end - begin < 2) return;  // a pair needs two destinations
  for (size_t i = begin; i < end; ++i)
    if (has_partner(index, out.dests, begin, end, i, tiles_per_ipu)) out.dests[i] |= kPairBit;
}

// A receive needs one source that takes part; a valid one becomes a receive leg.
[[gnu::cold]] void collect_recv(const TileIndex& index, uint32_t tile, uint32_t p, const iss::PostingView& post, PartWriter& out,
                  ErrorList& errors) {
  const uint32_t me = index.global(tile);
  if (post.peers.size() != 1) {
    errors.add("receive without one source", me, post.pc, kNoTile, kNoTile,
               fmt::format("tile {} posts a receive of {} bytes with {} sources ({}); a receive has one", me,
                           post.len, post.peers.size(), pc_text(post.pc)));
    return;
  }
  const uint32_t src = index.find(post.peers[0]);
  if (src == kNoTile) {
    errors.add("peer not in the exchange", me, post.pc, post.peers[0], kNoTile,
               fmt::format("tile {} expects {} bytes from tile {} ({}) but tile {} {}", me, post.len,
                           post.peers[0], pc_text(post.pc), post.peers[0], kAbsent));
    return;
  }
  out.recvs[out.n_recvs++] = RecvLeg{src, p, post.addr, post.len};
}

// Sends, their destinations and receives over some tiles: exact from the ISS's counts,
// an upper bound (absent peers, repeated destinations) is fine.
struct Counts {
  size_t sends = 0, send_peers = 0, recvs = 0;
};

Counts count(const TileIndex& index, uint32_t first, uint32_t end) {
  Counts c;
  for (uint32_t t = first; t < end; ++t) {
    const iss::PostingsRef& ref = index.postings[t];
    if (ref.log) {
      c.sends += ref.log->sends();
      c.send_peers += ref.log->send_peers();
      c.recvs += ref.log->recvs();
      continue;
    }
    for (size_t p = 0; p < ref.size(); ++p) {
      const iss::PostingView v = ref.view(p);
      if (v.kind == ExchangePost::Kind::Send) {
        ++c.sends;
        c.send_peers += v.peers.size();
      } else if (v.kind == ExchangePost::Kind::Recv) {
        ++c.recvs;
      }
    }
  }
  return c;
}

// The tiles [first, end) through `out`; their begins into `p` (indices in the plan's arrays).
// A message to or from one tile that takes part (nearly all of them) is written here; the
// rest (multicasts, malformed postings, absent peers) by collect_send / collect_recv.
void collect_part(const TileIndex& index, uint32_t tiles_per_ipu, uint32_t first, uint32_t end, size_t send_base,
                  size_t recv_base, PartWriter& out, Postings& p, ErrorList& errors) {
  PartWriter w = out;  // a local: its counts stay in registers over the stores of the loop
  for (uint32_t t = first; t < end; ++t) {
    p.send_begin[t] = uint32_t(send_base + w.n_sends);
    p.recv_begin[t] = uint32_t(recv_base + w.n_recvs);
    const uint32_t posts = index.post_count(t);
    for (uint32_t i = 0; i < posts; ++i) {
      const iss::PostingView post = index.post(t, i);
      if (post.kind == ExchangePost::Kind::Send) {
        const uint32_t d = post.peers.size() == 1 ? index.find(post.peers[0]) : kNoTile;
        if (d != kNoTile) {
          w.sends[w.n_sends++] = SendInfo{t, i, w.dest_base + uint32_t(w.n_dests), post.addr, post.len};
          w.dests[w.n_dests++] = d;
        } else {
          collect_send(index, t, i, post, tiles_per_ipu, w, errors);
        }
      } else if (post.kind == ExchangePost::Kind::Recv) {  // copies are the gateway's, not messages
        const uint32_t src = post.peers.size() == 1 ? index.find(post.peers[0]) : kNoTile;
        if (src != kNoTile) {
          w.recvs[w.n_recvs++] = RecvLeg{src, i, post.addr, post.len};
        } else {
          collect_recv(index, t, i, post, w, errors);
        }
      }
    }
  }
  out = w;
}

}  // namespace

// Each chunk of tiles writes straight into the plan's arrays, at the places its counts
// (a prefix sum over the chunks) give it; where a chunk wrote less than its count (a
// destination named twice, a peer absent), the parts are then moved down to lie end to
// end. The same arrays as one pass over the tiles, one write per leg.
void collect_postings(const TileIndex& index, const ExchangeTiming& timing, const Chunks& chunks, Postings& out,
                      ErrorList& errors) {
  const uint32_t tiles_per_ipu = std::max<uint32_t>(timing.tiles_per_ipu, 1);
  const size_t k = chunks.size();
  std::vector<Counts> counts(k);
  chunks.run([&](size_t c) { counts[c] = count(index, chunks.begin(c), chunks.end(c)); });
  std::vector<size_t> sends_at(k + 1, 0), dests_at(k + 1, 0), recvs_at(k + 1, 0);
  for (size_t c = 0; c < k; ++c) {
    sends_at[c + 1] = sends_at[c] + counts[c].sends;
    dests_at[c + 1] = dests_at[c] + counts[c].send_peers;
    recvs_at[c + 1] = recvs_at[c] + counts[c].recvs;
  }
  out.sends.resize(sends_at[k]);
  out.send_dests.resize(dests_at[k]);
  out.recvs.resize(recvs_at[k]);
  out.send_begin.resize(size_t(index.size()) + 1);
  out.recv_begin.resize(size_t(index.size()) + 1);
  std::vector<PartWriter> part;
  part.reserve(k);
  for (size_t c = 0; c < k; ++c)
    part.push_back(PartWriter{out.sends.data() + sends_at[c], out.send_dests.data() + dests_at[c],
                              out.recvs.data() + recvs_at[c], uint32_t(dests_at[c])});
  std::vector<ChunkErrors> part_errors(k);
  chunks.run([&](size_t c) {
    ErrorList list(part_errors[c].problems, tiles_per_ipu);
    collect_part(index, tiles_per_ipu, chunks.begin(c), chunks.end(c), sends_at[c], recvs_at[c], part[c], out, list);
    part_errors[c].dropped = list.dropped();
  });
  for (ChunkErrors& e : part_errors) errors.take(e.problems, e.dropped);

  // Parts written short of their counts: moved down, in chunk order, behind the previous.
  size_t sends = 0, dests = 0, recvs = 0;
  for (size_t c = 0; c < k; ++c) {
    const PartWriter& p = part[c];
    if (sends != sends_at[c] || dests != dests_at[c] || recvs != recvs_at[c]) {
      const uint32_t dest_shift = uint32_t(dests_at[c] - dests);
      for (size_t i = 0; i < p.n_sends; ++i) {
        out.sends[sends + i] = out.sends[sends_at[c] + i];
        out.sends[sends + i].dest_begin -= dest_shift;
      }
      std::copy(out.send_dests.begin() + dests_at[c], out.send_dests.begin() + dests_at[c] + p.n_dests,
                out.send_dests.begin() + dests);
      std::copy(out.recvs.begin() + recvs_at[c], out.recvs.begin() + recvs_at[c] + p.n_recvs,
                out.recvs.begin() + recvs);
      for (uint32_t t = chunks.begin(c); t < chunks.end(c); ++t) {
        out.send_begin[t] -= uint32_t(sends_at[c] - sends);
        out.recv_begin[t] -= uint32_t(recvs_at[c] - recvs);
      }
    }
    sends += p.n_sends;
    dests += p.n_dests;
    recvs += p.n_recvs;
  }
  out.sends.resize(sends);
  out.send_dests.resize(dests);
  out.recvs.resize(recvs);
  out.send_begin[index.size()] = uint32_t(sends);
  out.recv_begin[index.size()] = uint32_t(recvs);
}

}  // namespace ipusim::exchange::detail
