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
#include "loom/workload/workload_counts.h"

namespace loom::workload {

using NodeId = std::uint32_t;
using CommunicatorId = std::uint32_t;
using LabelId = std::uint32_t;

enum class NodeKind : std::uint8_t {
  kCompute,     // occupies the rank's compute stream for its modelled or fixed duration
  kCollective,  // this rank's part in a collective on `communicator`
  kSend,        // point-to-point send of `bytes` to rank `peer`, matched by (src, dst, tag) order
  kRecv,        // the matching receive on the peer
};
std::string_view to_string(NodeKind kind);

// What a compute node does, for per-kind efficiency in the compute-time model.
enum class ComputeKind : std::uint8_t { kGemm, kAttention, kElementwise, kOther };
std::string_view to_string(ComputeKind kind);

// The role of a communicator in the parallelism plan (for per-kind metrics).
enum class CommunicatorKind : std::uint8_t {
  kWorld, kTensor, kSequence, kContext, kPipeline, kData, kExpert, kOther
};
std::string_view to_string(CommunicatorKind kind);
// "tp" -> kTensor, "dp" -> kData, ... (the usual short names); anything else kOther.
CommunicatorKind communicator_kind_from_name(std::string_view group_name);

inline constexpr std::uint32_t kNoPeer = 0xffffffffu;
inline constexpr std::uint16_t kNoIndex = 0xffffu;  // Node::layer / micro_batch when not applicable

// Element type of the data a node computes on or communicates (message sizes already include the
// element size; this records which one was used).
enum class DataType : std::uint8_t { kUnknown, kFp32, kBf16, kFp16, kFp8 };
std::string_view to_string(DataType type);
// Bytes per element: fp32 4, bf16/fp16 2, fp8 1; kUnknown 0.
std::uint32_t element_bytes(DataType type);
// "fp32", "bf16", "fp16", "fp8" (case-sensitive); anything else is a UserError listing them.
DataType parse_data_type(std::string_view text);

// One node: 64 bytes. Fields not used by a node's kind keep their defaults.
struct Node {
  NodeKind kind = NodeKind::kCompute;
  collective::CollectiveOp op = collective::CollectiveOp::kAllReduce;  // kCollective only
  std::optional<collective::Algorithm> algorithm;  // kCollective: empty = the runtime's choice
  ComputeKind compute_kind = ComputeKind::kOther;  // kCompute only
  std::uint8_t stream = 0;          // communication nodes: which of the rank's comm streams
  std::uint32_t rank = 0;
  std::uint32_t communicator = 0;   // kCollective: CommunicatorId
  std::uint32_t peer = kNoPeer;     // kSend: destination rank; kRecv: source rank
  std::uint32_t tag = 0;            // kSend/kRecv: matching tag
  LabelId label = 0;                // interned text saying where the node came from
  std::uint32_t iteration = 0;      // training iteration the node belongs to
  Bytes bytes = 0;                  // communication: message size (collectives: nccl-tests
                                    // meaning, see collective.h); compute: memory bytes touched
  std::uint64_t flops = 0;          // kCompute: floating-point operations
  Time duration;                    // kCompute: fixed duration, used when flops == 0
  // Where a generated node sits in the training step (kNoIndex when not applicable or unknown):
  // the model layer (0-based, over the whole model) and the micro-batch. Used by performance
  // variation to target (rank, layer, micro-batch) and by exporters.
  std::uint16_t layer = kNoIndex;
  std::uint16_t micro_batch = kNoIndex;
  DataType dtype = DataType::kUnknown;  // element type of `bytes` (collectives, send/recv)
};

struct Communicator {
  std::string name;                 // e.g. "world", "tp.3"
  std::string group;                // the named group it belongs to, e.g. "tp"
  std::vector<std::uint32_t> ranks; // member index -> global rank; distinct, in member order
  CommunicatorKind kind = CommunicatorKind::kOther;
};

class Workload {
 public:
  explicit Workload(std::uint32_t rank_count);

  // Ranks must be distinct and < rank_count (UserError otherwise, naming the communicator).
  CommunicatorId add_communicator(Communicator communicator);
  // `deps` must name existing nodes (so the DAG stays acyclic); a collective's rank must be a
  // member of its communicator; a send/recv's peer must be another valid rank. Violations are
  // UserErrors naming the node's label.
  NodeId add_node(const Node& node, std::span<const NodeId> deps);
  LabelId intern_label(std::string_view text);
  // Pre-sizes the node and dependency arrays (a hint; never required).
  void reserve(std::size_t nodes, std::size_t deps);

  // For passes that fill or scale node values after building (compute-time model, variation,
  // scaling): only bytes, flops, duration, label, iteration, stream, algorithm, layer,
  // micro_batch and dtype may change; kind, rank, communicator, peer and tag must stay as added,
  // because add_node checked them and nothing checks them again.
  Node& mutable_node(NodeId id) { return nodes_[id]; }

  std::uint32_t rank_count() const { return rank_count_; }
  std::uint32_t node_count() const { return static_cast<std::uint32_t>(nodes_.size()); }
  const Node& node(NodeId id) const { return nodes_[id]; }
  std::span<const NodeId> deps(NodeId id) const;
  std::uint32_t communicator_count() const { return static_cast<std::uint32_t>(communicators_.size()); }
  const Communicator& communicator(CommunicatorId id) const { return communicators_[id]; }
  // Position of `rank` in the communicator, or -1 if it is not a member. O(1).
  std::int64_t member_index(CommunicatorId id, std::uint32_t rank) const;
  std::string_view label(LabelId id) const { return labels_[id]; }
  std::uint32_t label_count() const { return static_cast<std::uint32_t>(labels_.size()); }

  // Whole-workload checks beyond what add_node can see: every send has its matching receive
  // (same src, dst, tag, bytes, in the same order) and vice versa. UserError naming the first
  // unmatched node. O(nodes).
  void validate() const;

  // Heap bytes held by nodes, dependencies, communicators and labels (capacity, not size).
  std::size_t memory_bytes() const;
  // The same for this workload's communicators and labels with `all`'s nodes and dependencies
  // held exactly (a workload of which only some ranks were built, as if all were).
  std::size_t memory_bytes_holding(const WorkloadCounts& all) const;
  std::uint64_t dependency_count() const { return dep_ids_.size(); }

 private:
  std::size_t shared_bytes() const;  // communicators and labels
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
