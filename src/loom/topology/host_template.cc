#include "loom/topology/host_template.h"

#include <fmt/format.h>

#include "loom/core/error.h"
#include "loom/topology/parameter_checks.h"

namespace loom::topology {

void check_host_params(const HostParams& params) {
  require_in_range("host.gpus_per_host", params.gpus_per_host, 1, kMaxGpusPerHost);
  require_positive("host.nvlink_bandwidth", params.nvlink_bandwidth);
  require_non_negative("host.nvlink_latency", params.nvlink_latency);
  require_non_negative("host.nvswitch_latency", params.nvswitch_latency);
  require_positive("host.pcie_bandwidth", params.pcie_bandwidth);
  require_non_negative("host.pcie_latency", params.pcie_latency);
  require_positive("host.nic_bandwidth", params.nic_bandwidth);
  require_non_negative("host.nic_latency", params.nic_latency);
}

HostNodes add_host(Topology& topology, const HostParams& params, std::uint32_t host) {
  const std::uint32_t gpus = params.gpus_per_host;
  HostNodes nodes;
  for (std::uint32_t i = 0; i < gpus; ++i) {
    const NodeId gpu =
        topology.add_node(NodeKind::kGpu, fmt::format("host.{}.gpu.{}", host, i), host);
    if (i == 0) nodes.first_gpu = gpu;
  }
  if (gpus > 1) {
    nodes.scale_up_switch =
        topology.add_node(NodeKind::kScaleUpSwitch, fmt::format("host.{}.nvswitch.0", host), host,
                          0, params.nvswitch_latency);
    for (std::uint32_t i = 0; i < gpus; ++i) {
      topology.add_duplex_link(nodes.first_gpu + i, nodes.scale_up_switch, params.nvlink_bandwidth,
                               params.nvlink_latency);
    }
  }
  const std::uint32_t first_rank = topology.rank_of_node(nodes.first_gpu);
  for (std::uint32_t i = 0; i < gpus; ++i) {
    const NodeId nic = topology.add_node(NodeKind::kNic, fmt::format("host.{}.nic.{}", host, i),
                                         host, 0, params.nic_latency);
    if (i == 0) nodes.first_nic = nic;
    topology.add_duplex_link(nodes.first_gpu + i, nic, params.pcie_bandwidth, params.pcie_latency);
    topology.attach_nic(first_rank + i, nic);
  }
  return nodes;
}

}  // namespace loom::topology
