// The switch memory-management unit: a shared buffer per forwarding node with ingress
// accounting, PFC thresholds, headroom and hysteresis (the Broadcom-style model of HPCC's and
// SimAI's ns-3).
//
// Accounting is per ingress link (the link a packet arrived on) for the data priority; the
// control priority (ACK/NACK) bypasses it. Each ingress queue owns `reserve` bytes, then draws
// on the node's shared pool, then on its port's headroom (3 link BDPs by default). With
//   free = buffer - sum of headroom - sum of reserve - shared bytes in use,
// the PFC threshold of an ingress port is free >> shift (dynamic; shift = alpha_shift at the
// NIC speed, one less per doubling of the port's speed) or the static threshold.
//  - admit: a packet is dropped when it fits neither the remaining headroom nor the threshold;
//    without PFC, when the buffer minus reserves is full.
//  - pause: PFC on, not yet paused, and headroom in use or shared use >= threshold.
//  - resume: paused, headroom empty, and shared use == 0 or shared use + resume_offset <=
//    threshold.
// Memory: 32 bytes per link and 56 per node. Operations O(1) but take_resumable.
#pragma once

#include <cstdint>
#include <vector>

#include "loom/network/packet/packet_params.h"
#include "loom/topology/topology.h"

namespace loom::network::packet {

class SharedBuffer {
 public:
  // `nic_rate` anchors the dynamic-threshold shift.
  SharedBuffer(const topology::Topology& topology, const SwitchParams& params, Bandwidth nic_rate);

  // Accounts `bytes` arriving on `in_link` (whose destination forwards); false (nothing
  // accounted) when the packet must be dropped.
  bool admit(topology::LinkId in_link, std::uint32_t bytes);
  // Returns bytes admitted on `in_link` when they leave the switch.
  void release(topology::LinkId in_link, std::uint32_t bytes);
  // True (and the ingress marked paused) if a PAUSE must go upstream on `in_link`.
  bool take_pause(topology::LinkId in_link);
  // True (and the ingress marked running) if a RESUME must go upstream on `in_link`.
  bool take_resume(topology::LinkId in_link);
  // After bytes left `node`: every paused ingress of `node` that may resume now (the threshold
  // grows for all of them, including ports with nothing left to send) is marked running and
  // appended to `out`. O(paused ingress ports of the node).
  void take_resumable(topology::NodeId node, std::vector<topology::LinkId>& out);

  std::uint64_t threshold(topology::LinkId in_link) const;
  std::uint64_t shared_used(topology::LinkId in_link) const;
  std::uint64_t headroom_used(topology::LinkId in_link) const { return ports_[in_link].headroom_used; }
  std::uint64_t node_shared_used(topology::NodeId node) const { return nodes_[node].shared_used; }
  bool paused(topology::LinkId in_link) const { return ports_[in_link].paused; }
  bool any_paused(topology::NodeId node) const { return !paused_[node].empty(); }
  std::size_t memory_bytes() const;

 private:
  struct Port {
    std::uint64_t ingress = 0;        // bytes admitted outside headroom (reserve + shared)
    std::uint64_t headroom_used = 0;
    std::uint32_t headroom = 0;       // capacity
    std::uint32_t node = 0;           // the switch the link enters
    std::uint8_t shift = 0;
    bool paused = false;
  };
  struct Node {
    std::uint64_t buffer = 0;
    std::uint64_t fixed = 0;          // sum of headroom and reserve of its ingress ports
    std::uint64_t shared_used = 0;
  };

  SwitchParams params_;
  std::vector<Port> ports_;  // by link id (ingress at the link's destination)
  std::vector<Node> nodes_;
  std::vector<std::vector<topology::LinkId>> paused_;  // by node: its paused ingress links
};

}  // namespace loom::network::packet
