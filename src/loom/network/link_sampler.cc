#include "loom/network/link_sampler.h"

namespace loom::network {

LinkSampler::LinkSampler(const Simulator& simulator, const topology::Topology& topology, const Backend& backend)
    : simulator_(simulator), topology_(topology), backend_(backend), begin_(simulator.now()), end_(begin_) {
  backend_.carried_bytes(previous_);
  utilisation_.assign(previous_.size(), 0.0);
}

std::span<const double> LinkSampler::sample() {
  begin_ = end_;
  end_ = simulator_.now();
  backend_.carried_bytes(current_);
  const double seconds = (end_ - begin_).seconds();
  for (std::size_t l = 0; l < current_.size(); ++l) {
    const double bits = (current_[l] - previous_[l]) * 8.0;
    const double capacity =
        static_cast<double>(topology_.link(static_cast<topology::LinkId>(l)).bandwidth.bps());
    utilisation_[l] = seconds > 0 ? bits / (capacity * seconds) : 0.0;
  }
  previous_.swap(current_);
  return utilisation_;
}

}  // namespace loom::network
