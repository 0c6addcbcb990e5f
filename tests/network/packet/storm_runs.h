// What the windowed executor's and the ranks' tests run on the packet fabric: PFC storms with
// link errors, and queue pairs between GPUs.
#pragma once

#include <vector>

#include "loom/network/packet/packet_backend.h"
#include "loom/topology/routing.h"

namespace loom::network::packet {

// `cc` with ECN, switch buffers of `buffer` bytes (small: PFC pauses the senders), each packet
// lost on a link with probability `error_rate` (go-back-N resends) and a 100 us retransmission
// timeout.
inline PacketParams lossy_storm(CcKind cc, Bytes buffer, double error_rate) {
  PacketParams p;
  p.cc.kind = cc;
  p.sw.buffer_bytes = buffer;
  p.sw.ecn_table = {EcnSetting{Bandwidth::gbps(100), 5'000, 50'000, 0.5}};
  p.link_error_rate = error_rate;
  p.nic.retransmit_timeout = Time::us(100);
  return p;
}

// A queue pair of `bytes` from GPU `src` to GPU `dst` on the routes of flow hash `tag` (ACKs on
// the reverse route), told to `listener`.
inline QpId route_and_start(PacketBackend& backend, const topology::Routing& routing, std::uint32_t src,
                            std::uint32_t dst, Bytes bytes, std::uint64_t tag, FabricListener& listener) {
  const topology::Topology& topo = backend.fabric().topology();
  std::vector<topology::LinkId> forward, reverse;
  routing.route(topo.gpu_node(src), topo.gpu_node(dst), tag, forward);
  routing.route(topo.gpu_node(dst), topo.gpu_node(src), tag, reverse);
  QpSpec spec;
  spec.forward = forward;
  spec.reverse = reverse;
  spec.bytes = bytes;
  spec.tag = tag;
  return backend.start_queue_pair(spec, listener);
}

}  // namespace loom::network::packet
