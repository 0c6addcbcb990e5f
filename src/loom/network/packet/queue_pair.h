// Queue pairs and the NICs that serve them: what a QP is asked to do (QpSpec), its sender and
// receiver state (Qp), where its paths are kept (QpPaths), and a NIC's weighted round robin
// over its QPs (Nic). The fabric runs them (fabric.h: the model; fabric_nic.cc: sending,
// fabric_receiver.cc: receiving and acknowledging, fabric_timers.cc: congestion-control and
// retransmission timers).
//
// Sender: a QP may send when it has bytes left, its in-flight bytes are below its window (BDP,
// scaled by rate / line rate when variable) and its pacing time has come; after a packet of w
// bytes it waits w * 8 / rate. ACKs advance snd_una, a NACK (or a timeout without progress)
// sends again from snd_una (go-back-N) or, with selective repeat, resends the one packet named.
// Receiver: rcv_nxt is the next byte expected; with selective repeat, out-of-order packets are
// held in a bitmap of kReorderWords x 64 packets per QP.
// A QP is addressed by id (reused once the QP has ended and none of its packets is left) and
// generation (stale packets and timers are recognised by it).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "loom/core/event_queue.h"
#include "loom/core/time.h"
#include "loom/core/units.h"
#include "loom/network/packet/congestion_control.h"
#include "loom/topology/topology.h"

namespace loom::network::packet {

using QpId = std::uint32_t;
// Longest path (links) a QP may use.
inline constexpr std::uint32_t kMaxPathLinks = 16;
// Packet spraying: forward paths a QP's data packets take in turn (the first is QpSpec::forward).
inline constexpr std::uint32_t kSprayPaths = 8;
// Selective repeat: out-of-order packets a receiver holds per QP (kReorderWords x 64).
inline constexpr std::size_t kReorderWords = 16;
inline constexpr std::uint64_t kNoRepair = ~std::uint64_t{0};

// Told once per QP about its end. Both calls run inside simulator events.
class FabricListener {
 public:
  // The receiver holds every byte of `qp`.
  virtual void on_qp_delivered(QpId qp, std::uint64_t tag) = 0;
  // The sender holds the ACK of the last byte; `qp`'s id is reused after this returns.
  virtual void on_qp_acked(QpId qp, std::uint64_t tag) = 0;

 protected:
  ~FabricListener() = default;
};

struct QpSpec {
  std::span<const topology::LinkId> forward;  // src endpoint ... dst endpoint
  std::span<const topology::LinkId> reverse;  // dst endpoint ... src endpoint (ACKs)
  Bytes bytes = 0;                            // > 0
  std::uint64_t tag = 0;                      // handed back to the listener
  Time base_rtt;                              // zero: base_rtt(forward)
  Bytes window = 0;                           // BDP for the window and HPCC; zero: computed
  std::uint32_t weight = 1;                   // data packets per round-robin turn at its NIC, >= 1
  std::uint32_t priority = 0;                 // traffic class 1..sw.queues-1; 0: params.data_priority
  // With params.packet_spraying: further forward paths, concatenated, each as long as `forward`
  // and leaving through the same first link; up to kSprayPaths - 1 are used.
  std::span<const topology::LinkId> alternates;
};

// The state of one QP, sender and receiver side.
struct Qp {
  std::uint64_t size = 0;
  std::uint64_t snd_nxt = 0, snd_una = 0, rcv_nxt = 0;
  std::uint64_t sent_high = 0;  // highest byte ever sent (beyond: new data; below: resent)
  std::uint64_t last_nack_seq = 0;
  std::uint64_t tag = 0;
  std::uint64_t cnps = 0;  // ECN echoes received
  double window = 0;  // bytes; 0 = unlimited
  Time start, next_avail, last_progress, nack_time;
  EventId decrease, increase, timeout;
  std::uint32_t generation = 0;
  std::uint32_t rx_unacked = 0;
  std::uint32_t last_wire = 0;      // wire bytes of the last data packet sent
  std::uint32_t weight = 1;         // packets per round-robin turn
  std::uint64_t repaired_seq = kNoRepair;  // selective repeat: the hole last resent
  bool repair_pending = false;             // ... and not yet sent
  std::uint64_t held_high = 0;             // receiver: end of the highest held packet
  std::uint8_t spray_paths = 1, spray_next = 0;  // forward paths in use; the next one
  std::uint32_t packets_alive = 0;  // its data packets and ACKs anywhere in the fabric
  std::uint8_t forward_len = 0, reverse_len = 0;
  std::uint8_t priority = 0;        // traffic class of its data (and, unless high priority, ACKs)
  std::uint8_t route_epoch = 0;
  bool rx_marked = false, delivered = false, active = false;
  CcState cc;

  // Whether the window stops it sending (`variable`: the window scales with rate / line rate).
  bool window_bound(bool variable) const {
    if (window <= 0) return false;
    double bound = window;
    if (variable) bound = std::max(1.0, bound * cc.rate / cc.line_rate);
    return static_cast<double>(snd_nxt - snd_una) >= bound;
  }
};

// The paths of every QP in one array: per QP its forward path, its reverse (ACK) path and,
// with spraying, kSprayPaths - 1 alternate forward paths, kMaxPathLinks link ids each.
class QpPaths {
 public:
  explicit QpPaths(bool spraying) : stride_((spraying ? 1 + kSprayPaths : 2) * kMaxPathLinks) {}

  // Room for one more QP.
  void grow() { links_.resize(links_.size() + stride_); }
  const topology::LinkId* forward(QpId qp) const { return links_.data() + std::size_t{qp} * stride_; }
  const topology::LinkId* reverse(QpId qp) const { return forward(qp) + kMaxPathLinks; }
  // Forward path `index` of a QP (0: the primary, then the spraying alternates).
  const topology::LinkId* data(QpId qp, std::uint32_t index) const {
    return forward(qp) + (index == 0 ? 0 : (index + 1) * kMaxPathLinks);
  }
  void store(QpId qp, std::span<const topology::LinkId> forward, std::span<const topology::LinkId> reverse) {
    topology::LinkId* at = links_.data() + std::size_t{qp} * stride_;
    std::copy(forward.begin(), forward.end(), at);
    std::copy(reverse.begin(), reverse.end(), at + kMaxPathLinks);
  }
  // Alternate forward path `index` (1..kSprayPaths - 1).
  void store_alternate(QpId qp, std::uint32_t index, std::span<const topology::LinkId> path) {
    std::copy(path.begin(), path.end(), links_.data() + std::size_t{qp} * stride_ + (index + 1) * kMaxPathLinks);
  }
  std::size_t memory_bytes() const { return links_.capacity() * sizeof(topology::LinkId); }

 private:
  std::size_t stride_;
  std::vector<topology::LinkId> links_;
};

// The egress port of an endpoint: the QPs sending through it, served in weighted round robin
// (a QP's turn lasts up to its weight in packets while it can send), and its pacing wake-up.
struct Nic {
  std::vector<QpId> qps;  // active senders on this port, served round robin
  std::uint32_t cursor = 0;
  std::uint32_t credit = 0;  // packets the QP at `cursor` may still send in its turn
  // The pacing wake-up: posted, never cancelled. An earlier one replaces it by moving the
  // generation on; a wake-up whose generation is old does nothing when it fires (one could
  // be taken for the current one only after 2^32 replacements while it waits).
  Time wake_at;
  std::uint32_t wake_generation = 0;
  bool wake_armed = false;  // the wake-up of wake_generation has not fired yet

  // Takes `qp` off the round robin. The cursor keeps pointing at the QP that had the last
  // turn; if that one ended, at the one before it, so that the QP after it is served next.
  // Returns false if `qp` was not here.
  bool remove(QpId qp) {
    const auto it = std::find(qps.begin(), qps.end(), qp);
    if (it == qps.end()) return false;
    const auto position = static_cast<std::uint32_t>(it - qps.begin());
    const bool had_turn = position == cursor;
    qps.erase(it);
    const auto left = static_cast<std::uint32_t>(qps.size());
    if (left == 0) {
      cursor = 0;
    } else if (position <= cursor) {
      cursor = (cursor + left - 1) % left;
    }
    if (had_turn) credit = 0;
    return true;
  }
};

}  // namespace loom::network::packet
