// Loom topology YAML: a topology as a blueprint with parameters, or as explicit nodes and
// links.
//
//   format: loom-topology            # optional marker
//   blueprint: clos                  # blueprint form: a name from `loom topo list` ...
//   hosts: 4096                      # ... and any of its parameters (the rest keep defaults)
//
//   format: loom-topology            # explicit form
//   nodes:
//     - {name: host.0.gpu.0, kind: gpu, host: 0, nic: host.0.nic.0}
//     - {name: host.0.nic.0, kind: nic, host: 0, latency: 300ns, rail: 0}
//     - {name: leaf.0, kind: switch, tier: 0, latency: 300ns, ports: 64}
//   links:
//     - {a: host.0.gpu.0, b: host.0.nic.0, bandwidth: 512Gbps, latency: 250ns}
//
// Node keys: name, kind (gpu | nic | scale_up_switch | switch), host (required except for
// switches), tier (default 0), latency (forwarding latency, default 0), rail (NICs), ports
// (switches; 0 = unlimited), nic (GPUs: the NIC it uses for scale-out traffic). Link keys: a,
// b (node names), bandwidth, latency (default 0), error_rate (default 0). Every link is a
// full-duplex cable. Errors are located at the offending entry: unknown keys, a link to an
// undeclared node (dangling link), duplicate names, bad units; the whole graph is then
// checked with Topology::validate().
#pragma once

#include <ostream>
#include <string>
#include <string_view>

#include "loom/config/reader.h"
#include "loom/topology/parameters.h"
#include "loom/topology/topology.h"

namespace loom::topology {

// Reads either form from the top-level map of a document. Throws located UserErrors.
Topology read_topology_yaml(config::Reader root);
Topology parse_topology_yaml(std::string_view text, std::string source_name);

// Writes the explicit form: every node and cable. Reads back to an equal topology.
void write_topology_yaml(const Topology& topology, std::ostream& out);
// Writes the blueprint form: the name and every parameter in `effective` (see
// effective_parameters in blueprint_catalog.h), in catalog order.
void write_blueprint_yaml(std::string_view blueprint, const ParameterRecorder& effective,
                          std::ostream& out);

}  // namespace loom::topology
