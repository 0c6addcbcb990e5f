#include "loom/system/communicator_twins.h"

#include <algorithm>
#include <unordered_map>

namespace loom::system {

using workload::CommunicatorId;
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
  // Per communicator: its collective nodes, and the program position of member 0's first one.
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
  // Per rank, the communicator of its k-th collective node (CSR by rank), so that nodes are
  // rebuilt once and nothing is held per node of other kinds.
  const std::uint32_t rank_count = w.rank_count();
  std::vector<std::uint64_t> comm_first(std::size_t{rank_count} + 1, 0);
  for (std::uint32_t rank = 0; rank < rank_count; ++rank) {
    comm_first[rank + 1] = comm_first[rank] + collective_positions[s.class_of(rank)].size();
  }
  std::vector<CommunicatorId> comm_at(comm_first[rank_count]);
  for (std::uint32_t rank = 0; rank < rank_count; ++rank) {
    const auto program = s.program(rank);
    const std::vector<std::uint32_t>& positions = collective_positions[s.class_of(rank)];
    for (std::size_t k = 0; k < positions.size(); ++k) {
      const CommunicatorId c = w.node(program[positions[k]]).communicator;
      comm_at[comm_first[rank] + k] = c;
      ++nodes[c];
      if (first_position[c] == kNoPosition && rank == w.communicator(c).ranks[0]) first_position[c] = positions[k];
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
  // Node by node: member j's k-th collective node on a skipped communicator has, on the twin's
  // member j (of the same class, so with its k-th collective node at the same program
  // position), a node on the twin (a bijection: the counts are equal and counterparts of
  // distinct nodes of one rank are distinct).
  std::vector<bool> mismatched(comms, false);
  for (std::uint32_t rank = 0; rank < rank_count; ++rank) {
    for (std::uint64_t i = comm_first[rank]; i < comm_first[rank + 1]; ++i) {
      const CommunicatorId c = comm_at[i];
      if (t.twin_[c] == kRuns) continue;
      const std::uint32_t twin_rank = w.communicator(t.twin_[c]).ranks[static_cast<std::size_t>(w.member_index(c, rank))];
      if (comm_at[comm_first[twin_rank] + (i - comm_first[rank])] != t.twin_[c]) mismatched[c] = true;
    }
  }
  t.first_.assign(std::size_t{comms} + 1, 0);
  for (CommunicatorId c = 0; c < comms; ++c) {
    if (mismatched[c]) t.twin_[c] = kRuns;
    if (t.twin_[c] != kRuns) ++t.first_[t.twin_[c] + 1];
  }
  t.on_skipped_.assign(w.node_count(), false);
  for (std::uint32_t rank = 0; rank < rank_count; ++rank) {
    const auto program = s.program(rank);
    const std::vector<std::uint32_t>& positions = collective_positions[s.class_of(rank)];
    for (std::size_t k = 0; k < positions.size(); ++k) {
      if (t.twin_[comm_at[comm_first[rank] + k]] == kRuns) continue;
      t.on_skipped_[program[positions[k]]] = true;
      ++t.skipped_nodes_;
    }
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
