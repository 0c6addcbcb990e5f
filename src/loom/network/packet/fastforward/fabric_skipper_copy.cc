// FabricSkipper::copy: an exact twin takes its leader's packet-level state (fabric_skipper.h).
#include <algorithm>

#include "loom/network/packet/fastforward/fabric_skipper.h"

namespace loom::network::packet::fastforward {

using topology::LinkId;

namespace {

using Fired = EventQueue::Fired;

template <auto Method>
bool is(const Fired& event) {
  return event.fn == &detail::call_member<Method, Fabric>;
}

}  // namespace

bool FabricSkipper::timer(const Fired& event) {
  return is<&Fabric::on_decrease>(event) || is<&Fabric::on_increase>(event) || is<&Fabric::on_timeout>(event);
}

std::string_view to_string(CopyRefusal refusal) {
  switch (refusal) {
    case CopyRefusal::kNone: return "none";
    case CopyRefusal::kProgress: return "progress";
    case CopyRefusal::kMode: return "mode";
    case CopyRefusal::kQueuePairs: return "queue_pairs";
    case CopyRefusal::kPorts: return "ports";
    case CopyRefusal::kPaused: return "paused";
    case CopyRefusal::kLossy: return "lossy";
    case CopyRefusal::kSharedPort: return "shared_port";
    case CopyRefusal::kSharedArrival: return "shared_arrival";
    case CopyRefusal::kPfc: return "pfc";
  }
  return "none";
}

CopyRefusal FabricSkipper::map_twin(std::span<const QpId> from, std::span<const QpId> to) {
  const Fabric& f = fabric_;
  // The copy reads and rewrites the serial simulator's queue; under windows the partition's
  // events are in its LPs' queues and lanes.
  if (f.windowed_ || f.bound_completions_ || f.params_.nic.selective_repeat) return CopyRefusal::kMode;
  if (from.size() != to.size()) return CopyRefusal::kQueuePairs;
  for (std::size_t i = 0; i < from.size(); ++i) {
    const Qp& a = f.qps_[from[i]];
    const Qp& b = f.qps_[to[i]];
    if (!a.active || !b.active || a.forward_len != b.forward_len || a.reverse_len != b.reverse_len ||
        a.priority != b.priority || a.weight != b.weight || a.window != b.window || a.size > b.size ||
        a.cc.line_rate != b.cc.line_rate || a.cc.base_rtt != b.cc.base_rtt || from[i] == to[i]) {
      return CopyRefusal::kQueuePairs;
    }
  }
  link_map_.assign(f.ports_.size(), topology::kNone);
  link_back_.assign(f.ports_.size(), topology::kNone);
  qp_map_.assign(f.qps_.size(), kNoQp);
  qp_back_.assign(f.qps_.size(), kNoQp);
  copy_from_ports_.clear();
  const auto pair_links = [&](LinkId a, LinkId b) {
    if (link_map_[a] == topology::kNone && link_back_[b] == topology::kNone) {
      link_map_[a] = b;
      link_back_[b] = a;
      copy_from_ports_.push_back(a);
      return true;
    }
    return link_map_[a] == b && link_back_[b] == a;
  };
  for (std::size_t i = 0; i < from.size(); ++i) {
    qp_map_[from[i]] = to[i];
    qp_back_[to[i]] = from[i];
    const Qp& a = f.qps_[from[i]];
    for (std::uint32_t h = 0; h < a.forward_len; ++h) {
      if (!pair_links(f.paths_.forward(from[i])[h], f.paths_.forward(to[i])[h])) return CopyRefusal::kPorts;
    }
    for (std::uint32_t h = 0; h < a.reverse_len; ++h) {
      if (!pair_links(f.paths_.reverse(from[i])[h], f.paths_.reverse(to[i])[h])) return CopyRefusal::kPorts;
    }
  }
  for (const LinkId a : copy_from_ports_) {
    if (const CopyRefusal refusal = port_refusal(a, link_map_[a]); refusal != CopyRefusal::kNone) return refusal;
  }
  return CopyRefusal::kNone;
}

CopyRefusal FabricSkipper::port_refusal(LinkId from, LinkId to) const {
  const Fabric& f = fabric_;
  const EgressPort& p = f.ports_[from];
  const EgressPort& q = f.ports_[to];
  if (p.bps != q.bps || p.delay != q.delay || p.kmin != q.kmin || p.kmax != q.kmax || p.pmax != q.pmax ||
      p.error_rate != q.error_rate || p.down || q.down || p.forwarding_source != q.forwarding_source ||
      p.forwarding_target != q.forwarding_target || (p.nic == kNoNic) != (q.nic == kNoNic)) {
    return CopyRefusal::kPorts;
  }
  if (!port_quiet(from) || !port_quiet(to)) return CopyRefusal::kPaused;
  if (f.lossy_[from] != 0 || f.lossy_[to] != 0) return CopyRefusal::kLossy;
  if (alien(from) || alien(to)) return CopyRefusal::kSharedPort;
  return CopyRefusal::kNone;
}

bool FabricSkipper::alien(LinkId link) const {
  const Fabric& f = fabric_;
  const EgressPort& port = f.ports_[link];
  if (port.nic != kNoNic) {
    for (const QpId q : f.nics_[port.nic].qps) {
      if (!mapped(q)) return true;
    }
  }
  for (const ClassQueue& queue : port.queue) {
    for (PacketId id = queue.head; id != kNoPacket; id = f.pool_[id].next) {
      if (!mapped(f.pool_[id].qp)) return true;
    }
  }
  return false;
}

CopyRefusal FabricSkipper::copy(std::span<const QpId> from, std::span<const QpId> to) {
  if (const CopyRefusal refusal = map_twin(from, to); refusal != CopyRefusal::kNone) return refusal;
  Fabric& f = fabric_;
  // The leader's pending events, read without moving them (a zero shift that selects none);
  // a PFC frame, or a packet of another QP, on either side's ports refuses the copy.
  leader_events_.clear();
  copy_refused_ = CopyRefusal::kNone;
  f.simulator_.shift_events(Time::zero(), &FabricSkipper::collect, this);
  if (copy_refused_ != CopyRefusal::kNone) return copy_refused_;

  // The follower's own state goes: its events, its packets in flight and queued.
  f.simulator_.remove_events(&FabricSkipper::follower_event, this);
  for (const LinkId a : copy_from_ports_) clear_port(link_map_[a]);

  // Credited as if sent: what the leader's QPs sent beyond the follower's (fabric totals and
  // port counters, as a skip credits them).
  qp_member_.assign(f.qps_.size(), 0);
  qp_credit_.assign(f.qps_.size(), 0);
  port_credit_.assign(f.ports_.size(), 0);
  std::vector<std::int64_t> credits;
  for (std::size_t i = 0; i < to.size(); ++i) {
    credits.push_back(static_cast<std::int64_t>(f.qps_[from[i]].sent_high - f.qps_[to[i]].sent_high));
  }
  credit_ports(to, credits);
  // Delivered bytes follow the receivers (the follower's packets in flight went, the
  // leader's arrive in their place).
  for (std::size_t i = 0; i < to.size(); ++i) {
    f.lanes_[0].counters.delivered_bytes += f.qps_[from[i]].rcv_nxt - f.qps_[to[i]].rcv_nxt;
    f.lanes_[0].counters.delivered_bytes -= static_cast<std::uint64_t>(credits[i]);
  }
  tx_offset_.assign(f.ports_.size(), 0);
  for (const LinkId a : copy_from_ports_) {
    EgressPort& b = f.ports_[link_map_[a]];
    b.tx_bytes += static_cast<std::uint64_t>(port_credit_[link_map_[a]]);
    tx_offset_[a] = b.tx_bytes - f.ports_[a].tx_bytes;  // modulo 2^64
  }

  for (std::size_t i = 0; i < to.size(); ++i) copy_qp(from[i], to[i]);
  for (const LinkId a : copy_from_ports_) copy_port(a, link_map_[a]);
  // The leader's events, for the follower, in time order (ties: as they were scheduled).
  std::stable_sort(leader_events_.begin(), leader_events_.end(), [](const Fired& x, const Fired& y) { return x.time < y.time; });
  for (const Fired& event : leader_events_) copy_event(event);
  return CopyRefusal::kNone;
}

bool FabricSkipper::collect(void* self, const Fired& event) {
  auto* skipper = static_cast<FabricSkipper*>(self);
  Fabric& f = skipper->fabric_;
  if (event.context != &f) return false;
  const LinkId link = skipper->event_link(event);
  if (link != topology::kNone && (skipper->link_map_[link] != topology::kNone || skipper->link_back_[link] != topology::kNone)) {
    // Both found: a PFC frame is the reason, whatever order the events are visited in.
    if (is<&Fabric::on_pfc>(event)) {
      skipper->copy_refused_ = CopyRefusal::kPfc;
    } else if (is<&Fabric::on_arrive>(event) && !skipper->mapped(f.pool_[static_cast<PacketId>(event.arg)].qp)) {
      skipper->copy_refused_ = std::max(skipper->copy_refused_, CopyRefusal::kSharedArrival);
    } else if (skipper->link_map_[link] != topology::kNone) {
      skipper->leader_events_.push_back(event);
    }
  } else if (timer(event)) {
    const auto q = static_cast<QpId>(event.arg & 0xffffffffu);
    if (q < skipper->qp_map_.size() && skipper->qp_map_[q] != kNoQp && event.arg == f.qp_ref(q)) {
      skipper->leader_events_.push_back(event);
    }
  }
  return false;
}

bool FabricSkipper::follower_event(void* self, const Fired& event) {
  auto* skipper = static_cast<FabricSkipper*>(self);
  Fabric& f = skipper->fabric_;
  if (event.context != &f) return false;
  if (timer(event)) {
    const auto q = static_cast<QpId>(event.arg & 0xffffffffu);
    return q < skipper->qp_back_.size() && skipper->qp_back_[q] != kNoQp;
  }
  const LinkId link = skipper->event_link(event);
  if (link == topology::kNone || skipper->link_back_[link] == topology::kNone) return false;
  if (is<&Fabric::on_arrive>(event)) f.pool_.release(static_cast<PacketId>(event.arg));
  return true;
}

LinkId FabricSkipper::event_link(const Fired& event) const {
  if (is<&Fabric::on_arrive>(event)) return fabric_.pool_[static_cast<PacketId>(event.arg)].in_link;
  if (is<&Fabric::on_transmit_done>(event)) return static_cast<LinkId>(event.arg);
  if (is<&Fabric::on_wake>(event)) return static_cast<LinkId>(event.arg & 0xffffffffu);
  if (is<&Fabric::on_pfc>(event)) return static_cast<LinkId>(event.arg >> 4);
  return topology::kNone;
}

void FabricSkipper::clear_port(LinkId link) {
  Fabric& f = fabric_;
  EgressPort& port = f.ports_[link];
  for (ClassQueue& queue : port.queue) {
    for (PacketId id = queue.head; id != kNoPacket;) {
      const Packet& packet = f.pool_[id];
      const PacketId next = packet.next;
      if (packet.in_link != topology::kNone) f.buffer_.release(packet.in_link, packet.wire, packet.priority);
      f.pool_.release(id);
      id = next;
    }
    queue = ClassQueue{};
  }
  port.bytes = 0;
  port.nonempty = 0;
}

void FabricSkipper::copy_qp(QpId from, QpId to) {
  Fabric& f = fabric_;
  Qp& qp = f.qps_[to];
  const Qp own = qp;
  qp = f.qps_[from];
  qp.size = own.size;
  qp.tag = own.tag;
  qp.generation = own.generation;
  qp.start = own.start;
  qp.route_epoch = own.route_epoch;
  qp.decrease = qp.increase = qp.timeout = EventId{};
  std::uint32_t hop = 0;
  for (std::uint32_t h = 0; h < qp.forward_len && hop < qp.cc.hops; ++h) {
    const LinkId l = f.paths_.forward(from)[h];
    if (!f.ports_[l].forwarding_source) continue;
    qp.cc.hop[hop++].tx_bytes += tx_offset_[l];
  }
}

void FabricSkipper::copy_port(LinkId from, LinkId to) {
  Fabric& f = fabric_;
  const EgressPort& a = f.ports_[from];
  EgressPort& b = f.ports_[to];
  b.busy_until = a.busy_until;
  b.wake_pending = a.wake_pending;
  b.wrr_class = a.wrr_class;
  b.wrr_credit = a.wrr_credit;
  for (const ClassQueue& queue : a.queue) {
    for (PacketId id = queue.head; id != kNoPacket; id = f.pool_[id].next) {
      const PacketId twin = copy_packet(id);
      const Packet& packet = f.pool_[twin];
      // Admitted at the follower's switch as at the leader's; a fuller buffer there drops it
      // as the switch would have.
      if (packet.in_link != topology::kNone && !f.buffer_.admit(packet.in_link, packet.wire, packet.priority)) {
        f.pool_.release(twin);
        --f.qps_[packet.qp].packets_alive;
        ++b.drops;
        continue;
      }
      f.enqueue(to, twin);
    }
  }
  if (a.nic == kNoNic) return;
  const Nic& n = f.nics_[a.nic];
  Nic& m = f.nics_[b.nic];
  m.qps.clear();
  for (const QpId q : n.qps) m.qps.push_back(qp_map_[q]);
  m.cursor = n.cursor;
  m.credit = n.credit;
  m.wake_at = n.wake_at;
  m.wake_armed = false;  // armed again with the leader's pending wake-up, if any (copy_event)
}

PacketId FabricSkipper::copy_packet(PacketId id) {
  Fabric& f = fabric_;
  const PacketId twin = f.pool_.allocate();
  Packet& packet = f.pool_[twin];
  packet = f.pool_[id];
  const Qp& leader = f.qps_[packet.qp];
  packet.qp = qp_map_[packet.qp];
  const Qp& qp = f.qps_[packet.qp];
  packet.generation = static_cast<std::uint16_t>(qp.generation);
  packet.route_epoch = static_cast<std::uint8_t>(packet.route_epoch - leader.route_epoch + qp.route_epoch);
  packet.next = kNoPacket;
  if (packet.in_link != topology::kNone) packet.in_link = link_map_[packet.in_link];
  if (packet.int_hops == 0) return twin;  // (no telemetry records without HPCC)
  const IntHop* hops = f.pool_.telemetry(id);
  IntHop* copies = f.pool_.telemetry(twin);
  for (std::uint32_t h = 0; h < packet.int_hops; ++h) {
    copies[h] = hops[h];
    copies[h].tx_bytes += tx_offset_[hops[h].link];
    copies[h].link = link_map_[hops[h].link];
  }
  return twin;
}

void FabricSkipper::copy_event(const Fired& event) {
  Fabric& f = fabric_;
  if (timer(event)) {
    const auto from = static_cast<QpId>(event.arg & 0xffffffffu);
    const QpId to = qp_map_[from];
    const Qp& a = f.qps_[from];
    Qp& b = f.qps_[to];
    const std::uint64_t ref = f.qp_ref(to);
    if (is<&Fabric::on_decrease>(event) && f.at_sender(from).is_pending(a.decrease)) {
      b.decrease = f.at_sender(to).schedule_at<&Fabric::on_decrease>(event.time, &f, ref, Fabric::order_key(Fabric::EventKind::kDecrease, to, event.time));
    } else if (is<&Fabric::on_increase>(event) && f.at_sender(from).is_pending(a.increase)) {
      b.increase = f.at_sender(to).schedule_at<&Fabric::on_increase>(event.time, &f, ref, Fabric::order_key(Fabric::EventKind::kIncrease, to, event.time));
    } else if (is<&Fabric::on_timeout>(event)) {
      b.timeout = f.at_sender(to).schedule_at<&Fabric::on_timeout>(event.time, &f, ref, Fabric::order_key(Fabric::EventKind::kTimeout, to, event.time));
    }
    return;
  }
  const LinkId from = event_link(event);
  const LinkId to = link_map_[from];
  if (is<&Fabric::on_arrive>(event)) {
    const PacketId twin = copy_packet(static_cast<PacketId>(event.arg));
    f.at_dst(to).post_at<&Fabric::on_arrive>(event.time, &f, twin, Fabric::order_key(Fabric::EventKind::kArrive, to, event.time));
  } else if (is<&Fabric::on_transmit_done>(event)) {
    f.at_src(to).post_at<&Fabric::on_transmit_done>(event.time, &f, to, Fabric::order_key(Fabric::EventKind::kTransmitDone, to, event.time));
  } else if (is<&Fabric::on_wake>(event)) {
    const Nic& n = f.nics_[f.ports_[from].nic];
    if (!n.wake_armed || (event.arg >> 32) != n.wake_generation) return;  // a stale wake-up
    Nic& m = f.nics_[f.ports_[to].nic];
    m.wake_armed = true;
    f.at_src(to).post_at<&Fabric::on_wake>(event.time, &f, to | (std::uint64_t{++m.wake_generation} << 32),
                                           Fabric::order_key(Fabric::EventKind::kWake, to, event.time));
  }
}

}  // namespace loom::network::packet::fastforward
