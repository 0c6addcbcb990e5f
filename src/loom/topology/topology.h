// The cluster graph: GPUs, NICs, scale-up switches and fabric switches joined by links.
//
// Every cable is full duplex and stored as two directed links, each with its own id; a link
// knows its reverse. Nodes and links live in flat arrays indexed by 32-bit ids, in the order
// they were added. GPUs are the ranks of the simulation: rank r is the r-th GPU added.
//
// Naming follows InfraGraph's fully qualified form `<instance>.<index>.<component>.<index>`:
// "host.3.gpu.5", "host.3.nic.5", "host.3.nvswitch.0"; fabric switches are "leaf.2",
// "spine.0", "switch.0". Names are unique; find() looks one up in O(1).
//
// Construction checks what it can see locally and throws loom::UserError at once (an empty or
// duplicate name, a GPU without a host index, a self-loop, a zero bandwidth, a negative
// latency, a NIC attached to a GPU of another host), so loaders can attach a file location.
// validate() checks the properties of the whole graph (see there).
//
// Memory: 56 bytes per node (plus its name when longer than 15 characters), 32 bytes per
// directed link and at most 16 bytes of adjacency per directed link (or per node, for nodes
// with fewer than 4 links).
// Ids out of range are Loom bugs (LOOM_ASSERT). Not thread-safe while being built;
// concurrent const access is safe.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "loom/core/time.h"
#include "loom/core/units.h"
#include "loom/topology/name_index.h"

namespace loom::topology {

using NodeId = std::uint32_t;
using LinkId = std::uint32_t;
// "No such node, link, host or rank".
inline constexpr std::uint32_t kNone = 0xffffffffu;
// "No rail" for Node::rail.
inline constexpr std::uint16_t kNoRail = 0xffffu;

enum class NodeKind : std::uint8_t {
  kGpu,            // an endpoint: originates and sinks traffic, never forwards it
  kNic,            // scale-out network interface of a host; forwards between GPU and fabric
  kScaleUpSwitch,  // NVSwitch-like switch inside a host (or a scale-up domain)
  kSwitch,         // a fabric switch (leaf/ToR, spine, ...)
};
// "gpu", "nic", "scale_up_switch", "switch".
std::string_view to_string(NodeKind kind);
// Only GPUs are endpoints; every other kind forwards.
constexpr bool forwards(NodeKind kind) { return kind != NodeKind::kGpu; }

struct Node {
  NodeKind kind = NodeKind::kGpu;
  // Host index for GPUs, NICs and scale-up switches; kNone for fabric switches.
  std::uint32_t host = kNone;
  // Fabric switches: 0 = leaf/ToR, 1 = spine, ...; 0 for every other kind.
  std::uint16_t tier = 0;
  // Per-packet latency through this node when it forwards; zero for GPUs.
  Time forwarding_latency;
  // Fully qualified, unique name.
  std::string name;
  // NICs: the rail (the GPU position within the host the NIC serves); kNoRail if unknown.
  std::uint16_t rail = kNoRail;
  // Switches: number of ports, i.e. the most cables the switch may have; 0 = unlimited.
  std::uint16_t ports = 0;
};

// One direction of a full-duplex cable.
struct Link {
  NodeId src = kNone;
  NodeId dst = kNone;
  Bandwidth bandwidth;     // bits per second in this direction, > 0
  Time latency;            // propagation (and PHY) delay, >= 0
  LinkId reverse = kNone;  // the other direction of the same cable
  float error_rate = 0;    // probability that a packet is corrupted on this link, in [0, 1)
};

class Topology {
 public:
  // Adds a node and returns its id (ids count up from 0). A GPU also becomes the next rank.
  // Throws UserError on an empty or duplicate name, a GPU/NIC/scale-up switch without a host
  // index, a negative forwarding latency, or a GPU with a non-zero forwarding latency.
  NodeId add_node(NodeKind kind, std::string name, std::uint32_t host = kNone,
                  std::uint16_t tier = 0, Time forwarding_latency = {});
  // Adds a full-duplex cable as two directed links with consecutive ids and returns the id of
  // a->b; b->a is its reverse. Throws UserError on a == b, zero bandwidth, negative latency or
  // an error rate outside [0, 1).
  LinkId add_duplex_link(NodeId a, NodeId b, Bandwidth bandwidth, Time latency,
                         double error_rate = 0);
  // Declares `nic` as the NIC GPU `rank` uses for scale-out traffic (replacing an earlier
  // one). Throws UserError if rank >= gpu_count(), `nic` is not a NIC, or it sits on another
  // host.
  void attach_nic(std::uint32_t rank, NodeId nic);
  // Records the rail of a NIC (see Node::rail). Throws UserError if `nic` is not a NIC.
  void set_rail(NodeId nic, std::uint16_t rail);
  // Records the port count of a switch (see Node::ports; validate() checks it). Throws
  // UserError if `node` is a GPU or a NIC.
  void set_ports(NodeId node, std::uint16_t ports);

  // Rank queries, all O(1). Ranks are 0..gpu_count()-1 in the order GPUs were added.
  std::uint32_t gpu_count() const { return static_cast<std::uint32_t>(gpus_.size()); }
  NodeId gpu_node(std::uint32_t rank) const;
  std::uint32_t host_of_rank(std::uint32_t rank) const;
  NodeId nic_of_rank(std::uint32_t rank) const;  // kNone if none attached
  std::uint32_t rank_of_node(NodeId id) const;   // kNone unless the node is a GPU
  // 1 + the largest host index of any node (0 without hosts); validate() checks there are
  // no gaps.
  std::uint32_t host_count() const { return host_count_; }

  std::uint32_t node_count() const { return static_cast<std::uint32_t>(nodes_.size()); }
  // Directed links: twice the number of cables.
  std::uint32_t link_count() const { return static_cast<std::uint32_t>(links_.size()); }
  const Node& node(NodeId id) const;
  const Link& link(LinkId id) const;
  // Links leaving `id`, in the order they were added. The span is invalidated by the next
  // add_duplex_link.
  std::span<const LinkId> out_links(NodeId id) const;
  // The node with this exact name, O(1) expected.
  std::optional<NodeId> find(std::string_view name) const;

  // Checks the whole graph and throws UserError naming the first problem:
  //  - there is no GPU;
  //  - a host index between 0 and host_count()-1 has no GPU;
  //  - with more than one host, a GPU has no NIC attached;
  //  - a switch with a port count has more cables than ports;
  //  - two GPUs cannot reach each other. GPUs never forward, so GPUs a and b are connected
  //    when a link joins them directly or some path joins them through non-GPU nodes only.
  // Cost O(nodes + links) when one group of connected forwarding nodes touches every GPU (the
  // case for every blueprint), else up to O(GPUs x (nodes + links)).
  void validate() const;

 private:
  struct Adjacency {
    std::uint32_t offset = 0;
    std::uint32_t size = 0;
    std::uint32_t capacity = 0;
  };
  void append_out_link(NodeId node, LinkId link);
  void check_host_indices() const;
  void check_nics() const;
  void check_ports() const;
  void check_gpu_connectivity() const;

  std::vector<Node> nodes_;
  std::vector<Link> links_;
  // Per node a slice of adjacency_pool_; a full slice moves to the end with twice the room,
  // so appending is amortised O(1) and the pool stays below 4x the link count plus 4 per node.
  std::vector<Adjacency> adjacency_;
  std::vector<LinkId> adjacency_pool_;
  std::vector<NodeId> gpus_;            // rank -> GPU node
  std::vector<NodeId> nics_;            // rank -> NIC node or kNone
  std::vector<std::uint32_t> rank_of_;  // node -> rank or kNone
  std::uint32_t host_count_ = 0;
  NameIndex names_;
};

}  // namespace loom::topology
