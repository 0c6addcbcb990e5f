// Applying the NIC slowdowns of performance variation (workload/variation.h) and of
// `workload.variation.slow_nics` to a run.
//
// A slowed rank's NIC (Topology::nic_of_rank) has the bandwidth of every cable attached to it,
// both directions, divided by the factor: the GPU-NIC link and the NIC's fabric links. Ranks
// that share a NIC slow it by the largest of their factors, and a cable between two slowed
// NICs by the larger of theirs. A rank without a NIC (a single host) has no scale-out traffic
// to slow and is skipped. Bandwidths are rounded to whole bits per second (at least 1).
//
// A slowdown for the whole run is built into a copy of the topology (with_slow_nics):
// everything else (nodes and their ids, link ids, latencies, error rates, rails, ports, NIC
// attachments) is kept, so routes and results stay comparable with the unmodified topology;
// O(nodes + links). A slowdown with a time window [from, until) changes the rate of the NIC's
// cables during the run instead (nic_rate_changes: the backend's Backend::schedule_link_rate),
// at `from` and back at `until`; at every instant a cable runs at its bandwidth divided by the
// largest factor in force at either end, whole-run slowdowns included.
#pragma once

#include <optional>
#include <span>
#include <vector>

#include "loom/core/error.h"
#include "loom/core/time.h"
#include "loom/core/units.h"
#include "loom/topology/topology.h"
#include "loom/workload/variation.h"

namespace loom::experiment {

// A span of simulated time: [from, until); until = Time::max() lasts to the end of the run.
struct TimeWindow {
  Time from;
  Time until = Time::max();
};

// One NIC slowdown as the experiment reads it: a random draw or a `slow_nics` entry.
struct SlowNic {
  workload::NicSlowdown slowdown;
  std::optional<TimeWindow> window;  // none: the whole run (built into the topology)
  SourceLocation where;              // the entry, or the variation section for a random draw
};

// A directed link's new rate from `at` on.
struct LinkRateChange {
  Time at;
  topology::LinkId link = 0;
  Bandwidth rate;
};

// UserError naming the rank if a factor is not positive or a rank is not a GPU of `topology`.
topology::Topology with_slow_nics(const topology::Topology& topology, std::span<const workload::NicSlowdown> slow);

// The rate changes of the windowed entries of `slow` over `topology` (the unmodified one), in
// time order (then by link id): for every instant a window opens or closes, the cables whose
// rate it changes, relative to the topology with_slow_nics builds from the whole-run entries.
// Empty when no entry has a window. UserError located at the entry for a rank that is not a GPU
// of `topology` or a factor that is not positive. O(instants x (windows + links)).
std::vector<LinkRateChange> nic_rate_changes(const topology::Topology& topology, std::span<const SlowNic> slow);

}  // namespace loom::experiment
