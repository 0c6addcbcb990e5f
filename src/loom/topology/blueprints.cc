#include "loom/topology/blueprints.h"

#include <fmt/format.h>

#include <vector>

#include "loom/core/error.h"
#include "loom/topology/fabric_builder.h"
#include "loom/topology/parameter_checks.h"

namespace loom::topology {

namespace {

constexpr std::uint32_t kMaxSpines = 65536;
constexpr std::uint32_t kMaxHostsPerLeaf = 65536;
constexpr std::uint32_t kMaxLinksPerPair = 64;
constexpr std::uint64_t kMaxSpineCables = std::uint64_t{1} << 24;

void check(const SingleSwitchParams& p) {
  check_blueprint("single-switch", [&] {
    check_hosts(p.hosts, p.host);
    require_non_negative("link_latency", p.link_latency);
    require_non_negative("switch_latency", p.switch_latency);
  });
}

void check(const LeafSpineParams& p) {
  check_blueprint("leaf-spine", [&] {
    check_hosts(p.hosts, p.host);
    require_in_range("hosts_per_leaf", p.hosts_per_leaf, 1, kMaxHostsPerLeaf);
    require_in_range("spines", p.spines, 1, kMaxSpines);
    require_in_range("links_per_pair", p.links_per_pair, 1, kMaxLinksPerPair);
    require_positive("spine_link_bandwidth", p.spine_link_bandwidth);
    require_non_negative("link_latency", p.link_latency);
    require_non_negative("switch_latency", p.switch_latency);
    const std::uint64_t cables = std::uint64_t{leaf_count(p)} * p.spines * p.links_per_pair;
    if (cables > kMaxSpineCables) {
      throw UserError(
          fmt::format("leaves x spines x links_per_pair = {} x {} x {} = {} "
                      "leaf-spine cables: expected at most {}",
                      leaf_count(p), p.spines, p.links_per_pair, cables, kMaxSpineCables));
    }
  });
}

}  // namespace

Topology make_single_switch(const SingleSwitchParams& params) {
  check(params);
  Topology topology;
  const std::vector<HostNodes> hosts = add_hosts(topology, params.hosts, params.host);
  const NodeId fabric = add_switches(topology, "switch", 1, 0, params.switch_latency);
  for (const HostNodes& host : hosts) {
    cable_nics(topology, host, params.host, fabric, params.link_latency);
  }
  return topology;
}

std::uint32_t leaf_count(const LeafSpineParams& params) {
  LOOM_ASSERT(params.hosts_per_leaf > 0, "leaf_count needs hosts_per_leaf >= 1");
  return (params.hosts + params.hosts_per_leaf - 1) / params.hosts_per_leaf;
}

double oversubscription(const LeafSpineParams& params) {
  check(params);
  const double down = static_cast<double>(params.hosts_per_leaf) * params.host.nic_count() *
                      static_cast<double>(params.host.nic_bandwidth.bps());
  const double up = static_cast<double>(params.spines) * params.links_per_pair *
                    static_cast<double>(params.spine_link_bandwidth.bps());
  return down / up;
}

Topology make_leaf_spine(const LeafSpineParams& params) {
  check(params);
  Topology topology;
  const std::vector<HostNodes> hosts = add_hosts(topology, params.hosts, params.host);
  const std::uint32_t leaves = leaf_count(params);
  const NodeId first_leaf = add_switches(topology, "leaf", leaves, 0, params.switch_latency);
  const NodeId first_spine =
      add_switches(topology, "spine", params.spines, 1, params.switch_latency);
  for (std::uint32_t h = 0; h < params.hosts; ++h) {
    cable_nics(topology, hosts[h], params.host, first_leaf + h / params.hosts_per_leaf,
               params.link_latency);
  }
  for (std::uint32_t i = 0; i < leaves; ++i) {
    for (std::uint32_t j = 0; j < params.spines; ++j) {
      for (std::uint32_t k = 0; k < params.links_per_pair; ++k) {
        topology.add_duplex_link(first_leaf + i, first_spine + j, params.spine_link_bandwidth,
                                 params.link_latency);
      }
    }
  }
  return topology;
}

}  // namespace loom::topology
