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

// The pair rule (docs/exchange.md): tiles 2k and 2k+1 of one IPU share a double-width
// receive path, so a send naming both charges each half its length.
// `dests[i]` is in the set dests[begin, end) (sorted, unique; a pair bit may be set).
bool has_partner(const TileIndex& index, const std::vector<uint32_t>& dests, size_t begin, size_t end,
                 size_t i, uint32_t tiles_per_ipu) {
  const uint32_t g = index.global(dest_tile(dests[i]));
  const uint32_t local = g % tiles_per_ipu;
  const uint32_t partner_local = local ^ 1u;
  if (partner_local >= tiles_per_ipu) return false;
  const uint32_t partner = g - local + partner_local;
  // Dense ids follow global ids, so the partner, if present, is the set's neighbour.
  if (partner > g) return i + 1 < end && index.global(dest_tile(dests[i + 1])) == partner;
  return i > begin && index.global(dest_tile(dests[i - 1])) == partner;
}

void collect_send(const TileIndex& index, uint32_t tile, uint32_t p, const iss::PostingView& post,
                  uint32_t tiles_per_ipu, Postings& out, ErrorList& errors) {
  const uint32_t me = index.global(tile);
  if (post.peers.empty()) {
    errors.add("send without destination", me, post.pc, kNoTile, kNoTile,
               fmt::format("tile {} posts a send of {} bytes with no destination ({})", me, post.len,
                           pc_text(post.pc)));
    return;
  }
  const uint32_t begin = uint32_t(out.send_dests.size());
  for (uint32_t peer : post.peers) {
    const uint32_t d = index.find(peer);
    if (d == kNoTile) {
      errors.add("peer not in the exchange", me, post.pc, peer, kNoTile,
                 fmt::format("tile {} sends {} bytes to tile {} ({}) but tile {} {}", me, post.len, peer,
                             pc_text(post.pc), peer, kAbsent));
      continue;
    }
    out.send_dests.push_back(d);
  }
  // A destination set is a set: naming a tile twice sends to it once.
  auto first = out.send_dests.begin() + begin;
  if (out.send_dests.end() - first > 1) {
    std::sort(first, out.send_dests.end());
    out.send_dests.erase(std::unique(first, out.send_dests.end()), out.send_dests.end());
  }
  out.sends.push_back(SendInfo{tile, p, begin, post.addr, post.len});
  const size_t end = out.send_dests.size();
  if (end - begin < 2) return;  // a pair needs two destinations
  for (size_t i = begin; i < end; ++i)
    if (has_partner(index, out.send_dests, begin, end, i, tiles_per_ipu)) out.send_dests[i] |= kPairBit;
}

// A receive needs one source that takes part; a valid one becomes a receive leg.
void collect_recv(const TileIndex& index, uint32_t tile, uint32_t p, const iss::PostingView& post, Postings& out,
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
  out.recvs.push_back(RecvLeg{src, p});
}

// Sends, their destinations and receives over all tiles: exact from the ISS's counts,
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

// The tiles [first, end) into `out` (its destinations' offsets and per-tile begins
// relative to this part).
void collect_part(const TileIndex& index, uint32_t tiles_per_ipu, uint32_t first, uint32_t end, Postings& out,
                  ErrorList& errors) {
  const Counts counts = count(index, first, end);
  out.sends.reserve(counts.sends);
  out.send_dests.reserve(counts.send_peers);
  out.recvs.reserve(counts.recvs);
  out.send_begin.resize(end - first);
  out.recv_begin.resize(end - first);
  for (uint32_t t = first; t < end; ++t) {
    out.send_begin[t - first] = uint32_t(out.sends.size());
    out.recv_begin[t - first] = uint32_t(out.recvs.size());
    for (uint32_t p = 0; p < index.post_count(t); ++p) {
      const iss::PostingView post = index.post(t, p);
      if (post.kind == ExchangePost::Kind::Send) {
        collect_send(index, t, p, post, tiles_per_ipu, out, errors);
      } else if (post.kind == ExchangePost::Kind::Recv) {  // copies are the gateway's, not messages
        collect_recv(index, t, p, post, out, errors);
      }
    }
  }
}

}  // namespace

// Each chunk of tiles is collected on its own, then the parts are laid end to end in
// chunk order: the same arrays as one pass over the tiles.
void collect_postings(const TileIndex& index, const ExchangeTiming& timing, const Chunks& chunks, Postings& out,
                      ErrorList& errors) {
  const uint32_t tiles_per_ipu = std::max<uint32_t>(timing.tiles_per_ipu, 1);
  const size_t k = chunks.size();
  std::vector<Postings> part(k);
  std::vector<ChunkErrors> part_errors(k);
  chunks.run([&](size_t c) {
    ErrorList list(part_errors[c].problems, tiles_per_ipu);
    collect_part(index, tiles_per_ipu, chunks.begin(c), chunks.end(c), part[c], list);
    part_errors[c].dropped = list.dropped();
  });
  for (ChunkErrors& e : part_errors) errors.take(e.problems, e.dropped);

  std::vector<size_t> sends_at(k + 1, 0), dests_at(k + 1, 0), recvs_at(k + 1, 0);
  for (size_t c = 0; c < k; ++c) {
    sends_at[c + 1] = sends_at[c] + part[c].sends.size();
    dests_at[c + 1] = dests_at[c] + part[c].send_dests.size();
    recvs_at[c + 1] = recvs_at[c] + part[c].recvs.size();
  }
  out.sends.resize(sends_at[k]);
  out.send_dests.resize(dests_at[k]);
  out.recvs.resize(recvs_at[k]);
  out.send_begin.resize(size_t(index.size()) + 1);
  out.recv_begin.resize(size_t(index.size()) + 1);
  chunks.run([&](size_t c) {
    Postings& p = part[c];
    const uint32_t dest_offset = uint32_t(dests_at[c]);
    SendInfo* sends = out.sends.data() + sends_at[c];
    for (size_t i = 0; i < p.sends.size(); ++i) {
      sends[i] = p.sends[i];
      sends[i].dest_begin += dest_offset;
    }
    std::copy(p.send_dests.begin(), p.send_dests.end(), out.send_dests.begin() + dests_at[c]);
    std::copy(p.recvs.begin(), p.recvs.end(), out.recvs.begin() + recvs_at[c]);
    for (uint32_t t = chunks.begin(c); t < chunks.end(c); ++t) {
      out.send_begin[t] = uint32_t(sends_at[c]) + p.send_begin[t - chunks.begin(c)];
      out.recv_begin[t] = uint32_t(recvs_at[c]) + p.recv_begin[t - chunks.begin(c)];
    }
    p = Postings{};  // its memory back as soon as it is copied
  });
  out.send_begin[index.size()] = uint32_t(sends_at[k]);
  out.recv_begin[index.size()] = uint32_t(recvs_at[k]);
}

}  // namespace ipusim::exchange::detail
