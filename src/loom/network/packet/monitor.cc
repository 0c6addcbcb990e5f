#include "loom/network/packet/monitor.h"

#include <fmt/format.h>

#include "loom/core/error.h"

namespace loom::network::packet {

FabricMonitor::FabricMonitor(Simulator& simulator, Fabric& fabric, MonitorParams params)
    : simulator_(simulator), fabric_(fabric), params_(std::move(params)) {
  const MonitorOptions& o = params_.options;
  if (o.interval <= Time::zero()) {
    throw UserError(fmt::format("packet monitor: interval = {}: expected a positive time", o.interval));
  }
  if (o.max_rows == 0) throw UserError("packet monitor: max_rows = 0: expected at least 1 row per file");
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
  last_drops_.resize(params_.ports.size());
  if (o.pfc) fabric_.record_pfc_events(true, o.max_rows);
}

FabricMonitor::~FabricMonitor() { stop(); }

void FabricMonitor::start() {
  if (simulator_.is_pending(next_) || full()) return;
  for (std::size_t i = 0; i < params_.ports.size(); ++i) {
    last_tx_[i] = fabric_.tx_bytes(params_.ports[i]);
    last_drops_[i] = fabric_.drops(params_.ports[i]);
  }
  const Time at = simulator_.now() + params_.options.interval;
  if (at <= params_.until) next_ = simulator_.schedule_at<&FabricMonitor::sample>(at, this);
}

void FabricMonitor::stop() { simulator_.cancel(next_); }

bool FabricMonitor::full() const {
  const MonitorOptions& o = params_.options;
  const auto done = [&](bool on, std::size_t rows) { return !on || rows >= o.max_rows; };
  if (samples_ >= o.max_rows) return true;
  return done(o.queues, queues_.size()) && done(o.throughput, throughput_.size()) &&
         done(o.qp_rates, rates_.size()) && done(o.cnps, cnps_.size()) && done(o.drops, drops_.size());
}

template <typename Row>
void FabricMonitor::keep(std::vector<Row>& rows, std::uint64_t& dropped, const Row& row) {
  if (rows.size() < params_.options.max_rows) {
    rows.push_back(row);
  } else {
    ++dropped;
  }
}

void FabricMonitor::sample() {
  ++samples_;
  const Time now = simulator_.now();
  const MonitorOptions& o = params_.options;
  for (std::size_t i = 0; i < params_.ports.size(); ++i) {
    const topology::LinkId link = params_.ports[i];
    if (o.queues) keep(queues_, dropped_.queues, QueueSample{now, link, fabric_.queue_bytes(link)});
    const std::uint64_t tx = fabric_.tx_bytes(link);
    if (o.throughput) {
      keep(throughput_, dropped_.throughput,
           ThroughputSample{now, link, static_cast<double>(tx - last_tx_[i]) * 8 / o.interval.seconds()});
    }
    last_tx_[i] = tx;
    const std::uint64_t dropped = fabric_.drops(link);
    if (o.drops && dropped != last_drops_[i]) {
      keep(drops_, dropped_.drops, DropSample{now, link, dropped - last_drops_[i]});
    }
    last_drops_[i] = dropped;
  }
  if (o.qp_rates || o.cnps) {
    if (qp_seen_.size() < fabric_.qp_slots()) qp_seen_.resize(fabric_.qp_slots());
    for (QpId q = 0; q < fabric_.qp_slots(); ++q) {
      if (!fabric_.qp_active(q)) continue;
      const auto path = fabric_.qp_path(q, true);
      const topology::NodeId src = fabric_.topology().link(path.front()).src;
      const topology::NodeId dst = fabric_.topology().link(path.back()).dst;
      if (o.qp_rates) {
        keep(rates_, dropped_.qp_rates, QpRateSample{now, q, fabric_.qp_tag(q), src, dst, fabric_.qp_rate(q)});
      }
      QpSeen& seen = qp_seen_[q];
      if (seen.start != fabric_.qp_start(q)) seen = QpSeen{fabric_.qp_start(q), 0};
      const std::uint64_t cnps = fabric_.qp_cnps(q);
      if (o.cnps && cnps != seen.cnps) {
        keep(cnps_, dropped_.cnps, QpCnpSample{now, q, fabric_.qp_tag(q), src, dst, cnps - seen.cnps});
      }
      seen.cnps = cnps;
    }
  }
  if (full()) {
    stopped_at_ = now;
    return;
  }
  const Time at = now + o.interval;
  const bool idle = params_.until == Time::max() && fabric_.active_qps() == 0;
  if (!idle && at <= params_.until) next_ = simulator_.schedule_at<&FabricMonitor::sample>(at, this);
}

}  // namespace loom::network::packet
