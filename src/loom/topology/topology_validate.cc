// Topology::validate(): whole-graph checks. See topology.h for the rules.
#include <fmt/format.h>

#include <algorithm>
#include <numeric>

#include "loom/core/error.h"
#include "loom/topology/topology.h"

namespace loom::topology {

namespace {

// Union-find over node ids with path halving; only forwarding nodes are ever joined.
class Components {
 public:
  explicit Components(std::uint32_t n) : parent_(n) {
    std::iota(parent_.begin(), parent_.end(), 0u);
  }
  std::uint32_t root(std::uint32_t x) {
    while (parent_[x] != x) {
      parent_[x] = parent_[parent_[x]];
      x = parent_[x];
    }
    return x;
  }
  void join(std::uint32_t a, std::uint32_t b) { parent_[root(a)] = root(b); }

 private:
  std::vector<std::uint32_t> parent_;
};

}  // namespace

void Topology::validate() const {
  if (gpus_.empty()) throw UserError("the topology has no GPU; expected at least one");
  check_host_indices();
  check_nics();
  check_ports();
  check_gpu_connectivity();
}

void Topology::check_ports() const {
  for (NodeId id = 0; id < nodes_.size(); ++id) {
    const Node& n = nodes_[id];
    if (n.ports != 0 && adjacency_[id].size > n.ports) {
      throw UserError(fmt::format("switch '{}' has {} cables but only {} ports; expected at "
                                  "most one cable per port",
                                  n.name, adjacency_[id].size, n.ports));
    }
  }
}

void Topology::check_host_indices() const {
  // Hosts with a GPU are at most gpu_count() distinct indices, so a gap, if any, shows below
  // gpu_count() + 1; the bitmap never grows with a huge host index.
  const std::uint32_t span =
      std::min<std::uint32_t>(host_count_, static_cast<std::uint32_t>(gpus_.size()) + 1);
  std::vector<bool> has_gpu(span, false);
  for (NodeId gpu : gpus_) {
    if (nodes_[gpu].host < span) has_gpu[nodes_[gpu].host] = true;
  }
  for (std::uint32_t host = 0; host < span; ++host) {
    if (!has_gpu[host]) {
      throw UserError(fmt::format("host {} has no GPU; host indices must run from 0 to {} "
                                  "without gaps and every host needs a GPU",
                                  host, host_count_ - 1));
    }
  }
  LOOM_ASSERT(span == host_count_, "a host index gap was not found");
}

void Topology::check_nics() const {
  if (host_count_ <= 1) return;
  for (std::uint32_t rank = 0; rank < gpus_.size(); ++rank) {
    if (nics_[rank] == kNone) {
      throw UserError(
          fmt::format("GPU '{}' (rank {}) has no NIC attached; with {} hosts every "
                      "GPU needs a NIC for scale-out traffic",
                      nodes_[gpus_[rank]].name, rank, host_count_));
    }
  }
}

void Topology::check_gpu_connectivity() const {
  const auto gpu_total = static_cast<std::uint32_t>(gpus_.size());
  if (gpu_total < 2) return;
  Components components(node_count());
  for (const Link& l : links_) {
    if (forwards(nodes_[l.src].kind) && forwards(nodes_[l.dst].kind)) components.join(l.src, l.dst);
  }
  // Fast path: one forwarding component that every GPU touches connects every pair.
  std::vector<std::uint32_t> touching(node_count(), 0);
  std::vector<std::uint32_t> last_rank(node_count(), kNone);
  for (std::uint32_t rank = 0; rank < gpu_total; ++rank) {
    for (LinkId l : out_links(gpus_[rank])) {
      const NodeId peer = links_[l].dst;
      if (!forwards(nodes_[peer].kind)) continue;
      const std::uint32_t c = components.root(peer);
      if (last_rank[c] == rank) continue;
      last_rank[c] = rank;
      if (++touching[c] == gpu_total) return;
    }
  }
  // Exact check: GPU a reaches b through a shared component or a direct link.
  // reached_by[b] == a and seen_by[component] == a mark what GPU a reaches.
  std::vector<std::uint32_t> reached_by(gpu_total, kNone);
  std::vector<std::uint32_t>& seen_by = last_rank;
  std::fill(seen_by.begin(), seen_by.end(), kNone);
  for (std::uint32_t a = 0; a < gpu_total; ++a) {
    reached_by[a] = a;
    for (LinkId l : out_links(gpus_[a])) {
      const NodeId peer = links_[l].dst;
      if (!forwards(nodes_[peer].kind)) {
        reached_by[rank_of_[peer]] = a;
        continue;
      }
      seen_by[components.root(peer)] = a;
    }
    for (std::uint32_t b = 0; b < gpu_total; ++b) {
      if (reached_by[b] == a) continue;
      for (LinkId l : out_links(gpus_[b])) {
        const NodeId peer = links_[l].dst;
        if (forwards(nodes_[peer].kind) && seen_by[components.root(peer)] == a) {
          reached_by[b] = a;
          break;
        }
      }
      if (reached_by[b] != a) {
        throw UserError(fmt::format(
            "GPUs '{}' and '{}' cannot reach each other; GPUs never forward traffic, so every "
            "pair of GPUs needs a direct link or a path through switches and NICs",
            nodes_[gpus_[a]].name, nodes_[gpus_[b]].name));
      }
    }
  }
}

}  // namespace loom::topology
