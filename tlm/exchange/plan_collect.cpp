// Turns every tile's postings into send and receive edges (one per source/destination
// leg), naming peers by dense id; reports postings the ISS should already have refused
// and peers that are not taking part in the exchange (e.g. a halted tile).
#include <algorithm>

#include <fmt/format.h>

#include "exchange/plan_internal.h"

namespace ipusim::exchange::detail {
namespace {

using iss::ExchangePost;

constexpr const char* kAbsent = "takes no part in this exchange (halted, not loaded or not a tile)";

// The pair rule (docs/exchange.md): tiles 2k and 2k+1 of one IPU share a double-width
// receive path, so a send naming both charges each half its length.
// `dests[i]` is in the set dests[begin, end) (sorted, unique).
bool has_partner(const TileIndex& index, const std::vector<uint32_t>& dests, size_t begin, size_t end,
                 size_t i, uint32_t tiles_per_ipu) {
  const uint32_t g = index.global(dests[i]);
  const uint32_t local = g % tiles_per_ipu;
  const uint32_t partner_local = local ^ 1u;
  if (partner_local >= tiles_per_ipu) return false;
  const uint32_t partner = g - local + partner_local;
  // Dense ids follow global ids, so the partner, if present, is the set's neighbour.
  if (partner > g) return i + 1 < end && index.global(dests[i + 1]) == partner;
  return i > begin && index.global(dests[i - 1]) == partner;
}

void collect_send(const TileIndex& index, uint32_t tile, uint32_t p, uint32_t tiles_per_ipu,
                  Postings& out, ErrorList& errors) {
  const ExchangePost& post = index.post(tile, p);
  const uint32_t me = index.global(tile);
  if (post.peers.empty()) {
    errors.add("send without destination", me, post.pc, kNoTile, kNoTile,
               fmt::format("tile {} posts a send of {} bytes with no destination ({})", me, post.len,
                           pc_text(post.pc)));
    return;
  }
  SendInfo info{tile, p, post.addr, post.len, uint32_t(out.send_dests.size()), 0};
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
  auto first = out.send_dests.begin() + info.dest_begin;
  if (out.send_dests.end() - first > 1) {
    std::sort(first, out.send_dests.end());
    out.send_dests.erase(std::unique(first, out.send_dests.end()), out.send_dests.end());
  }
  info.dest_end = uint32_t(out.send_dests.size());
  out.sends.push_back(info);
  for (uint32_t i = info.dest_begin; i < info.dest_end; ++i) {
    out.dest_pair.push_back(
        has_partner(index, out.send_dests, info.dest_begin, info.dest_end, i, tiles_per_ipu));
  }
}

void collect_recv(const TileIndex& index, uint32_t tile, uint32_t p, Postings& out,
                  ErrorList& errors) {
  const ExchangePost& post = index.post(tile, p);
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
  Edge e{src, tile, post.addr, post.len};
  e.ref = p;
  out.recv_edges.push_back(e);
}

}  // namespace

void collect_postings(const TileIndex& index, const ExchangeTiming& timing, Postings& out,
                      ErrorList& errors) {
  const uint32_t tiles_per_ipu = std::max<uint32_t>(timing.tiles_per_ipu, 1);
  // Room for every posting on either side: pages never written cost nothing, and a
  // counting pass over the postings would cost as much as collecting them.
  size_t posts = 0;
  for (uint32_t t = 0; t < index.size(); ++t) posts += index.post_count(t);
  out.sends.reserve(posts);
  out.send_dests.reserve(posts);
  out.dest_pair.reserve(posts);
  out.recv_edges.reserve(posts);
  for (uint32_t t = 0; t < index.size(); ++t) {
    for (uint32_t p = 0; p < index.post_count(t); ++p) {
      const ExchangePost::Kind kind = index.post(t, p).kind;
      if (kind == ExchangePost::Kind::Send) {
        collect_send(index, t, p, tiles_per_ipu, out, errors);
      } else if (kind == ExchangePost::Kind::Recv) {  // copies are the gateway's, not messages
        collect_recv(index, t, p, out, errors);
      }
    }
  }
}

}  // namespace ipusim::exchange::detail
