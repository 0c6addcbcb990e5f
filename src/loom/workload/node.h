// One node of a per-rank DAG (workload.h) and the enumerations that describe it.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "loom/collective/collective.h"
#include "loom/core/time.h"
#include "loom/core/units.h"

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

// When a send's transfer starts and when the send completes (a whole workload's property).
// Rendezvous (NCCL send/recv): the transfer starts once both the send and its receive are
// posted, and completes both. Eager (ASTRA-sim's Chakra semantics): a send issues its transfer
// as soon as it starts and completes when the data has arrived; its receive completes at the
// later of its own start and that arrival, the data being held until the receive is posted.
enum class PointToPoint : std::uint8_t { kRendezvous, kEager };
std::string_view to_string(PointToPoint semantics);
// "rendezvous" or "eager"; anything else is a UserError listing them.
PointToPoint parse_point_to_point(std::string_view text);

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

  bool operator==(const Node&) const = default;
};

}  // namespace loom::workload
