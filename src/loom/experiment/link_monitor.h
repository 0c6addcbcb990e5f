// Samples per-link utilisation of a run at a fixed interval (backends with link loads), for links.csv and the
// summary's hot links.
//
// A sampling event runs every `interval` while the simulation has other work pending, so it
// never keeps a finished run alive; a last sample closes the final partial interval. Only
// links with non-zero utilisation in an interval are kept, at most `max_rows` of them (the
// number left out is counted).
#pragma once

#include <vector>

#include "loom/core/simulator.h"
#include "loom/network/link_sampler.h"
#include "loom/report/links.h"

namespace loom::experiment {

class LinkMonitor {
 public:
  LinkMonitor(Simulator& simulator, const topology::Topology& topology, const network::Backend& backend, Time interval,
              std::uint64_t max_rows);
  LinkMonitor(const LinkMonitor&) = delete;
  LinkMonitor& operator=(const LinkMonitor&) = delete;

  // Takes the final sample (call after the run).
  void finish();
  const std::vector<report::LinkSample>& samples() const { return samples_; }
  std::uint64_t dropped() const { return dropped_; }

 private:
  void tick();
  void take_sample();

  Simulator& simulator_;
  network::LinkSampler sampler_;
  Time interval_;
  std::uint64_t max_rows_;
  std::vector<report::LinkSample> samples_;
  std::uint64_t dropped_ = 0;
};

}  // namespace loom::experiment
