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
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "loom/workload/dep_list.h"
#include "loom/workload/node.h"
#include "loom/workload/shared_programs.h"
#include "loom/workload/workload_counts.h"

namespace loom::workload {

struct Communicator {
  std::string name;                 // e.g. "world", "tp.3"
  std::string group;                // the named group it belongs to, e.g. "tp"
  std::vector<std::uint32_t> ranks; // member index -> global rank; distinct, in member order
  CommunicatorKind kind = CommunicatorKind::kOther;
};

// How a workload stores its nodes: one record per node, or per-rank programs that ranks with the
// same program share (shared_programs.h; for builders that emit each rank's nodes together, each
// depending only on nodes of its own rank). Both read the same.
enum class NodeStorage : std::uint8_t { kPerNode, kSharedPrograms };

class Workload {
 public:
  explicit Workload(std::uint32_t rank_count, NodeStorage storage = NodeStorage::kPerNode);

  // Ranks must be distinct and < rank_count (UserError otherwise, naming the communicator).
  CommunicatorId add_communicator(Communicator communicator);
  // `deps` must name existing nodes (so the DAG stays acyclic); a collective's rank must be a
  // member of its communicator; a send/recv's peer must be another valid rank. Violations are
  // UserErrors naming the node's label.
  NodeId add_node(const Node& node, std::span<const NodeId> deps);
  // With shared programs: appends rank `rank`'s nodes as a copy of rank `like`'s, whose nodes
  // (one run of ids, the last of that rank) were added before — the same nodes in the same
  // order, each collective on communicator(c) where `like`'s is on c, each send and receive
  // with peer(p) where `like`'s has p. In O(communicators, peers and ranks since `like`) rather than O(nodes), for
  // builders whose ranks of one kind differ only in those. Checked as add_node checks them
  // (UserErrors naming the ranks).
  void add_rank_like(std::uint32_t rank, std::uint32_t like,
                     const std::function<CommunicatorId(CommunicatorId)>& communicator,
                     const std::function<std::uint32_t(std::uint32_t)>& peer);
  bool shares_programs() const { return shared_; }
  LabelId intern_label(std::string_view text);
  // Pre-sizes the node and dependency arrays (a hint; never required; shared programs size
  // themselves).
  void reserve(std::size_t nodes, std::size_t deps);
  // With shared programs, the last rank's program joins an equal earlier one (adding a node of
  // another rank does this for the rank before). Builders call it when done; nothing else
  // depends on it.
  void seal();

  // For passes that fill or scale node values after building (compute-time model, variation,
  // scaling): only bytes, flops, duration, label, iteration, stream, algorithm, layer,
  // micro_batch and dtype may change; kind, rank, communicator, peer and tag must stay as added,
  // because add_node checked them and nothing checks them again. With shared programs the
  // record's rank, communicator and peer are the program's (read them with node()), and a
  // program other ranks share is copied first.
  Node& editable_node(NodeId id);
  // Calls f once per stored node record with the number of nodes it stands for (1 per node, or
  // the ranks sharing a program): for passes whose change depends on the record's own values
  // only, never on its rank, communicator or peer. The rules of editable_node apply.
  void edit_nodes(const std::function<void(Node&, std::uint64_t copies)>& f);

  std::uint32_t rank_count() const { return rank_count_; }
  // How sends and receives pair up in a run (node.h); rendezvous unless the builder says
  // otherwise (Chakra traces are eager, as ASTRA-sim runs them).
  PointToPoint point_to_point() const { return point_to_point_; }
  void set_point_to_point(PointToPoint semantics) { point_to_point_ = semantics; }
  std::uint32_t node_count() const { return node_count_; }
  Node node(NodeId id) const { return shared_ ? programs_.node(id) : nodes_[id]; }
  // node(id).duration without rebuilding the node (the runtime reads it as each compute node
  // starts).
  Time duration(NodeId id) const { return shared_ ? programs_.duration(id) : nodes_[id].duration; }
  DepList deps(NodeId id) const;
  std::uint32_t communicator_count() const { return static_cast<std::uint32_t>(communicators_.size()); }
  const Communicator& communicator(CommunicatorId id) const { return communicators_[id]; }
  // Position of `rank` in the communicator, or -1 if it is not a member. O(1).
  std::int64_t member_index(CommunicatorId id, std::uint32_t rank) const;
  std::string_view label(LabelId id) const { return labels_[id]; }
  std::uint32_t label_count() const { return static_cast<std::uint32_t>(labels_.size()); }
  // Shared programs: the distinct programs held and the node records they store (0 when stored
  // per node).
  std::uint32_t program_count() const { return shared_ ? programs_.program_count() : 0; }
  std::uint64_t stored_nodes() const { return shared_ ? programs_.stored_nodes() : nodes_.size(); }
  // Shared programs: every block of one rank's nodes, in id order (SharedPrograms::blocks); none
  // when stored per node.
  std::vector<SharedPrograms::BlockInfo> program_blocks() const {
    return shared_ ? programs_.blocks() : std::vector<SharedPrograms::BlockInfo>{};
  }

  // Whole-workload checks beyond what add_node can see: every send has its matching receive
  // (same src, dst, tag, bytes, in the same order) and vice versa. UserError naming the first
  // unmatched node. O(nodes).
  void validate() const;

  // Heap bytes held by nodes, dependencies, communicators and labels (capacity, not size).
  std::size_t memory_bytes() const;
  // The same for this workload's communicators and labels with `all`'s nodes and dependencies
  // held exactly (a workload of which only some ranks were built, as if all were).
  std::size_t memory_bytes_holding(const WorkloadCounts& all) const;
  std::uint64_t dependency_count() const { return shared_ ? programs_.dependency_count() : dep_ids_.size(); }
  // Nodes, dependencies, ranks and collective operations of this workload as built. O(nodes).
  WorkloadCounts counts() const;

 private:
  std::size_t shared_bytes() const;  // communicators and labels
  std::uint32_t rank_count_;
  bool shared_;
  PointToPoint point_to_point_ = PointToPoint::kRendezvous;
  std::uint32_t node_count_ = 0;
  SharedPrograms programs_;  // with shared programs
  std::vector<Node> nodes_;  // the rest: per node
  std::vector<std::uint32_t> dep_offsets_{0};  // CSR: deps of node i are dep_ids_[offsets[i], offsets[i+1])
  std::vector<NodeId> dep_ids_;
  std::vector<Communicator> communicators_;
  std::vector<std::unordered_map<std::uint32_t, std::uint32_t>> member_of_;  // per communicator: rank -> index
  std::vector<std::string> labels_;
  std::unordered_map<std::string, LabelId> label_ids_;
};

}  // namespace loom::workload
