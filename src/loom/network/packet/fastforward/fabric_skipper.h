// Moves one partition of the fabric in time: the only code that touches the fabric's state for
// fast-forward (a friend of Fabric).
//
// shift(partition, credits, delta) makes the partition's state at time t its state at t +
// delta as if its QPs had sent credits[i] more bytes each (whole MTU packets) at steady
// rates in between, and the queues had stayed as they were:
//  - each QP's sequence state (snd_nxt, snd_una, sent_high, rcv_nxt, NACK and repair marks,
//    the CC's per-RTT sequence marks) moves by its credit; so does the sequence of each of
//    its packets in flight or queued (data and ACKs);
//  - every absolute time of the partition moves by delta: the QPs' pacing, progress and NACK
//    times, DCQCN's alpha tick and decrease grid, HPCC's last telemetry sample, the ports'
//    busy-until times, the NICs' wake-ups, the packets' send times and telemetry times;
//  - every byte counter the credited packets would have moved moves: each port's tx bytes
//    (data on the forward paths, ACKs on the reverse ones), HPCC's telemetry samples of those
//    counters (in the CC state and in the packets), the fabric's totals;
//  - the partition's pending events (packet arrivals, transmit-done, NIC wake-ups, PFC frames,
//    CC and retransmission timers) move by delta, keeping their ids (Simulator::shift_events);
//    windowed (Fabric::use_lp_simulators), in every LP's queue and in the lanes' events held
//    for another LP, and so do the arrival times of its packets tracked as final
//    (Fabric::bound_completions). A shift runs between windows (a global step: the drivers'
//    event, with every LP's clock at its time), so events shifted later keep the lookahead.
// Queued bytes, the shared buffer, PFC state and the CC's rates, alpha and windows stay as
// they were. A negative delta with negative credits takes part of an earlier shift back
// (every event of the partition lies beyond the earlier skip's end, so none lands in the past).
//
// Cost: O(pending events + the partition's ports, QPs and queued packets).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "loom/network/packet/fabric.h"
#include "loom/network/packet/fastforward/transient_memo.h"

namespace loom::network::packet::fastforward {

// Why an exact twin's copy was refused (FabricSkipper::copy; kProgress is the controller's own
// check before it asks). Each refusal has exactly one reason: the first check that fails.
enum class CopyRefusal : std::uint8_t {
  kNone,           // not refused: copied
  kProgress,       // the follower's QPs did not stand where the leader's did at the park
  kMode,           // the copy does not apply: windowed execution, completion bounds or selective repeat
  kQueuePairs,     // the QPs do not mirror one to one: another count, one onto itself, a QP that has
                   // ended, or another path length, class, weight, window, line rate or base RTT, or a
                   // smaller size
  kPorts,          // the paths do not map link to link one to one onto ports of equal rate, latency,
                   // ECN, error rate and forwarding, or a port is down
  kPaused,         // a port of either side is paused or holds a pause (port_quiet)
  kLossy,          // a port of either side is lossy
  kSharedPort,     // a port of either side holds or serves (at its NIC) a QP the copy does not map
  kSharedArrival,  // a packet of a QP the copy does not map is on its way into a port of either side
  kPfc,            // a PFC frame is under way to a port of either side
};
inline constexpr std::size_t kCopyRefusals = 10;  // CopyRefusal's values, kNone included
// "progress", "mode", "queue_pairs", "ports", "paused", "lossy", "shared_port",
// "shared_arrival", "pfc" ("none" for kNone): the summary's twins_refused.* keys.
std::string_view to_string(CopyRefusal refusal);

class FabricSkipper {
 public:
  explicit FabricSkipper(Fabric& fabric) : fabric_(fabric) {}

  // Whether `qp`'s state can be carried across a skip: nothing held out of order, no repair
  // pending, sending new data.
  bool can_skip(QpId qp) const;
  // Whether the port of `link` has no class paused by its far end and its far switch holds no
  // pause for it: then nothing from outside its partition can pause or resume it during a skip.
  bool port_quiet(topology::LinkId link) const;
  // DCQCN: whether `qp` has had a CNP (before the first, no DCQCN timer runs and its rate
  // stays where it started).
  bool dcqcn_started(QpId qp) const { return fabric_.qps_[qp].cc.dcqcn_started; }
  // DCQCN: rate cuts begun so far (CcState::cuts).
  std::uint32_t cuts(QpId qp) const { return fabric_.qps_[qp].cc.cuts; }
  // Whether qp's CC rate is within `fraction` of its line rate.
  bool near_line_rate(QpId qp, double fraction) const {
    const CcState& cc = fabric_.qps_[qp].cc;
    return cc.line_rate - cc.rate <= fraction * cc.line_rate;
  }
  // Whether qp's CC rate holds it back: its goodput (bit/s of payload), on the wire, is
  // within `fraction` of the rate it is paced at.
  bool rate_bound(QpId qp, double goodput, double fraction) const {
    const double mtu = static_cast<double>(fabric_.params_.nic.mtu);
    const double wire = goodput * (mtu + static_cast<double>(fabric_.data_header_)) / mtu;
    return wire >= (1 - fraction) * fabric_.qps_[qp].cc.rate;
  }
  // Bytes `qp` has not yet sent for the first time.
  std::uint64_t unsent(QpId qp) const { return fabric_.qps_[qp].size - fabric_.qps_[qp].sent_high; }
  std::uint64_t received(QpId qp) const { return fabric_.qps_[qp].rcv_nxt; }
  Bytes mtu() const { return fabric_.params_.nic.mtu; }

  std::uint64_t sent(QpId qp) const { return fabric_.qps_[qp].sent_high; }
  std::uint64_t size(QpId qp) const { return fabric_.qps_[qp].size; }
  // When `qp` started (not moved by skips).
  Time started(QpId qp) const { return fabric_.qps_[qp].start; }

  // Memoized transients (fabric_skipper_memo.cc). The colour of a QP in the conflict graph:
  // what of it changes its transient (line rate, window, weight, class, and its CC state
  // class: not yet acknowledged anything, rate in 1/32 steps of line rate, DCQCN started).
  std::uint64_t qp_colour(QpId qp) const;
  // The colour of a port: rate, latency, ECN thresholds, who forwards, error rate, and its
  // queued bytes in steps of 4 MTU.
  std::uint64_t port_colour(topology::LinkId link) const;
  CcSnapshot cc_snapshot(QpId qp) const;
  // Sets qp's intensive CC state from a memo at `now`. A DCQCN QP that had no CNP yet but
  // whose memo had starts as on a first CNP at `now` (alpha and decrease grid from now, the
  // increase timer running from now). The other way round (a snapshot taken before such a
  // start, to undo it) its DCQCN timers are cancelled and it is as before its first CNP.
  void restore_cc(QpId qp, const CcSnapshot& snapshot, Time now);

  // See the header comment. credits[i] (a multiple of the MTU) goes to qps[i]; `ports` are
  // the partition's ports.
  void shift(std::span<const QpId> qps, std::span<const std::int64_t> credits,
             std::span<const topology::LinkId> ports, Time delta);

  // Exact twins (fabric_skipper_copy.cc): sets the QPs `to` to the state the isomorphic QPs
  // `from` (to[i] mirrors from[i]: equal paths' lengths, class, weight, window, line rate and
  // base RTT, a size no smaller) and their ports have now, relabelled: sequence and CC state,
  // the ports' queues, serialisation and round robin, the packets queued and in flight (QP,
  // links, generation; HPCC telemetry's byte counters moved by the difference of the ports'
  // counters) and the pending events (arrivals, transmit-done, NIC wake-ups, CC and
  // retransmission timers), at the leader's times. The follower's own events and packets go;
  // what the leader sent beyond it is credited to the fabric's and its ports' counters, as a
  // skip credits. The switches' shared buffers account the copied queues (a packet the
  // follower's switch cannot admit is dropped there). What stays the follower's own: its
  // ECN and error random streams, its QPs' sizes, tags, generations and start times.
  // Refused (nothing changed; the reason returned, kNone when copied) unless the paths map
  // link to link one to one onto ports of equal parameters (rate, latency, ECN, errors, who
  // forwards), both sides' ports are quiet (port_quiet), hold and expect no packet of another
  // QP and no PFC frame, serve no other QP at their NICs, and neither the windowed executor,
  // selective repeat nor completion bounds are on.
  CopyRefusal copy(std::span<const QpId> from, std::span<const QpId> to);

 private:
  static bool owned(void* self, const EventQueue::Fired& event);
  // Moves the partition's pending events by delta_ (see the header comment).
  void shift_events();
  void shift_packet(PacketId id);
  bool qp_in(QpId qp) const { return qp < qp_credit_.size() && qp_member_[qp] != 0; }
  // Credits each qps[i] credits[i] bytes in the fabric's totals and the wire bytes of its
  // packets and ACKs to port_credit_ (qp_member_, qp_credit_, port_credit_ sized first).
  void credit_ports(std::span<const QpId> qps, std::span<const std::int64_t> credits);

  // copy (fabric_skipper_copy.cc).
  static constexpr QpId kNoQp = ~QpId{0};
  CopyRefusal map_twin(std::span<const QpId> from, std::span<const QpId> to);
  // Why a mapped port pair cannot be copied (kNone when it can).
  CopyRefusal port_refusal(topology::LinkId from, topology::LinkId to) const;
  bool mapped(QpId qp) const { return qp < qp_map_.size() && (qp_map_[qp] != kNoQp || qp_back_[qp] != kNoQp); }
  // Whether the port of `link` holds or serves a QP the copy does not map.
  bool alien(topology::LinkId link) const;
  static bool collect(void* self, const EventQueue::Fired& event);
  static bool follower_event(void* self, const EventQueue::Fired& event);
  static bool timer(const EventQueue::Fired& event);  // a QP's CC or retransmission timer
  // The link an arrival, transmit-done, wake-up or PFC frame belongs to; kNone for timers.
  topology::LinkId event_link(const EventQueue::Fired& event) const;
  void clear_port(topology::LinkId link);
  void copy_qp(QpId from, QpId to);
  void copy_port(topology::LinkId from, topology::LinkId to);
  PacketId copy_packet(PacketId id);
  void copy_event(const EventQueue::Fired& event);

  Fabric& fabric_;
  // The shift under way.
  Time delta_;
  std::vector<std::uint8_t> qp_member_;      // by QP id
  std::vector<std::int64_t> qp_credit_;      // by QP id: bytes credited
  std::vector<std::uint8_t> port_member_;    // by link id
  std::vector<std::int64_t> port_credit_;    // by link id: wire bytes credited
  // The copy under way: leader to follower and back, by QP id and by link id; the leader's
  // ports, their counters' differences (follower minus leader, by the leader's link id) and
  // pending events.
  std::vector<QpId> qp_map_, qp_back_;
  std::vector<topology::LinkId> link_map_, link_back_;
  std::vector<topology::LinkId> copy_from_ports_;
  std::vector<std::uint64_t> tx_offset_;
  std::vector<EventQueue::Fired> leader_events_;
  CopyRefusal copy_refused_ = CopyRefusal::kNone;  // found among the pending events (collect)
};

}  // namespace loom::network::packet::fastforward
