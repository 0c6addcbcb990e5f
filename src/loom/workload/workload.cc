#include "loom/workload/workload.h"

#include <map>
#include <tuple>

#include <fmt/format.h>

#include "loom/core/error.h"

namespace loom::workload {

std::string_view to_string(NodeKind kind) {
  switch (kind) {
    case NodeKind::kCompute: return "compute";
    case NodeKind::kCollective: return "collective";
    case NodeKind::kSend: return "send";
    case NodeKind::kRecv: return "recv";
  }
  return "?";
}

std::string_view to_string(PointToPoint semantics) {
  return semantics == PointToPoint::kEager ? "eager" : "rendezvous";
}

PointToPoint parse_point_to_point(std::string_view text) {
  for (PointToPoint p : {PointToPoint::kRendezvous, PointToPoint::kEager}) {
    if (to_string(p) == text) return p;
  }
  throw UserError(fmt::format("unknown point-to-point semantics '{}', expected rendezvous or eager", text));
}

std::string_view to_string(ComputeKind kind) {
  switch (kind) {
    case ComputeKind::kGemm: return "gemm";
    case ComputeKind::kAttention: return "attention";
    case ComputeKind::kElementwise: return "elementwise";
    case ComputeKind::kOther: return "other";
  }
  return "?";
}

std::string_view to_string(DataType type) {
  switch (type) {
    case DataType::kUnknown: return "unknown";
    case DataType::kFp32: return "fp32";
    case DataType::kBf16: return "bf16";
    case DataType::kFp16: return "fp16";
    case DataType::kFp8: return "fp8";
  }
  return "?";
}

std::uint32_t element_bytes(DataType type) {
  switch (type) {
    case DataType::kUnknown: return 0;
    case DataType::kFp32: return 4;
    case DataType::kBf16: return 2;
    case DataType::kFp16: return 2;
    case DataType::kFp8: return 1;
  }
  return 0;
}

DataType parse_data_type(std::string_view text) {
  for (DataType t : {DataType::kFp32, DataType::kBf16, DataType::kFp16, DataType::kFp8}) {
    if (to_string(t) == text) return t;
  }
  throw UserError(fmt::format("unknown data type '{}', expected one of fp32, bf16, fp16, fp8", text));
}

namespace {
struct KindName {
  CommunicatorKind kind;
  std::string_view name;
};
constexpr KindName kCommunicatorKinds[] = {
    {CommunicatorKind::kWorld, "world"}, {CommunicatorKind::kTensor, "tp"},   {CommunicatorKind::kSequence, "sp"},
    {CommunicatorKind::kContext, "cp"},  {CommunicatorKind::kPipeline, "pp"}, {CommunicatorKind::kData, "dp"},
    {CommunicatorKind::kExpert, "ep"},   {CommunicatorKind::kOther, "other"},
};
}  // namespace

std::string_view to_string(CommunicatorKind kind) {
  for (const KindName& k : kCommunicatorKinds) {
    if (k.kind == kind) return k.name;
  }
  return "?";
}

CommunicatorKind communicator_kind_from_name(std::string_view group_name) {
  for (const KindName& k : kCommunicatorKinds) {
    if (k.name == group_name) return k.kind;
  }
  return CommunicatorKind::kOther;
}

Workload::Workload(std::uint32_t rank_count, NodeStorage storage)
    : rank_count_(rank_count), shared_(storage == NodeStorage::kSharedPrograms) {
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
  const NodeId id = node_count_;
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
  if (node.kind == NodeKind::kSend || node.kind == NodeKind::kRecv) {
    if (node.peer >= rank_count_ || node.peer == node.rank) {
      throw UserError(fmt::format("{}: {} on rank {} names peer {}, expected another rank in 0..{}", where,
                                  to_string(node.kind), node.rank, node.peer, rank_count_ - 1));
    }
  }
  for (NodeId dep : deps) {
    if (dep >= id) {
      throw UserError(fmt::format("{}: depends on node {}, which does not come before it", where, dep));
    }
  }
  LOOM_ASSERT(id != ~NodeId{0}, "more nodes than 32-bit node ids can number");
  ++node_count_;
  if (shared_) {
    programs_.add(id, node, deps);
    return id;
  }
  nodes_.push_back(node);
  dep_ids_.insert(dep_ids_.end(), deps.begin(), deps.end());
  dep_offsets_.push_back(static_cast<std::uint32_t>(dep_ids_.size()));
  return id;
}

void Workload::add_rank_like(std::uint32_t rank, std::uint32_t like,
                             const std::function<CommunicatorId(CommunicatorId)>& communicator,
                             const std::function<std::uint32_t(std::uint32_t)>& peer) {
  LOOM_ASSERT(shared_, "a rank copied from another needs shared programs");
  if (rank >= rank_count_) {
    throw UserError(fmt::format("rank {} (copied from rank {}) is outside 0..{}", rank, like, rank_count_ - 1));
  }
  const auto map = [&](SharedPrograms::Role role, std::uint32_t value) -> std::uint32_t {
    if (role == SharedPrograms::Role::kCommunicator) {
      const CommunicatorId c = communicator(value);
      if (c >= communicators_.size()) {
        throw UserError(fmt::format("rank {} (copied from rank {}): unknown communicator id {}", rank, like, c));
      }
      if (member_index(c, rank) < 0) {
        throw UserError(fmt::format("rank {} (copied from rank {}) is not a member of communicator '{}'", rank, like,
                                    communicators_[c].name));
      }
      return c;
    }
    const std::uint32_t p = peer(value);
    if (p >= rank_count_ || p == rank) {
      throw UserError(fmt::format("rank {} (copied from rank {}) names peer {}, expected another rank in 0..{}", rank,
                                  like, p, rank_count_ - 1));
    }
    return p;
  };
  const std::uint32_t added = programs_.add_like(node_count_, rank, like, map);
  LOOM_ASSERT(std::uint64_t{node_count_} + added <= ~NodeId{0}, "more nodes than 32-bit node ids can number");
  node_count_ += added;
}

void Workload::seal() {
  if (shared_) programs_.seal();
}

Node& Workload::editable_node(NodeId id) { return shared_ ? programs_.editable(id) : nodes_[id]; }

void Workload::edit_nodes(const std::function<void(Node&, std::uint64_t copies)>& f) {
  if (shared_) {
    programs_.edit_each(f);
    return;
  }
  for (Node& n : nodes_) f(n, 1);
}

LabelId Workload::intern_label(std::string_view text) {
  auto [it, inserted] = label_ids_.try_emplace(std::string(text), static_cast<LabelId>(labels_.size()));
  if (inserted) labels_.emplace_back(text);
  return it->second;
}

void Workload::reserve(std::size_t nodes, std::size_t deps) {
  if (shared_) return;
  nodes_.reserve(nodes);
  dep_offsets_.reserve(nodes + 1);
  dep_ids_.reserve(deps);
}

std::size_t Workload::memory_bytes() const {
  return nodes_.capacity() * sizeof(Node) + dep_offsets_.capacity() * sizeof(std::uint32_t) +
         dep_ids_.capacity() * sizeof(NodeId) + programs_.memory_bytes() + shared_bytes();
}

std::size_t Workload::memory_bytes_holding(const WorkloadCounts& all) const {
  return all.nodes * sizeof(Node) + (all.nodes + 1) * sizeof(std::uint32_t) + all.dependencies * sizeof(NodeId) +
         shared_bytes();
}

WorkloadCounts Workload::counts() const {
  std::vector<std::uint64_t> collective_nodes(communicators_.size(), 0);
  for (NodeId id = 0; id < node_count(); ++id) {
    const Node n = node(id);
    if (n.kind == NodeKind::kCollective) ++collective_nodes[n.communicator];
  }
  WorkloadCounts out{node_count(), dependency_count(), rank_count_, 0};
  for (std::size_t c = 0; c < communicators_.size(); ++c) {
    const std::uint64_t members = communicators_[c].ranks.size();
    if (members > 0) out.collectives += (collective_nodes[c] + members - 1) / members;
  }
  return out;
}

std::size_t Workload::shared_bytes() const {
  std::size_t total = 0;
  for (const Communicator& c : communicators_) {
    total += sizeof(Communicator) + c.ranks.capacity() * sizeof(std::uint32_t) + c.name.capacity() + c.group.capacity();
  }
  for (const auto& index : member_of_) {
    total += index.size() * (sizeof(std::pair<const std::uint32_t, std::uint32_t>) + 2 * sizeof(void*)) +
             index.bucket_count() * sizeof(void*);
  }
  for (const std::string& l : labels_) total += sizeof(std::string) + l.capacity() + 3 * sizeof(void*);
  return total;
}

DepList Workload::deps(NodeId id) const {
  if (shared_) return programs_.deps(id);
  return {std::span<const NodeId>(dep_ids_).subspan(dep_offsets_[id], dep_offsets_[id + 1] - dep_offsets_[id]), 0};
}

void Workload::validate() const {
  // Sends and receives of one (src, dst, tag) channel pair up in order.
  struct Channel {
    std::vector<NodeId> sends, recvs;
  };
  std::map<std::tuple<std::uint32_t, std::uint32_t, std::uint32_t>, Channel> channels;
  for (NodeId id = 0; id < node_count(); ++id) {
    const Node n = node(id);
    if (n.kind == NodeKind::kSend) channels[{n.rank, n.peer, n.tag}].sends.push_back(id);
    if (n.kind == NodeKind::kRecv) channels[{n.peer, n.rank, n.tag}].recvs.push_back(id);
  }
  for (const auto& [key, channel] : channels) {
    const auto [src, dst, tag] = key;
    const std::size_t pairs = std::min(channel.sends.size(), channel.recvs.size());
    for (std::size_t i = 0; i < pairs; ++i) {
      const Node send = node(channel.sends[i]);
      const Node recv = node(channel.recvs[i]);
      if (send.bytes != recv.bytes) {
        throw UserError(fmt::format("{}: send #{} from rank {} to rank {} (tag {}) carries {} bytes but its receive "
                                    "({}) expects {}",
                                    labels_[send.label], i, src, dst, tag, send.bytes, labels_[recv.label], recv.bytes));
      }
    }
    if (channel.sends.size() != channel.recvs.size()) {
      const bool extra_send = channel.sends.size() > channel.recvs.size();
      const Node odd = node(extra_send ? channel.sends[pairs] : channel.recvs[pairs]);
      throw UserError(fmt::format("{}: {} #{} from rank {} to rank {} (tag {}) has no matching {}", labels_[odd.label],
                                  extra_send ? "send" : "receive", pairs, src, dst, tag,
                                  extra_send ? "receive" : "send"));
    }
  }
}

std::int64_t Workload::member_index(CommunicatorId id, std::uint32_t rank) const {
  const auto& index = member_of_[id];
  const auto it = index.find(rank);
  return it == index.end() ? -1 : static_cast<std::int64_t>(it->second);
}

}  // namespace loom::workload
