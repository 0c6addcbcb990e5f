#include "loom/system/metrics.h"

#include <algorithm>

#include "loom/core/error.h"

namespace loom::system {

using workload::NodeId;
using workload::NodeKind;

namespace {

using Interval = std::pair<Time, Time>;

// Sorts and merges overlapping intervals in place; returns the total covered length.
Time merge(std::vector<Interval>& intervals) {
  std::sort(intervals.begin(), intervals.end());
  std::vector<Interval> merged;
  for (const Interval& i : intervals) {
    if (i.second <= i.first) continue;
    if (!merged.empty() && i.first <= merged.back().second) {
      merged.back().second = std::max(merged.back().second, i.second);
    } else {
      merged.push_back(i);
    }
  }
  intervals = std::move(merged);
  Time total;
  for (const Interval& i : intervals) total += i.second - i.first;
  return total;
}

// Length of `a` not covered by `b`; both merged (sorted, disjoint).
Time uncovered(const std::vector<Interval>& a, const std::vector<Interval>& b) {
  Time total;
  std::size_t j = 0;
  for (const Interval& i : a) {
    Time cursor = i.first;
    while (j < b.size() && b[j].second <= cursor) ++j;
    for (std::size_t k = j; k < b.size() && b[k].first < i.second; ++k) {
      if (b[k].first > cursor) total += b[k].first - cursor;
      cursor = std::max(cursor, b[k].second);
      if (cursor >= i.second) break;
    }
    if (cursor < i.second) total += i.second - cursor;
  }
  return total;
}

// When a communication node's operation began: its rendezvous (the last arrival).
Time operation_begin(const RunResult& result, NodeId id) {
  const NodeTiming& t = result.nodes[id];
  return t.rendezvous == kNoNode ? t.start : std::max(t.start, result.nodes[t.rendezvous].start);
}

}  // namespace

std::string_view comm_kind_name(std::size_t kind) {
  if (kind == kPointToPointKind) return "p2p";
  return workload::to_string(static_cast<workload::CommunicatorKind>(kind));
}

std::size_t comm_kind_of(const workload::Workload& workload, const workload::Node& node) {
  if (node.kind == NodeKind::kCollective) return static_cast<std::size_t>(workload.communicator(node.communicator).kind);
  return kPointToPointKind;
}

Metrics compute_metrics(const workload::Workload& workload, const RunResult& result) {
  LOOM_ASSERT(result.nodes.size() == workload.node_count(), "run result does not belong to this workload");
  Metrics m;
  const std::uint32_t ranks = workload.rank_count();
  std::vector<std::vector<Interval>> compute(ranks), comm_all(ranks);
  std::vector<std::array<std::vector<Interval>, kCommKinds>> comm(ranks);
  m.ranks.resize(ranks);
  std::vector<Time> iteration_end;
  for (NodeId id = 0; id < workload.node_count(); ++id) {
    const workload::Node& node = workload.node(id);
    const NodeTiming& t = result.nodes[id];
    if (iteration_end.size() <= node.iteration) iteration_end.resize(node.iteration + 1);
    iteration_end[node.iteration] = std::max(iteration_end[node.iteration], t.end);
    if (node.kind == NodeKind::kCompute) {
      compute[node.rank].emplace_back(t.start, t.end);
      continue;
    }
    const Time begin = operation_begin(result, id);
    m.ranks[node.rank].sync_wait += begin - t.start;
    comm[node.rank][comm_kind_of(workload, node)].emplace_back(begin, t.end);
    comm_all[node.rank].emplace_back(begin, t.end);
  }
  for (std::uint32_t r = 0; r < ranks; ++r) {
    RankMetrics& rm = m.ranks[r];
    rm.finish = result.rank_finish[r];
    rm.compute = merge(compute[r]);
    for (std::size_t k = 0; k < kCommKinds; ++k) {
      rm.comm[k] = merge(comm[r][k]);
      rm.exposed[k] = uncovered(comm[r][k], compute[r]);
    }
    rm.comm_total = merge(comm_all[r]);
    rm.exposed_total = uncovered(comm_all[r], compute[r]);
    rm.idle = result.makespan - rm.compute - rm.exposed_total;
  }
  Time previous;
  for (Time end : iteration_end) {
    m.iteration_times.push_back(end - previous);
    previous = end;
  }

  // Critical path, walked backwards from the last node to finish.
  NodeId current = kNoNode;
  for (NodeId id = 0; id < workload.node_count(); ++id) {
    if (current == kNoNode || result.nodes[id].end > result.nodes[current].end) current = id;
  }
  while (current != kNoNode) {
    const workload::Node& node = workload.node(current);
    const NodeTiming& t = result.nodes[current];
    NodeId from = current;  // whose start (and enabler) the segment begins at
    if (node.kind != NodeKind::kCompute && t.rendezvous != kNoNode &&
        result.nodes[t.rendezvous].start > t.start) {
      from = t.rendezvous;
    }
    const Time begin = result.nodes[from].start;
    m.critical_path.push_back({current, begin, t.end});
    if (node.kind == NodeKind::kCompute) {
      m.critical_compute += t.end - begin;
    } else {
      m.critical_comm[comm_kind_of(workload, node)] += t.end - begin;
    }
    current = result.nodes[from].enabler;
  }
  std::reverse(m.critical_path.begin(), m.critical_path.end());
  return m;
}

}  // namespace loom::system
