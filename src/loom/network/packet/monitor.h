// Sampled monitors of a Fabric, as plain data for the report layer (one row per sample):
// queue length per port, link throughput, per-QP sending rate; plus the fabric's totals
// (CNPs, drops, PFC events: FabricCounters and Fabric::pfc_events()).
//
// A FabricMonitor samples every `interval` from start(), at the end of each interval (the
// first at start + interval). Throughput is the bytes a port sent during the interval times 8
// over the interval. Sampling stops at `until`, or, with until = Time::max(), at the first
// sample that finds no QP running (so Simulator::run() still ends); start() again resumes it.
// Cost per sample: O(ports watched + QP slots when QP rates are on).
#pragma once

#include <cstdint>
#include <vector>

#include "loom/core/simulator.h"
#include "loom/network/packet/fabric.h"

namespace loom::network::packet {

struct MonitorParams {
  Time interval = Time::us(10);         // sampling period, > 0
  Time until = Time::max();             // last sample no later than this
  std::vector<topology::LinkId> ports;  // ports (egress links) to watch; empty = every link
  bool queues = true;                   // queue length per port
  bool throughput = true;               // link throughput per port
  bool qp_rates = false;                // current rate of every running QP
};

struct QueueSample {
  Time time;
  topology::LinkId link = 0;
  std::uint64_t bytes = 0;
};

struct ThroughputSample {
  Time time;
  topology::LinkId link = 0;
  double bits_per_second = 0;
};

struct QpRateSample {
  Time time;
  QpId qp = 0;
  std::uint64_t tag = 0;
  double bits_per_second = 0;
};

class FabricMonitor {
 public:
  // Throws UserError for a non-positive interval or a port that is not a link of the fabric.
  FabricMonitor(Simulator& simulator, const Fabric& fabric, MonitorParams params);
  FabricMonitor(const FabricMonitor&) = delete;
  FabricMonitor& operator=(const FabricMonitor&) = delete;
  ~FabricMonitor();

  void start();
  void stop();

  const std::vector<QueueSample>& queues() const { return queues_; }
  const std::vector<ThroughputSample>& throughput() const { return throughput_; }
  const std::vector<QpRateSample>& qp_rates() const { return rates_; }

 private:
  void sample();

  Simulator& simulator_;
  const Fabric& fabric_;
  MonitorParams params_;
  std::vector<std::uint64_t> last_tx_;  // per watched port
  EventId next_;
  std::vector<QueueSample> queues_;
  std::vector<ThroughputSample> throughput_;
  std::vector<QpRateSample> rates_;
};

}  // namespace loom::network::packet
