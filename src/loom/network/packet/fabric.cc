// Fabric construction, egress ports, switching, ECN, telemetry and PFC. The endpoint side
// (QPs, ACKs, retransmission, congestion-control timers) is in fabric_endpoints.cc.
#include "loom/network/packet/fabric.h"

#include <algorithm>
#include <bit>
#include <string>

#include <fmt/format.h>

#include "loom/core/error.h"

namespace loom::network::packet {

namespace {

using topology::LinkId;

Bandwidth slowest_endpoint_link(const topology::Topology& topology) {
  std::uint64_t slowest = 0;
  for (LinkId l = 0; l < topology.link_count(); ++l) {
    const topology::Link& link = topology.link(l);
    if (topology::forwards(topology.node(link.src).kind)) continue;
    if (slowest == 0 || link.bandwidth.bps() < slowest) slowest = link.bandwidth.bps();
  }
  return Bandwidth::bits_per_second(slowest == 0 ? 1 : slowest);
}

Bandwidth nic_rate_of(const topology::Topology& topology, const PacketParams& params) {
  return params.nic_rate_hint.is_zero() ? slowest_endpoint_link(topology) : params.nic_rate_hint;
}

}  // namespace

Fabric::Fabric(Simulator& simulator, const topology::Topology& topology, const PacketParams& params)
    : simulator_(simulator), topology_(topology), params_((check_packet_params(params), params)),
      cc_(params.cc, params.nic.mtu),
      buffer_(topology, params.sw, nic_rate_of(topology, params)),
      pool_(params.cc.kind == CcKind::kHpcc), random_(params.seed, "packet.fabric"),
      ports_(topology.link_count()), lossy_(topology.link_count()), link_bps_(topology.link_count()) {
  const bool hpcc = params.cc.kind == CcKind::kHpcc;
  data_header_ = params.nic.header_bytes + (hpcc ? params.nic.int_header_bytes : 0);
  ack_wire_ = params.nic.ack_bytes + (hpcc ? params.nic.int_header_bytes : 0);
  ack_control_ = params.nic.ack_high_priority;
  wrr_ = params.sw.scheduler == QueueScheduler::kWrr;
  if (params.packet_spraying) path_stride_ = (1 + kSprayPaths) * kMaxPathLinks;
  for (LinkId l = 0; l < topology.link_count(); ++l) {
    const topology::Link& link = topology.link(l);
    Port& port = ports_[l];
    const topology::Node& far = topology.node(link.dst);
    port.source = link.src;
    port.forwarding_source = topology::forwards(topology.node(link.src).kind);
    port.forwarding_target = topology::forwards(far.kind);
    port.delay = link.latency + (port.forwarding_target ? far.forwarding_latency : Time::zero());
    port.bps = link.bandwidth.bps();
    link_bps_[l] = static_cast<double>(port.bps);
    constexpr std::uint64_t kBitPs = 8'000'000'000'000ull;
    if (kBitPs % port.bps == 0 && kBitPs / port.bps < 0xffffffffull) {
      port.ps_per_byte = static_cast<std::uint32_t>(kBitPs / port.bps);
    }
    port.error_rate = static_cast<float>(1 - (1 - static_cast<double>(link.error_rate)) * (1 - params.link_error_rate));
    lossy_[l] = port.error_rate > 0 ? 1 : 0;
    const double gbps = link.bandwidth.gigabits_per_second();
    port.kmin = static_cast<std::uint32_t>(static_cast<double>(params.sw.kmin_per_gbps) * gbps);
    port.kmax = static_cast<std::uint32_t>(static_cast<double>(params.sw.kmax_per_gbps) * gbps);
    port.pmax = params.sw.pmax;
    for (const EcnSetting& e : params.sw.ecn_table) {
      if (e.speed == link.bandwidth) {
        port.kmin = static_cast<std::uint32_t>(e.kmin);
        port.kmax = static_cast<std::uint32_t>(e.kmax);
        port.pmax = e.pmax;
      }
    }
    if (!port.forwarding_source) {
      port.nic = static_cast<std::uint32_t>(nics_.size());
      nics_.emplace_back();
    }
  }
}

Time Fabric::serialization(const Port& port, std::uint32_t bytes) const {
  if (port.ps_per_byte != 0) return Time::ps(static_cast<std::int64_t>(bytes) * port.ps_per_byte);
  return serialization_time(bytes, Bandwidth::bits_per_second(port.bps));
}

Bytes Fabric::data_wire_bytes(Bytes payload) const {
  const Bytes mtu = params_.nic.mtu;
  const Bytes packets = std::max<Bytes>(1, (payload + mtu - 1) / mtu);
  return payload + packets * data_header_;
}

Time Fabric::base_rtt(std::span<const LinkId> forward) const {
  Time one_way;
  Time serialise;
  for (const LinkId l : forward) {
    one_way += ports_[l].delay;
    serialise += serialization(ports_[l], static_cast<std::uint32_t>(params_.nic.mtu));
  }
  return one_way * 2 + serialise;
}

Time Fabric::ideal_one_way(std::span<const LinkId> path, Bytes bytes) const {
  const Bytes mtu = params_.nic.mtu;
  const auto first = static_cast<std::uint32_t>(std::min(bytes, mtu) + data_header_);
  Time total;
  for (const LinkId l : path) total += serialization(ports_[l], first) + ports_[l].delay;
  if (bytes > mtu) {
    const Bandwidth slowest = bottleneck(path);
    const Bytes rest = bytes - mtu;
    total += serialization_time(rest + ((rest + mtu - 1) / mtu) * data_header_, slowest);
  }
  return total;
}

Bandwidth Fabric::bottleneck(std::span<const LinkId> path) const {
  LOOM_ASSERT(!path.empty(), "bottleneck of an empty path");
  Bandwidth slowest = topology_.link(path.front()).bandwidth;
  for (const LinkId l : path) slowest = std::min(slowest, topology_.link(l).bandwidth);
  return slowest;
}

void Fabric::enqueue(LinkId link, PacketId id) {
  Port& port = ports_[link];
  Packet& packet = pool_[id];
  const std::uint8_t q = packet.priority;
  packet.next = kNoPacket;
  ClassQueue& queue = port.queue[q];
  if (queue.tail == kNoPacket) {
    queue.head = id;
    port.nonempty |= static_cast<std::uint8_t>(1u << q);
  } else {
    pool_[queue.tail].next = id;
  }
  queue.tail = id;
  queue.bytes += packet.wire;
  port.bytes += packet.wire;
  port.peak = std::max(port.peak, port.bytes);
}

PacketId Fabric::dequeue(Port& port) {
  const unsigned ready = port.nonempty & static_cast<unsigned>(~port.paused) & 0xffu;
  if (ready == 0) return kNoPacket;
  const std::uint32_t q = wrr_ && (ready & 1u) == 0 ? next_wrr_class(port, ready)
                                                    : static_cast<std::uint32_t>(std::countr_zero(ready));
  ClassQueue& queue = port.queue[q];
  const PacketId id = queue.head;
  Packet& packet = pool_[id];
  queue.head = packet.next;
  if (queue.head == kNoPacket) {
    queue.tail = kNoPacket;
    port.nonempty &= static_cast<std::uint8_t>(~(1u << q));
  } else {
    __builtin_prefetch(&pool_[queue.head]);  // the next packet to leave this queue
  }
  queue.bytes -= packet.wire;
  port.bytes -= packet.wire;
  return id;
}

std::uint32_t Fabric::next_wrr_class(Port& port, unsigned ready) const {
  if (port.wrr_credit > 0 && ((ready >> port.wrr_class) & 1u) != 0) {
    --port.wrr_credit;
    return port.wrr_class;
  }
  // The turn passes to the next ready class after the current one, cyclically.
  const unsigned after = ready & ~((2u << port.wrr_class) - 1u);
  const auto c = static_cast<std::uint32_t>(std::countr_zero(after != 0 ? after : ready));
  port.wrr_class = static_cast<std::uint8_t>(c);
  port.wrr_credit = static_cast<std::uint16_t>(params_.sw.class_weights[c] - 1);
  return c;
}

void Fabric::try_transmit(LinkId link) {
  Port& port = ports_[link];
  if (simulator_.now() < port.busy_until) {
    if (!port.wake_pending) {
      port.wake_pending = true;
      simulator_.post_at<&Fabric::on_transmit_done>(port.busy_until, this, link);
    }
    return;
  }
  PacketId id = dequeue(port);
  if (id == kNoPacket && port.nic != 0xffffffffu) id = next_data_packet(link);
  if (id != kNoPacket) transmit(link, id);
}

void Fabric::transmit(LinkId link, PacketId id) {
  Port& port = ports_[link];
  Packet& packet = pool_[id];
  if (packet.in_link != topology::kNone) {
    const topology::NodeId node = port.source;
    buffer_.release(packet.in_link, packet.wire, packet.priority);
    if (buffer_.any_paused(node)) {
      resumable_.clear();
      buffer_.take_resumable(node, resumable_);
      for (const IngressQueue& in : resumable_) send_pfc(in.link, in.priority, false);
    }
  }
  if (packet.kind == PacketKind::kData) {
    ++counters_.data_packet_hops;
    if (port.forwarding_source) {
      const std::uint64_t queued = port.queue[packet.priority].bytes;
      if (params_.sw.ecn && queued > port.kmin) {
        const bool mark = queued > port.kmax ||
                          random_.uniform() < port.pmax * static_cast<double>(queued - port.kmin) /
                                                  static_cast<double>(port.kmax - port.kmin);
        if (mark && (packet.flags & kEcnCe) == 0) {
          packet.flags |= kEcnCe;
          ++counters_.ecn_marks;
        }
      }
      if (cc_.kind() == CcKind::kHpcc && packet.int_hops < kMaxIntHops) {
        pool_.telemetry(id)[packet.int_hops++] =
            IntHop{simulator_.now(), port.tx_bytes, static_cast<std::uint32_t>(port.bytes), link};
      }
    }
  }
  port.tx_bytes += packet.wire;
  const Time done = serialization(port, packet.wire);
  port.busy_until = simulator_.now() + done;
  simulator_.post_in<&Fabric::on_arrive>(done + port.delay, this, id);
  // A NIC may have more data for its QPs; a switch port only if packets wait.
  if (!port.wake_pending && (port.nic != 0xffffffffu || port.bytes != 0)) {
    port.wake_pending = true;
    simulator_.post_at<&Fabric::on_transmit_done>(port.busy_until, this, link);
  }
}

// Inlined into its callers: out of line, the compiler may drop the call as free of effects.
[[gnu::always_inline]] inline void Fabric::prefetch_next_arrival() const {
  EventQueue::Fired next;
  if (simulator_.peek_next(next) && next.context == this &&
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
  prefetch_next_arrival();
  ports_[link].wake_pending = false;
  try_transmit(static_cast<LinkId>(link));
}

void Fabric::on_arrive(std::uint64_t packet_id) {
  prefetch_next_arrival();
  const auto id = static_cast<PacketId>(packet_id);
  Packet& packet = pool_[id];
  const bool data = packet.kind == PacketKind::kData;
  const topology::LinkId* path = data ? data_path(packet.qp, packet.path) : reverse_path(packet.qp);
  const std::uint32_t length = packet.path_links;
  const LinkId arrived_on = path[packet.hop];
  // The port record of the arrival link is cold here; a byte per link says whether to look.
  const bool faulty = lossy_[arrived_on] != 0 &&
                      (ports_[arrived_on].down || random_.bernoulli(ports_[arrived_on].error_rate));
  if (faulty || (rerouted_ && packet.route_epoch != qps_[packet.qp].route_epoch)) {
    drop(id, arrived_on);
    return;
  }
  if (packet.hop + 1u < length) {
    forward(id, arrived_on);
  } else if (data) {
    receive_data(id);
  } else {
    receive_ack(id);
  }
}

void Fabric::forward(PacketId id, LinkId arrived_on) {
  Packet& packet = pool_[id];
  const bool data = packet.kind == PacketKind::kData;
  const LinkId next = (data ? data_path(packet.qp, packet.path) : reverse_path(packet.qp))[++packet.hop];
  packet.in_link = topology::kNone;
  if (ports_[next].down) {
    drop(id, next);
    return;
  }
  if (packet.priority != 0) {
    const Port& out = ports_[next];
    if (params_.sw.egress_limit != 0 && out.queue[packet.priority].bytes + packet.wire > params_.sw.egress_limit) {
      drop(id, next);
      return;
    }
    if (!buffer_.admit(arrived_on, packet.wire, packet.priority)) {
      drop(id, next);
      return;
    }
    packet.in_link = arrived_on;
    if (buffer_.take_pause(arrived_on, packet.priority)) send_pfc(arrived_on, packet.priority, true);
  }
  enqueue(next, id);
  try_transmit(next);
}

void Fabric::drop(PacketId id, LinkId at) {
  ++counters_.drops;
  ++ports_[at].drops;
  release(id);
}

void Fabric::flush(LinkId link) {
  Port& port = ports_[link];
  for (PacketId id = dequeue(port); id != kNoPacket; id = dequeue(port)) {
    const Packet& packet = pool_[id];
    if (packet.in_link != topology::kNone) buffer_.release(packet.in_link, packet.wire, packet.priority);
    drop(id, link);
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
  const Time delay = serialization(ports_[back], static_cast<std::uint32_t>(params_.sw.pause_frame_bytes)) +
                     topology_.link(back).latency;
  simulator_.post_in<&Fabric::on_pfc>(delay, this, (std::uint64_t{link} << 4) | (priority << 1) | (pause ? 1 : 0));
}

void Fabric::on_pfc(std::uint64_t frame) {
  const auto link = static_cast<LinkId>(frame >> 4);
  const auto priority = static_cast<std::uint8_t>((frame >> 1) & 7u);
  const bool pause = (frame & 1) != 0;
  Port& port = ports_[link];
  const auto bit = static_cast<std::uint8_t>(1u << priority);
  if (pause) {
    port.paused |= bit;
    ++counters_.pauses;
  } else {
    port.paused &= static_cast<std::uint8_t>(~bit);
    ++counters_.resumes;
  }
  if (record_pfc_) {
    if (pfc_events_.size() < pfc_limit_) {
      pfc_events_.push_back(PfcEvent{simulator_.now(), link, pause, priority});
    } else {
      ++pfc_events_dropped_;
    }
  }
  if (!pause) try_transmit(link);
}

std::size_t Fabric::memory_bytes() const {
  std::size_t nic_bytes = nics_.capacity() * sizeof(Nic);
  for (const Nic& nic : nics_) nic_bytes += nic.qps.capacity() * sizeof(QpId);
  return pool_.memory_bytes() + buffer_.memory_bytes() + ports_.capacity() * sizeof(Port) +
         link_bps_.capacity() * sizeof(double) + lossy_.capacity() + qps_.capacity() * sizeof(Qp) +
         paths_.capacity() * sizeof(LinkId) + reorder_.capacity() * sizeof(std::uint64_t) + free_qps_.capacity() * sizeof(QpId) + nic_bytes +
         pfc_events_.capacity() * sizeof(PfcEvent);
}

}  // namespace loom::network::packet
