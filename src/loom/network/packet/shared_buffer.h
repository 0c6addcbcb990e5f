// The switch memory-management unit: a shared buffer per forwarding node with ingress
// accounting, PFC thresholds, headroom and hysteresis (the Broadcom-style model of HPCC's and
// SimAI's ns-3).
//
// Accounting is per ingress queue: the link a packet arrived on and its priority class (the
// fabric keeps the control class out of it). Each ingress queue owns `reserve` bytes, then
// draws on the node's shared pool, then on headroom of its port's size (3 link BDPs by
// default; as in ns-3 every class of the port may fill that much). With
//   free = buffer - sum of headroom - sum of reserve - shared bytes in use
// (headroom and reserve counted once per ingress port, as ns-3's SwitchMmu does),
// the PFC threshold of an ingress port is free >> shift (dynamic; shift = alpha_shift at the
// NIC speed, one less per doubling of the port's speed) or the static threshold.
//  - admit: a packet is dropped when it fits neither the remaining headroom nor the threshold;
//    without PFC, when the buffer minus reserves is full.
//  - pause: PFC on, the queue not yet paused, and its headroom in use or its shared use >=
//    threshold.
//  - resume: paused, its headroom empty, and its shared use == 0 or shared use +
//    resume_offset <= threshold.
// The `priority` arguments (0..queues-1) default to 0, for callers with one class.
// Memory: 12 + 16 x kMaxQueues bytes per link and 56 per node. Operations O(1) but
// take_resumable.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "loom/core/error.h"
#include "loom/network/packet/packet_params.h"
#include "loom/topology/topology.h"

namespace loom::network::packet {

// One ingress queue of a switch: packets of class `priority` that arrived over `link`.
struct IngressQueue {
  topology::LinkId link = 0;
  std::uint32_t priority = 0;
};

class SharedBuffer {
 public:
  // `nic_rate` anchors the dynamic-threshold shift.
  SharedBuffer(const topology::Topology& topology, const SwitchParams& params, Bandwidth nic_rate);

  // Accounts `bytes` of class `priority` arriving on `in_link` (whose destination forwards);
  // false (nothing accounted) when the packet must be dropped.
  bool admit(topology::LinkId in_link, std::uint32_t bytes, std::uint32_t priority = 0);
  // Returns bytes admitted on `in_link` in class `priority` when they leave the switch.
  void release(topology::LinkId in_link, std::uint32_t bytes, std::uint32_t priority = 0);
  // True (and the ingress queue marked paused) if a PAUSE for `priority` must go upstream on
  // `in_link`.
  bool take_pause(topology::LinkId in_link, std::uint32_t priority = 0);
  // True (and the ingress queue marked running) if a RESUME for `priority` must go upstream.
  bool take_resume(topology::LinkId in_link, std::uint32_t priority = 0);
  // After bytes left `node`: every paused ingress queue of `node` that may resume now (the
  // threshold grows for all of them, including queues with nothing left to send) is marked
  // running and appended to `out`. O(paused ingress queues of the node).
  void take_resumable(topology::NodeId node, std::vector<IngressQueue>& out);

  // The PFC threshold of every class of `in_link` (shared bytes per ingress queue).
  std::uint64_t threshold(topology::LinkId in_link) const;
  std::uint64_t shared_used(topology::LinkId in_link, std::uint32_t priority = 0) const;
  std::uint64_t headroom_used(topology::LinkId in_link, std::uint32_t priority = 0) const {
    return queue(in_link, priority).headroom_used;
  }
  std::uint64_t node_shared_used(topology::NodeId node) const { return nodes_[node].shared_used; }
  bool paused(topology::LinkId in_link, std::uint32_t priority = 0) const {
    return ((ports_[in_link].paused >> priority) & 1) != 0;
  }
  bool any_paused(topology::NodeId node) const { return !paused_[node].empty(); }
  std::size_t memory_bytes() const;

 private:
  struct Port {
    std::uint32_t headroom = 0;       // capacity, per class
    std::uint32_t node = 0;           // the switch the link enters
    std::uint8_t shift = 0;
    std::uint8_t paused = 0;          // bit per class
  };
  struct Queue {
    std::uint64_t ingress = 0;        // bytes admitted outside headroom (reserve + shared)
    std::uint64_t headroom_used = 0;
  };
  struct Node {
    std::uint64_t buffer = 0;
    std::uint64_t fixed = 0;          // sum of headroom and reserve of its ingress ports
    std::uint64_t shared_used = 0;
  };

  std::uint64_t shared_of(const Queue& q) const {
    return q.ingress > params_.reserve_bytes ? q.ingress - params_.reserve_bytes : 0;
  }
  // kMaxQueues per link whatever params_.queues: the index is a shift on the hot path.
  Queue& queue(topology::LinkId in_link, std::uint32_t priority) {
    return queues_[std::size_t{in_link} * kMaxQueues + priority];
  }
  const Queue& queue(topology::LinkId in_link, std::uint32_t priority) const {
    return queues_[std::size_t{in_link} * kMaxQueues + priority];
  }

  SwitchParams params_;
  std::vector<Port> ports_;    // by link id (ingress at the link's destination)
  std::vector<Queue> queues_;  // by link id x kMaxQueues + class
  std::vector<Node> nodes_;
  std::vector<std::vector<IngressQueue>> paused_;  // by node: its paused ingress queues
};

// The per-packet operations are inline: a forwarded packet calls admit and take_pause, and
// release as it leaves.
inline std::uint64_t SharedBuffer::threshold(topology::LinkId in_link) const {
  const Port& port = ports_[in_link];
  const Node& node = nodes_[port.node];
  if (!params_.dynamic_threshold) return params_.static_threshold;
  const std::uint64_t free = node.buffer - node.fixed - std::min(node.shared_used, node.buffer - node.fixed);
  return free >> port.shift;
}

inline bool SharedBuffer::admit(topology::LinkId in_link, std::uint32_t bytes, std::uint32_t priority) {
  LOOM_ASSERT(priority < kMaxQueues, "shared buffer: class beyond kMaxQueues");
  const Port& port = ports_[in_link];
  Queue& q = queue(in_link, priority);
  Node& node = nodes_[port.node];
  if (!params_.pfc) {
    const std::uint64_t grown = q.ingress + bytes;
    const std::uint64_t extra = grown > params_.reserve_bytes ? std::min<std::uint64_t>(bytes, grown - params_.reserve_bytes) : 0;
    if (node.shared_used + extra > node.buffer - node.fixed) return false;
    q.ingress = grown;
    node.shared_used += extra;
    return true;
  }
  const std::uint64_t limit = threshold(in_link);
  if (bytes + q.headroom_used > port.headroom && bytes + shared_of(q) > limit) return false;
  const std::uint64_t grown = q.ingress + bytes;
  if (grown <= params_.reserve_bytes) {
    q.ingress = grown;
  } else if (grown - params_.reserve_bytes > limit) {
    q.headroom_used += bytes;
  } else {
    q.ingress = grown;
    node.shared_used += std::min<std::uint64_t>(bytes, grown - params_.reserve_bytes);
  }
  return true;
}

inline void SharedBuffer::release(topology::LinkId in_link, std::uint32_t bytes, std::uint32_t priority) {
  Queue& q = queue(in_link, priority);
  Node& node = nodes_[ports_[in_link].node];
  const std::uint64_t from_headroom = std::min<std::uint64_t>(q.headroom_used, bytes);
  const std::uint64_t rest = bytes - from_headroom;
  const std::uint64_t from_shared = std::min(rest, shared_of(q));
  LOOM_ASSERT(q.ingress >= rest, "shared-buffer accounting underflow");
  q.headroom_used -= from_headroom;
  q.ingress -= rest;
  node.shared_used -= from_shared;
}

inline bool SharedBuffer::take_pause(topology::LinkId in_link, std::uint32_t priority) {
  Port& port = ports_[in_link];
  const auto bit = static_cast<std::uint8_t>(1u << priority);
  if (!params_.pfc || (port.paused & bit) != 0) return false;
  const Queue& q = queue(in_link, priority);
  if (q.headroom_used > 0 || shared_of(q) >= threshold(in_link)) {
    port.paused |= bit;
    paused_[port.node].push_back(IngressQueue{in_link, priority});
    return true;
  }
  return false;
}

}  // namespace loom::network::packet
