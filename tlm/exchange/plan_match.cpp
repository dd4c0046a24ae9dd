// Matching (docs/exchange.md, "Matching"): for each ordered pair (A, B), the k-th send
// from A whose destination set contains B matches the k-th receive posted on B with
// source A. Both edge lists are put in (dst, src, posting order) by stable counting
// sorts (O(postings + tiles)) and then walked together.
#include <fmt/format.h>

#include "exchange/plan_internal.h"

namespace ipusim::exchange::detail {
namespace {

// Stable counting sort of `edges` by key(edge) in [0, n).
template <class Key>
void counting_sort(std::vector<Edge>& edges, uint32_t n, Key key) {
  std::vector<size_t> next(size_t(n) + 1, 0);
  for (const Edge& e : edges) ++next[key(e) + 1];
  for (size_t i = 1; i <= n; ++i) next[i] += next[i - 1];
  std::vector<Edge> sorted(edges.size());
  for (const Edge& e : edges) sorted[next[key(e)]++] = e;
  edges.swap(sorted);
}

bool before(const Edge& a, const Edge& b) {
  return a.dst != b.dst ? a.dst < b.dst : a.src < b.src;
}
bool same_pair(const Edge& a, const Edge& b) { return a.dst == b.dst && a.src == b.src; }

std::string plural(size_t n, const char* what) {
  return fmt::format("{} {}{}", n, what, n == 1 ? "" : "s");
}

class Matcher {
 public:
  Matcher(const TileIndex& index, const Postings& postings, ErrorList& errors)
      : index_(index), postings_(postings), errors_(errors) {}

  const iss::ExchangePost& send_post(const Edge& e) const {
    const SendInfo& s = postings_.sends[e.ref];
    return index_.post(s.tile, s.post);
  }
  const iss::ExchangePost& recv_post(const Edge& e) const { return index_.post(e.dst, e.ref); }

  // Send number `k` (0-based) of `sent` from e.src to e.dst, with only `received` receives.
  void unmatched_send(const Edge& e, size_t k, size_t sent, size_t received) {
    const auto& post = send_post(e);
    const uint32_t a = index_.global(e.src), b = index_.global(e.dst);
    if (received == 0) {
      errors_.add(fmt::format("tile {} sends {} bytes to tile {} ({}) but tile {} posts no receive from tile {}",
                              a, post.len, b, pc_text(post.pc), b, a));
    } else {
      errors_.add(fmt::format(
          "tile {} sends {} bytes to tile {} ({}, send {} of {} to it) but tile {} posts only {} from tile {}",
          a, post.len, b, pc_text(post.pc), k + 1, sent, b, plural(received, "receive"), a));
    }
  }

  void unmatched_recv(const Edge& e, size_t k, size_t received, size_t sent) {
    const auto& post = recv_post(e);
    const uint32_t a = index_.global(e.src), b = index_.global(e.dst);
    if (sent == 0) {
      errors_.add(fmt::format("tile {} expects {} bytes from tile {} ({}) but tile {} sends nothing to tile {}",
                              b, post.len, a, pc_text(post.pc), a, b));
    } else {
      errors_.add(fmt::format(
          "tile {} expects {} bytes from tile {} ({}, receive {} of {} from it) but tile {} sends only {} to tile {}",
          b, post.len, a, pc_text(post.pc), k + 1, received, a, plural(sent, "message"), b));
    }
  }

  void match(const Edge& s, const Edge& r, std::vector<Match>& out) {
    const auto& sp = send_post(s);
    const auto& rp = recv_post(r);
    if (sp.len != rp.len) {
      const uint32_t a = index_.global(s.src), b = index_.global(s.dst);
      errors_.add(fmt::format(
          "tile {} sends {} bytes to tile {} ({}) but the matching receive on tile {} from tile {} expects {} bytes ({})",
          a, sp.len, b, pc_text(sp.pc), b, a, rp.len, pc_text(rp.pc)));
      return;
    }
    out.push_back({s.ref, s.src, s.dst, r.ref, s.pair});
  }

 private:
  const TileIndex& index_;
  const Postings& postings_;
  ErrorList& errors_;
};

}  // namespace

std::vector<Match> match_postings(const TileIndex& index, Postings& postings, ErrorList& errors) {
  const uint32_t n = index.size();
  std::vector<Edge>& sends = postings.send_edges;  // collected in (src, posting order)
  std::vector<Edge>& recvs = postings.recv_edges;  // collected in (dst, posting order)
  counting_sort(sends, n, [](const Edge& e) { return e.dst; });
  counting_sort(recvs, n, [](const Edge& e) { return e.src; });
  counting_sort(recvs, n, [](const Edge& e) { return e.dst; });

  Matcher matcher(index, postings, errors);
  std::vector<Match> matches;
  matches.reserve(std::min(sends.size(), recvs.size()));
  size_t i = 0, j = 0;
  while (i < sends.size() || j < recvs.size()) {
    // The next (dst, src) group on either side; an empty side counts zero postings.
    const Edge& head = j == recvs.size() || (i < sends.size() && before(sends[i], recvs[j]))
                           ? sends[i]
                           : recvs[j];
    size_t i_end = i, j_end = j;
    while (i_end < sends.size() && same_pair(sends[i_end], head)) ++i_end;
    while (j_end < recvs.size() && same_pair(recvs[j_end], head)) ++j_end;
    const size_t sent = i_end - i, received = j_end - j;
    const size_t both = std::min(sent, received);
    for (size_t k = 0; k < both; ++k) matcher.match(sends[i + k], recvs[j + k], matches);
    for (size_t k = both; k < sent; ++k) matcher.unmatched_send(sends[i + k], k, sent, received);
    for (size_t k = both; k < received; ++k) matcher.unmatched_recv(recvs[j + k], k, received, sent);
    i = i_end;
    j = j_end;
  }
  std::vector<Edge>().swap(sends);
  std::vector<Edge>().swap(recvs);
  return matches;
}

}  // namespace ipusim::exchange::detail
