// The shape of a group of jobs' placement, for NetworkIterationModel's memo: the group's GPUs
// relabelled canonically, so that the same arrangement on other hosts of a symmetric fabric
// meets the same remembered iteration times.
//
// Hosts are numbered in order of first appearance over the members' GPUs (member by member,
// each in rank order), and so are the hosts' leaves and pods; a GPU keeps its index within its
// host (the rail it is on). The key lists, per member, (host number, GPU index) of each rank,
// then per host number its leaf number, pod number and structural class (topology/
// node_classes.h, of its GPUs). Two placements with one key put every rank on an equally built
// host, with the same hosts, leaves and pods shared between the same ranks.
//
// On a fabric whose routes offer no choice this gives the same iteration times; where ECMP
// chooses among paths, the flows of an equivalent placement hash onto other (equally many)
// paths, so a shape hit stands for one draw of the collisions, as simulating either placement
// would. The caller keys by exact GPUs instead while any cable is down.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "loom/cluster/machines.h"
#include "loom/topology/topology.h"

namespace loom::experiment {

class PlacementShapes {
 public:
  // `rank_of_gpu`: cluster GPU -> topology rank (the hosts of `machines` are the topology's).
  PlacementShapes(const topology::Topology& topology, const cluster::Machines& machines,
                  std::span<const std::uint32_t> rank_of_gpu);

  // Appends the shape of `members` (each a job's cluster GPUs in rank order) to `key`.
  void append_key(std::span<const std::span<const std::uint32_t>> members, std::string& key) const;

 private:
  const cluster::Machines& machines_;
  std::vector<std::uint64_t> host_class_;  // per host, from its GPUs' node classes
};

}  // namespace loom::experiment
