#include "loom/topology/topology.h"

#include <fmt/format.h>

#include <algorithm>

#include "loom/core/error.h"

namespace loom::topology {

std::string_view to_string(NodeKind kind) {
  switch (kind) {
    case NodeKind::kGpu: return "gpu";
    case NodeKind::kNic: return "nic";
    case NodeKind::kScaleUpSwitch: return "scale_up_switch";
    case NodeKind::kSwitch: return "switch";
  }
  LOOM_ASSERT(false, fmt::format("unknown NodeKind {}", static_cast<int>(kind)));
  return {};
}

NodeId Topology::add_node(NodeKind kind, std::string name, std::uint32_t host, std::uint16_t tier,
                          Time forwarding_latency) {
  if (name.empty()) {
    throw UserError(fmt::format("a {} node has an empty name; every node needs a unique name",
                                to_string(kind)));
  }
  const auto name_of = [this](std::uint32_t id) -> std::string_view { return nodes_[id].name; };
  if (const std::uint32_t other = names_.find(name, name_of); other != NameIndex::kMissing) {
    throw UserError(
        fmt::format("duplicate node name '{}' (already used by node {}); node names "
                    "must be unique",
                    name, other));
  }
  if (kind != NodeKind::kSwitch && host == kNone) {
    throw UserError(
        fmt::format("node '{}' is a {} but has no host index; GPUs, NICs and "
                    "scale-up switches belong to a host",
                    name, to_string(kind)));
  }
  if (forwarding_latency < Time::zero()) {
    throw UserError(fmt::format("node '{}' has negative forwarding latency {}; expected >= 0", name,
                                forwarding_latency));
  }
  if (kind == NodeKind::kGpu && forwarding_latency != Time::zero()) {
    throw UserError(
        fmt::format("GPU '{}' has forwarding latency {}; GPUs never forward, "
                    "expected 0",
                    name, forwarding_latency));
  }
  if (nodes_.size() >= kNone) {
    throw UserError(fmt::format("too many nodes: at most {} fit 32-bit ids", kNone - 1));
  }
  const auto id = static_cast<NodeId>(nodes_.size());
  nodes_.push_back(Node{kind, host, tier, forwarding_latency, std::move(name), kNoRail, 0});
  adjacency_.emplace_back();
  names_.insert(id, name_of);
  if (host != kNone) host_count_ = std::max(host_count_, host + 1);
  if (kind == NodeKind::kGpu) {
    rank_of_.push_back(static_cast<std::uint32_t>(gpus_.size()));
    gpus_.push_back(id);
    nics_.push_back(kNone);
  } else {
    rank_of_.push_back(kNone);
  }
  return id;
}

LinkId Topology::add_duplex_link(NodeId a, NodeId b, Bandwidth bandwidth, Time latency,
                                 double error_rate) {
  LOOM_ASSERT(a < nodes_.size() && b < nodes_.size(),
              fmt::format("link between unknown node ids {} and {}", a, b));
  if (a == b) {
    throw UserError(
        fmt::format("link from '{}' to itself; a link joins two different nodes", nodes_[a].name));
  }
  if (bandwidth.is_zero()) {
    throw UserError(fmt::format("link '{}' <-> '{}' has zero bandwidth; expected > 0",
                                nodes_[a].name, nodes_[b].name));
  }
  if (latency < Time::zero()) {
    throw UserError(fmt::format("link '{}' <-> '{}' has negative latency {}; expected >= 0",
                                nodes_[a].name, nodes_[b].name, latency));
  }
  if (!(error_rate >= 0 && error_rate < 1)) {
    throw UserError(fmt::format("link '{}' <-> '{}' has error rate {}; expected a probability "
                                "of at least 0 and below 1",
                                nodes_[a].name, nodes_[b].name, error_rate));
  }
  if (links_.size() + 2 >= kNone) {
    throw UserError(fmt::format("too many links: at most {} fit 32-bit ids", kNone - 1));
  }
  const auto forward = static_cast<LinkId>(links_.size());
  const auto rate = static_cast<float>(error_rate);
  links_.push_back(Link{a, b, bandwidth, latency, forward + 1, rate});
  links_.push_back(Link{b, a, bandwidth, latency, forward, rate});
  append_out_link(a, forward);
  append_out_link(b, forward + 1);
  return forward;
}

void Topology::append_out_link(NodeId node, LinkId link) {
  Adjacency& slice = adjacency_[node];
  if (slice.size == slice.capacity) {
    const std::uint32_t capacity = std::max<std::uint32_t>(4, 2 * slice.capacity);
    const auto offset = static_cast<std::uint32_t>(adjacency_pool_.size());
    adjacency_pool_.resize(adjacency_pool_.size() + capacity, kNone);
    std::copy_n(adjacency_pool_.begin() + slice.offset, slice.size,
                adjacency_pool_.begin() + offset);
    slice.offset = offset;
    slice.capacity = capacity;
  }
  adjacency_pool_[slice.offset + slice.size] = link;
  ++slice.size;
}

void Topology::attach_nic(std::uint32_t rank, NodeId nic) {
  if (rank >= gpus_.size()) {
    throw UserError(fmt::format("cannot attach a NIC to rank {}: there are {} GPUs (ranks 0..{})",
                                rank, gpus_.size(), gpus_.size() - 1));
  }
  LOOM_ASSERT(nic < nodes_.size(), fmt::format("attach_nic: unknown node id {}", nic));
  const Node& gpu = nodes_[gpus_[rank]];
  const Node& candidate = nodes_[nic];
  if (candidate.kind != NodeKind::kNic) {
    throw UserError(fmt::format("cannot attach '{}' as the NIC of '{}': it is a {}, expected a nic",
                                candidate.name, gpu.name, to_string(candidate.kind)));
  }
  if (candidate.host != gpu.host) {
    throw UserError(
        fmt::format("cannot attach NIC '{}' (host {}) to GPU '{}' (host {}): a GPU "
                    "uses a NIC of its own host",
                    candidate.name, candidate.host, gpu.name, gpu.host));
  }
  nics_[rank] = nic;
}

void Topology::set_rail(NodeId nic, std::uint16_t rail) {
  LOOM_ASSERT(nic < nodes_.size(), fmt::format("set_rail: unknown node id {}", nic));
  if (nodes_[nic].kind != NodeKind::kNic) {
    throw UserError(fmt::format("cannot give '{}' a rail: it is a {}, and only NICs have rails",
                                nodes_[nic].name, to_string(nodes_[nic].kind)));
  }
  nodes_[nic].rail = rail;
}

void Topology::set_ports(NodeId node, std::uint16_t ports) {
  LOOM_ASSERT(node < nodes_.size(), fmt::format("set_ports: unknown node id {}", node));
  const NodeKind kind = nodes_[node].kind;
  if (kind != NodeKind::kSwitch && kind != NodeKind::kScaleUpSwitch) {
    throw UserError(fmt::format("cannot give '{}' a port count: it is a {}, expected a switch",
                                nodes_[node].name, to_string(kind)));
  }
  nodes_[node].ports = ports;
}

NodeId Topology::gpu_node(std::uint32_t rank) const {
  LOOM_ASSERT(rank < gpus_.size(),
              fmt::format("rank {} out of range ({} GPUs)", rank, gpus_.size()));
  return gpus_[rank];
}

std::uint32_t Topology::host_of_rank(std::uint32_t rank) const {
  return nodes_[gpu_node(rank)].host;
}

NodeId Topology::nic_of_rank(std::uint32_t rank) const {
  LOOM_ASSERT(rank < nics_.size(),
              fmt::format("rank {} out of range ({} GPUs)", rank, nics_.size()));
  return nics_[rank];
}

std::uint32_t Topology::rank_of_node(NodeId id) const {
  LOOM_ASSERT(id < rank_of_.size(), fmt::format("node id {} out of range", id));
  return rank_of_[id];
}

const Node& Topology::node(NodeId id) const {
  LOOM_ASSERT(id < nodes_.size(),
              fmt::format("node id {} out of range ({} nodes)", id, nodes_.size()));
  return nodes_[id];
}

const Link& Topology::link(LinkId id) const {
  LOOM_ASSERT(id < links_.size(),
              fmt::format("link id {} out of range ({} links)", id, links_.size()));
  return links_[id];
}

std::span<const LinkId> Topology::out_links(NodeId id) const {
  LOOM_ASSERT(id < adjacency_.size(), fmt::format("node id {} out of range", id));
  const Adjacency& slice = adjacency_[id];
  return {adjacency_pool_.data() + slice.offset, slice.size};
}

std::optional<NodeId> Topology::find(std::string_view name) const {
  const std::uint32_t id =
      names_.find(name, [this](std::uint32_t i) -> std::string_view { return nodes_[i].name; });
  if (id == NameIndex::kMissing) return std::nullopt;
  return id;
}

}  // namespace loom::topology
