// Import of InfraGraph infrastructure YAML (Keysight/infragraph schema 2.x; shared/FACTS.md
// §3): devices made of components, instances of devices, links with physical properties, and
// edges with endpoint slices and schemes.
//
// Mapping onto Loom's model:
//  - an instance of a device with `xpu` components is a host (hosts numbered in instance
//    order); its xpu, nic and switch components become GPUs, NICs (rail = component index) and
//    scale-up switches named by InfraGraph's fully qualified form `<instance>.<i>.<comp>.<j>`;
//    cpu, memory, custom and port components are not modelled and edges touching them are
//    dropped. GPU j uses NIC j * nics / gpus.
//  - an instance of any other device is a fabric switch per index, named `<instance>.<i>`;
//    every component of it (its ports) is that switch, and its port count becomes the switch's
//    port count. Switch tiers are hop distances from the switches next to hosts.
//  - edges: endpoints `{instance: "server[0:2]", component: "nic[1]"}` (no index: all; [i];
//    or [a:b], b exclusive) expand instance-major; scheme one2one pairs them in order,
//    many2many joins every pair but an endpoint with itself, ring joins consecutive ep1
//    endpoints and closes the ring; a one2one pair of an endpoint with itself is an error.
//  - a link's bandwidth comes from physical.bandwidth (gigabits_per_second or
//    gigabytes_per_second) and latency from physical.latency (ms, us or ns); a link without
//    them gets `default_bandwidth` and zero latency.
// Errors are UserErrors located in the file (unknown device, slice out of range, one2one
// endpoints of different lengths or an endpoint joined to itself, a link name that is not
// defined, a bandwidth or latency that is not a positive number).
#pragma once

#include <string>
#include <string_view>

#include "loom/config/reader.h"
#include "loom/core/memory_budget.h"
#include "loom/core/units.h"
#include "loom/topology/topology.h"

namespace loom::topology {

// `budget` bounds the endpoints an instance count may ask for (refused before they are built).
Topology read_infragraph(config::Reader root, Bandwidth default_bandwidth = Bandwidth::gbps(400),
                         const MemoryBudget& budget = MemoryBudget::of_machine());
Topology parse_infragraph(std::string_view text, std::string source_name,
                          Bandwidth default_bandwidth = Bandwidth::gbps(400));

}  // namespace loom::topology
