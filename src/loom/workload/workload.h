// The per-rank DAG of one training iteration (or benchmark): compute and communication nodes
// with dependencies, and the communicators collectives run on.
//
// Storage is flat: nodes in one array indexed by 32-bit NodeId, dependencies in one CSR array,
// node labels interned. A node may depend only on nodes added before it, so every Workload is
// acyclic by construction. Nodes of all ranks live in the same arrays; `Node::rank` says whose
// node it is. A collective node stands for one rank's part in a collective; the parts of one
// collective instance are matched across ranks by (communicator, the k-th collective that rank
// issues on it), as NCCL matches calls by order on a communicator.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "loom/collective/collective.h"
#include "loom/core/time.h"
#include "loom/core/units.h"

namespace loom::workload {

using NodeId = std::uint32_t;
using CommunicatorId = std::uint32_t;
using LabelId = std::uint32_t;

enum class NodeKind : std::uint8_t {
  kCompute,     // occupies the rank's compute stream for `duration`
  kCollective,  // this rank's part in a collective on `communicator`
};

struct Node {
  NodeKind kind = NodeKind::kCompute;
  collective::CollectiveOp op = collective::CollectiveOp::kAllReduce;  // kCollective only
  std::optional<collective::Algorithm> algorithm;  // kCollective: empty = the runtime's choice
  std::uint32_t rank = 0;
  CommunicatorId communicator = 0;  // kCollective only
  LabelId label = 0;                // interned text saying where the node came from
  Bytes bytes = 0;                  // kCollective: size with nccl-tests meaning (collective.h)
  Time duration;                    // kCompute
};

struct Communicator {
  std::string name;                 // e.g. "world", "tp.3"
  std::string group;                // the named group it belongs to, e.g. "tp"
  std::vector<std::uint32_t> ranks; // member index -> global rank; distinct, in member order
};

class Workload {
 public:
  explicit Workload(std::uint32_t rank_count);

  // Ranks must be distinct and < rank_count (UserError otherwise, naming the communicator).
  CommunicatorId add_communicator(Communicator communicator);
  // `deps` must name existing nodes (so the DAG stays acyclic); a collective's rank must be a
  // member of its communicator. Violations are UserErrors naming the node's label.
  NodeId add_node(const Node& node, std::span<const NodeId> deps);
  LabelId intern_label(std::string_view text);

  std::uint32_t rank_count() const { return rank_count_; }
  std::uint32_t node_count() const { return static_cast<std::uint32_t>(nodes_.size()); }
  const Node& node(NodeId id) const { return nodes_[id]; }
  std::span<const NodeId> deps(NodeId id) const;
  std::uint32_t communicator_count() const { return static_cast<std::uint32_t>(communicators_.size()); }
  const Communicator& communicator(CommunicatorId id) const { return communicators_[id]; }
  // Position of `rank` in the communicator, or -1 if it is not a member. O(1).
  std::int64_t member_index(CommunicatorId id, std::uint32_t rank) const;
  std::string_view label(LabelId id) const { return labels_[id]; }

 private:
  std::uint32_t rank_count_;
  std::vector<Node> nodes_;
  std::vector<std::uint32_t> dep_offsets_{0};  // CSR: deps of node i are dep_ids_[offsets[i], offsets[i+1])
  std::vector<NodeId> dep_ids_;
  std::vector<Communicator> communicators_;
  std::vector<std::unordered_map<std::uint32_t, std::uint32_t>> member_of_;  // per communicator: rank -> index
  std::vector<std::string> labels_;
  std::unordered_map<std::string, LabelId> label_ids_;
};

}  // namespace loom::workload
