// Matching (docs/exchange.md, "Matching"): for each ordered pair (A, B), the k-th send
// from A whose destination set contains B matches the k-th receive posted on B with
// source A.
//
// Send legs are laid out in (dst, src, posting order) by a counting sort on the
// destination; receive legs are already grouped by dst in posting order. For each destination, per-source
// cursors into its sends pair every receive with the next unmatched send from its
// source. O(postings + tiles); matches come out in (dst, receive posting order).
#include <algorithm>

#include <fmt/format.h>

#include "exchange/plan_internal.h"

namespace ipusim::exchange::detail {
namespace {

// Every send leg, in (dst, src, posting order): a stable counting sort on the
// destination, written straight from the sends.
std::vector<Edge> send_legs_by_destination(const Postings& p, uint32_t tiles) {
  std::vector<size_t> next(size_t(tiles) + 1, 0);
  for (uint32_t d : p.send_dests) ++next[d + 1];
  for (size_t i = 1; i <= tiles; ++i) next[i] += next[i - 1];
  std::vector<Edge> legs(p.send_dests.size());
  for (size_t s = 0; s < p.sends.size(); ++s) {
    const SendInfo& info = p.sends[s];
    for (uint32_t i = info.dest_begin; i < info.dest_end; ++i) {
      Edge& e = legs[next[p.send_dests[i]]++];
      e.src = info.tile;
      e.dst = p.send_dests[i];
      e.addr = info.addr;
      e.len = info.len;
      e.ref = uint32_t(s);
      e.pair = p.dest_pair[i];
    }
  }
  return legs;
}

std::string plural(size_t n, const char* what) {
  return fmt::format("{} {}{}", n, what, n == 1 ? "" : "s");
}

class Matcher {
 public:
  Matcher(const TileIndex& index, const Postings& postings, ErrorList& errors)
      : index_(index), postings_(postings), errors_(errors) {}

  // Send number `k` (0-based) of `sent` from e.src to e.dst, with only `received` receives.
  void unmatched_send(const Edge& e, size_t k, size_t sent, size_t received) {
    const uint32_t pc = send_pc(e);
    const uint32_t a = index_.global(e.src), b = index_.global(e.dst);
    if (received == 0) {
      errors_.add("send without receive", a, pc, b, kNoTile,
                  fmt::format("tile {} sends {} bytes to tile {} ({}) but tile {} posts no receive from tile {}",
                              a, e.len, b, pc_text(pc), b, a));
    } else {
      errors_.add("more sends than receives", a, pc, b, kNoTile, fmt::format(
          "tile {} sends {} bytes to tile {} ({}, send {} of {} to it) but tile {} posts only {} from tile {}",
          a, e.len, b, pc_text(pc), k + 1, sent, b, plural(received, "receive"), a));
    }
  }

  // Receive number `k` (0-based) of `received` on e.dst from e.src, with only `sent` sends.
  void unmatched_recv(const Edge& e, size_t k, size_t received, size_t sent) {
    const uint32_t pc = recv_pc(e);
    const uint32_t a = index_.global(e.src), b = index_.global(e.dst);
    if (sent == 0) {
      errors_.add("receive without send", b, pc, a, kNoTile,
                  fmt::format("tile {} expects {} bytes from tile {} ({}) but tile {} sends nothing to tile {}",
                              b, e.len, a, pc_text(pc), a, b));
    } else {
      errors_.add("more receives than sends", b, pc, a, kNoTile, fmt::format(
          "tile {} expects {} bytes from tile {} ({}, receive {} of {} from it) but tile {} sends only {} to tile {}",
          b, e.len, a, pc_text(pc), k + 1, received, a, plural(sent, "message"), b));
    }
  }

  void match(const Edge& s, const Edge& r, Matches& out) {
    if (s.len != r.len) {
      const uint32_t a = index_.global(s.src), b = index_.global(s.dst);
      errors_.add("length mismatch", a, send_pc(s), b, recv_pc(r), fmt::format(
          "tile {} sends {} bytes to tile {} ({}) but the matching receive on tile {} from tile {} expects {} bytes ({})",
          a, s.len, b, pc_text(send_pc(s)), b, a, r.len, pc_text(recv_pc(r))));
      return;
    }
    out.deliveries.push_back({s.src, s.addr, s.dst, r.addr, s.len});
    out.send_pair.push_back(uint32_t(s.ref) << 1 | s.pair);
  }

 private:
  uint32_t send_pc(const Edge& e) const {
    const SendInfo& s = postings_.sends[e.ref];
    return index_.post(s.tile, s.post).pc;
  }
  uint32_t recv_pc(const Edge& e) const { return index_.post(e.dst, e.ref).pc; }

  const TileIndex& index_;
  const Postings& postings_;
  ErrorList& errors_;
};

// Per-source bookkeeping for one destination at a time; entries touched for a
// destination are reset before the next.
struct SourceCursor {
  size_t next = 0, end = 0;  // its unmatched sends: sends[next, end)
  size_t sent = 0;           // sends to the destination from it
  size_t received = 0;       // receives on the destination from it
  size_t seen = 0;           // of those, walked so far
};

}  // namespace

Matches match_postings(const TileIndex& index, const Postings& postings, ErrorList& errors) {
  const uint32_t n = index.size();
  const std::vector<Edge> sends = send_legs_by_destination(postings, n);
  const std::vector<Edge>& recvs = postings.recv_edges;

  Matcher matcher(index, postings, errors);
  Matches matches;
  matches.deliveries.reserve(std::min(sends.size(), recvs.size()));
  matches.send_pair.reserve(std::min(sends.size(), recvs.size()));
  std::vector<SourceCursor> from(n);
  size_t i = 0, j = 0;
  while (i < sends.size() || j < recvs.size()) {
    const uint32_t dst = j == recvs.size() || (i < sends.size() && sends[i].dst < recvs[j].dst)
                             ? sends[i].dst
                             : recvs[j].dst;
    size_t i_end = i, j_end = j;
    while (i_end < sends.size() && sends[i_end].dst == dst) ++i_end;
    while (j_end < recvs.size() && recvs[j_end].dst == dst) ++j_end;

    for (size_t k = i; k < i_end;) {  // sends to dst, grouped by source
      SourceCursor& c = from[sends[k].src];
      c.next = k;
      while (k < i_end && sends[k].src == sends[c.next].src) ++k;
      c.end = k;
      c.sent = c.end - c.next;
    }
    for (size_t r = j; r < j_end; ++r) ++from[recvs[r].src].received;
    for (size_t r = j; r < j_end; ++r) {  // receives in posting order
      SourceCursor& c = from[recvs[r].src];
      if (c.next < c.end) {
        matcher.match(sends[c.next++], recvs[r], matches);
      } else {
        matcher.unmatched_recv(recvs[r], c.seen, c.received, c.sent);
      }
      ++c.seen;
    }
    for (size_t k = i; k < i_end;) {  // sends left over, by source
      SourceCursor& c = from[sends[k].src];
      const size_t group_begin = k;
      k = c.end;
      for (size_t s = c.next; s < c.end; ++s) {
        matcher.unmatched_send(sends[s], s - group_begin, c.sent, c.received);
      }
      c = SourceCursor{};
    }
    for (size_t r = j; r < j_end; ++r) from[recvs[r].src] = SourceCursor{};
    i = i_end;
    j = j_end;
  }
  return matches;
}

}  // namespace ipusim::exchange::detail
