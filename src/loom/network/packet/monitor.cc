#include "loom/network/packet/monitor.h"

#include <fmt/format.h>

#include "loom/core/error.h"

namespace loom::network::packet {

FabricMonitor::FabricMonitor(Simulator& simulator, const Fabric& fabric, MonitorParams params)
    : simulator_(simulator), fabric_(fabric), params_(std::move(params)) {
  if (params_.interval <= Time::zero()) {
    throw UserError(fmt::format("packet monitor: interval = {}: expected a positive time",
                                params_.interval));
  }
  const std::uint32_t links = fabric.topology().link_count();
  if (params_.ports.empty()) {
    for (topology::LinkId l = 0; l < links; ++l) params_.ports.push_back(l);
  }
  for (const topology::LinkId l : params_.ports) {
    if (l >= links) {
      throw UserError(fmt::format("packet monitor: port {}: expected a link id below {}", l, links));
    }
  }
  last_tx_.resize(params_.ports.size());
}

FabricMonitor::~FabricMonitor() { stop(); }

void FabricMonitor::start() {
  if (simulator_.is_pending(next_)) return;
  for (std::size_t i = 0; i < params_.ports.size(); ++i) last_tx_[i] = fabric_.tx_bytes(params_.ports[i]);
  const Time at = simulator_.now() + params_.interval;
  if (at <= params_.until) next_ = simulator_.schedule_at<&FabricMonitor::sample>(at, this);
}

void FabricMonitor::stop() { simulator_.cancel(next_); }

void FabricMonitor::sample() {
  const Time now = simulator_.now();
  for (std::size_t i = 0; i < params_.ports.size(); ++i) {
    const topology::LinkId link = params_.ports[i];
    if (params_.queues) queues_.push_back(QueueSample{now, link, fabric_.queue_bytes(link)});
    const std::uint64_t tx = fabric_.tx_bytes(link);
    if (params_.throughput) {
      throughput_.push_back(ThroughputSample{
          now, link, static_cast<double>(tx - last_tx_[i]) * 8 / params_.interval.seconds()});
    }
    last_tx_[i] = tx;
  }
  if (params_.qp_rates) {
    for (QpId q = 0; q < fabric_.qp_slots(); ++q) {
      if (fabric_.qp_active(q)) rates_.push_back(QpRateSample{now, q, fabric_.qp_tag(q), fabric_.qp_rate(q)});
    }
  }
  const Time at = now + params_.interval;
  const bool idle = params_.until == Time::max() && fabric_.active_qps() == 0;
  if (!idle && at <= params_.until) next_ = simulator_.schedule_at<&FabricMonitor::sample>(at, this);
}

}  // namespace loom::network::packet
