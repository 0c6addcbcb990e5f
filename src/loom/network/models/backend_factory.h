// The one place a network model is built from its mode and parameters: every driver (an
// experiment, `loom collective explain --topology`, `loom hpcc`, benchmarks) asks here instead
// of naming a backend class.
#pragma once

#include <cstdint>
#include <memory>

#include "loom/core/simulator.h"
#include "loom/network/backend.h"
#include "loom/network/flow/flow_params.h"
#include "loom/network/network_mode.h"
#include "loom/network/packet/packet_params.h"
#include "loom/topology/routing.h"

namespace loom::network {

namespace packet {
class PacketBackend;
namespace parallel {
class RankExchange;
}
}  // namespace packet

// The parameters of every mode; a backend reads only its own.
struct NetworkParams {
  NetworkMode mode = NetworkMode::kAnalytical;
  flow::FlowParams flow;
  packet::PacketParams packet;
};

// A backend of params.mode over `topology` and `routing` (which, with the simulator, must
// outlive it). Throws UserError for invalid parameters of that mode. With `ranks` (MPI ranks,
// parallel/rank_sync.h), a windowed packet run whose LPs this process shares with the others
// (PacketBackend::use_windows); UserError for any other run.
std::unique_ptr<Backend> make_backend(Simulator& simulator, const topology::Topology& topology,
                                      const topology::Routing& routing, const NetworkParams& params,
                                      packet::parallel::RankExchange* ranks = nullptr);

// UserError, naming the key, unless a run with these parameters can be split over `ranks` MPI
// ranks: packet mode, windowed (network.packet.lp_delay_threshold > 0), one thread per rank,
// no monitors (they sample every port, which each rank holds only in part), no fast-forward
// (a skip moves a partition's state, which each rank holds only in part), at least as many
// LPs as ranks.
void check_rank_run(const NetworkParams& params, const topology::Topology& topology, std::uint32_t ranks);

// The packet model, as make_backend builds it for NetworkMode::kPacket, for drivers of that
// model's own interface (queue pairs of their own: `loom hpcc`).
std::unique_ptr<packet::PacketBackend> make_packet_backend(Simulator& simulator, const topology::Topology& topology,
                                                           const topology::Routing& routing,
                                                           const packet::PacketParams& params);

}  // namespace loom::network
