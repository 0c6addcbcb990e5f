#include "loom/topology/fabric_builder.h"

#include "loom/topology/blueprints.h"
#include "loom/topology/parameter_checks.h"

namespace loom::topology {

void check_hosts(std::uint32_t hosts, const HostParams& host) {
  check_host_params(host);
  require_in_range("hosts", hosts, 1, kMaxBlueprintGpus / host.gpus_per_host);
}

std::vector<HostNodes> add_hosts(Topology& topology, std::uint32_t count, const HostParams& host) {
  std::vector<HostNodes> hosts(count);
  for (std::uint32_t h = 0; h < count; ++h) hosts[h] = add_host(topology, host, h);
  return hosts;
}

NodeId add_switches(Topology& topology, std::string_view prefix, std::uint32_t count,
                    std::uint16_t tier, Time latency, std::uint32_t ports) {
  const NodeId first = topology.node_count();
  for (std::uint32_t i = 0; i < count; ++i) {
    const NodeId id =
        topology.add_node(NodeKind::kSwitch, fmt::format("{}.{}", prefix, i), kNone, tier, latency);
    if (ports != 0) topology.set_ports(id, static_cast<std::uint16_t>(std::min(ports, 65535u)));
  }
  return first;
}

void cable_nic(Topology& topology, const HostNodes& host, const HostParams& params,
               std::uint32_t nic, NodeId fabric_switch, Time latency) {
  topology.add_duplex_link(host.first_nic + nic, fabric_switch, params.nic_bandwidth, latency);
}

void cable_nics(Topology& topology, const HostNodes& host, const HostParams& params,
                NodeId fabric_switch, Time latency) {
  for (std::uint32_t j = 0; j < params.nic_count(); ++j) {
    cable_nic(topology, host, params, j, fabric_switch, latency);
  }
}

}  // namespace loom::topology
