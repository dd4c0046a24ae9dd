// Matching (docs/exchange.md, "Matching"): for each ordered pair (A, B), the k-th send
// from A whose destination set contains B matches the k-th receive posted on B with
// source A.
//
// Send legs are laid out in (dst, src, posting order) by a counting sort on the
// destination, 4 bytes each (the send and its pair bit); receive legs are already grouped
// by dst in posting order. For each destination, per-source cursors into its sends pair
// every receive with the next unmatched send from its source. O(postings + tiles);
// matches come out in (dst, receive posting order). Both the sort and the matching run
// by chunks of tiles (senders, then receivers) on the plan's threads.
#include <algorithm>

#include <fmt/format.h>

#include "exchange/plan_internal.h"

namespace ipusim::exchange::detail {
namespace {

// A send leg: its send (SendInfo index) << 1 | the pair rule.
using SendLeg = uint32_t;

// A stable counting sort on the destination, written straight from the sends. The
// senders are cut into groups (whole chunks, as many as the legs make worth a table of
// groups x tiles counts); group j writes its legs for destination d after those of
// groups before it, so the order is that of one pass over the sends.
void send_legs_by_destination(const Postings& p, uint32_t tiles, const Chunks& chunks, SendLegs& out) {
  const size_t groups =
      std::clamp<size_t>(p.send_dests.size() / (8 * (size_t(tiles) + 1)), 1, chunks.size());
  auto group_sends = [&](size_t j) {  // [first, end) in p.sends
    const uint32_t first_tile = chunks.begin(j * chunks.size() / groups);
    const uint32_t end_tile = chunks.begin((j + 1) * chunks.size() / groups);
    return std::pair<size_t, size_t>(p.send_begin[first_tile], p.send_begin[end_tile]);
  };
  std::vector<std::vector<uint32_t>>& next = out.next;  // then: where group j's next leg to d goes
  if (next.size() < groups) next.resize(groups);
  chunks.run(groups, [&](size_t j) {
    std::vector<uint32_t>& count = next[j];
    count.assign(tiles, 0);
    const auto [first, end] = group_sends(j);
    const size_t dest_first = first < p.sends.size() ? p.dest_begin(first) : p.send_dests.size();
    const size_t dest_end = end < p.sends.size() ? p.dest_begin(end) : p.send_dests.size();
    for (size_t i = dest_first; i < dest_end; ++i) ++count[dest_tile(p.send_dests[i])];
  });
  out.begin.assign(size_t(tiles) + 1, 0);
  uint32_t at = 0;
  for (uint32_t d = 0; d < tiles; ++d) {
    out.begin[d] = at;
    for (size_t j = 0; j < groups; ++j) {
      const uint32_t n = next[j][d];
      next[j][d] = at;
      at += n;
    }
  }
  out.begin[tiles] = at;
  out.legs.resize(p.send_dests.size());
  chunks.run(groups, [&](size_t j) {
    std::vector<uint32_t>& to = next[j];
    const auto [first, end] = group_sends(j);
    for (size_t s = first; s < end; ++s) {
      for (size_t i = p.dest_begin(s); i < p.dest_end(s); ++i) {
        const uint32_t d = p.send_dests[i];
        out.legs[to[dest_tile(d)]++] = SendLeg(s) << 1 | (d & kPairBit ? 1 : 0);
      }
    }
  });
}

std::string plural(size_t n, const char* what) {
  return fmt::format("{} {}{}", n, what, n == 1 ? "" : "s");
}

class Matcher {
 public:
  Matcher(const TileIndex& index, const Postings& postings, ErrorList& errors)
      : index_(index), postings_(postings), errors_(errors) {}

  uint32_t src(SendLeg leg) const { return postings_.sends[leg >> 1].tile; }

  // Send number `k` (0-based) of `sent` from its tile to `dst`, with only `received` receives.
  void unmatched_send(SendLeg leg, uint32_t dst, size_t k, size_t sent, size_t received) {
    const iss::PostingView post = send_post(leg);
    const uint32_t a = index_.global(src(leg)), b = index_.global(dst);
    if (received == 0) {
      errors_.add("send without receive", a, post.pc, b, kNoTile,
                  fmt::format("tile {} sends {} bytes to tile {} ({}) but tile {} posts no receive from tile {}",
                              a, post.len, b, pc_text(post.pc), b, a));
    } else {
      errors_.add("more sends than receives", a, post.pc, b, kNoTile, fmt::format(
          "tile {} sends {} bytes to tile {} ({}, send {} of {} to it) but tile {} posts only {} from tile {}",
          a, post.len, b, pc_text(post.pc), k + 1, sent, b, plural(received, "receive"), a));
    }
  }

  // Receive number `k` (0-based) of `received` on `dst` from r.src, with only `sent` sends.
  void unmatched_recv(const RecvLeg& r, uint32_t dst, size_t k, size_t received, size_t sent) {
    const iss::PostingView post = index_.post(dst, r.post);
    const uint32_t a = index_.global(r.src), b = index_.global(dst);
    if (sent == 0) {
      errors_.add("receive without send", b, post.pc, a, kNoTile,
                  fmt::format("tile {} expects {} bytes from tile {} ({}) but tile {} sends nothing to tile {}",
                              b, post.len, a, pc_text(post.pc), a, b));
    } else {
      errors_.add("more receives than sends", b, post.pc, a, kNoTile, fmt::format(
          "tile {} expects {} bytes from tile {} ({}, receive {} of {} from it) but tile {} sends only {} to tile {}",
          b, post.len, a, pc_text(post.pc), k + 1, received, a, plural(sent, "message"), b));
    }
  }

  // The match of receive leg `slot` (its index in Postings::recvs).
  void match(SendLeg leg, const RecvLeg& r, uint32_t dst, size_t slot, Matches& out) {
    const SendInfo& send = postings_.sends[leg >> 1];
    const iss::PostingView recv = index_.post(dst, r.post);  // (r's buffer, and the pc)
    if (send.len != recv.len) {
      const uint32_t a = index_.global(send.tile), b = index_.global(dst), pc = send_post(leg).pc;
      errors_.add("length mismatch", a, pc, b, recv.pc, fmt::format(
          "tile {} sends {} bytes to tile {} ({}) but the matching receive on tile {} from tile {} expects {} bytes ({})",
          a, send.len, b, pc_text(pc), b, a, recv.len, pc_text(recv.pc)));
      return;
    }
    out.deliveries[slot] = {send.tile, send.addr, dst, recv.addr, send.len};
    out.send_pair[slot] = leg;
  }

 private:
  iss::PostingView send_post(SendLeg leg) const {
    const SendInfo& s = postings_.sends[leg >> 1];
    return index_.post(s.tile, s.post);
  }

  const TileIndex& index_;
  const Postings& postings_;
  ErrorList& errors_;
};

// Per-source bookkeeping for one destination at a time; entries touched for a
// destination are reset before the next.
struct SourceCursor {
  uint32_t next = 0, end = 0;  // its unmatched send legs: legs[next, end)
  uint32_t sent = 0;           // sends to the destination from it
  uint32_t received = 0;       // receives on the destination from it
  uint32_t seen = 0;           // of those, walked so far
};

// Per-source cursors for one destination at a time, one array per host thread: every
// entry is zero between destinations (a destination resets what it touched).
std::vector<SourceCursor>& cursors(uint32_t tiles) {
  thread_local std::vector<SourceCursor> from;
  if (from.size() < tiles) from.resize(tiles);
  return from;
}

// One destination, when every receive on it meets a send of its length and every send to
// it meets a receive (a valid phase): its matches, and true. False at the first thing that
// does not fit, with nothing reported and `from` as it was (every entry zero): the
// destination is then matched again by the full pass below, which names every problem.
// Three passes over the destination's legs where the full one makes five, and no count
// that only a message would read.
bool match_valid(const Postings& postings, const SendLegs& by_dst, uint32_t dst, std::vector<SourceCursor>& from,
                 Matches& matches) {
  const std::vector<SendLeg>& sends = by_dst.legs;
  const std::vector<SendInfo>& infos = postings.sends;
  const uint32_t i = by_dst.begin[dst], i_end = by_dst.begin[dst + 1];
  const uint32_t j = postings.recv_begin[dst], j_end = postings.recv_begin[dst + 1];
  if (i_end - i != j_end - j) return false;
  for (uint32_t k = i; k < i_end;) {  // sends to dst, grouped by source
    const uint32_t src = infos[sends[k] >> 1].tile;
    SourceCursor& c = from[src];
    c.next = k;
    while (++k < i_end && infos[sends[k] >> 1].tile == src) {
    }
    c.end = k;
  }
  bool valid = true;
  for (uint32_t r = j; r < j_end; ++r) {  // receives in posting order
    const RecvLeg& recv = postings.recvs[r];
    SourceCursor& c = from[recv.src];
    if (c.next == c.end) {
      valid = false;
      break;
    }
    const SendLeg leg = sends[c.next++];
    const SendInfo& send = infos[leg >> 1];
    if (send.len != recv.len) {
      valid = false;
      break;
    }
    matches.deliveries[r] = {send.tile, send.addr, dst, recv.addr, send.len};
    matches.send_pair[r] = leg;
  }
  for (uint32_t k = i; k < i_end;) {  // every send matched? (the counts are equal: then all)
    SourceCursor& c = from[infos[sends[k] >> 1].tile];
    k = c.end;
    c = SourceCursor{};
  }
  return valid;
}

// The destinations [first, end).
void match_part(const Postings& postings, const SendLegs& by_dst, uint32_t first, uint32_t end, Matcher& matcher,
                std::vector<SourceCursor>& from, Matches& matches) {
  const std::vector<SendLeg>& sends = by_dst.legs;
  const std::vector<RecvLeg>& recvs = postings.recvs;
  for (uint32_t dst = first; dst < end; ++dst) {
    if (match_valid(postings, by_dst, dst, from, matches)) continue;
    const uint32_t i = by_dst.begin[dst], i_end = by_dst.begin[dst + 1];
    const uint32_t j = postings.recv_begin[dst], j_end = postings.recv_begin[dst + 1];

    for (uint32_t k = i; k < i_end;) {  // sends to dst, grouped by source
      const uint32_t src = matcher.src(sends[k]);
      SourceCursor& c = from[src];
      c.next = k;
      while (k < i_end && matcher.src(sends[k]) == src) ++k;
      c.end = k;
      c.sent = c.end - c.next;
    }
    for (uint32_t r = j; r < j_end; ++r) ++from[recvs[r].src].received;
    for (uint32_t r = j; r < j_end; ++r) {  // receives in posting order
      SourceCursor& c = from[recvs[r].src];
      if (c.next < c.end) {
        matcher.match(sends[c.next++], recvs[r], dst, r, matches);
      } else {
        matcher.unmatched_recv(recvs[r], dst, c.seen, c.received, c.sent);
      }
      ++c.seen;
    }
    for (uint32_t k = i; k < i_end;) {  // sends left over, by source
      SourceCursor& c = from[matcher.src(sends[k])];
      const uint32_t group_begin = k;
      k = c.end;
      for (uint32_t s = c.next; s < c.end; ++s) {
        matcher.unmatched_send(sends[s], dst, s - group_begin, c.sent, c.received);
      }
      c = SourceCursor{};
    }
    for (uint32_t r = j; r < j_end; ++r) from[recvs[r].src] = SourceCursor{};
  }
}

}  // namespace

// Receive leg r's match goes to slot r: in a valid exchange every receive has exactly
// one, so the slots are the matches in (dst, receive posting order) with no gap, each
// chunk of destinations writing its own. With any error the plan keeps no match.
void match_postings(const TileIndex& index, const Postings& postings, const Chunks& chunks, SendLegs& by_dst,
                    Matches& matches, ErrorList& errors) {
  const uint32_t n = index.size();
  send_legs_by_destination(postings, n, chunks, by_dst);
  matches.deliveries.resize(postings.recvs.size());
  matches.send_pair.resize(postings.recvs.size());
  matches.chunk_begin.resize(chunks.size() + 1);
  for (size_t c = 0; c <= chunks.size(); ++c)
    matches.chunk_begin[c] = c < chunks.size() ? postings.recv_begin[chunks.begin(c)] : postings.recvs.size();
  std::vector<ChunkErrors> part(chunks.size());
  chunks.run([&](size_t c) {
    ErrorList list(part[c].problems, errors.tiles_per_ipu());
    Matcher matcher(index, postings, list);
    std::vector<SourceCursor>& from = cursors(n);
    try {
      match_part(postings, by_dst, chunks.begin(c), chunks.end(c), matcher, from, matches);
    } catch (...) {
      from.clear();  // possibly left dirty
      throw;
    }
    part[c].dropped = list.dropped();
  });
  for (ChunkErrors& e : part) errors.take(e.problems, e.dropped);
}

}  // namespace ipusim::exchange::detail
