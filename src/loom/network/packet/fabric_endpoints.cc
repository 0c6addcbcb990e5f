// The endpoint side of the fabric: queue pairs, NIC scheduling, receivers, ACK/NACK,
// go-back-N and the congestion-control timers.
#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "loom/core/error.h"
#include "loom/network/packet/fabric.h"

namespace loom::network::packet {

using topology::LinkId;

QpId Fabric::add_qp(const QpSpec& spec) {
  LOOM_ASSERT(spec.bytes > 0, "queue pair without bytes");
  LOOM_ASSERT(spec.weight >= 1, "queue pair with weight 0");
  LOOM_ASSERT(!spec.forward.empty() && !spec.reverse.empty(), "queue pair without a path");
  if (spec.forward.size() > kMaxPathLinks || spec.reverse.size() > kMaxPathLinks) {
    throw UserError(fmt::format("packet backend: a path of {} links from {} to {}: expected at "
                                "most {} links", std::max(spec.forward.size(), spec.reverse.size()),
                                topology_.node(topology_.link(spec.forward.front()).src).name,
                                topology_.node(topology_.link(spec.forward.back()).dst).name,
                                kMaxPathLinks));
  }
  if (spec.priority >= params_.sw.queues) {
    throw UserError(fmt::format("packet backend: traffic class {} of a transfer from {}: expected 1..{} "
                                "(switch.queues = {}; 0 for data_priority)", spec.priority,
                                topology_.node(topology_.link(spec.forward.front()).src).name,
                                params_.sw.queues - 1, params_.sw.queues));
  }
  const Port& first = ports_[spec.forward.front()];
  LOOM_ASSERT(first.nic != 0xffffffffu, "queue pair starting at a forwarding node");
  QpId id;
  if (free_qps_.empty()) {
    id = static_cast<QpId>(qps_.size());
    qps_.emplace_back();
    paths_.resize(paths_.size() + path_stride_);
    if (params_.nic.selective_repeat) reorder_.resize(reorder_.size() + kReorderWords);
  } else {
    id = free_qps_.back();
    free_qps_.pop_back();
  }
  Qp& qp = qps_[id];
  const std::uint32_t generation = qp.generation + 1;
  qp = Qp{};
  qp.generation = generation;
  qp.active = true;
  ++active_qps_;
  qp.size = spec.bytes;
  qp.tag = spec.tag;
  qp.weight = spec.weight;
  qp.priority = static_cast<std::uint8_t>(spec.priority == 0 ? params_.data_priority : spec.priority);
  qp.start = simulator_.now();
  qp.last_progress = qp.start;
  qp.next_avail = qp.start;
  store_paths(id, spec.forward, spec.reverse);
  if (params_.packet_spraying) {
    const std::size_t length = spec.forward.size();
    LOOM_ASSERT(spec.alternates.size() % length == 0, "spraying alternates of another length");
    std::uint32_t paths = 1;
    for (std::size_t at = 0; at < spec.alternates.size() && paths < kSprayPaths; at += length, ++paths) {
      LOOM_ASSERT(spec.alternates[at] == spec.forward.front(), "spraying alternate through another NIC port");
      std::copy_n(spec.alternates.begin() + static_cast<std::ptrdiff_t>(at), length,
                  paths_.begin() + static_cast<std::ptrdiff_t>(std::size_t{id} * path_stride_ + (paths + 1) * kMaxPathLinks));
    }
    qp.spray_paths = static_cast<std::uint8_t>(paths);
  }
  if (params_.nic.selective_repeat) {
    std::fill_n(reorder_.begin() + static_cast<std::ptrdiff_t>(std::size_t{id} * kReorderWords), kReorderWords, 0);
  }

  // The QP's line rate: its first link, or the NIC's wire when the endpoint reaches the fabric
  // through a NIC node (a GPU's PCIe link to its NIC is not where RDMA paces).
  double line = static_cast<double>(first.bps);
  if (spec.forward.size() > 1 &&
      topology_.node(topology_.link(spec.forward[0]).dst).kind == topology::NodeKind::kNic) {
    line = std::min(line, static_cast<double>(ports_[spec.forward[1]].bps));
  }
  const Time rtt = spec.base_rtt > Time::zero() ? spec.base_rtt : base_rtt(spec.forward);
  const double bdp = spec.window != 0
                         ? static_cast<double>(spec.window)
                         : static_cast<double>(bottleneck(spec.forward).bps()) * rtt.seconds() / 8;
  qp.window = params_.nic.window ? std::max(bdp, 1.0) : 0.0;
  cc_.init(qp.cc, line, rtt, std::max(bdp, 1.0));

  Nic& nic = nics_[first.nic];
  nic.qps.push_back(id);
  qp.timeout = simulator_.schedule_in<&Fabric::on_timeout>(params_.nic.retransmit_timeout, this, qp_ref(id));
  try_transmit(spec.forward.front());
  return id;
}

void Fabric::store_paths(QpId q, std::span<const LinkId> forward, std::span<const LinkId> reverse) {
  Qp& qp = qps_[q];
  qp.forward_len = static_cast<std::uint8_t>(forward.size());
  qp.reverse_len = static_cast<std::uint8_t>(reverse.size());
  LinkId* path = paths_.data() + std::size_t{q} * path_stride_;
  std::copy(forward.begin(), forward.end(), path);
  std::copy(reverse.begin(), reverse.end(), path + kMaxPathLinks);
}

std::span<const LinkId> Fabric::qp_path(QpId q, bool forward) const {
  LOOM_ASSERT(qp_active(q), "path of an inactive QP");
  return forward ? std::span<const LinkId>(forward_path(q), qps_[q].forward_len)
                 : std::span<const LinkId>(reverse_path(q), qps_[q].reverse_len);
}

void Fabric::reroute(QpId q, std::span<const LinkId> forward, std::span<const LinkId> reverse) {
  LOOM_ASSERT(qp_active(q), "re-routing an inactive QP");
  if (forward.size() > kMaxPathLinks || reverse.size() > kMaxPathLinks) {
    throw UserError(fmt::format("packet backend: a new path of {} links: expected at most {}",
                                std::max(forward.size(), reverse.size()), kMaxPathLinks));
  }
  LOOM_ASSERT(forward.front() == forward_path(q)[0], "re-routing a QP onto another NIC port");
  store_paths(q, forward, reverse);
  qps_[q].spray_paths = 1;  // the alternates may cross the failed cable; spray no more
  qps_[q].spray_next = 0;
  ++qps_[q].route_epoch;
  rerouted_ = true;
}

bool Fabric::window_bound(const Qp& qp) const {
  if (qp.window <= 0) return false;
  double window = qp.window;
  if (params_.nic.variable_window) window = std::max(1.0, window * qp.cc.rate / qp.cc.line_rate);
  return static_cast<double>(qp.snd_nxt - qp.snd_una) >= window;
}

PacketId Fabric::next_data_packet(LinkId link) {
  Port& port = ports_[link];
  const unsigned paused = port.paused;
  Nic& nic = nics_[port.nic];
  const auto count = static_cast<std::uint32_t>(nic.qps.size());
  const Time now = simulator_.now();
  Time earliest = Time::max();
  // The QP at the cursor keeps its turn while it has credit; otherwise the next one starts.
  const std::uint32_t first = nic.credit > 0 ? 0 : 1;
  for (std::uint32_t i = first; i < first + count; ++i) {
    const std::uint32_t slot = (nic.cursor + i) % count;
    const QpId q = nic.qps[slot];
    Qp& qp = qps_[q];
    if (paused != 0 && ((paused >> qp.priority) & 1u) != 0) continue;
    if (qp.repair_pending && qp.repaired_seq < qp.snd_una) qp.repair_pending = false;
    const bool repair = qp.repair_pending;
    if (!repair && (qp.snd_nxt >= qp.size || window_bound(qp))) continue;
    if (qp.next_avail > now) {
      earliest = std::min(earliest, qp.next_avail);
      continue;
    }
    if (i == 0) {
      --nic.credit;
    } else {
      nic.cursor = slot;
      nic.credit = qp.weight - 1;
    }
    const PacketId id = pool_.allocate();
    ++qp.packets_alive;
    Packet& packet = pool_[id];
    const std::uint64_t seq = repair ? qp.repaired_seq : qp.snd_nxt;
    const auto payload = static_cast<std::uint32_t>(std::min<std::uint64_t>(params_.nic.mtu, qp.size - seq));
    packet.seq = seq;
    packet.sent_at = now;
    packet.qp = q;
    packet.generation = static_cast<std::uint16_t>(qp.generation);
    packet.payload = payload;
    packet.wire = static_cast<std::uint32_t>(payload + data_header_);
    packet.in_link = topology::kNone;
    packet.kind = PacketKind::kData;
    packet.path_links = qp.forward_len;
    packet.route_epoch = qp.route_epoch;
    packet.priority = qp.priority;
    packet.path = qp.spray_next;
    if (++qp.spray_next == qp.spray_paths) qp.spray_next = 0;
    ++counters_.data_packets;
    if (repair) {
      qp.repair_pending = false;
      counters_.retransmitted_bytes += payload;
    } else {
      if (qp.snd_nxt < qp.sent_high) counters_.retransmitted_bytes += payload;
      qp.snd_nxt += payload;
      qp.sent_high = std::max(qp.sent_high, qp.snd_nxt);
    }
    qp.last_wire = packet.wire;
    const double gap_ps = static_cast<double>(packet.wire) * 8e12 / qp.cc.rate;
    qp.next_avail = now + Time::ps(static_cast<std::int64_t>(std::ceil(gap_ps)));
    return id;
  }
  if (earliest != Time::max() && (!nic.wake_armed || nic.wake_at > earliest)) {
    nic.wake_at = earliest;
    nic.wake_armed = true;
    simulator_.post_at<&Fabric::on_wake>(earliest, this, link | (std::uint64_t{++nic.wake_generation} << 32));
  }
  return kNoPacket;
}

void Fabric::on_wake(std::uint64_t wake) {
  const auto link = static_cast<LinkId>(wake & 0xffffffffu);
  Nic& nic = nics_[ports_[link].nic];
  if (!nic.wake_armed || (wake >> 32) != nic.wake_generation) return;  // replaced by an earlier one
  nic.wake_armed = false;
  try_transmit(link);
}

void Fabric::send_control(PacketId id, PacketKind kind, std::uint64_t seq, bool echo) {
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
  ++counters_.control_packets;
  const LinkId first = reverse_path(packet.qp)[0];
  enqueue(first, id);
  try_transmit(first);
}

void Fabric::receive_data(PacketId id) {
  Packet& packet = pool_[id];
  const QpId q = packet.qp;
  Qp& qp = qps_[q];
  if (!qp.active || packet.generation != static_cast<std::uint16_t>(qp.generation)) {
    release(id);
    return;
  }
  const Time now = simulator_.now();
  const bool selective = params_.nic.selective_repeat;
  if (packet.seq == qp.rcv_nxt) {
    qp.rcv_nxt += packet.payload;
    counters_.delivered_bytes += packet.payload;
    if (selective) drain_reordered(q);
    qp.rx_marked = qp.rx_marked || (packet.flags & kEcnCe) != 0;
    ++qp.rx_unacked;
    const bool complete = qp.rcv_nxt >= qp.size;
    // Selective repeat: a hole before held packets is NACKed at once.
    const bool hole = selective && qp.rcv_nxt < qp.held_high;
    if (qp.rx_unacked >= params_.nic.ack_interval || complete || hole) {
      const bool echo = qp.rx_marked;
      qp.rx_unacked = 0;
      qp.rx_marked = false;
      if (hole) ++counters_.nacks;
      send_control(id, hole ? PacketKind::kNack : PacketKind::kAck, qp.rcv_nxt, echo);
    } else {
      release(id);
    }
    if (complete && !qp.delivered) {
      qp.delivered = true;
      if (listener_ != nullptr) listener_->on_qp_delivered(q, qp.tag);
    }
  } else if (packet.seq > qp.rcv_nxt) {
    if (selective) {
      // Every out-of-order packet is kept (within the reorder window) and NACKed: the NACK
      // names the first missing byte; the sender repairs each hole once.
      hold_reordered(q, packet.seq);
      ++counters_.nacks;
      send_control(id, PacketKind::kNack, qp.rcv_nxt, (packet.flags & kEcnCe) != 0);
    } else if (now >= qp.nack_time || qp.last_nack_seq != qp.rcv_nxt) {
      qp.nack_time = now + params_.nic.nack_interval;
      qp.last_nack_seq = qp.rcv_nxt;
      ++counters_.nacks;
      send_control(id, PacketKind::kNack, qp.rcv_nxt, (packet.flags & kEcnCe) != 0);
    } else {
      release(id);
    }
  } else {
    send_control(id, PacketKind::kAck, qp.rcv_nxt, false);
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

void Fabric::drain_reordered(QpId q) {
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
    counters_.delivered_bytes += payload;
  }
}

void Fabric::receive_ack(PacketId id) {
  const Packet packet = pool_[id];
  const QpId q = packet.qp;
  Qp& qp = qps_[q];
  if (!qp.active || packet.generation != static_cast<std::uint16_t>(qp.generation) ||
      qp.snd_una >= qp.size) {
    release(id);
    return;
  }
  const Time now = simulator_.now();
  const bool echo = (packet.flags & kEcnEcho) != 0;
  if (echo) {
    ++counters_.cnps;
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
  release(id);
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
  try_transmit(forward_path(q)[0]);
}

void Fabric::release(PacketId id) {
  const QpId q = pool_[id].qp;
  Qp& qp = qps_[q];
  pool_.release(id);
  // A finished QP's slot is reused only once none of its packets is left anywhere, so no stale
  // packet ever follows a new QP's path.
  if (--qp.packets_alive == 0 && !qp.active) free_qps_.push_back(q);
}

void Fabric::finish_sender(QpId q) {
  Qp& qp = qps_[q];
  simulator_.cancel(qp.decrease);
  simulator_.cancel(qp.increase);
  simulator_.cancel(qp.timeout);
  Nic& nic = nics_[ports_[forward_path(q)[0]].nic];
  const auto it = std::find(nic.qps.begin(), nic.qps.end(), q);
  LOOM_ASSERT(it != nic.qps.end(), "finished QP not on its NIC");
  const auto position = static_cast<std::uint32_t>(it - nic.qps.begin());
  const bool had_turn = position == nic.cursor;
  nic.qps.erase(it);
  // The cursor keeps pointing at the QP that had the last turn; if that one ended, at the one
  // before it, so that the QP after it is served next.
  const auto left = static_cast<std::uint32_t>(nic.qps.size());
  if (left == 0) {
    nic.cursor = 0;
  } else if (position <= nic.cursor) {
    nic.cursor = (nic.cursor + left - 1) % left;
  }
  if (had_turn) nic.credit = 0;
  qp.active = false;
  --active_qps_;
  const std::uint64_t tag = qp.tag;
  if (qp.packets_alive == 0) free_qps_.push_back(q);
  if (listener_ != nullptr) listener_->on_qp_acked(q, tag);
}

void Fabric::schedule_decrease(QpId q, Time when) {
  qps_[q].decrease = simulator_.schedule_at<&Fabric::on_decrease>(when, this, qp_ref(q));
}

bool Fabric::qp_ref_live(std::uint64_t ref) const {
  const auto q = static_cast<QpId>(ref & 0xffffffffu);
  return q < qps_.size() && qps_[q].active && qps_[q].generation == (ref >> 32);
}

void Fabric::on_decrease(std::uint64_t ref) {
  if (!qp_ref_live(ref)) return;
  const auto q = static_cast<QpId>(ref & 0xffffffffu);
  Qp& qp = qps_[q];
  const Time next = cc_.on_decrease(qp.cc, simulator_.now());
  simulator_.cancel(qp.increase);
  qp.increase = simulator_.schedule_at<&Fabric::on_increase>(next, this, ref);
}

void Fabric::on_increase(std::uint64_t ref) {
  if (!qp_ref_live(ref)) return;
  const auto q = static_cast<QpId>(ref & 0xffffffffu);
  Qp& qp = qps_[q];
  const Time next = cc_.on_increase(qp.cc, simulator_.now());
  qp.increase = simulator_.schedule_at<&Fabric::on_increase>(next, this, ref);
  try_transmit(forward_path(q)[0]);
}

void Fabric::on_timeout(std::uint64_t ref) {
  if (!qp_ref_live(ref)) return;
  const auto q = static_cast<QpId>(ref & 0xffffffffu);
  Qp& qp = qps_[q];
  const Time now = simulator_.now();
  const Time rto = params_.nic.retransmit_timeout;
  if (now - qp.last_progress >= rto) {
    qp.last_progress = now;
    if (qp.snd_nxt > qp.snd_una) {
      ++counters_.timeouts;
      if (params_.nic.selective_repeat) {
        qp.repaired_seq = qp.snd_una;  // a lost repair or lost last packets: resend the first
        qp.repair_pending = true;
      } else {
        qp.snd_nxt = qp.snd_una;
      }
      try_transmit(forward_path(q)[0]);
    }
  }
  qp.timeout = simulator_.schedule_at<&Fabric::on_timeout>(qp.last_progress + rto, this, ref);
}

}  // namespace loom::network::packet
