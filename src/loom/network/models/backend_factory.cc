#include "loom/network/models/backend_factory.h"

#include <fmt/format.h>

#include "loom/core/error.h"
#include "loom/network/analytical.h"
#include "loom/network/flow/flow_backend.h"
#include "loom/network/packet/packet_backend.h"
#include "loom/network/packet/parallel/rank_sync.h"

namespace loom::network {

void check_rank_run(const NetworkParams& params, const topology::Topology& topology, std::uint32_t ranks) {
  const packet::PacketParams& p = params.packet;
  if (params.mode != NetworkMode::kPacket || p.lp_delay_threshold <= Time::zero()) {
    throw UserError(fmt::format("a run over {} MPI ranks: expected network.mode packet with "
                                "network.packet.lp_delay_threshold above zero (windowed LPs, which the ranks share); "
                                "run other experiments as one process", ranks));
  }
  if (p.threads != 1) {
    throw UserError(fmt::format("network.packet.threads {} over {} MPI ranks: each rank runs its LPs on one thread; "
                                "expected 1 (or one process with threads)", p.threads, ranks));
  }
  if (p.monitor.any()) {
    throw UserError("network.packet.monitor over MPI ranks: not supported yet (monitors sample every port, which "
                    "each rank holds only in part); expected every monitor off, or one process");
  }
  if (p.fast_forward.enabled) {
    throw UserError("network.packet.fast_forward.enabled over MPI ranks: not supported yet (a skip moves a "
                    "partition's state and events, which each rank holds only in part); expected false, or one "
                    "process (network.packet.threads runs fast-forward in windows)");
  }
  packet::parallel::check_rank_count(ranks, packet::parallel::partition_for(topology, p.lp_delay_threshold,
                                                                            p.lp_racks, p.lp_groups));
}

std::unique_ptr<Backend> make_backend(Simulator& simulator, const topology::Topology& topology,
                                      const topology::Routing& routing, const NetworkParams& params,
                                      packet::parallel::RankExchange* ranks) {
  if (ranks != nullptr) check_rank_run(params, topology, ranks->size());
  switch (params.mode) {
    case NetworkMode::kFlow:
      return std::make_unique<flow::FlowBackend>(simulator, topology, routing, params.flow);
    case NetworkMode::kPacket:
      if (params.packet.lp_delay_threshold > Time::zero()) {
        // The runtime is told of completions between windows (packet_backend.h, "Windowed").
        std::unique_ptr<packet::PacketBackend> backend = make_packet_backend(simulator, topology, routing, params.packet);
        backend->use_windows(ranks);
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
