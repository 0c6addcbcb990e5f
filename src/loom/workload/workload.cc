#include "loom/workload/workload.h"

#include <fmt/format.h>

#include "loom/core/error.h"

namespace loom::workload {

Workload::Workload(std::uint32_t rank_count) : rank_count_(rank_count) {
  if (rank_count == 0) throw UserError("a workload needs at least one rank");
}

CommunicatorId Workload::add_communicator(Communicator communicator) {
  if (communicator.ranks.empty()) {
    throw UserError(fmt::format("communicator '{}' has no ranks", communicator.name));
  }
  std::unordered_map<std::uint32_t, std::uint32_t> index;
  for (std::uint32_t i = 0; i < communicator.ranks.size(); ++i) {
    const std::uint32_t rank = communicator.ranks[i];
    if (rank >= rank_count_) {
      throw UserError(fmt::format("communicator '{}' names rank {}, but the workload has ranks 0..{}",
                                  communicator.name, rank, rank_count_ - 1));
    }
    if (!index.emplace(rank, i).second) {
      throw UserError(fmt::format("communicator '{}' lists rank {} twice", communicator.name, rank));
    }
  }
  communicators_.push_back(std::move(communicator));
  member_of_.push_back(std::move(index));
  return static_cast<CommunicatorId>(communicators_.size() - 1);
}

NodeId Workload::add_node(const Node& node, std::span<const NodeId> deps) {
  const auto id = static_cast<NodeId>(nodes_.size());
  LOOM_ASSERT(node.label < labels_.size(), "node label was not interned");
  const std::string_view where = labels_[node.label];
  if (node.rank >= rank_count_) {
    throw UserError(fmt::format("{}: rank {} is outside 0..{}", where, node.rank, rank_count_ - 1));
  }
  if (node.kind == NodeKind::kCollective) {
    if (node.communicator >= communicators_.size()) {
      throw UserError(fmt::format("{}: unknown communicator id {}", where, node.communicator));
    }
    if (member_index(node.communicator, node.rank) < 0) {
      throw UserError(fmt::format("{}: rank {} is not a member of communicator '{}'", where,
                                  node.rank, communicators_[node.communicator].name));
    }
  }
  for (NodeId dep : deps) {
    if (dep >= id) {
      throw UserError(fmt::format("{}: depends on node {}, which does not come before it", where, dep));
    }
  }
  nodes_.push_back(node);
  dep_ids_.insert(dep_ids_.end(), deps.begin(), deps.end());
  dep_offsets_.push_back(static_cast<std::uint32_t>(dep_ids_.size()));
  return id;
}

LabelId Workload::intern_label(std::string_view text) {
  auto [it, inserted] = label_ids_.try_emplace(std::string(text), static_cast<LabelId>(labels_.size()));
  if (inserted) labels_.emplace_back(text);
  return it->second;
}

std::span<const NodeId> Workload::deps(NodeId id) const {
  return std::span<const NodeId>(dep_ids_).subspan(dep_offsets_[id], dep_offsets_[id + 1] - dep_offsets_[id]);
}

std::int64_t Workload::member_index(CommunicatorId id, std::uint32_t rank) const {
  const auto& index = member_of_[id];
  const auto it = index.find(rank);
  return it == index.end() ? -1 : static_cast<std::int64_t>(it->second);
}

}  // namespace loom::workload
