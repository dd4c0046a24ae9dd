#include "links/topology.h"

#include <algorithm>
#include <cmath>
#include <deque>
#include <string>

#include <fmt/format.h>

namespace ipusim::links {

Topology::Topology(uint32_t ipus, uint32_t ports_per_ipu, std::vector<config::LinkWire> wires)
    : ipus_(ipus), ports_(ports_per_ipu), wires_(std::move(wires)), at_ipu_(ipus) {
  if (ipus == 0) throw std::invalid_argument("topology: no IPU");
  std::vector<int64_t> port_user(size_t(ipus) * ports_per_ipu, -1);
  auto claim = [&](uint32_t link, uint32_t ipu, uint32_t port) {
    if (ipu >= ipus)
      throw std::invalid_argument(fmt::format("link {}: IPU {} does not exist (the system has {})", link, ipu, ipus));
    if (port >= ports_per_ipu)
      throw std::invalid_argument(
          fmt::format("link {}: IPU {} has no port {} (ports 0 to {})", link, ipu, port, int64_t(ports_per_ipu) - 1));
    int64_t& user = port_user[size_t(ipu) * ports_per_ipu + port];
    if (user >= 0)
      throw std::invalid_argument(fmt::format("link {}: port {} of IPU {} is already used by link {}", link, port, ipu, user));
    user = link;
  };
  for (uint32_t l = 0; l < wires_.size(); ++l) {
    const config::LinkWire& w = wires_[l];
    claim(l, w.ipu_a, w.port_a);
    claim(l, w.ipu_b, w.port_b);
    if (w.ipu_a == w.ipu_b)
      throw std::invalid_argument(fmt::format("link {}: joins IPU {} to itself", l, w.ipu_a));
    at_ipu_[w.ipu_a].push_back(l);
    at_ipu_[w.ipu_b].push_back(l);
  }

  // Breadth-first search from every destination: next_[a][b] is the lowest-numbered
  // neighbour of a that is one hop closer to b.
  dist_.assign(size_t(ipus) * ipus, kUnreachable);
  next_.assign(size_t(ipus) * ipus, kUnreachable);
  neighbours_.resize(ipus);
  bundles_.resize(ipus);
  for (uint32_t i = 0; i < ipus; ++i) {
    std::vector<uint32_t>& near = neighbours_[i];
    auto peer = [&](uint32_t l) { return wires_[l].ipu_a == i ? wires_[l].ipu_b : wires_[l].ipu_a; };
    for (uint32_t l : at_ipu_[i]) near.push_back(peer(l));
    std::sort(near.begin(), near.end());
    near.erase(std::unique(near.begin(), near.end()), near.end());
    bundles_[i].resize(near.size());
    for (uint32_t l : at_ipu_[i])  // ascending link id
      bundles_[i][std::lower_bound(near.begin(), near.end(), peer(l)) - near.begin()].push_back(l);
  }
  const std::vector<std::vector<uint32_t>>& neighbours = neighbours_;
  std::deque<uint32_t> queue;
  for (uint32_t b = 0; b < ipus; ++b) {
    dist_[size_t(b) * ipus + b] = 0;
    queue.assign(1, b);
    while (!queue.empty()) {
      uint32_t u = queue.front();
      queue.pop_front();
      for (uint32_t v : neighbours[u])
        if (dist_[size_t(v) * ipus + b] == kUnreachable) {
          dist_[size_t(v) * ipus + b] = dist_[size_t(u) * ipus + b] + 1;
          queue.push_back(v);
        }
    }
    for (uint32_t a = 0; a < ipus; ++a) {
      const uint32_t d = dist_[size_t(a) * ipus + b];
      if (d == kUnreachable) {
        connected_ = false;
        continue;
      }
      diameter_ = std::max(diameter_, d);
      if (d == 0) continue;
      for (uint32_t v : neighbours[a])  // ascending: the first one closer wins
        if (dist_[size_t(v) * ipus + b] == d - 1) {
          next_[size_t(a) * ipus + b] = v;
          break;
        }
    }
  }
}

Topology Topology::of(const config::SystemConfig& system) {
  return Topology(system.total_ipus(), system.board.chip.ipu_links.count, system.links());
}

std::span<const uint32_t> Topology::links_between(uint32_t a, uint32_t b) const {
  const std::vector<uint32_t>& near = neighbours_.at(a);
  const auto it = std::lower_bound(near.begin(), near.end(), b);
  if (it == near.end() || *it != b) return {};
  return bundles_[a][it - near.begin()];
}

void Topology::route(uint32_t a, uint32_t b, uint32_t spread, std::vector<Hop>& out) const {
  out.clear();
  if (a >= ipus_ || b >= ipus_)
    throw std::invalid_argument(fmt::format("route from IPU {} to IPU {}: the system has {} IPUs", a, b, ipus_));
  if (hops(a, b) == kUnreachable)
    throw std::invalid_argument(fmt::format("no IPU-Link path from IPU {} to IPU {}", a, b));
  for (uint32_t u = a; u != b;) {
    const uint32_t v = next_[size_t(u) * ipus_ + b];
    const std::span<const uint32_t> bundle = links_between(u, v);  // parallel links: `spread` picks one
    const uint32_t l = bundle[spread % bundle.size()];
    out.push_back(Hop{l, wires_[l].ipu_a == u, u, v});
    u = v;
  }
}

Centre Topology::centre(std::span<const uint32_t> members) const {
  if (members.empty()) throw std::invalid_argument("the centre of no IPU");
  for (uint32_t m : members)
    if (m >= ipus_) throw std::invalid_argument(fmt::format("IPU {} does not exist (the system has {})", m, ipus_));
  Centre best{0, kUnreachable};
  for (uint32_t m : members) {
    uint32_t radius = 0;
    for (uint32_t o : members) {
      const uint32_t d = hops(m, o);
      if (d == kUnreachable)
        throw std::invalid_argument(fmt::format("no IPU-Link path from IPU {} to IPU {}", m, o));
      radius = std::max(radius, d);
    }
    if (radius < best.radius || (radius == best.radius && m < best.ipu)) best = Centre{m, radius};
  }
  return best;
}

SyncGroupPath sync_group_path(const Topology& topology, std::span<const uint32_t> members,
                              const config::ChipConfig& chip) {
  const Centre c = topology.centre(members);
  SyncGroupPath p;
  p.master = c.ipu;
  p.radius = c.radius;
  p.hop_cycles = uint64_t(std::llround(chip.ipu_links.sync_hop_ns * chip.clock_hz / 1e9));
  p.latency_cycles = 2 * uint64_t(c.radius) * p.hop_cycles;
  return p;
}

}  // namespace ipusim::links
