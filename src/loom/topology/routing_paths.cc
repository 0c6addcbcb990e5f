// Routing queries: route(), hop_count(), path_count(). See routing.h for the rules.
//
// A query looks at the legal paths from src to dst as a walk through up to three phases:
// kSource (inside src's host region, heading for an exit into the fabric), kFabric (fabric
// switches) and kDest (inside dst's host region). Each phase has a hop count per node towards
// dst: kSource the exit costs, computed here by a small search of src's region; kFabric the
// group's table row (or a search on the spot when dst is not a GPU); kDest the distances
// inside dst's region. A next hop is an up link to a node whose cost, in the phase it lands
// in, is one less.
#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <limits>
#include <queue>
#include <unordered_map>

#include "loom/core/error.h"
#include "loom/topology/routing.h"

#include "loom/core/random.h"

namespace loom::topology {

namespace {

constexpr std::uint8_t kUnreachable = 0xff;
constexpr std::uint64_t kSaturated = std::numeric_limits<std::uint64_t>::max();

// The per-pair part of every flow key, and a flow's key: route() picks next hop
// mix64(flow key ^ node seed) mod (number of next hops) at every node.
std::uint64_t pair_key(NodeId src, NodeId dst) { return mix64((std::uint64_t{src} << 32) | dst); }
std::uint64_t flow_key(std::uint64_t pair, std::uint64_t flow_hash) { return mix64(pair ^ flow_hash); }

// Throws the UserError of an unreachable destination when the walker has no path.
void require_reachable(const Topology& topology, std::uint8_t start_cost, NodeId src, NodeId dst) {
  if (start_cost != kUnreachable) return;
  throw UserError(fmt::format(
      "no path from '{}' to '{}': GPUs never forward traffic and paths do not pass through "
      "other hosts, so the two need a path through switches and NICs whose links are all up",
      topology.node(src).name, topology.node(dst).name));
}

}  // namespace

enum class Routing::Phase : std::uint8_t { kSource, kFabric, kDest };

class Routing::Walker {
 public:
  Walker(const Routing& routing, NodeId src, NodeId dst)
      : r_(routing), t_(*routing.topology_), src_(src), dst_(dst) {
    LOOM_ASSERT(src < t_.node_count(), fmt::format("source node id {} out of range", src));
    LOOM_ASSERT(dst < t_.node_count(), fmt::format("destination node id {} out of range", dst));
    src_host_ = t_.node(src).host;
    dst_host_ = t_.node(dst).host;
    if (dst_host_ != kNone) r_.region_distances(dst_host_, dst, dest_local_);
    if (src_host_ != kNone && src_host_ == dst_host_ &&
        dest_local_[r_.local_index(src)] != kUnreachable) {
      start_phase_ = Phase::kDest;
      return;
    }
    load_fabric_row();
    if (src_host_ == kNone) {
      start_phase_ = Phase::kFabric;
    } else {
      compute_exit_costs();
      start_phase_ = Phase::kSource;
    }
  }

  Phase start_phase() const { return start_phase_; }
  std::size_t memory_bytes() const {
    return sizeof(*this) + dest_local_.capacity() + source_local_.capacity() +
           fabric_scratch_.capacity() + seed_scratch_.capacity() * sizeof(Seed);
  }
  std::uint8_t start_cost() const { return cost(start_phase_, src_); }

  std::uint8_t cost(Phase phase, NodeId node) const {
    switch (phase) {
      case Phase::kSource: return source_local_[r_.local_index(node)];
      case Phase::kFabric: return fabric_[r_.local_index(node)];
      case Phase::kDest: return dest_local_[r_.local_index(node)];
    }
    return kUnreachable;
  }

  // Calls visit(link, phase after the link) for every next hop from `at`, in link order.
  template <class Visit>
  void for_each_next(Phase phase, NodeId at, Visit&& visit) const {
    const int here = cost(phase, at);
    if (phase == Phase::kFabric && next_hops_are_attachment(at, here)) {
      for_each_attachment_link(at, visit);
      return;
    }
    for (LinkId l : t_.out_links(at)) {
      if (r_.link_up_[l] == 0) continue;
      const NodeId u = t_.link(l).dst;
      const Node& next = t_.node(u);
      if (next.host == kNone) {
        if (phase == Phase::kDest) continue;
        if (fabric_[r_.local_index(u)] + 1 == here) visit(l, Phase::kFabric);
      } else if (phase == Phase::kSource) {
        if (next.host == src_host_ && u != src_ && forwards(next.kind) &&
            source_local_[r_.local_index(u)] + 1 == here) {
          visit(l, Phase::kSource);
        }
      } else if (next.host == dst_host_ && (u == dst_ || forwards(next.kind)) &&
                 dest_local_[r_.local_index(u)] + 1 == here) {
        visit(l, Phase::kDest);
      }
    }
  }

 private:
  // True when the next hops of fabric switch `at` (cost `here`) are exactly its up links to
  // the destination's cheapest attachment switches, and looking those up is much cheaper
  // than scanning its links. The cheapest attachment switches are the only nodes at that
  // level of the search, and a switch without links into host regions has no other hops.
  bool next_hops_are_attachment(NodeId at, int here) const {
    if (here != cheapest_seed_cost_ + 1) return false;
    const std::uint32_t f = r_.local_index(at);
    return r_.enters_region_[f] == 0 && cheapest_seed_count_ * 8 < t_.out_links(at).size();
  }

  // Visits the up links from fabric switch `at` to the cheapest attachment switches, in
  // out_links order (the order the scan would give, so ECMP picks the same link).
  template <class Visit>
  void for_each_attachment_link(NodeId at, Visit&& visit) const {
    const std::uint32_t f = r_.local_index(at);
    const auto first = r_.neighbour_index_.begin() + r_.neighbour_index_offset_[f];
    const auto last = r_.neighbour_index_.begin() + r_.neighbour_index_offset_[f + 1];
    std::vector<std::uint32_t> positions;
    for (const Seed& seed : seeds_) {
      if (seed.cost != cheapest_seed_cost_) continue;
      for (auto it = std::lower_bound(first, last, std::pair{seed.fabric, std::uint32_t{0}});
           it != last && it->first == seed.fabric; ++it) {
        positions.push_back(it->second);
      }
    }
    std::sort(positions.begin(), positions.end());
    const std::span<const LinkId> links = t_.out_links(at);
    for (std::uint32_t position : positions) {
      if (r_.link_up_[links[position]] != 0) visit(links[position], Phase::kFabric);
    }
  }

  void load_fabric_row() {
    const std::uint32_t rank = t_.rank_of_node(dst_);
    if (rank != kNone) {
      const std::uint32_t group = r_.group_of_rank_[rank];
      fabric_ = r_.group_row(group);
      seeds_ = r_.groups_[group].seeds;
    } else {
      seed_scratch_ = dst_host_ == kNone ? std::vector<Seed>{Seed{r_.local_index(dst_), 0}}
                                         : r_.attachment(dst_, dest_local_);
      fabric_scratch_.resize(r_.fabric_nodes_.size());
      r_.fabric_search(seed_scratch_, dst_, fabric_scratch_);
      fabric_ = fabric_scratch_;
      seeds_ = seed_scratch_;
    }
    for (const Seed& seed : seeds_) {
      if (seed.cost < cheapest_seed_cost_) {
        cheapest_seed_cost_ = seed.cost;
        cheapest_seed_count_ = 0;
      }
      if (seed.cost == cheapest_seed_cost_) ++cheapest_seed_count_;
    }
  }

  // Hop counts from the nodes of src's region to dst through an exit into the fabric: a
  // shortest-path search over the region with exits as sources (Dijkstra on a few nodes).
  void compute_exit_costs() {
    const std::span<const NodeId> nodes = r_.region(src_host_);
    source_local_.assign(nodes.size(), kUnreachable);
    using Entry = std::pair<int, NodeId>;
    std::priority_queue<Entry, std::vector<Entry>, std::greater<>> queue;
    for (NodeId v : nodes) {
      if (v != src_ && !forwards(t_.node(v).kind)) continue;
      int best = kUnreachable;
      for (LinkId l : t_.out_links(v)) {
        const NodeId u = t_.link(l).dst;
        if (r_.link_up_[l] != 0 && t_.node(u).host == kNone) {
          best = std::min(best, fabric_[r_.local_index(u)] + 1);
        }
      }
      if (best >= kUnreachable) continue;
      source_local_[r_.local_index(v)] = static_cast<std::uint8_t>(best);
      queue.emplace(best, v);
    }
    while (!queue.empty()) {
      const auto [hops, v] = queue.top();
      queue.pop();
      if (hops != source_local_[r_.local_index(v)] || v == src_) continue;
      for (LinkId l : t_.out_links(v)) {
        const NodeId u = t_.link(l).dst;
        const Node& prev = t_.node(u);
        if (r_.link_up_[l] == 0 || prev.host != src_host_) continue;
        if (u != src_ && !forwards(prev.kind)) continue;
        if (hops + 1 >= source_local_[r_.local_index(u)]) continue;
        source_local_[r_.local_index(u)] = static_cast<std::uint8_t>(hops + 1);
        queue.emplace(hops + 1, u);
      }
    }
  }

  const Routing& r_;
  const Topology& t_;
  NodeId src_;
  NodeId dst_;
  std::uint32_t src_host_ = kNone;
  std::uint32_t dst_host_ = kNone;
  Phase start_phase_ = Phase::kDest;
  std::vector<std::uint8_t> dest_local_;
  std::vector<std::uint8_t> source_local_;
  std::vector<std::uint8_t> fabric_scratch_;
  std::span<const std::uint8_t> fabric_;
  std::vector<Seed> seed_scratch_;
  std::span<const Seed> seeds_;  // the destination's attachment
  int cheapest_seed_cost_ = kUnreachable;
  std::size_t cheapest_seed_count_ = 0;
};

std::uint64_t Routing::node_seed(NodeId node) const {
  return mix64(seed_ ^ ((std::uint64_t{node} + 1) * kGoldenGamma));
}

void Routing::route(NodeId src, NodeId dst, std::uint64_t flow_hash,
                    std::vector<LinkId>& out) const {
  if (src == dst) return;
  const Walker walker(*this, src, dst);
  require_reachable(*topology_, walker.start_cost(), src, dst);
  const std::uint64_t key = flow_key(pair_key(src, dst), flow_hash);
  Phase phase = walker.start_phase();
  NodeId at = src;
  while (at != dst) {
    std::uint64_t choices = 0;
    walker.for_each_next(phase, at, [&](LinkId, Phase) { ++choices; });
    LOOM_ASSERT(choices > 0, fmt::format("no next hop at '{}' towards '{}'",
                                         topology_->node(at).name, topology_->node(dst).name));
    std::uint64_t pick = mix64(key ^ node_seed(at)) % choices;
    LinkId chosen = kNone;
    Phase chosen_phase = phase;
    walker.for_each_next(phase, at, [&](LinkId l, Phase p) {
      if (pick-- == 0) {
        chosen = l;
        chosen_phase = p;
      }
    });
    out.push_back(chosen);
    at = topology_->link(chosen).dst;
    phase = chosen_phase;
  }
}

Routing::PairRoutes Routing::pair_routes(NodeId src, NodeId dst) const {
  LOOM_ASSERT(src != dst, "pair routes from a node to itself");
  return PairRoutes(*this, src, dst);
}

Routing::PairRoutes::PairRoutes(const Routing& routing, NodeId src, NodeId dst)
    : routing_(&routing), src_(src), dst_(dst), version_(routing.version_),
      pair_key_(pair_key(src, dst)), walker_(std::make_unique<Walker>(routing, src, dst)),
      walker_bytes_(walker_->memory_bytes()) {
  require_reachable(*routing.topology_, walker_->start_cost(), src, dst);
  states_.push_back(State{routing.node_seed(src), src, kNone, 0, walker_->start_phase()});
}

Routing::PairRoutes::PairRoutes(PairRoutes&&) noexcept = default;
Routing::PairRoutes& Routing::PairRoutes::operator=(PairRoutes&&) noexcept = default;
Routing::PairRoutes::~PairRoutes() = default;

void Routing::PairRoutes::expand(std::uint32_t state) {
  const State s = states_[state];
  const auto first = static_cast<std::uint32_t>(choices_.size());
  walker_->for_each_next(s.phase, s.node, [&](LinkId l, Phase p) { choices_.push_back(Choice{l, kNone, p}); });
  const auto count = static_cast<std::uint32_t>(choices_.size()) - first;
  const Topology& t = *routing_->topology_;
  LOOM_ASSERT(count > 0, fmt::format("no next hop at '{}' towards '{}'", t.node(s.node).name, t.node(dst_).name));
  states_[state].first_choice = first;
  states_[state].choice_count = count;
}

bool Routing::PairRoutes::route(std::uint64_t flow_hash, std::vector<LinkId>& out) {
  LOOM_ASSERT(version_ == routing_->version_, "routing a flow on pair routes made before a link changed state");
  const std::uint64_t key = flow_key(pair_key_, flow_hash);
  std::uint32_t at = 0;
  bool only = true;
  while (states_[at].node != dst_) {
    if (states_[at].first_choice == kNone) expand(at);
    const State& s = states_[at];
    only = only && s.choice_count == 1;
    // Any hash modulo 1 is 0: a lone next hop needs no hashing.
    const std::uint64_t pick = s.choice_count == 1 ? 0 : mix64(key ^ s.seed) % s.choice_count;
    Choice& choice = choices_[s.first_choice + pick];
    out.push_back(choice.link);
    if (choice.child == kNone) {
      const NodeId next = routing_->topology_->link(choice.link).dst;
      choice.child = static_cast<std::uint32_t>(states_.size());
      states_.push_back(State{routing_->node_seed(next), next, kNone, 0, choice.phase});
    }
    at = choice.child;
  }
  return only;
}

std::uint32_t Routing::hop_count(NodeId src, NodeId dst) const {
  if (src == dst) return 0;
  const std::uint8_t hops = Walker(*this, src, dst).start_cost();
  return hops == kUnreachable ? kNone : hops;
}

std::uint64_t Routing::path_count(NodeId src, NodeId dst) const {
  if (src == dst) return 1;
  const Walker walker(*this, src, dst);
  if (walker.start_cost() == kUnreachable) return 0;
  // Paths from each (phase, node) state, memoised; recursion depth is at most 254.
  std::unordered_map<std::uint64_t, std::uint64_t> memo;
  const std::function<std::uint64_t(Phase, NodeId)> count = [&](Phase phase, NodeId at) {
    if (at == dst) return std::uint64_t{1};
    const std::uint64_t key = (std::uint64_t{at} << 2) | static_cast<std::uint64_t>(phase);
    if (const auto it = memo.find(key); it != memo.end()) return it->second;
    std::uint64_t total = 0;
    walker.for_each_next(phase, at, [&](LinkId l, Phase next) {
      const std::uint64_t more = count(next, topology_->link(l).dst);
      total = more > kSaturated - total ? kSaturated : total + more;
    });
    memo.emplace(key, total);
    return total;
  };
  return count(walker.start_phase(), src);
}

}  // namespace loom::topology
