#include "loom/network/packet/scale_up_flow.h"

namespace loom::network::packet {

ScaleUpFlow::ScaleUpFlow(Simulator& simulator, const topology::Topology& topology,
                         const topology::Routing& routing)
    : topology_(topology), routing_(routing), flow_(simulator, topology, routing) {}

bool ScaleUpFlow::handles(const TransferRequest& request) const {
  const std::uint32_t host = topology_.node(request.src).host;
  if (host == topology::kNone || host != topology_.node(request.dst).host) return false;
  // Inside one host only when the host's own links join the two (else the route leaves it).
  path_.clear();
  routing_.route(request.src, request.dst, request.flow_hash, path_);
  for (const topology::LinkId l : path_) {
    if (topology_.node(topology_.link(l).dst).host != host) return false;
  }
  return true;
}

}  // namespace loom::network::packet
