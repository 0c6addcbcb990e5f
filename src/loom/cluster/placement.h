// Placement: which available GPUs a job that may start now runs on.
//
//   packed          first fit, nearest first: the first host that holds the whole job, else
//                   the first leaf, else the first pod, else hosts in order; inside a leaf or
//                   pod, hosts in order
//   topology-aware  fewest spine crossings: the host, else leaf, else pod whose available GPUs
//                   fit the job most tightly (best fit); inside it, and across pods when no pod
//                   fits, the fullest-available leaves and hosts first, so the job spans as few
//                   leaves and pods as it can
//   spread          one GPU per host in turn, hosts with the most available GPUs first
//   random          a uniformly random set of available GPUs (seeded)
// Every policy is called only when enough GPUs are available and always returns exactly
// `gpus` distinct available GPUs (a gang is never partly placed).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "loom/cluster/cluster_state.h"
#include "loom/core/random.h"

namespace loom::cluster {

class Placement {
 public:
  virtual ~Placement() = default;
  // Appends `gpus` GPUs to `out` (cleared first). Requires state.available() >= gpus.
  virtual void place(const ClusterState& state, std::uint32_t gpus, std::vector<std::uint32_t>& out) = 0;
};

// "packed", "topology-aware", "spread" or "random"; UserError on another name.
std::unique_ptr<Placement> make_placement(std::string_view name, std::uint64_t seed);
const std::vector<std::string_view>& placement_names();

}  // namespace loom::cluster
