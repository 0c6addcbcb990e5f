// The switching side of the fabric: egress ports transmitting, packets arriving and being
// forwarded (MMU admission, PFC), ECN marking and HPCC telemetry on the way, faults and cables.
#include "loom/network/packet/fabric.h"

#include "loom/core/error.h"

namespace loom::network::packet {

using topology::LinkId;

void Fabric::try_transmit(LinkId link) {
  EgressPort& port = ports_[link];
  Simulator& here = at_src(link);
  if (here.now() < port.busy_until) {
    if (!port.wake_pending) {
      port.wake_pending = true;
      here.post_at<&Fabric::on_transmit_done>(port.busy_until, this, link,
                                                    order_key(EventKind::kTransmitDone, link, port.busy_until));
    }
    return;
  }
  PacketId id = dequeue(port);
  if (id == kNoPacket && port.nic != kNoNic) id = next_data_packet(link);
  if (id != kNoPacket) transmit(link, id);
}

void Fabric::transmit(LinkId link, PacketId id) {
  EgressPort& port = ports_[link];
  Simulator& here = at_src(link);
  Packet& packet = pool_[id];
  Lane& lane = src_lane(link);
  if (packet.in_link != topology::kNone) {
    const topology::NodeId node = port.source;
    buffer_.release(packet.in_link, packet.wire, packet.priority);
    if (buffer_.any_paused(node)) {
      lane.resumable.clear();
      buffer_.take_resumable(node, lane.resumable);
      for (const IngressQueue& in : lane.resumable) send_pfc(in.link, in.priority, false);
    }
  }
  if (packet.kind == PacketKind::kData) {
    ++lane.counters.data_packet_hops;
    if (port.forwarding_source) {
      const std::uint64_t queued = port.queue[packet.priority].bytes;
      if (params_.sw.ecn && port.ecn_marks(queued, ecn_random_[link]) && (packet.flags & kEcnCe) == 0) {
        packet.flags |= kEcnCe;
        ++lane.counters.ecn_marks;
      }
      if (cc_.kind() == CcKind::kHpcc && packet.int_hops < kMaxIntHops) {
        pool_.telemetry(id)[packet.int_hops++] =
            IntHop{here.now(), port.tx_bytes, static_cast<std::uint32_t>(port.bytes), link};
      }
    }
  }
  packet.in_link = link;  // on the wire
  port.tx_bytes += packet.wire;
  const Time done = port.serialization(packet.wire);
  port.busy_until = here.now() + done;
  const Time arrival = here.now() + done + port.delay;
  const std::uint32_t key = order_key(EventKind::kArrive, link, arrival);
  if ((packet.flags & kMayComplete) != 0) [[unlikely]] final_sent(lane, id, link, arrival);
  if (far_lp_[link] == kSameLp) [[likely]] {
    at_dst(link).post_at<&Fabric::on_arrive>(arrival, this, id, key);
  } else {
    hand_over(lane, lps_on_thread_[link] != 0, at_dst(link), far_lp_[link], arrival,
              &detail::call_member<&Fabric::on_arrive, Fabric>, id, key);
  }
  // A NIC may have more data for its QPs; a switch port only if packets wait.
  if (!port.wake_pending && (port.nic != kNoNic || port.bytes != 0)) {
    port.wake_pending = true;
    here.post_at<&Fabric::on_transmit_done>(port.busy_until, this, link,
                                            order_key(EventKind::kTransmitDone, link, port.busy_until));
  }
}

// Inlined into its callers: out of line, the compiler may drop the call as free of effects.
[[gnu::always_inline]] inline void Fabric::prefetch_next_arrival(const Simulator& here) const {
  EventQueue::Fired next;
  if (here.peek_next(next) && next.context == this &&
      next.fn == &detail::call_member<&Fabric::on_arrive, Fabric>) {
    const auto id = static_cast<PacketId>(next.arg);
    const auto* packet = reinterpret_cast<const char*>(&pool_[id]);
    __builtin_prefetch(packet);
    __builtin_prefetch(packet + sizeof(Packet) - 1);
    if (cc_.kind() == CcKind::kHpcc) {
      // A switch writes the next hop record; the sender reads them all (5 hops: 120 bytes).
      const auto* telemetry = reinterpret_cast<const char*>(pool_.telemetry(id));
      __builtin_prefetch(telemetry);
      __builtin_prefetch(telemetry + 64);
      __builtin_prefetch(telemetry + 5 * sizeof(IntHop) - 1);
    }
  }
}

void Fabric::on_transmit_done(std::uint64_t link) {
  prefetch_next_arrival(at_src(static_cast<LinkId>(link)));
  ports_[link].wake_pending = false;
  try_transmit(static_cast<LinkId>(link));
}

void Fabric::on_arrive(std::uint64_t packet_id) {
  const auto id = static_cast<PacketId>(packet_id);
  Packet& packet = pool_[id];
  const bool data = packet.kind == PacketKind::kData;
  const std::uint32_t length = packet.path_links;
  // The link it crossed (its QP's path may have changed since, when re-routed).
  const LinkId arrived_on = packet.in_link;
  const Simulator& here = at_dst(arrived_on);
  Lane& lane = dst_lane(arrived_on);
  prefetch_next_arrival(here);
  // The port record of the arrival link is cold here; a byte per link says whether to look.
  const bool faulty = lossy_[arrived_on] != 0 &&
                      (ports_[arrived_on].down || error_random_[arrived_on].bernoulli(ports_[arrived_on].error_rate));
  if (faulty || (rerouted_ && packet.route_epoch != qps_[packet.qp].route_epoch)) {
    drop(lane, id, arrived_on, true);
    return;
  }
  if (packet.hop + 1u < length) {
    forward(lane, id, arrived_on);
  } else if (data) {
    if ((packet.flags & kMayComplete) != 0) [[unlikely]] final_gone(lane, id);
    receive_data(lane, id, here.now());
  } else {
    receive_ack(lane, id, here.now());
  }
}

void Fabric::forward(Lane& lane, PacketId id, LinkId arrived_on) {
  Packet& packet = pool_[id];
  const bool data = packet.kind == PacketKind::kData;
  const LinkId next = (data ? paths_.data(packet.qp, packet.path) : paths_.reverse(packet.qp))[++packet.hop];
  packet.in_link = topology::kNone;
  if (ports_[next].down) {
    drop(lane, id, next, false);
    return;
  }
  if (packet.priority != 0) {
    const EgressPort& out = ports_[next];
    if (params_.sw.egress_limit != 0 && out.queue[packet.priority].bytes + packet.wire > params_.sw.egress_limit) {
      drop(lane, id, next, false);
      return;
    }
    if (!buffer_.admit(arrived_on, packet.wire, packet.priority)) {
      drop(lane, id, next, false);
      return;
    }
    packet.in_link = arrived_on;
    if (buffer_.take_pause(arrived_on, packet.priority)) send_pfc(arrived_on, packet.priority, true);
  }
  if ((packet.flags & kMayComplete) != 0) [[unlikely]] final_queued(lane, id);
  enqueue(next, id);
  try_transmit(next);
}

void Fabric::drop(Lane& lane, PacketId id, LinkId at, bool on_cable) {
  ++lane.counters.drops;
  if ((pool_[id].flags & kMayComplete) != 0) [[unlikely]] final_gone(lane, id);
  // The port's record belongs to the link's source; the far end counts apart.
  ++(on_cable ? lost_on_cable_[at] : ports_[at].drops);
  release(lane, id);
}

void Fabric::flush(LinkId link) {
  EgressPort& port = ports_[link];
  for (PacketId id = dequeue(port); id != kNoPacket; id = dequeue(port)) {
    const Packet& packet = pool_[id];
    if (packet.in_link != topology::kNone) buffer_.release(packet.in_link, packet.wire, packet.priority);
    drop(src_lane(link), id, link, false);
  }
}

void Fabric::set_cable_up(LinkId link, bool up) {
  const LinkId reverse = topology_.link(link).reverse;
  for (const LinkId l : {link, reverse}) {
    ports_[l].down = !up;
    lossy_[l] = ports_[l].down || ports_[l].error_rate > 0 ? 1 : 0;
    if (up) {
      try_transmit(l);
    } else {
      const std::uint8_t paused = ports_[l].paused;
      ports_[l].paused = 0;  // flush every queue, paused ones included
      flush(l);
      ports_[l].paused = paused;
    }
  }
}

void Fabric::send_pfc(LinkId link, std::uint32_t priority, bool pause) {
  // The frame travels back over the reverse direction of `link` to the port that feeds it.
  const LinkId back = topology_.link(link).reverse;
  const Time delay = ports_[back].serialization(static_cast<std::uint32_t>(params_.sw.pause_frame_bytes)) +
                     topology_.link(back).latency;
  // Sent by the node `link` leads to, taking effect at the node it comes from.
  const Time when = at_dst(link).now() + delay;
  const std::uint64_t frame = (std::uint64_t{link} << 4) | (priority << 1) | (pause ? 1 : 0);
  const std::uint32_t key = order_key(EventKind::kPfc, link, when);
  if (near_lp_[link] == kSameLp) {
    at_src(link).post_at<&Fabric::on_pfc>(when, this, frame, key);
  } else {
    hand_over(dst_lane(link), lps_on_thread_[link] != 0, at_src(link), near_lp_[link], when,
              &detail::call_member<&Fabric::on_pfc, Fabric>, frame, key);
  }
}

void Fabric::on_pfc(std::uint64_t frame) {
  const auto link = static_cast<LinkId>(frame >> 4);
  const auto priority = static_cast<std::uint8_t>((frame >> 1) & 7u);
  const bool pause = (frame & 1) != 0;
  ports_[link].set_paused(priority, pause);
  Lane& lane = src_lane(link);
  ++(pause ? lane.counters.pauses : lane.counters.resumes);
  if (record_pfc_) {
    const PfcEvent event{at_src(link).now(), link, pause, priority};
    if (windowed_) {
      lane.pfc.push_back(event);  // merged and capped at end_window()
    } else if (pfc_events_.size() < pfc_limit_) {
      pfc_events_.push_back(event);
    } else {
      ++pfc_events_dropped_;
    }
  }
  if (!pause) try_transmit(link);
}

}  // namespace loom::network::packet
