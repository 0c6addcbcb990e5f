#include "loom/experiment/link_monitor.h"

#include "loom/core/error.h"

namespace loom::experiment {

LinkMonitor::LinkMonitor(Simulator& simulator, const topology::Topology& topology, const network::Backend& backend,
                         Time interval, std::uint64_t max_rows)
    : simulator_(simulator), sampler_(simulator, topology, backend), interval_(interval), max_rows_(max_rows) {
  if (interval <= Time::zero()) throw UserError("output.link_interval must be positive");
  simulator_.schedule_in<&LinkMonitor::tick>(interval_, this);
}

void LinkMonitor::tick() {
  take_sample();
  // Each interval could have added a row: at most max_rows of them, even when they add none.
  if (samples_.size() >= max_rows_ || ++intervals_ >= max_rows_) {
    stopped_at_ = sampler_.end();
    return;
  }
  // Stop when nothing else is left to simulate; otherwise this event would keep the run alive.
  if (simulator_.pending() > 0) simulator_.schedule_in<&LinkMonitor::tick>(interval_, this);
}

void LinkMonitor::finish() {
  if (stopped_at_ == Time::max() && simulator_.now() > sampler_.end()) take_sample();
}

void LinkMonitor::take_sample() {
  const auto utilisation = sampler_.sample();
  for (std::size_t link = 0; link < utilisation.size(); ++link) {
    if (utilisation[link] <= 0) continue;
    if (samples_.size() >= max_rows_) {
      ++dropped_;
      continue;
    }
    samples_.push_back({sampler_.begin(), sampler_.end(), static_cast<topology::LinkId>(link), utilisation[link]});
  }
}

}  // namespace loom::experiment
