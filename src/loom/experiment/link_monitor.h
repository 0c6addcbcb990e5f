// Samples per-link utilisation of a run at a fixed interval (backends with link loads), for links.csv and the
// summary's hot links.
//
// A sampling event runs every `interval` while the simulation has other work pending, so it
// never keeps a finished run alive; a last sample closes the final partial interval. Only
// links with non-zero utilisation in an interval are kept, at most `max_rows` of them: the
// sample that fills the file counts the rows it leaves out, and sampling stops there
// (stopped_at()); it also stops after max_rows intervals, so a tiny interval costs at most
// max_rows samples of O(links) each.
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
  // The end of the last interval sampled when the file filled up or max_rows intervals were
  // sampled; Time::max() if sampling went on to the end of the run.
  Time stopped_at() const { return stopped_at_; }

 private:
  void tick();
  void take_sample();

  Simulator& simulator_;
  network::LinkSampler sampler_;
  Time interval_;
  std::uint64_t max_rows_;
  std::vector<report::LinkSample> samples_;
  std::uint64_t dropped_ = 0;
  std::uint64_t intervals_ = 0;
  Time stopped_at_ = Time::max();
};

}  // namespace loom::experiment
