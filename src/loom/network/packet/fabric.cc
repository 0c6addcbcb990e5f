// Fabric construction (ports, NICs, MMU), path arithmetic and memory. The per-packet work is
// in fabric_switching.cc (ports, switching, ECN, telemetry, PFC), fabric_nic.cc (QPs and
// sending), fabric_receiver.cc (receiving, ACK/NACK) and fabric_timers.cc.
#include "loom/network/packet/fabric.h"

#include <algorithm>

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
      pool_(params.cc.kind == CcKind::kHpcc),
      ports_(topology.link_count()), lossy_(topology.link_count()), link_bps_(topology.link_count()),
      paths_(params.packet_spraying) {
  const bool hpcc = params.cc.kind == CcKind::kHpcc;
  data_header_ = params.nic.header_bytes + (hpcc ? params.nic.int_header_bytes : 0);
  ack_wire_ = params.nic.ack_bytes + (hpcc ? params.nic.int_header_bytes : 0);
  ack_control_ = params.nic.ack_high_priority;
  wrr_ = params.sw.scheduler == QueueScheduler::kWrr;
  if (topology.link_count() >= (std::size_t{1} << kOrderIdBits)) {
    throw UserError("packet mode supports fewer than 2^28 links; the topology has " +
                    std::to_string(topology.link_count()));
  }
  node_sim_.assign(topology.node_count(), &simulator);
  src_sim_.assign(topology.link_count(), &simulator);
  dst_sim_.assign(topology.link_count(), &simulator);
  src_lane_.assign(topology.link_count(), &lanes_[0]);
  dst_lane_.assign(topology.link_count(), &lanes_[0]);
  lost_on_cable_.assign(topology.link_count(), 0);
  far_lp_.assign(topology.link_count(), kSameLp);
  near_lp_.assign(topology.link_count(), kSameLp);
  ecn_random_.reserve(topology.link_count());
  error_random_.reserve(topology.link_count());
  for (LinkId l = 0; l < topology.link_count(); ++l) {
    const std::uint64_t link_seed = params.seed ^ mix64(std::uint64_t{l} + 1);
    ecn_random_.emplace_back(link_seed, "packet.ecn");
    error_random_.emplace_back(link_seed, "packet.link_error");
    EgressPort& port = ports_[l];
    port = make_egress_port(topology, l, params);
    link_bps_[l] = static_cast<double>(port.bps);
    lossy_[l] = port.error_rate > 0 ? 1 : 0;
    if (!port.forwarding_source) {
      port.nic = static_cast<std::uint32_t>(nics_.size());
      nics_.emplace_back();
    }
  }
}

void Fabric::set_link_rate(LinkId link, Bandwidth rate) {
  LOOM_ASSERT(!rate.is_zero(), "a link rate of 0 bit/s");
  set_port_rate(ports_[link], rate, params_);
  link_bps_[link] = static_cast<double>(rate.bps());
}

FabricCounters Fabric::counters() const {
  FabricCounters sum;
  for (const Lane& lane : lanes_) {
    const FabricCounters& c = lane.counters;
    sum.data_packets += c.data_packets;
    sum.data_packet_hops += c.data_packet_hops;
    sum.control_packets += c.control_packets;
    sum.retransmitted_bytes += c.retransmitted_bytes;
    sum.delivered_bytes += c.delivered_bytes;
    sum.drops += c.drops;
    sum.ecn_marks += c.ecn_marks;
    sum.cnps += c.cnps;
    sum.nacks += c.nacks;
    sum.timeouts += c.timeouts;
    sum.pauses += c.pauses;
    sum.resumes += c.resumes;
  }
  return sum;
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
    serialise += ports_[l].serialization(static_cast<std::uint32_t>(params_.nic.mtu));
  }
  return one_way * 2 + serialise;
}

Time Fabric::ideal_one_way(std::span<const LinkId> path, Bytes bytes) const {
  const Bytes mtu = params_.nic.mtu;
  const auto first = static_cast<std::uint32_t>(std::min(bytes, mtu) + data_header_);
  Time total;
  for (const LinkId l : path) total += ports_[l].serialization(first) + ports_[l].delay;
  if (bytes > mtu) {
    const Bandwidth slowest = bottleneck(path);
    const Bytes rest = bytes - mtu;
    total += serialization_time(rest + ((rest + mtu - 1) / mtu) * data_header_, slowest);
  }
  return total;
}

Bandwidth Fabric::bottleneck(std::span<const LinkId> path) const {
  LOOM_ASSERT(!path.empty(), "bottleneck of an empty path");
  std::uint64_t slowest = ports_[path.front()].bps;
  for (const LinkId l : path) slowest = std::min(slowest, ports_[l].bps);
  return Bandwidth::bits_per_second(slowest);
}

std::size_t Fabric::memory_bytes() const {
  std::size_t nic_bytes = nics_.capacity() * sizeof(Nic);
  for (const Nic& nic : nics_) nic_bytes += nic.qps.capacity() * sizeof(QpId);
  return pool_.memory_bytes() + buffer_.memory_bytes() + ports_.capacity() * sizeof(EgressPort) +
         link_bps_.capacity() * sizeof(double) + lost_on_cable_.capacity() * sizeof(std::uint64_t) + lossy_.capacity() + qps_.capacity() * sizeof(Qp) +
         paths_.memory_bytes() + reorder_.capacity() * sizeof(std::uint64_t) + free_qps_.capacity() * sizeof(QpId) + nic_bytes +
         pfc_events_.capacity() * sizeof(PfcEvent);
}

}  // namespace loom::network::packet
