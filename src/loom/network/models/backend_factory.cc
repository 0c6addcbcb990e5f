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
        // The runtime is told of completions between windows (packet_backend.h, "Windowed").
        std::unique_ptr<packet::PacketBackend> backend = make_packet_backend(simulator, topology, routing, params.packet);
        backend->use_windows();
        return backend;
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
