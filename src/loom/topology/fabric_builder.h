// Helpers the blueprint generators share: parameter-error prefixes, hosts, switch rows and
// NIC cabling. Internal to loom::topology.
#pragma once

#include <fmt/format.h>

#include <cstdint>
#include <string_view>
#include <vector>

#include "loom/core/error.h"
#include "loom/topology/host_template.h"
#include "loom/topology/topology.h"

namespace loom::topology {

// Runs `checks`, prefixing any UserError with "<blueprint> blueprint: ".
template <class Checks>
void check_blueprint(std::string_view blueprint, const Checks& checks) {
  try {
    checks();
  } catch (const UserError& e) {
    throw UserError(fmt::format("{} blueprint: {}", blueprint, e.message()));
  }
}

// Checks the host template and 1 <= hosts <= kMaxBlueprintGpus / gpus_per_host.
void check_hosts(std::uint32_t hosts, const HostParams& host);

// Adds hosts 0..count-1 and returns their node ids.
std::vector<HostNodes> add_hosts(Topology& topology, std::uint32_t count, const HostParams& host);

// Adds `count` fabric switches "<prefix>.<i>" (i from 0) at `tier` and returns the first id;
// the others follow consecutively. `ports` 0 leaves the port count unlimited.
NodeId add_switches(Topology& topology, std::string_view prefix, std::uint32_t count,
                    std::uint16_t tier, Time latency, std::uint32_t ports = 0);

// Cables NIC j of `host` (j = 0..nic_count()-1) to `fabric_switch` at the NIC's port speed.
void cable_nic(Topology& topology, const HostNodes& host, const HostParams& params,
               std::uint32_t nic, NodeId fabric_switch, Time latency);
void cable_nics(Topology& topology, const HostNodes& host, const HostParams& params,
                NodeId fabric_switch, Time latency);

}  // namespace loom::topology
