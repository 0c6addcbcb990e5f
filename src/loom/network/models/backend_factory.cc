#include "loom/network/models/backend_factory.h"

#include "loom/core/error.h"
#include "loom/network/analytical.h"
#include "loom/network/flow/flow_backend.h"
#include "loom/network/packet/packet_backend.h"

namespace loom::network {

std::unique_ptr<Backend> make_backend(Simulator& simulator, const topology::Topology& topology,
                                      const topology::Routing& routing, const NetworkParams& params) {
  switch (params.mode) {
    case NetworkMode::kFlow:
      return std::make_unique<flow::FlowBackend>(simulator, topology, routing, params.flow);
    case NetworkMode::kPacket:
      if (params.packet.lp_delay_threshold > Time::zero()) {
        // The runtime reacts to a completion at once, from inside a logical process's event.
        throw UserError("network.packet.lp_delay_threshold = " + to_string(params.packet.lp_delay_threshold) +
                        ": windowed execution runs drivers with a fixed list of flows (`loom hpcc`) only; "
                        "loom run starts transfers as others complete, so expected 0s here");
      }
      return make_packet_backend(simulator, topology, routing, params.packet);
    case NetworkMode::kAnalytical:
      break;
  }
  return std::make_unique<AnalyticalBackend>(simulator, topology, routing);
}

std::unique_ptr<packet::PacketBackend> make_packet_backend(Simulator& simulator, const topology::Topology& topology,
                                                           const topology::Routing& routing,
                                                           const packet::PacketParams& params) {
  return std::make_unique<packet::PacketBackend>(simulator, topology, routing, params);
}

}  // namespace loom::network
