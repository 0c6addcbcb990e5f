#include "loom/system/metrics.h"

#include <algorithm>
#include <span>

#include "loom/core/error.h"

namespace loom::system {

using workload::NodeId;
using workload::NodeKind;

namespace {

using Interval = std::pair<Time, Time>;

// Sorts and merges overlapping intervals in place, leaving the merged ones at the front;
// returns how many there are.
std::size_t merge(std::span<Interval> intervals) {
  std::sort(intervals.begin(), intervals.end());
  std::size_t merged = 0;
  for (const Interval& i : intervals) {
    if (i.second <= i.first) continue;
    if (merged > 0 && i.first <= intervals[merged - 1].second) {
      intervals[merged - 1].second = std::max(intervals[merged - 1].second, i.second);
    } else {
      intervals[merged++] = i;
    }
  }
  return merged;
}

Time covered(std::span<const Interval> merged) {
  Time total;
  for (const Interval& i : merged) total += i.second - i.first;
  return total;
}

// Length of `a` not covered by `b`; both merged (sorted, disjoint).
Time uncovered(std::span<const Interval> a, std::span<const Interval> b) {
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

Metrics compute_metrics(const workload::Workload& workload, const RunResult& result, std::size_t batch_intervals) {
  LOOM_ASSERT(result.nodes.size() == workload.node_count(), "run result does not belong to this workload");
  Metrics m;
  const std::uint32_t ranks = workload.rank_count();
  m.ranks.resize(ranks);
  // Every node's interval, grouped by (rank, list): list 0 holds compute, list 1 + k
  // communication of kind k.
  constexpr std::size_t kLists = 1 + kCommKinds;
  const auto list_of = [&](const workload::Node& node) {
    return node.kind == NodeKind::kCompute ? 0 : 1 + comm_kind_of(workload, node);
  };
  // Counted first and laid out in one array per batch of ranks, as per-rank vectors growing by
  // doubling would hold up to twice the intervals. Where each rank's nodes follow the previous
  // rank's in id order (the builders lay workloads out so), ranks are taken in batches of at most
  // `batch_intervals` intervals (or one rank), each from its own id range, so that the intervals of every node
  // are never held at once; otherwise all ranks form one batch.
  std::vector<std::size_t> offset(std::size_t{ranks} * kLists + 1, 0);
  std::vector<NodeId> rank_first(std::size_t{ranks} + 1, workload.node_count());
  bool ranks_in_order = true;
  std::uint32_t last_rank = 0;
  for (NodeId id = 0; id < workload.node_count(); ++id) {
    const workload::Node node = workload.node(id);
    ++offset[std::size_t{node.rank} * kLists + list_of(node) + 1];
    ranks_in_order = ranks_in_order && node.rank >= last_rank;
    rank_first[node.rank] = std::min(rank_first[node.rank], id);
    last_rank = node.rank;
  }
  for (std::size_t i = 1; i < offset.size(); ++i) offset[i] += offset[i - 1];
  for (std::uint32_t r = ranks; r-- > 0;) rank_first[r] = std::min(rank_first[r], rank_first[r + 1]);
  std::vector<Time> iteration_end;
  std::vector<Interval> intervals;
  std::vector<std::size_t> fill;
  std::vector<Interval> comm_all;
  for (std::uint32_t first_rank = 0; first_rank < ranks;) {
    std::uint32_t end_rank = first_rank + 1;
    const auto batch_size = [&](std::uint32_t end) { return offset[std::size_t{end} * kLists] - offset[std::size_t{first_rank} * kLists]; };
    if (!ranks_in_order) {
      end_rank = ranks;
    } else {
      while (end_rank < ranks && batch_size(end_rank + 1) <= batch_intervals) ++end_rank;
    }
    const std::size_t base = offset[std::size_t{first_rank} * kLists];
    intervals.assign(batch_size(end_rank), Interval{});
    fill.assign(offset.begin() + std::size_t{first_rank} * kLists, offset.begin() + std::size_t{end_rank} * kLists);
    const NodeId first_id = ranks_in_order ? rank_first[first_rank] : 0;
    const NodeId end_id = ranks_in_order ? rank_first[end_rank] : workload.node_count();
    for (NodeId id = first_id; id < end_id; ++id) {
      const workload::Node node = workload.node(id);
      const NodeTiming t = result.nodes[id];
      if (iteration_end.size() <= node.iteration) iteration_end.resize(node.iteration + 1);
      iteration_end[node.iteration] = std::max(iteration_end[node.iteration], t.end);
      Time begin = t.start;
      if (node.kind != NodeKind::kCompute) {
        begin = operation_begin(result, id);
        m.ranks[node.rank].sync_wait += begin - t.start;
      }
      intervals[fill[std::size_t{node.rank - first_rank} * kLists + list_of(node)]++ - base] = {begin, t.end};
    }
    for (std::uint32_t r = first_rank; r < end_rank; ++r) {
      const auto list = [&](std::size_t l) {
        const std::size_t first = offset[std::size_t{r} * kLists + l] - base;
        return std::span<Interval>(intervals).subspan(first, offset[std::size_t{r} * kLists + l + 1] - base - first);
      };
      RankMetrics& rm = m.ranks[r];
      rm.finish = result.rank_finish[r];
      const auto compute = list(0).first(merge(list(0)));
      rm.compute = covered(compute);
      comm_all.clear();
      for (std::size_t k = 0; k < kCommKinds; ++k) {
        const auto comm = list(1 + k).first(merge(list(1 + k)));
        rm.comm[k] = covered(comm);
        rm.exposed[k] = uncovered(comm, compute);
        comm_all.insert(comm_all.end(), comm.begin(), comm.end());
      }
      const auto all = std::span<const Interval>(comm_all).first(merge(comm_all));
      rm.comm_total = covered(all);
      rm.exposed_total = uncovered(all, compute);
      rm.idle = result.makespan - rm.compute - rm.exposed_total;
    }
    first_rank = end_rank;
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
