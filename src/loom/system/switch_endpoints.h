// Where in-switch collectives reduce on a topology: the NVSwitch chips NVLS uses per host, and
// the fabric switches an in-network (SHARP-like) reduction climbs. The runtime maps a
// collective's switch endpoints (collective.h, "Endpoints") onto these nodes; `loom collective
// explain --topology` asks the same questions to know whether NVLS is possible.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "loom/collective/group_layout.h"
#include "loom/collective/switch_tree.h"
#include "loom/topology/topology.h"

namespace loom::system {

// NVLS: per host of the layout, the scale-up switches every member GPU of that host is cabled
// to (ascending node ids; a DGX has one NVSwitch node, an imported HGX may list several chips).
// Sets `problem` when a host with two or more members has none.
std::vector<std::vector<topology::NodeId>> shared_scale_up_switches(const topology::Topology& topology,
                                                                    const std::vector<std::uint32_t>& ranks,
                                                                    const collective::GroupLayout& layout,
                                                                    std::string& problem);

// In-network: the aggregation tree over fabric switches. Each member's leaf is the first fabric
// switch its NIC is cabled to; every switch's parent is its first neighbour one hop closer (a
// breadth-first search over fabric switches) to the root, the lowest-numbered switch of the
// highest tier; then the top is cut down while the root has a single child switch and no
// member. Sets `problem` when a member has no NIC or fabric switch, or cannot reach the root.
struct AggregationTree {
  std::shared_ptr<const collective::SwitchTree> tree;
  std::vector<topology::NodeId> nodes;  // per tree switch: its topology node
};

AggregationTree aggregation_tree(const topology::Topology& topology, const std::vector<std::uint32_t>& ranks,
                                 std::string& problem);

}  // namespace loom::system
