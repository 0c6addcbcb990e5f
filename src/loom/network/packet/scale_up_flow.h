// Scale-up traffic at flow level beside the packet fabric, as SimAI does: transfers between two
// GPUs of one host (NVLink / NVSwitch, the host's own links) run on a flow-level FlowBackend
// (network/flow: max-min fair sharing, no packets), everything else stays on the packets.
// The two never share a link: Routing keeps a transfer between GPUs of one host inside the host
// when the host's links join them, and never routes other traffic through a host's scale-up
// switches (topology/routing.h), so the split changes no contention.
//
// PacketBackend owns one when PacketParams::scale_up_flow is set. Cost per transfer: one host
// comparison, plus one route for transfers within a host, then the chosen backend's.
#pragma once

#include <vector>

#include "loom/network/backend.h"
#include "loom/network/flow/flow_backend.h"
#include "loom/topology/routing.h"

namespace loom::network::packet {

class ScaleUpFlow {
 public:
  ScaleUpFlow(Simulator& simulator, const topology::Topology& topology, const topology::Routing& routing);

  // True when src and dst (GPUs, or a GPU and its host's NVSwitch: NVLS) are nodes of one host
  // that the host's own links join.
  bool handles(const TransferRequest& request) const;
  void start(const TransferRequest& request, CompletionHandler& handler, std::uint64_t cookie) {
    flow_.start(request, handler, cookie);
  }
  Time ideal_time(const TransferRequest& request) const { return flow_.ideal_time(request); }
  // The flow model's link `link` carries `rate` from now on (FlowBackend::set_link_rate).
  void set_link_rate(topology::LinkId link, Bandwidth rate) { flow_.set_link_rate(link, rate); }
  std::size_t active_transfers() const { return flow_.active_transfers(); }

 private:
  const topology::Topology& topology_;
  const topology::Routing& routing_;
  flow::FlowBackend flow_;
  mutable std::vector<topology::LinkId> path_;  // scratch
};

}  // namespace loom::network::packet
