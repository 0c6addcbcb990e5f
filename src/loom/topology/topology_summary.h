// What `loom topo show` prints: counts per node kind and fabric tier, capacity and
// oversubscription per tier, a bisection bandwidth estimate, and hop and ECMP path counts.
//
// Per fabric tier t, a switch's cables count as down (to hosts or lower tiers) or up (to higher
// tiers); oversubscription = down / up capacity. Bisection (an estimate, exact for symmetric
// Clos and rail fabrics under uniform traffic): half of the smallest of the total NIC capacity
// and the total up capacity of each tier below the top. Hop counts and path counts come from
// `samples` random GPU pairs on different hosts (deterministic for a seed) plus one pair inside
// a host, so `diameter` is the largest sampled hop count, exact only when every pair is sampled.
#pragma once

#include <cstdint>
#include <ostream>
#include <vector>

#include "loom/core/units.h"
#include "loom/topology/routing.h"
#include "loom/topology/topology.h"

namespace loom::topology {

struct TierSummary {
  std::uint16_t tier = 0;
  std::uint32_t switches = 0;
  std::uint64_t down_bps = 0;  // total, one direction
  std::uint64_t up_bps = 0;
  double oversubscription() const {
    return up_bps == 0 ? 0 : static_cast<double>(down_bps) / static_cast<double>(up_bps);
  }
};

struct TopologySummary {
  std::uint32_t hosts = 0;
  std::uint32_t gpus = 0;
  std::uint32_t nics = 0;
  std::uint32_t scale_up_switches = 0;
  std::uint32_t fabric_switches = 0;
  std::uint32_t cables = 0;
  std::vector<TierSummary> tiers;  // ascending
  std::uint64_t nic_bps = 0;       // NIC fabric ports, total, one direction
  std::uint64_t bisection_bps = 0;
  std::uint32_t sampled_pairs = 0;
  std::uint32_t unreachable_pairs = 0;
  std::uint32_t diameter = 0;      // among sampled pairs
  double mean_hops = 0;
  std::uint64_t min_paths = 0;     // ECMP path counts among sampled cross-host pairs
  std::uint64_t max_paths = 0;
  double mean_paths = 0;
  std::uint32_t groups = 0;        // routing destination groups
};

TopologySummary summarize(const Topology& topology, const Routing& routing,
                          std::uint32_t samples = 256, std::uint64_t seed = 1);
void print_summary(const TopologySummary& summary, std::ostream& out);

}  // namespace loom::topology
