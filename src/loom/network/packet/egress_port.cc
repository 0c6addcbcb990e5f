#include "loom/network/packet/egress_port.h"

namespace loom::network::packet {

void set_port_rate(EgressPort& port, Bandwidth rate, const PacketParams& params) {
  port.bps = rate.bps();
  constexpr std::uint64_t kBitPs = 8'000'000'000'000ull;
  port.ps_per_byte = kBitPs % port.bps == 0 && kBitPs / port.bps < 0xffffffffull
                         ? static_cast<std::uint32_t>(kBitPs / port.bps)
                         : 0;
  const double gbps = rate.gigabits_per_second();
  port.kmin = static_cast<std::uint32_t>(static_cast<double>(params.sw.kmin_per_gbps) * gbps);
  port.kmax = static_cast<std::uint32_t>(static_cast<double>(params.sw.kmax_per_gbps) * gbps);
  port.pmax = params.sw.pmax;
  for (const EcnSetting& e : params.sw.ecn_table) {
    if (e.speed == rate) {
      port.kmin = static_cast<std::uint32_t>(e.kmin);
      port.kmax = static_cast<std::uint32_t>(e.kmax);
      port.pmax = e.pmax;
    }
  }
}

EgressPort make_egress_port(const topology::Topology& topology, topology::LinkId l, const PacketParams& params) {
  const topology::Link& link = topology.link(l);
  EgressPort port;
  const topology::Node& far = topology.node(link.dst);
  port.source = link.src;
  port.forwarding_source = topology::forwards(topology.node(link.src).kind);
  port.forwarding_target = topology::forwards(far.kind);
  port.delay = link.latency + (port.forwarding_target ? far.forwarding_latency : Time::zero());
  port.error_rate = static_cast<float>(1 - (1 - static_cast<double>(link.error_rate)) * (1 - params.link_error_rate));
  set_port_rate(port, link.bandwidth, params);
  return port;
}

}  // namespace loom::network::packet
