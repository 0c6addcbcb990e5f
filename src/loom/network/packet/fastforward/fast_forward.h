// The fast-forward controller of one packet fabric (network.packet.fast_forward.enabled).
//
// It keeps the running QPs in port-level partitions (port_partitions.h), samples every QP's
// rate each `interval` (steady_detector.h), and when every QP of a partition is steady, its
// ports are quiet (no PFC pause held either way) and every QP can carry its state across
// (fabric_skipper.h), the partition skips ahead to its next interrupt:
//   until = now + min_q (unsent_q - margin_q) / R_q,   margin_q = max(16 MTU, 2 R_q interval),
// the earliest completion at the window means R_q, stopped short by a margin that is then
// simulated packet by packet (so each completion itself, and its tail, is simulated). Each
// QP is credited floor(R_q (until - now) / MTU) MTU bytes; the partition's state and pending
// events move to `until` (FabricSkipper::shift). A skip shorter than 2 intervals is not taken.
//
// Windows: l samples (window_samples), or 8 for a DCQCN QP that has had no CNP while the
// window is on (no DCQCN timer runs before the first CNP: the QP sends at a fixed rate, held
// by its window).
//
// Interrupts. A QP starting on a port of a skipping partition, a cable going down or up, or a
// link changing rate ends the skip at that moment (skip-back): the partition is shifted back
// to now with each QP's credit cut to R_q (now - skip start), so its state is the steady
// state interpolated to now, and then the change applies. A PFC pause cannot enter a skipping
// partition from outside (its ports and ingress queues held no pause when it started, and only
// its own packets, which do not move, could raise one). Partitions skipping when it ends
// naturally, or after a skip-back, or whose membership changes, start a new window from
// empty (a new transient).
//
// Not skipped: partitions with a QP in go-back-N recovery, holding out-of-order data or owing
// a repair; packet spraying is refused (a sprayed QP's telemetry hops differ per packet).
// Cost: per sampling interval O(running QPs) plus O(l) per QP of a partition checked; per
// skip O(pending events + the partition's size).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "loom/core/simulator.h"
#include "loom/network/network_mode.h"
#include "loom/network/packet/fabric.h"
#include "loom/network/packet/fastforward/fabric_skipper.h"
#include "loom/network/packet/fastforward/port_partitions.h"
#include "loom/network/packet/fastforward/steady_detector.h"

namespace loom::network::packet::fastforward {

struct FastForwardCounters {
  std::uint64_t skips = 0;
  std::uint64_t skip_backs = 0;          // skips ended early by an interrupt
  std::uint64_t skipped_ps = 0;          // simulated time skipped, summed over partitions
  std::uint64_t longest_skip_ps = 0;
  std::uint64_t skipped_data_packets = 0;  // data packets credited instead of simulated
  std::uint64_t skipped_packet_hops = 0;   // ... times the links of their paths
  std::uint64_t peak_partitions = 0;
  std::uint64_t samples = 0;             // sampling events
};

class FastForward {
 public:
  // Throws UserError when params.packet_spraying is on.
  FastForward(Simulator& simulator, Fabric& fabric, const PacketParams& params);
  FastForward(const FastForward&) = delete;
  FastForward& operator=(const FastForward&) = delete;

  // Before a QP over these paths starts: ends the skips of the partitions it will join.
  void before_start(std::span<const topology::LinkId> forward, std::span<const topology::LinkId> reverse);
  // After it started (Fabric::add_qp returned `qp`).
  void on_started(QpId qp);
  // The QP's sender finished (its id may be reused afterwards).
  void on_finished(QpId qp);
  // Before a cable goes down or up, or a link changes rate: every skip ends now.
  void before_link_change();
  // After a link change re-routed QPs: partitions are rebuilt from the QPs' paths now.
  void after_link_change();

  const FastForwardCounters& counters() const { return counters_; }
  const PortPartitions& partitions() const { return partitions_; }
  bool skipping(PartitionId id) const { return id < skips_.size() && skips_[id].active; }
  std::uint32_t window_samples() const { return detector_.length(); }
  // fast_forward.* statistics for the run record.
  std::vector<Statistic> statistics() const;

 private:
  struct Skip {
    bool active = false;
    Time from, until;
    std::vector<QpId> qps;
    std::vector<double> rates;          // bit/s
    std::vector<std::int64_t> credits;  // bytes
    EventId end;
  };

  void on_sample();
  void on_skip_end(std::uint64_t partition);
  void try_skip(PartitionId id);
  // Ends a skip at now: natural when now is its end, else a skip-back.
  void end_skip(PartitionId id);
  void restart_windows(PartitionId id);
  void ensure_sampling();
  void add_qp(QpId qp);
  // Samples qp's steadiness is judged over.
  std::uint32_t samples_for(QpId qp) const;

  Simulator& simulator_;
  Fabric& fabric_;
  FabricSkipper skipper_;
  PortPartitions partitions_;
  SteadyDetector detector_;
  Time interval_;
  double threshold_;
  // DCQCN with the window on: samples that suffice for a QP that has had no CNP (window-bound
  // at a fixed rate, no timer running); 0 when it does not apply.
  std::uint32_t quiet_window_ = 0;
  bool sampling_ = false;
  std::vector<Skip> skips_;  // by partition id
  std::vector<PartitionId> touched_;  // scratch
  std::vector<topology::LinkId> ports_;  // scratch
  FastForwardCounters counters_;
};

}  // namespace loom::network::packet::fastforward
