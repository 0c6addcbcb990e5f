// The sending side of the fabric: queue pairs starting, changing paths and ending, and each
// NIC's weighted round robin over its QPs producing data packets at their paced times.
#include <algorithm>
#include <cmath>
#include <functional>

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
  const EgressPort& first = ports_[spec.forward.front()];
  LOOM_ASSERT(first.nic != kNoNic, "queue pair starting at a forwarding node");
  QpId id;
  if (free_qps_.empty()) {
    if (qps_.size() >= (std::size_t{1} << kOrderIdBits)) {
      throw UserError("packet mode runs fewer than 2^28 queue pairs at once");
    }
    id = static_cast<QpId>(qps_.size());
    qps_.emplace_back();
    paths_.grow();
    if (params_.nic.selective_repeat) reorder_.resize(reorder_.size() + kReorderWords);
  } else {
    std::pop_heap(free_qps_.begin(), free_qps_.end(), std::greater<>());
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
  Simulator& sender = at_src(spec.forward.front());
  qp.start = sender.now();
  qp.last_progress = qp.start;
  qp.next_avail = qp.start;
  store_paths(id, spec.forward, spec.reverse);
  if (params_.packet_spraying) {
    const std::size_t length = spec.forward.size();
    LOOM_ASSERT(spec.alternates.size() % length == 0, "spraying alternates of another length");
    std::uint32_t paths = 1;
    for (std::size_t at = 0; at < spec.alternates.size() && paths < kSprayPaths; at += length, ++paths) {
      LOOM_ASSERT(spec.alternates[at] == spec.forward.front(), "spraying alternate through another NIC port");
      paths_.store_alternate(id, paths, spec.alternates.subspan(at, length));
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
  qp.window = params_.window_on() ? std::max(bdp, 1.0) : 0.0;
  cc_.init(qp.cc, line, rtt, std::max(bdp, 1.0));

  // Another rank runs the sender; this one knows the QP (for its receiver, its slot).
  if (ranked_ && rank_of_lp_[sender_lane(id).id] != rank_) return id;
  Nic& nic = nics_[first.nic];
  nic.qps.push_back(id);
  const Time timeout = sender.now() + params_.nic.retransmit_timeout;
  qp.timeout = sender.schedule_at<&Fabric::on_timeout>(timeout, this, qp_ref(id), order_key(EventKind::kTimeout, id, timeout));
  try_transmit(spec.forward.front());
  return id;
}

void Fabric::store_paths(QpId q, std::span<const LinkId> forward, std::span<const LinkId> reverse) {
  qps_[q].forward_len = static_cast<std::uint8_t>(forward.size());
  qps_[q].reverse_len = static_cast<std::uint8_t>(reverse.size());
  paths_.store(q, forward, reverse);
}

std::span<const LinkId> Fabric::qp_path(QpId q, bool forward) const {
  LOOM_ASSERT(qp_active(q), "path of an inactive QP");
  return forward ? std::span<const LinkId>(paths_.forward(q), qps_[q].forward_len)
                 : std::span<const LinkId>(paths_.reverse(q), qps_[q].reverse_len);
}

void Fabric::reroute(QpId q, std::span<const LinkId> forward, std::span<const LinkId> reverse) {
  LOOM_ASSERT(qp_active(q), "re-routing an inactive QP");
  if (forward.size() > kMaxPathLinks || reverse.size() > kMaxPathLinks) {
    throw UserError(fmt::format("packet backend: a new path of {} links: expected at most {}",
                                std::max(forward.size(), reverse.size()), kMaxPathLinks));
  }
  LOOM_ASSERT(forward.front() == paths_.forward(q)[0], "re-routing a QP onto another NIC port");
  store_paths(q, forward, reverse);
  Qp& qp = qps_[q];
  qp.spray_paths = 1;  // the alternates may cross the failed cable; spray no more
  qp.spray_next = 0;
  ++qp.route_epoch;
  rerouted_ = true;
}

PacketId Fabric::next_data_packet(LinkId link) {
  EgressPort& port = ports_[link];
  const unsigned paused = port.paused;
  Nic& nic = nics_[port.nic];
  const auto count = static_cast<std::uint32_t>(nic.qps.size());
  Simulator& here = at_src(link);
  const Time now = here.now();
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
    if (!repair && (qp.snd_nxt >= qp.size || qp.window_bound(params_.variable_window_on()))) continue;
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
    Lane& lane = src_lane(link);
    const PacketId id = pool_.allocate(lane.id);
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
    ++lane.counters.data_packets;
    if (repair) {
      qp.repair_pending = false;
      lane.counters.retransmitted_bytes += payload;
    } else {
      if (qp.snd_nxt < qp.sent_high) lane.counters.retransmitted_bytes += payload;
      qp.snd_nxt += payload;
      qp.sent_high = std::max(qp.sent_high, qp.snd_nxt);
    }
    if (bound_completions_ && may_complete(qp, seq, payload)) packet.flags |= kMayComplete;
    qp.last_wire = packet.wire;
    const double gap_ps = static_cast<double>(packet.wire) * 8e12 / qp.cc.rate;
    qp.next_avail = now + Time::ps(static_cast<std::int64_t>(std::ceil(gap_ps)));
    return id;
  }
  if (earliest != Time::max() && (!nic.wake_armed || nic.wake_at > earliest)) {
    nic.wake_at = earliest;
    nic.wake_armed = true;
    here.post_at<&Fabric::on_wake>(earliest, this, link | (std::uint64_t{++nic.wake_generation} << 32),
                                         order_key(EventKind::kWake, link, earliest));
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

void Fabric::finish_sender(QpId q) {
  Qp& qp = qps_[q];
  Simulator& sender = at_sender(q);
  sender.cancel(qp.decrease);
  sender.cancel(qp.increase);
  sender.cancel(qp.timeout);
  const bool removed = nics_[ports_[paths_.forward(q)[0]].nic].remove(q);
  LOOM_ASSERT(removed, "finished QP not on its NIC");
  qp.active = false;
  Lane& lane = sender_lane(q);
  if (ranked_) {
    rank_ended_.push_back(q);  // every rank learns of it (fabric_ranks.cc)
  } else if (notes_deferred()) {
    ++lane.ended;
  } else {
    --active_qps_;
  }
  const std::uint64_t tag = qp.tag;
  if (qp.packets_alive == 0) free_qp(lane, q);
  if (listener_ == nullptr) return;
  if (windowed_) {
    const std::lock_guard<std::mutex> lock(listener_mutex_);
    listener_->on_qp_acked(q, tag);
  } else {
    listener_->on_qp_acked(q, tag);
  }
}

}  // namespace loom::network::packet
