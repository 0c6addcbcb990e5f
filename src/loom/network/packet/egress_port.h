// The egress port at the source of every directed link: its class queues and their scheduler,
// PFC pause state per class, serialisation, and ECN RED marking on its queues.
//
// Queues. sw.queues FIFO queues, one per traffic class, threaded through the packets' `next`
// field (a packet is in at most one queue). Class 0 is the control class and is always served
// first. Between the data classes 1..queues-1 the port schedules by sw.scheduler: strict
// priority (the lowest-numbered ready class first) or weighted round robin (a class's turn
// lasts up to class_weights[c] packets while it has packets and is not paused; empty or paused
// classes are skipped, so it is work conserving). A class paused by the far end (PFC) is not
// ready.
// Serialisation: a packet of w wire bytes occupies the port for serialization_time(w,
// bandwidth), exactly (whole picoseconds per byte when the bandwidth divides 8 x 10^12).
// ECN: RED on the bytes of the packet's own class queue: no mark at or below kmin, a mark
// above kmax, in between with probability pmax (queued - kmin) / (kmax - kmin).
//
// Layout for the per-hop path: the first cache line holds what every packet touches, each
// class queue sits in one line, statistics and settings read rarely come last. Every function
// here is inline: the fabric calls them once or more per packet hop.
#pragma once

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>

#include "loom/core/random.h"
#include "loom/core/time.h"
#include "loom/core/units.h"
#include "loom/network/packet/packet_params.h"
#include "loom/network/packet/packet_pool.h"
#include "loom/topology/topology.h"

namespace loom::network::packet {

inline constexpr std::uint32_t kQueues = kMaxQueues;
// EgressPort::nic of a port whose source forwards (a switch or NIC node).
inline constexpr std::uint32_t kNoNic = 0xffffffffu;

// One traffic class of a port: a FIFO threaded through the packets' `next`, and its bytes.
struct ClassQueue {
  PacketId head = kNoPacket;
  PacketId tail = kNoPacket;
  std::uint64_t bytes = 0;
};

struct alignas(64) EgressPort {
  Time busy_until;                    // the current packet's last bit leaves then
  std::uint64_t bytes = 0;            // bytes over all queues
  std::uint64_t tx_bytes = 0;         // bytes sent so far
  Time delay;                         // latency + far node's forwarding latency
  std::uint32_t ps_per_byte = 0;      // exact serialisation per byte, 0 if not whole
  std::uint32_t nic = kNoNic;         // index of the fabric's NIC when the source is an endpoint
  std::uint32_t kmin = 0, kmax = 0;
  std::uint8_t nonempty = 0;          // bit per queue holding packets
  std::uint8_t paused = 0;            // bit per queue paused by the far end
  bool wake_pending = false;          // a transmit-done event is scheduled
  bool forwarding_source = false;     // the source forwards (switch, NIC node)
  bool down = false;                  // the cable is down
  bool forwarding_target = false;     // the destination forwards
  std::uint8_t wrr_class = 0;         // weighted round robin: the class whose turn it is
  std::uint16_t wrr_credit = 0;       // ... and the packets it may still send in that turn
  topology::NodeId source = 0;        // the node the link leaves (whose MMU held the packet)
  ClassQueue queue[kQueues];          // by traffic class
  std::uint64_t peak = 0;             // most bytes ever queued
  std::uint64_t drops = 0;            // packets dropped here (see Fabric::drops)
  std::uint64_t bps = 0;
  double pmax = 0;
  float error_rate = 0;

  Time serialization(std::uint32_t wire_bytes) const {
    if (ps_per_byte != 0) return Time::ps(static_cast<std::int64_t>(wire_bytes) * ps_per_byte);
    return serialization_time(wire_bytes, Bandwidth::bits_per_second(bps));
  }

  // Appends packet `id` to the queue of its class.
  void enqueue(PacketPool& pool, PacketId id) {
    Packet& packet = pool[id];
    const std::uint8_t q = packet.priority;
    packet.next = kNoPacket;
    ClassQueue& to = queue[q];
    if (to.tail == kNoPacket) {
      to.head = id;
      nonempty |= static_cast<std::uint8_t>(1u << q);
    } else {
      pool[to.tail].next = id;
    }
    to.tail = id;
    to.bytes += packet.wire;
    bytes += packet.wire;
    peak = std::max(peak, bytes);
  }

  // Takes the next packet the scheduler picks among the classes that hold packets and are not
  // paused (kNoPacket if none): class 0 first, then strict priority or, with `wrr`, weighted
  // round robin by `weights`.
  PacketId dequeue(PacketPool& pool, bool wrr, const std::uint32_t* weights) {
    const unsigned ready = nonempty & static_cast<unsigned>(~paused) & 0xffu;
    if (ready == 0) return kNoPacket;
    const std::uint32_t q = wrr && (ready & 1u) == 0 ? next_wrr_class(ready, weights)
                                                     : static_cast<std::uint32_t>(std::countr_zero(ready));
    ClassQueue& from = queue[q];
    const PacketId id = from.head;
    const Packet& packet = pool[id];
    from.head = packet.next;
    if (from.head == kNoPacket) {
      from.tail = kNoPacket;
      nonempty &= static_cast<std::uint8_t>(~(1u << q));
    } else {
      __builtin_prefetch(&pool[from.head]);  // the next packet to leave this queue
    }
    from.bytes -= packet.wire;
    bytes -= packet.wire;
    return id;
  }

  // Weighted round robin among the ready data classes (bit set in `ready`, class 0 not ready).
  std::uint32_t next_wrr_class(unsigned ready, const std::uint32_t* weights) {
    if (wrr_credit > 0 && ((ready >> wrr_class) & 1u) != 0) {
      --wrr_credit;
      return wrr_class;
    }
    // The turn passes to the next ready class after the current one, cyclically.
    const unsigned after = ready & ~((2u << wrr_class) - 1u);
    const auto c = static_cast<std::uint32_t>(std::countr_zero(after != 0 ? after : ready));
    wrr_class = static_cast<std::uint8_t>(c);
    wrr_credit = static_cast<std::uint16_t>(weights[c] - 1);
    return c;
  }

  // PFC: the far end paused (or resumed) class `priority`.
  void set_paused(std::uint32_t priority, bool pause) {
    const auto bit = static_cast<std::uint8_t>(1u << priority);
    paused = pause ? static_cast<std::uint8_t>(paused | bit) : static_cast<std::uint8_t>(paused & ~bit);
  }
  bool class_paused(std::uint32_t priority) const { return ((paused >> priority) & 1) != 0; }

  // ECN RED: whether a data packet leaving with `queued` bytes in its class queue is marked.
  // Draws from `random` only between kmin and kmax.
  bool ecn_marks(std::uint64_t queued, RandomStream& random) const {
    if (queued <= kmin) return false;
    return queued > kmax || random.uniform() < pmax * static_cast<double>(queued - kmin) /
                                                   static_cast<double>(kmax - kmin);
  }
};
static_assert(offsetof(EgressPort, queue) == 64, "a hop's port fields fill the first cache line");

// Sets what follows from the port's rate (> 0): bps, serialisation per byte, and the ECN
// thresholds and probability (per Gb/s, or the entry of params.sw.ecn_table for that speed).
void set_port_rate(EgressPort& port, Bandwidth rate, const PacketParams& params);

// The port of `link` as `params` configure it: delay, serialisation, error rate (the link's
// combined with params.link_error_rate: 1 - (1 - a)(1 - b)), ECN thresholds (per Gb/s, or the
// entry of params.sw.ecn_table for the link's speed). `nic` is left to the fabric.
EgressPort make_egress_port(const topology::Topology& topology, topology::LinkId link, const PacketParams& params);

}  // namespace loom::network::packet
