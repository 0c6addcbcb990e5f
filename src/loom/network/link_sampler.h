// Per-link utilisation over time, sampled at the caller's pace from a backend that reports its
// links' carried bytes (Capabilities::link_loads).
//
// Each sample() covers the interval since the previous sample (or construction) and gives,
// per directed link (indexed by LinkId), the mean utilisation over it:
//
//   utilisation(l) = (carried_bytes(l, end) - carried_bytes(l, begin)) x 8
//                    / (bandwidth(l) x (end - begin))
//
// which lies in [0, 1] up to floating-point rounding, since the solver never loads a link
// beyond its capacity. The caller decides the interval (e.g. an event every 10 us that
// writes a row of links.csv) and what to keep; the sampler holds one snapshot, O(links)
// memory and O(links) per sample. The simulator, topology and backend must outlive the sampler.
#pragma once

#include <span>
#include <vector>

#include "loom/core/simulator.h"
#include "loom/core/time.h"
#include "loom/network/backend.h"
#include "loom/topology/topology.h"

namespace loom::network {

class LinkSampler {
 public:
  // Takes the first snapshot at the simulator's now(). Throws UserError if the backend does not
  // report link loads.
  LinkSampler(const Simulator& simulator, const topology::Topology& topology, const Backend& backend);

  // Utilisation of every link since the previous sample; all zeros for an empty interval.
  // The span stays valid until the next sample().
  std::span<const double> sample();

  // The interval the last sample() covered (both equal to construction time before any).
  Time begin() const { return begin_; }
  Time end() const { return end_; }

 private:
  const Simulator& simulator_;
  const topology::Topology& topology_;
  const Backend& backend_;
  std::vector<double> previous_;
  std::vector<double> current_;
  std::vector<double> utilisation_;
  Time begin_;
  Time end_;
};

}  // namespace loom::network
