#include "loom/workload/critical_path.h"

#include <algorithm>
#include <map>
#include <tuple>

#include <fmt/format.h>

#include "loom/core/error.h"

namespace loom::workload {
namespace {

constexpr std::uint32_t kNoGroup = 0xffffffffu;

// Synchronisation groups: the members of one collective instance, or one send/recv pair.
struct Groups {
  std::vector<std::uint32_t> of_node;           // node -> group, kNoGroup for compute
  std::vector<std::uint32_t> size;              // group -> members
};

// `built[r]`: rank r's nodes are in the workload (empty: every rank's are). A collective's
// group is its built members; a send or receive whose peer is not built is a group of one.
Groups group_nodes(const Workload& w, const std::vector<bool>& built) {
  auto is_built = [&](std::uint32_t rank) { return built.empty() || built[rank]; };
  auto built_members = [&](CommunicatorId c) {
    const auto& ranks = w.communicator(c).ranks;
    return static_cast<std::uint32_t>(std::count_if(ranks.begin(), ranks.end(), is_built));
  };
  Groups g;
  g.of_node.assign(w.node_count(), kNoGroup);
  std::map<std::pair<CommunicatorId, std::uint32_t>, std::uint32_t> instance;  // (comm, sequence) -> group
  std::vector<std::vector<std::uint32_t>> issued(w.communicator_count());   // per comm, per member
  std::map<std::tuple<std::uint32_t, std::uint32_t, std::uint32_t>, std::pair<std::vector<NodeId>, std::vector<NodeId>>>
      channels;
  for (NodeId id = 0; id < w.node_count(); ++id) {
    const Node& n = w.node(id);
    if (n.kind == NodeKind::kCollective) {
      auto& count = issued[n.communicator];
      count.resize(w.communicator(n.communicator).ranks.size(), 0);
      const auto member = static_cast<std::size_t>(w.member_index(n.communicator, n.rank));
      const auto [it, added] =
          instance.try_emplace({n.communicator, count[member]++}, static_cast<std::uint32_t>(g.size.size()));
      if (added) g.size.push_back(built_members(n.communicator));
      g.of_node[id] = it->second;
    } else if ((n.kind == NodeKind::kSend || n.kind == NodeKind::kRecv) && !is_built(n.peer)) {
      g.of_node[id] = static_cast<std::uint32_t>(g.size.size());
      g.size.push_back(1);
    } else if (n.kind == NodeKind::kSend) {
      channels[{n.rank, n.peer, n.tag}].first.push_back(id);
    } else if (n.kind == NodeKind::kRecv) {
      channels[{n.peer, n.rank, n.tag}].second.push_back(id);
    }
  }
  for (const auto& [key, ch] : channels) {
    const std::size_t pairs = std::min(ch.first.size(), ch.second.size());
    for (std::size_t i = 0; i < pairs; ++i) {
      g.of_node[ch.first[i]] = g.of_node[ch.second[i]] = static_cast<std::uint32_t>(g.size.size());
      g.size.push_back(2);
    }
    const auto& extra = ch.first.size() > pairs ? ch.first : ch.second;
    for (std::size_t i = pairs; i < extra.size(); ++i) {
      g.of_node[extra[i]] = static_cast<std::uint32_t>(g.size.size());
      g.size.push_back(2);  // its partner never comes: reported as a stall below
    }
  }
  return g;
}

}  // namespace

Time critical_path_length(const Workload& w) { return critical_path_length(w, {}); }

Time critical_path_length(const Workload& w, std::span<const std::uint32_t> built_ranks) {
  std::vector<bool> built;
  if (!built_ranks.empty()) {
    built.assign(w.rank_count(), false);
    for (std::uint32_t r : built_ranks) built[r] = true;
  }
  const std::uint32_t n = w.node_count();
  const Groups groups = group_nodes(w, built);
  std::vector<std::uint32_t> offsets(n + 1, 0);
  for (NodeId id = 0; id < n; ++id) {
    for (NodeId d : w.deps(id)) ++offsets[d + 1];
  }
  for (NodeId id = 0; id < n; ++id) offsets[id + 1] += offsets[id];
  std::vector<NodeId> dependents(offsets[n]);
  std::vector<std::uint32_t> fill(offsets.begin(), offsets.end() - 1);
  std::vector<std::uint32_t> pending(n);
  for (NodeId id = 0; id < n; ++id) {
    pending[id] = static_cast<std::uint32_t>(w.deps(id).size());
    for (NodeId d : w.deps(id)) dependents[fill[d]++] = id;
  }
  std::vector<Time> ready(n), finish(n);
  std::vector<std::uint32_t> arrived(groups.size.size(), 0);
  std::vector<Time> group_time(groups.size.size());
  std::vector<std::vector<NodeId>> group_members(groups.size.size());
  std::vector<NodeId> work;
  const bool eager = w.point_to_point() == PointToPoint::kEager;
  std::uint64_t done = 0;
  Time makespan;
  auto complete = [&](NodeId id, Time at) {
    finish[id] = at;
    makespan = std::max(makespan, at);
    ++done;
    for (std::uint32_t i = offsets[id]; i < offsets[id + 1]; ++i) {
      const NodeId d = dependents[i];
      ready[d] = std::max(ready[d], at);
      if (--pending[d] == 0) work.push_back(d);
    }
  };
  for (NodeId id = 0; id < n; ++id) {
    if (pending[id] == 0) work.push_back(id);
  }
  while (!work.empty()) {
    const NodeId id = work.back();
    work.pop_back();
    const std::uint32_t g = groups.of_node[id];
    if (g == kNoGroup) {
      complete(id, ready[id] + w.node(id).duration);
      continue;
    }
    group_time[g] = std::max(group_time[g], ready[id]);
    if (eager && w.node(id).kind == NodeKind::kSend) {
      complete(id, ready[id]);  // it does not wait for its receive; the receive waits for it
    } else {
      group_members[g].push_back(id);
    }
    if (++arrived[g] == groups.size[g]) {
      for (NodeId member : group_members[g]) complete(member, group_time[g]);
      group_members[g].clear();
      group_members[g].shrink_to_fit();
    }
  }
  if (done != n) {
    NodeId stuck = 0;
    while (stuck < n && !(pending[stuck] == 0 && groups.of_node[stuck] != kNoGroup &&
                          arrived[groups.of_node[stuck]] < groups.size[groups.of_node[stuck]])) {
      ++stuck;
    }
    if (stuck == n) stuck = 0;
    throw UserError(fmt::format("{} (rank {}): the workload cannot finish; this {} waits for a partner that never "
                                "arrives",
                                w.label(w.node(stuck).label), w.node(stuck).rank, to_string(w.node(stuck).kind)));
  }
  return makespan;
}

}  // namespace loom::workload
