// The trees the in-switch algorithms (nvls, nvls-tree, in-network), and tree across hosts,
// reduce up and multicast down, one per channel, over endpoints (members 0..n-1 and switches
// n.., collective.h "Endpoints").
//
// Every endpoint in a tree except the root has one parent; data goes up every edge as a kReduce
// and comes back down every edge as a kCopy (in_switch_execution.h runs them). Shapes, with
// host h's members ordered by local index and S_h = switch endpoint n + h:
//   nvls        every member -> S_0, the root (one host; intra-host links).
//   nvls-tree   per channel c each host has a representative r_h, its member number c % g_h (so
//               each channel leaves a host through a different GPU and NIC). Every other member
//               of host h -> S_h -> r_h (intra-host); a host with one member has no switch in
//               the tree. The representatives form NCCL's double binary tree over the hosts
//               (tree_schedule.h; channel c uses tree c % 2), r_child -> r_parent across hosts;
//               the root is the representative of the tree's root host.
//   in-network  member m -> switch n + leaf[m], switch s -> n + parent[s], the root switch at
//               the top (spec.switch_tree; every edge an inter-host link).
//   tree        (members on more than one host; NCCL's tree) per channel c host h's members
//               form a chain: its representative, member number c % g_h, is the head, and
//               member number (c + i) % g_h hangs below number (c + i - 1) % g_h (intra-host).
//               The representatives form the double binary tree over the hosts, as in
//               nvls-tree. No switches. Depth (g - 1) + floor(log2 hosts) for g per host, the
//               shape of NCCL's own latency model (intra-node chain, inter-node tree).
// The representative keeps its own contribution rather than pushing it through S_h: the host's
// partial sum it receives from S_h excludes it, so every contribution is counted once.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "loom/collective/collective.h"

namespace loom::collective {

inline constexpr std::uint32_t kNoEndpoint = 0xffffffffu;

struct ReductionTree {
  std::uint32_t root = kNoEndpoint;
  std::vector<std::uint32_t> parent;       // per endpoint; kNoEndpoint for the root and endpoints outside
  std::vector<LinkClass> link;             // per endpoint: the class of the link to its parent
  std::vector<std::uint32_t> child_begin;  // per endpoint + 1: its children are children[begin[e], begin[e+1])
  std::vector<std::uint32_t> children;

  bool contains(std::uint32_t endpoint) const { return endpoint == root || parent[endpoint] != kNoEndpoint; }
  std::span<const std::uint32_t> children_of(std::uint32_t endpoint) const {
    return {children.data() + child_begin[endpoint], children.data() + child_begin[endpoint + 1]};
  }
};

// Builds the child lists from `parent` (kNoEndpoint for the root and endpoints outside).
ReductionTree make_reduction_tree(std::uint32_t root, std::vector<std::uint32_t> parent, std::vector<LinkClass> link);

// The distinct trees of `algorithm` (nvls, nvls-tree, in-network or tree) on `spec`; channel c uses
// trees[c % trees.size()]. At most spec.channels trees. Throws UserError if `spec` does not fit
// the algorithm (nvls on more than one host; in-network without a switch_tree). Requires
// validate(spec) and n >= 2. Cost O(trees * (n + switches)).
std::vector<ReductionTree> reduction_trees(Algorithm algorithm, const CollectiveSpec& spec);

}  // namespace loom::collective
