// Reading the experiment file's `network:` section: the fidelity and its parameters, PXN, and
// cables that go down or come back during the run.
//
//   mode: analytical | flow | packet
//   pxn: false
//   flow: {...}     flow mode only (network/flow/flow_params.h: visit_parameters)
//   packet: {...}   packet mode only (network/packet/packet_params.h: visit_parameters);
//                   `profile: simai` starts from SimAI's settings (its shipped SimAI.conf, or
//                   the file `simai_conf` names) before the keys given here override them
//   link_changes: [{at: 40us, between: [leaf.0, spine.1], state: down}, ...]
//                   a cable (both directions) goes down or up at `at`; `cable: k` picks the
//                   k-th of several parallel cables between the two nodes (default 0)
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "loom/config/reader.h"
#include "loom/network/models/backend_factory.h"
#include "loom/topology/topology.h"

namespace loom::experiment {

struct LinkChange {
  Time at;
  topology::LinkId link = 0;  // the cable's first direction
  bool up = false;
};

struct NetworkSection {
  network::NetworkParams params;
  bool pxn = false;  // relay cross-rail transfers through the rail-aligned GPU (network/pxn_relay.h)
  std::vector<LinkChange> link_changes;  // in file order
  std::vector<std::string> warnings;     // e.g. a profile's keys that have no effect here
};

// `seed` seeds the packet backend's random streams; a profile file is relative to `base_dir`;
// `mode` is read with `default_mode` as its default.
NetworkSection read_network(config::Reader section, const topology::Topology& topology, std::uint64_t seed,
                            const std::filesystem::path& base_dir,
                            network::NetworkMode default_mode = network::NetworkMode::kAnalytical);

// The parameter keys of each mode's section, for `loom list` (network.flow.*, network.packet.*).
std::vector<ParamEntry> network_parameter_catalog(network::NetworkMode mode);

}  // namespace loom::experiment
