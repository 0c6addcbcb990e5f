// Which running jobs can slow each other down: those whose traffic may share a link. Jobs in
// different groups are simulated apart (and remembered apart), which is exact when the rule
// below holds and much cheaper than simulating the whole running set at once.
//
// A cable between a switch and the tier above carries only traffic of hosts below that switch
// leaving it (up) or entering it (down). So two jobs may share a link only when they share a
// host (its NICs and scale-up fabric), or a leaf that both leave (that leaf's uplinks and
// downlinks), or a pod that both leave. Jobs on disjoint leaves of a leaf-spine never share a
// link. The rule is conservative: it may group jobs whose flows happen not to collide.

#pragma once

#include <cstddef>
#include <span>
#include <utility>
#include <vector>

#include "loom/cluster/iteration_model.h"
#include "loom/cluster/machines.h"

namespace loom::cluster {

// The pairs (i < k, ascending) of indices into `jobs` that may share a link.
std::vector<std::pair<std::size_t, std::size_t>> interacting_pairs(const Machines& machines,
                                                                   std::span<const PlacedJob> jobs);
// The connected groups of `pairs` over `count` jobs: each group ascending, groups ordered by
// their first index.
std::vector<std::vector<std::size_t>> groups_of(std::size_t count,
                                                std::span<const std::pair<std::size_t, std::size_t>> pairs);
// groups_of(jobs.size(), interacting_pairs(machines, jobs)).
std::vector<std::vector<std::size_t>> interacting_groups(const Machines& machines, std::span<const PlacedJob> jobs);

}  // namespace loom::cluster
