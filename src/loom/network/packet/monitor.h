// Sampled monitors of a Fabric, as plain data for the CSV writers (monitor_csv.h): queue length
// per port, throughput per port (a host's port = the host's throughput), per-QP sending rate,
// CNPs per QP, drops per port, and the PAUSE/RESUME events of the fabric.
//
// A FabricMonitor samples every `interval` from start(), at the end of each interval (the
// first at start + interval). Throughput is the bytes a port sent during the interval times 8
// over the interval; CNP and drop rows count the interval's new events and are written only
// when non-zero (a QP that ends mid-interval has reported up to its last sample). Sampling stops
// at `until`, or, with until = Time::max(), at the first sample that finds no QP running (so
// Simulator::run() still ends); start() again resumes it. Every kind keeps at most max_rows
// rows; later ones are counted in dropped_rows(). Once every sampled kind that is on (all but
// pfc) holds max_rows rows, or after max_rows samples (CNP and drop rows may be rare), sampling
// stops for good (stopped_at()), so a tiny interval costs at most max_rows samples. With `pfc` on the monitor turns on the
// fabric's PAUSE/RESUME log, capped the same way.
// Cost per sample: O(ports watched + QP slots when QP rates or CNPs are on).
#pragma once

#include <cstdint>
#include <vector>

#include "loom/core/simulator.h"
#include "loom/network/packet/fabric.h"

namespace loom::network::packet {

struct MonitorParams {
  MonitorOptions options;               // interval, what to sample, row cap
  Time until = Time::max();             // last sample no later than this
  std::vector<topology::LinkId> ports;  // ports (egress links) to watch; empty = every link
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
  topology::NodeId src = 0, dst = 0;
  double bits_per_second = 0;
};

struct QpCnpSample {
  Time time;
  QpId qp = 0;
  std::uint64_t tag = 0;
  topology::NodeId src = 0, dst = 0;
  std::uint64_t cnps = 0;  // received during the interval
};

struct DropSample {
  Time time;
  topology::LinkId link = 0;
  std::uint64_t drops = 0;  // during the interval
};

// Rows not kept because a kind reached max_rows.
struct DroppedRows {
  std::uint64_t queues = 0, throughput = 0, qp_rates = 0, cnps = 0, drops = 0;
};

class FabricMonitor {
 public:
  // Throws UserError for a non-positive interval, max_rows = 0 or a port that is not a link.
  FabricMonitor(Simulator& simulator, Fabric& fabric, MonitorParams params);
  FabricMonitor(const FabricMonitor&) = delete;
  FabricMonitor& operator=(const FabricMonitor&) = delete;
  ~FabricMonitor();

  void start();
  void stop();

  const MonitorOptions& options() const { return params_.options; }
  const Fabric& fabric() const { return fabric_; }
  const std::vector<QueueSample>& queues() const { return queues_; }
  const std::vector<ThroughputSample>& throughput() const { return throughput_; }
  const std::vector<QpRateSample>& qp_rates() const { return rates_; }
  const std::vector<QpCnpSample>& cnps() const { return cnps_; }
  const std::vector<DropSample>& drops() const { return drops_; }
  const DroppedRows& dropped_rows() const { return dropped_; }
  // When sampling stopped because every sampled file was full; Time::max() while it goes on.
  Time stopped_at() const { return stopped_at_; }

 private:
  struct QpSeen {
    Time start = Time::max();  // identifies the QP occupying the slot
    std::uint64_t cnps = 0;
  };
  void sample();
  bool full() const;
  template <typename Row>
  void keep(std::vector<Row>& rows, std::uint64_t& dropped, const Row& row);

  Simulator& simulator_;
  Fabric& fabric_;
  MonitorParams params_;
  std::vector<std::uint64_t> last_tx_;     // per watched port
  std::vector<std::uint64_t> last_drops_;  // per watched port
  std::vector<QpSeen> qp_seen_;            // per QP slot
  EventId next_;
  std::vector<QueueSample> queues_;
  std::vector<ThroughputSample> throughput_;
  std::vector<QpRateSample> rates_;
  std::vector<QpCnpSample> cnps_;
  std::vector<DropSample> drops_;
  DroppedRows dropped_;
  Time stopped_at_ = Time::max();
  std::uint64_t samples_ = 0;  // taken since construction
};

}  // namespace loom::network::packet
