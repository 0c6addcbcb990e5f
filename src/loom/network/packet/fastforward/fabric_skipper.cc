#include "loom/network/packet/fastforward/fabric_skipper.h"

#include <algorithm>

namespace loom::network::packet::fastforward {

using topology::LinkId;

namespace {

// Adds a signed amount to an unsigned counter (modulo 2^64, so taking back works).
void add(std::uint64_t& counter, std::int64_t amount) { counter += static_cast<std::uint64_t>(amount); }

}  // namespace

bool FabricSkipper::can_skip(QpId q) const {
  const Qp& qp = fabric_.qps_[q];
  return qp.active && !qp.repair_pending && qp.held_high <= qp.rcv_nxt && qp.snd_nxt == qp.sent_high;
}

bool FabricSkipper::port_quiet(LinkId link) const {
  if (fabric_.ports_[link].paused != 0) return false;
  for (std::uint32_t c = 0; c < fabric_.params_.sw.queues; ++c) {
    if (fabric_.buffer_.paused(link, c)) return false;
  }
  return true;
}

void FabricSkipper::shift(std::span<const QpId> qps, std::span<const std::int64_t> credits,
                          std::span<const LinkId> ports, Time delta) {
  Fabric& f = fabric_;
  delta_ = delta;
  qp_member_.assign(f.qps_.size(), 0);
  qp_credit_.assign(f.qps_.size(), 0);
  port_member_.assign(f.ports_.size(), 0);
  port_credit_.assign(f.ports_.size(), 0);
  for (const LinkId l : ports) port_member_[l] = 1;
  // Wire bytes per port first: HPCC's samples of a port's counter need every QP's share.
  credit_ports(qps, credits);
  for (std::size_t i = 0; i < qps.size(); ++i) {
    const QpId q = qps[i];
    const std::int64_t c = credits[i];
    Qp& qp = f.qps_[q];
    add(qp.snd_nxt, c);
    add(qp.snd_una, c);
    add(qp.sent_high, c);
    add(qp.rcv_nxt, c);
    add(qp.last_nack_seq, c);
    if (qp.repaired_seq != kNoRepair) add(qp.repaired_seq, c);
    if (qp.held_high != 0) add(qp.held_high, c);
    if (qp.cc.last_update_seq != 0) add(qp.cc.last_update_seq, c);
    if (qp.cc.high_seq != 0) add(qp.cc.high_seq, c);
    qp.next_avail += delta;
    qp.last_progress += delta;
    qp.nack_time += delta;
    qp.cc.alpha_tick += delta;
    qp.cc.decrease_origin += delta;
    // HPCC's samples are taken at the forwarding ports of the path, in order.
    std::uint32_t hop = 0;
    for (std::uint32_t h = 0; h < qp.forward_len && hop < qp.cc.hops; ++h) {
      const LinkId l = f.paths_.forward(q)[h];
      if (!f.ports_[l].forwarding_source) continue;
      qp.cc.hop[hop].time += delta;
      add(qp.cc.hop[hop].tx_bytes, port_credit_[l]);
      ++hop;
    }
  }
  for (const LinkId l : ports) {
    EgressPort& port = f.ports_[l];
    add(port.tx_bytes, port_credit_[l]);
    port.busy_until += delta;
    if (port.nic != kNoNic) f.nics_[port.nic].wake_at += delta;
    for (const ClassQueue& queue : port.queue) {
      for (PacketId id = queue.head; id != kNoPacket; id = f.pool_[id].next) shift_packet(id);
    }
  }
  shift_events();
}

void FabricSkipper::shift_events() {
  Fabric& f = fabric_;
  if (!f.windowed_) {
    f.simulator_.shift_events(delta_, &FabricSkipper::owned, this);
    return;
  }
  // Windowed: the partition's events are in the queues of the LPs of its nodes, or held in a
  // lane for another LP until the next window (Fabric::hand_over). Its packets that may
  // complete their QP are tracked with their arrival times (Fabric::completion_bound).
  for (Simulator* lp : f.lp_sim_) lp->shift_events(delta_, &FabricSkipper::owned, this);
  for (Fabric::Lane& lane : f.lanes_) {
    lane.earliest_handoff = Time::max();
    for (Fabric::HandOff& h : lane.handoffs) {
      if (owned(this, EventQueue::Fired{h.when, h.fn, &f, h.arg, h.order})) h.when += delta_;
      lane.earliest_handoff = std::min(lane.earliest_handoff, h.when);
    }
    for (std::vector<Fabric::FinalCopy>* copies : {&lane.finals, &lane.finals_out}) {
      for (Fabric::FinalCopy& copy : *copies) {
        if (!copy.queued && qp_in(f.pool_[copy.id].qp)) copy.arrival += delta_;
      }
    }
  }
}

void FabricSkipper::credit_ports(std::span<const QpId> qps, std::span<const std::int64_t> credits) {
  Fabric& f = fabric_;
  const auto mtu = static_cast<std::int64_t>(f.params_.nic.mtu);
  const auto data_wire = mtu + static_cast<std::int64_t>(f.data_header_);
  const auto ack_wire = static_cast<std::int64_t>(f.ack_wire_);
  const auto ack_interval = static_cast<std::int64_t>(f.params_.nic.ack_interval);
  for (std::size_t i = 0; i < qps.size(); ++i) {
    const QpId q = qps[i];
    const std::int64_t packets = credits[i] / mtu;
    const std::int64_t acks = packets / ack_interval;
    qp_member_[q] = 1;
    qp_credit_[q] = credits[i];
    const Qp& qp = f.qps_[q];
    for (std::uint32_t h = 0; h < qp.forward_len; ++h) port_credit_[f.paths_.forward(q)[h]] += packets * data_wire;
    for (std::uint32_t h = 0; h < qp.reverse_len; ++h) port_credit_[f.paths_.reverse(q)[h]] += acks * ack_wire;
    // The fabric's totals are its lanes' sums: lane 0 takes every skip's (a skip runs between
    // windows, when no LP writes its lane).
    FabricCounters& counters = f.lanes_[0].counters;
    add(counters.data_packets, packets);
    add(counters.data_packet_hops, packets * qp.forward_len);
    add(counters.control_packets, acks);
    add(counters.delivered_bytes, credits[i]);
  }
}

void FabricSkipper::shift_packet(PacketId id) {
  Packet& packet = fabric_.pool_[id];
  if (!qp_in(packet.qp)) return;
  add(packet.seq, qp_credit_[packet.qp]);
  packet.sent_at += delta_;
  if (packet.int_hops == 0) return;
  IntHop* hops = fabric_.pool_.telemetry(id);
  for (std::uint32_t h = 0; h < packet.int_hops; ++h) {
    hops[h].time += delta_;
    add(hops[h].tx_bytes, port_credit_[hops[h].link]);
  }
}

bool FabricSkipper::owned(void* self, const EventQueue::Fired& event) {
  auto* skipper = static_cast<FabricSkipper*>(self);
  Fabric& f = skipper->fabric_;
  if (event.context != &f) return false;
  const EventFn fn = event.fn;
  if (fn == &detail::call_member<&Fabric::on_arrive, Fabric>) {
    const auto id = static_cast<PacketId>(event.arg);
    if (!skipper->qp_in(f.pool_[id].qp)) return false;
    skipper->shift_packet(id);
    return true;
  }
  LinkId link = topology::kNone;
  if (fn == &detail::call_member<&Fabric::on_transmit_done, Fabric>) {
    link = static_cast<LinkId>(event.arg);
  } else if (fn == &detail::call_member<&Fabric::on_wake, Fabric>) {
    link = static_cast<LinkId>(event.arg & 0xffffffffu);
  } else if (fn == &detail::call_member<&Fabric::on_pfc, Fabric>) {
    link = static_cast<LinkId>(event.arg >> 4);
  } else if (fn == &detail::call_member<&Fabric::on_decrease, Fabric> ||
             fn == &detail::call_member<&Fabric::on_increase, Fabric> ||
             fn == &detail::call_member<&Fabric::on_timeout, Fabric>) {
    return skipper->qp_in(static_cast<QpId>(event.arg & 0xffffffffu));
  }
  return link != topology::kNone && skipper->port_member_[link] != 0;
}

}  // namespace loom::network::packet::fastforward
