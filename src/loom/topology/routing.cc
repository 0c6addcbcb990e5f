// Routing: regions, destination groups and their fabric tables. See routing.h.
#include "loom/topology/routing.h"

#include <fmt/format.h>

#include <algorithm>

#include "loom/core/error.h"

namespace loom::topology {

namespace {

constexpr std::uint8_t kUnreachable = 0xff;

[[noreturn]] void throw_too_long(const Topology& topology, NodeId from, NodeId to) {
  throw UserError(fmt::format(
      "a shortest path from '{}' to '{}' has more than {} hops; routing supports at most {}",
      topology.node(from).name, topology.node(to).name, kUnreachable - 1, kUnreachable - 1));
}

}  // namespace

Routing::Routing(const Topology& topology, std::uint64_t seed)
    : topology_(&topology), seed_(seed), link_up_(topology.link_count(), 1) {
  const std::uint32_t n = topology.node_count();
  const std::uint32_t hosts = topology.host_count();
  local_index_.assign(n, kNone);
  region_offset_.assign(std::size_t{hosts} + 1, 0);
  for (NodeId v = 0; v < n; ++v) {
    const std::uint32_t host = topology.node(v).host;
    if (host == kNone) {
      local_index_[v] = static_cast<std::uint32_t>(fabric_nodes_.size());
      fabric_nodes_.push_back(v);
    } else {
      ++region_offset_[host + 1];
    }
  }
  for (std::uint32_t h = 0; h < hosts; ++h) region_offset_[h + 1] += region_offset_[h];
  region_nodes_.resize(region_offset_[hosts]);
  std::vector<std::uint32_t> fill(region_offset_.begin(), region_offset_.end() - 1);
  for (NodeId v = 0; v < n; ++v) {
    const std::uint32_t host = topology.node(v).host;
    if (host == kNone) continue;
    local_index_[v] = fill[host] - region_offset_[host];
    region_nodes_[fill[host]++] = v;
  }
  rebuild_fabric_adjacency();
  build_neighbour_index();
  group_of_rank_.assign(topology.gpu_count(), kNone);
  RouteUpdate ignored;
  for (std::uint32_t h = 0; h < hosts; ++h) regroup_host(h, ignored);
  int max_seed_cost = 0;
  for (const Group& g : groups_) {
    for (const Seed& s : g.seeds) max_seed_cost = std::max<int>(max_seed_cost, s.cost);
  }
  // Where a path could be too long, every row is searched now, so that the error comes here.
  if (!fabric_paths_short(max_seed_cost)) {
    for (std::uint32_t g = 0; g < groups_.size(); ++g) group_row(g);
  }
}

bool Routing::fabric_paths_short(int max_seed_cost) const {
  const auto f = static_cast<std::uint32_t>(fabric_nodes_.size());
  std::vector<std::uint8_t> level(f, kUnreachable);
  std::vector<std::uint32_t> queue;
  for (std::uint32_t start = 0; start < f; ++start) {
    if (level[start] != kUnreachable) continue;
    // Breadth-first from `start` over its component; levels are capped below kUnreachable.
    queue.assign(1, start);
    level[start] = 0;
    int eccentricity = 0;
    for (std::size_t head = 0; head < queue.size(); ++head) {
      const std::uint32_t v = queue[head];
      eccentricity = level[v];
      if (max_seed_cost + 2 * eccentricity >= kUnreachable) return false;
      for (std::uint32_t i = fabric_offset_[v]; i < fabric_offset_[v + 1]; ++i) {
        const std::uint32_t u = fabric_adjacent_[i];
        if (level[u] != kUnreachable) continue;
        level[u] = static_cast<std::uint8_t>(level[v] + 1);
        queue.push_back(u);
      }
    }
  }
  return true;
}

std::span<const NodeId> Routing::region(std::uint32_t host) const {
  LOOM_ASSERT(host + 1 < region_offset_.size(), fmt::format("host {} out of range", host));
  return std::span(region_nodes_)
      .subspan(region_offset_[host], region_offset_[host + 1] - region_offset_[host]);
}

bool Routing::is_fabric(NodeId node) const { return topology_->node(node).host == kNone; }

bool Routing::link_up(LinkId link) const {
  LOOM_ASSERT(link < link_up_.size(), fmt::format("link id {} out of range", link));
  return link_up_[link] != 0;
}

void Routing::region_distances(std::uint32_t host, NodeId target,
                               std::vector<std::uint8_t>& out) const {
  const Topology& t = *topology_;
  const std::span<const NodeId> nodes = region(host);
  out.assign(nodes.size(), kUnreachable);
  std::vector<NodeId> queue;
  queue.reserve(nodes.size());
  out[local_index(target)] = 0;
  queue.push_back(target);
  for (std::size_t head = 0; head < queue.size(); ++head) {
    const NodeId v = queue[head];
    if (v != target && !forwards(t.node(v).kind)) continue;
    const int next = out[local_index(v)] + 1;
    for (LinkId l : t.out_links(v)) {
      const NodeId u = t.link(l).dst;
      if (link_up_[l] == 0 || t.node(u).host != host || out[local_index(u)] != kUnreachable) {
        continue;
      }
      if (next >= kUnreachable) throw_too_long(t, u, target);
      out[local_index(u)] = static_cast<std::uint8_t>(next);
      queue.push_back(u);
    }
  }
}

std::vector<Routing::Seed> Routing::attachment(NodeId target,
                                               std::span<const std::uint8_t> local) const {
  const Topology& t = *topology_;
  std::vector<Seed> seeds;
  for (NodeId v : region(t.node(target).host)) {
    const std::uint8_t hops = local[local_index(v)];
    if (hops == kUnreachable || (v != target && !forwards(t.node(v).kind))) continue;
    for (LinkId l : t.out_links(v)) {
      const NodeId u = t.link(l).dst;
      if (link_up_[l] == 0 || !is_fabric(u)) continue;
      if (hops + 1 >= kUnreachable) throw_too_long(t, u, target);
      seeds.push_back(Seed{local_index(u), static_cast<std::uint8_t>(hops + 1)});
    }
  }
  std::sort(seeds.begin(), seeds.end());
  // Keep the cheapest entry per switch (the first after sorting).
  seeds.erase(std::unique(seeds.begin(), seeds.end(),
                          [](const Seed& a, const Seed& b) { return a.fabric == b.fabric; }),
              seeds.end());
  return seeds;
}

void Routing::fabric_search(std::span<const Seed> seeds, NodeId named_target,
                            std::span<std::uint8_t> out) const {
  std::fill(out.begin(), out.end(), kUnreachable);
  std::vector<Seed> by_cost(seeds.begin(), seeds.end());
  std::sort(by_cost.begin(), by_cost.end(),
            [](const Seed& a, const Seed& b) { return a.cost < b.cost; });
  std::vector<std::uint32_t> frontier;
  std::vector<std::uint32_t> next;
  std::size_t s = 0;
  int level = by_cost.empty() ? 0 : by_cost.front().cost;
  while (true) {
    for (; s < by_cost.size() && by_cost[s].cost == level; ++s) {
      if (out[by_cost[s].fabric] > level) {
        out[by_cost[s].fabric] = static_cast<std::uint8_t>(level);
        frontier.push_back(by_cost[s].fabric);
      }
    }
    if (frontier.empty()) {
      if (s == by_cost.size()) break;
      level = by_cost[s].cost;
      continue;
    }
    next.clear();
    for (std::uint32_t v : frontier) {
      for (std::uint32_t i = fabric_offset_[v]; i < fabric_offset_[v + 1]; ++i) {
        const std::uint32_t u = fabric_adjacent_[i];
        if (out[u] != kUnreachable) continue;  // levels only grow: it is final
        if (level + 1 >= kUnreachable) throw_too_long(*topology_, fabric_nodes_[u], named_target);
        out[u] = static_cast<std::uint8_t>(level + 1);
        next.push_back(u);
      }
    }
    frontier.swap(next);
    ++level;
  }
}

void Routing::rebuild_fabric_adjacency() {
  const Topology& t = *topology_;
  fabric_offset_.assign(fabric_nodes_.size() + 1, 0);
  fabric_adjacent_.clear();
  for (std::size_t i = 0; i < fabric_nodes_.size(); ++i) {
    const std::size_t first = fabric_adjacent_.size();
    for (LinkId l : t.out_links(fabric_nodes_[i])) {
      const NodeId u = t.link(l).dst;
      if (link_up_[l] != 0 && is_fabric(u)) fabric_adjacent_.push_back(local_index(u));
    }
    // Parallel cables lead to one neighbour: a search needs it once.
    const auto begin = fabric_adjacent_.begin() + static_cast<std::ptrdiff_t>(first);
    std::sort(begin, fabric_adjacent_.end());
    fabric_adjacent_.erase(std::unique(begin, fabric_adjacent_.end()), fabric_adjacent_.end());
    fabric_offset_[i + 1] = static_cast<std::uint32_t>(fabric_adjacent_.size());
  }
}

void Routing::build_neighbour_index() {
  const Topology& t = *topology_;
  neighbour_index_offset_.assign(fabric_nodes_.size() + 1, 0);
  enters_region_.assign(fabric_nodes_.size(), 0);
  for (std::size_t i = 0; i < fabric_nodes_.size(); ++i) {
    const std::span<const LinkId> links = t.out_links(fabric_nodes_[i]);
    const std::size_t first = neighbour_index_.size();
    for (std::uint32_t position = 0; position < links.size(); ++position) {
      const NodeId u = t.link(links[position]).dst;
      if (is_fabric(u)) {
        neighbour_index_.emplace_back(local_index(u), position);
      } else {
        enters_region_[i] = 1;
      }
    }
    std::sort(neighbour_index_.begin() + static_cast<std::ptrdiff_t>(first), neighbour_index_.end());
    neighbour_index_offset_[i + 1] = static_cast<std::uint32_t>(neighbour_index_.size());
  }
}

std::span<const std::uint8_t> Routing::group_row(std::uint32_t group) const {
  if (!row_ready_[group].load(std::memory_order_acquire)) {
    const std::lock_guard<std::mutex> lock(rows_mutex_);
    if (!row_ready_[group].load(std::memory_order_relaxed)) {
      search_row(group);
      row_ready_[group].store(true, std::memory_order_release);
    }
  }
  return rows_[group];
}

void Routing::search_row(std::uint32_t group) const {
  rows_[group].resize(fabric_nodes_.size());
  fabric_search(groups_[group].seeds, topology_->gpu_node(groups_[group].representative), rows_[group]);
}

std::uint32_t Routing::group_for(std::vector<Seed> seeds, std::uint32_t rank,
                                 RouteUpdate& update) {
  if (const auto it = group_index_.find(seeds); it != group_index_.end()) return it->second;
  const auto group = static_cast<std::uint32_t>(groups_.size());
  groups_.push_back(Group{seeds, 0, rank});
  group_index_.emplace(std::move(seeds), group);
  rows_.emplace_back();
  row_ready_.emplace_back(false);
  ++update.groups_recomputed;
  return group;
}

void Routing::regroup_host(std::uint32_t host, RouteUpdate& update) {
  const Topology& t = *topology_;
  std::vector<std::uint8_t> local;
  for (NodeId v : region(host)) {
    const std::uint32_t rank = t.rank_of_node(v);
    if (rank == kNone) continue;
    region_distances(host, v, local);
    const std::uint32_t group = group_for(attachment(v, local), rank, update);
    const std::uint32_t old = group_of_rank_[rank];
    if (old == group) continue;
    if (old != kNone) --groups_[old].members;
    ++groups_[group].members;
    groups_[group].representative = rank;
    group_of_rank_[rank] = group;
  }
  ++update.hosts_regrouped;
}

std::size_t Routing::table_bytes() const {
  std::size_t bytes = 0;
  for (const std::vector<std::uint8_t>& row : rows_) bytes += row.size();
  return bytes;
}

std::size_t Routing::memory_bytes() const {
  std::size_t bytes = sizeof(*this);
  bytes += link_up_.capacity() + rows_.capacity() * sizeof(rows_[0]) + row_ready_.size() * sizeof(row_ready_[0]);
  for (const std::vector<std::uint8_t>& row : rows_) bytes += row.capacity();
  bytes += sizeof(std::uint32_t) * (local_index_.capacity() + region_offset_.capacity() +
                                    fabric_offset_.capacity() + fabric_adjacent_.capacity() +
                                    group_of_rank_.capacity() +
                                    neighbour_index_offset_.capacity());
  bytes += neighbour_index_.capacity() * sizeof(neighbour_index_[0]) + enters_region_.capacity();
  bytes += sizeof(NodeId) * (region_nodes_.capacity() + fabric_nodes_.capacity());
  for (const Group& g : groups_) bytes += sizeof(Group) + g.seeds.capacity() * sizeof(Seed);
  // The key copy in group_index_ plus a red-black tree node of about four pointers.
  for (const auto& [key, group] : group_index_) {
    bytes += key.capacity() * sizeof(Seed) + sizeof(key) + sizeof(group) + 4 * sizeof(void*);
  }
  return bytes;
}

}  // namespace loom::topology
