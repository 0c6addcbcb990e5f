#include "loom/system/communicator_twins.h"

#include <algorithm>
#include <unordered_map>

namespace loom::system {

using workload::CommunicatorId;
using workload::NodeId;
using workload::NodeKind;

namespace {
constexpr std::uint32_t kNoPosition = 0xffffffffu;

std::uint64_t combine(std::uint64_t seed, std::uint64_t value) {
  return (seed ^ value) * 0x100000001b3ULL + 0x9e3779b97f4a7c15ULL;
}
}  // namespace

CommunicatorTwins CommunicatorTwins::find(const workload::Workload& w, const RankSymmetry& s) {
  const CommunicatorId comms = w.communicator_count();
  CommunicatorTwins t;
  t.twin_.assign(comms, kRuns);
  // Per communicator: its collective nodes, and the program position of member 0's first one;
  // per node, its communicator (kRuns for other kinds), so that nodes are rebuilt once.
  std::vector<std::uint64_t> nodes(comms, 0);
  std::vector<std::uint32_t> first_position(comms, kNoPosition);
  // Ranks of a class have their collective nodes at the same program positions, read from the
  // representative: the others' other nodes are not read (a read may rebuild the node).
  std::vector<std::vector<std::uint32_t>> collective_positions(s.class_count());
  for (std::uint32_t c = 0; c < s.class_count(); ++c) {
    const auto program = s.program(s.representatives()[c]);
    for (std::uint32_t position = 0; position < program.size(); ++position) {
      if (w.node(program[position]).kind == NodeKind::kCollective) collective_positions[c].push_back(position);
    }
  }
  std::vector<CommunicatorId> node_comm(w.node_count(), kRuns);
  for (std::uint32_t rank = 0; rank < w.rank_count(); ++rank) {
    const auto program = s.program(rank);
    for (const std::uint32_t position : collective_positions[s.class_of(rank)]) {
      const workload::Node n = w.node(program[position]);
      node_comm[program[position]] = n.communicator;
      ++nodes[n.communicator];
      if (first_position[n.communicator] == kNoPosition && rank == w.communicator(n.communicator).ranks[0]) {
        first_position[n.communicator] = position;
      }
    }
  }
  const auto key_of = [&](CommunicatorId c) {
    std::uint64_t h = combine(nodes[c], first_position[c]);
    for (std::uint32_t rank : w.communicator(c).ranks) h = combine(h, s.representative(rank));
    return h;
  };
  const auto same_shape = [&](CommunicatorId a, CommunicatorId b) {
    const auto& ra = w.communicator(a).ranks;
    const auto& rb = w.communicator(b).ranks;
    if (nodes[a] != nodes[b] || first_position[a] != first_position[b] || ra.size() != rb.size()) return false;
    for (std::size_t j = 0; j < ra.size(); ++j) {
      if (s.representative(ra[j]) != s.representative(rb[j])) return false;
    }
    return true;
  };
  // Candidates: a communicator without a representative member, and a running one of its shape.
  std::unordered_map<std::uint64_t, std::vector<CommunicatorId>> running;
  std::vector<bool> runs(comms, false);
  for (CommunicatorId c = 0; c < comms; ++c) {
    const auto& ranks = w.communicator(c).ranks;
    runs[c] = nodes[c] == 0 ||
              std::any_of(ranks.begin(), ranks.end(), [&](std::uint32_t r) { return s.representative(r) == r; });
    if (runs[c] && nodes[c] > 0) running[key_of(c)].push_back(c);
  }
  for (CommunicatorId c = 0; c < comms; ++c) {
    if (runs[c]) continue;
    const auto it = running.find(key_of(c));
    if (it == running.end()) continue;
    for (CommunicatorId candidate : it->second) {
      if (same_shape(c, candidate)) {
        t.twin_[c] = candidate;
        break;
      }
    }
  }
  // Node by node: member j's node at each program position on a skipped communicator has, on
  // the twin's member j, a node on the twin (a bijection: the counts are equal and counterparts
  // of distinct nodes of one rank are distinct).
  std::vector<bool> mismatched(comms, false);
  for (std::uint32_t rank = 0; rank < w.rank_count(); ++rank) {
    for (const NodeId id : s.program(rank)) {
      const CommunicatorId c = node_comm[id];
      if (c == kRuns || t.twin_[c] == kRuns) continue;
      const auto j = static_cast<std::size_t>(w.member_index(c, rank));
      if (node_comm[s.counterpart(id, rank, w.communicator(t.twin_[c]).ranks[j])] != t.twin_[c]) mismatched[c] = true;
    }
  }
  t.first_.assign(std::size_t{comms} + 1, 0);
  for (CommunicatorId c = 0; c < comms; ++c) {
    if (mismatched[c]) t.twin_[c] = kRuns;
    if (t.twin_[c] != kRuns) ++t.first_[t.twin_[c] + 1];
  }
  t.on_skipped_.assign(w.node_count(), false);
  for (NodeId id = 0; id < w.node_count(); ++id) {
    t.on_skipped_[id] = node_comm[id] != kRuns && t.twin_[node_comm[id]] != kRuns;
    t.skipped_nodes_ += t.on_skipped_[id] ? 1 : 0;
  }
  for (CommunicatorId c = 0; c < comms; ++c) t.first_[c + 1] += t.first_[c];
  t.stands_for_.resize(t.first_[comms]);
  std::vector<std::uint32_t> fill(t.first_.begin(), t.first_.end() - 1);
  for (CommunicatorId c = 0; c < comms; ++c) {
    if (t.twin_[c] != kRuns) t.stands_for_[fill[t.twin_[c]]++] = c;
  }
  return t;
}

}  // namespace loom::system
