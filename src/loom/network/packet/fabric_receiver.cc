// The receiving side of the fabric: data arriving at its receiver (in order, held out of order
// with selective repeat, or NACKed), ACK/NACK sent back, and ACK/NACK arriving at the sender
// (congestion control, go-back-N or a repair, the QP's end).
#include <algorithm>
#include <cmath>
#include <functional>

#include "loom/network/packet/fabric.h"

namespace loom::network::packet {

using topology::LinkId;

void Fabric::send_control(Lane& lane, PacketId id, PacketKind kind, std::uint64_t seq, bool echo) {
  // The data packet's record becomes the ACK: its send time and telemetry travel back as is.
  Packet& packet = pool_[id];
  packet.kind = kind;
  packet.seq = seq;
  packet.payload = 0;
  packet.wire = static_cast<std::uint32_t>(ack_wire_);
  packet.flags = echo ? kEcnEcho : 0;
  packet.hop = 0;
  packet.in_link = topology::kNone;
  const Qp& qp = qps_[packet.qp];
  packet.priority = ack_control_ ? 0 : qp.priority;
  packet.path_links = qp.reverse_len;
  ++lane.counters.control_packets;
  const LinkId first = paths_.reverse(packet.qp)[0];
  enqueue(first, id);
  try_transmit(first);
}

void Fabric::receive_data(Lane& lane, PacketId id, Time now) {
  Packet& packet = pool_[id];
  const QpId q = packet.qp;
  Qp& qp = qps_[q];
  // The receiver knows only its own half: a duplicate reaching it after the sender has ended is
  // ACKed like any other (the sender ignores the ACK). A slot is reused only once none of its
  // packets is left, so a live packet's generation always matches; the test is a guard.
  if (packet.generation != static_cast<std::uint16_t>(qp.generation)) {
    release(lane, id);
    return;
  }
  const bool selective = params_.nic.selective_repeat;
  if (packet.seq == qp.rcv_nxt) {
    qp.rcv_nxt += packet.payload;
    lane.counters.delivered_bytes += packet.payload;
    if (selective) drain_reordered(lane, q);
    qp.rx_marked = qp.rx_marked || (packet.flags & kEcnCe) != 0;
    ++qp.rx_unacked;
    const bool complete = qp.rcv_nxt >= qp.size;
    // Selective repeat: a hole before held packets is NACKed at once.
    const bool hole = selective && qp.rcv_nxt < qp.held_high;
    if (qp.rx_unacked >= params_.nic.ack_interval || complete || hole) {
      const bool echo = qp.rx_marked;
      qp.rx_unacked = 0;
      qp.rx_marked = false;
      if (hole) ++lane.counters.nacks;
      send_control(lane, id, hole ? PacketKind::kNack : PacketKind::kAck, qp.rcv_nxt, echo);
    } else {
      release(lane, id);
    }
    if (complete && !qp.delivered) {
      qp.delivered = true;
      if (listener_ != nullptr && windowed_) {
        const std::lock_guard<std::mutex> lock(listener_mutex_);
        listener_->on_qp_delivered(q, qp.tag);
      } else if (listener_ != nullptr) {
        listener_->on_qp_delivered(q, qp.tag);
      }
    }
  } else if (packet.seq > qp.rcv_nxt) {
    if (selective) {
      // Every out-of-order packet is kept (within the reorder window) and NACKed: the NACK
      // names the first missing byte; the sender repairs each hole once.
      hold_reordered(q, packet.seq);
      ++lane.counters.nacks;
      send_control(lane, id, PacketKind::kNack, qp.rcv_nxt, (packet.flags & kEcnCe) != 0);
    } else if (now >= qp.nack_time || qp.last_nack_seq != qp.rcv_nxt) {
      qp.nack_time = now + params_.nic.nack_interval;
      qp.last_nack_seq = qp.rcv_nxt;
      ++lane.counters.nacks;
      send_control(lane, id, PacketKind::kNack, qp.rcv_nxt, (packet.flags & kEcnCe) != 0);
    } else {
      release(lane, id);
    }
  } else {
    send_control(lane, id, PacketKind::kAck, qp.rcv_nxt, false);
  }
}

void Fabric::hold_reordered(QpId q, std::uint64_t seq) {
  const std::uint64_t index = seq / params_.nic.mtu;
  // Beyond the reorder window the packet is dropped; a repair or the timeout resends it.
  if (index - qps_[q].rcv_nxt / params_.nic.mtu >= kReorderWords * 64) return;
  reorder_[std::size_t{q} * kReorderWords + (index / 64) % kReorderWords] |= std::uint64_t{1} << (index % 64);
  Qp& qp = qps_[q];
  qp.held_high = std::max(qp.held_high, std::min(qp.size, seq + params_.nic.mtu));
}

void Fabric::drain_reordered(Lane& lane, QpId q) {
  Qp& qp = qps_[q];
  const Bytes mtu = params_.nic.mtu;
  while (qp.rcv_nxt < qp.size) {
    const std::uint64_t index = qp.rcv_nxt / mtu;
    std::uint64_t& word = reorder_[std::size_t{q} * kReorderWords + (index / 64) % kReorderWords];
    const std::uint64_t bit = std::uint64_t{1} << (index % 64);
    if ((word & bit) == 0) break;
    word &= ~bit;
    const std::uint64_t payload = std::min<std::uint64_t>(mtu, qp.size - qp.rcv_nxt);
    qp.rcv_nxt += payload;
    lane.counters.delivered_bytes += payload;
  }
}

void Fabric::receive_ack(Lane& lane, PacketId id, Time now) {
  const Packet packet = pool_[id];
  const QpId q = packet.qp;
  Qp& qp = qps_[q];
  if (!qp.active || packet.generation != static_cast<std::uint16_t>(qp.generation) ||
      qp.snd_una >= qp.size) {
    release(lane, id);
    return;
  }
  const bool echo = (packet.flags & kEcnEcho) != 0;
  if (echo) {
    ++lane.counters.cnps;
    ++qp.cnps;
  }
  AckSignal signal;
  signal.ack_seq = packet.seq;
  signal.snd_nxt = qp.snd_nxt;
  signal.ecn_echo = echo;
  signal.rtt = now - packet.sent_at;
  if (packet.int_hops != 0) signal.telemetry = {pool_.telemetry(id), packet.int_hops};
  const double old_rate = qp.cc.rate;
  const Time decrease_at = cc_.on_ack(qp.cc, signal, now, link_bps_);
  if (qp.cc.rate != old_rate && qp.last_wire != 0) {
    // As ns-3's ChangeRate: the gap after the last packet is re-timed at the new rate.
    const double delta_ps = static_cast<double>(qp.last_wire) * 8e12 * (1 / qp.cc.rate - 1 / old_rate);
    qp.next_avail = std::max(now, qp.next_avail + Time::ps(static_cast<std::int64_t>(std::ceil(delta_ps))));
  }
  release(lane, id);
  if (decrease_at != Time::max()) schedule_decrease(q, decrease_at);
  if (packet.seq > qp.snd_una) {
    qp.snd_una = packet.seq;
    qp.last_progress = now;
  }
  if (packet.kind == PacketKind::kNack) {
    if (!params_.nic.selective_repeat) {
      qp.snd_nxt = qp.snd_una;
    } else if (packet.seq != qp.repaired_seq && packet.seq < qp.size) {
      qp.repaired_seq = packet.seq;  // resend this one packet, once per hole
      qp.repair_pending = true;
    }
  }
  if (qp.snd_una >= qp.size) {
    finish_sender(q);
    return;
  }
  qp.snd_nxt = std::max(qp.snd_nxt, qp.snd_una);
  try_transmit(paths_.forward(q)[0]);
}

void Fabric::release(Lane& lane, PacketId id) {
  const QpId q = pool_[id].qp;
  pool_.release(id, lane.id);
  // The sender's lane counts its QPs' packets; another lane tells it at the window's end.
  if (notes_deferred() && &lane != &sender_lane(q)) {
    lane.released.push_back(q);
    return;
  }
  // A finished QP's slot is reused only once none of its packets is left anywhere, so no stale
  // packet ever follows a new QP's path.
  Qp& qp = qps_[q];
  if (--qp.packets_alive == 0 && !qp.active) free_qp(lane, q);
}

void Fabric::free_qp(Lane& lane, QpId q) {
  if (notes_deferred()) {
    lane.freed.push_back(q);  // LPs of other threads free slots too
    return;
  }
  free_qps_.push_back(q);
  std::push_heap(free_qps_.begin(), free_qps_.end(), std::greater<>());
}

}  // namespace loom::network::packet
