// Two-tier fabrics of segments, after the five datacenter layouts SimAI generates (seed
// simai-communication-stack.txt §7): rail-optimised or not, single or dual ToR, one or two
// spine planes.
//
// Hosts are grouped into segments of hosts_per_segment consecutive hosts (the last may be
// partial). Each segment has T ToR switches ("leaf.i", tier 0, segment-major), and every
// ToR cables once to spines ("spine.j", tier 1). With n NICs per host, NIC r of a host
// cables to (within its segment):
//   rail-optimized   (Spectrum-X)       T = n;  ToR r.
//   rail-dual-tor    (HPN single-plane) T = 2n; ToR r and ToR n + r (two ports per NIC).
//   rail-dual-plane  (HPN dual-plane)   T = 2n; as rail-dual-tor, but ToRs 0..n-1 cable only
//                                       to plane A = spines 0..S/2-1 and ToRs n..2n-1 only to
//                                       plane B = spines S/2..S-1; no cable joins the planes.
//   dcn-single-tor   (DCN+)             T = 1;  ToR 0 for every NIC.
//   dcn-dual-tor     (DCN+ dual-ToR)    T = 2;  ToR 0 and ToR 1 (two ports per NIC).
// Otherwise every ToR cables to every spine. Counts, with G = ceil(H / hosts_per_segment)
// segments and p = 2 ports per NIC for dual-ToR layouts (else 1):
//   ToRs G T;  NIC cables H n p;  ToR-spine cables G T S (dual-plane: G T S / 2).
// Same-rail traffic of rail-optimised layouts stays below one ToR; cross-rail traffic climbs
// to a spine; in the dual-plane layout a path never changes plane.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

#include "loom/core/time.h"
#include "loom/core/units.h"
#include "loom/topology/host_template.h"
#include "loom/topology/topology.h"

namespace loom::topology {

enum class SegmentLayout : std::uint8_t {
  kRailOptimized,
  kRailDualTor,
  kRailDualPlane,
  kDcnSingleTor,
  kDcnDualTor,
};
// The blueprint name: "rail-optimized", "rail-dual-tor", "rail-dual-plane", "dcn-single-tor",
// "dcn-dual-tor".
std::string_view to_string(SegmentLayout layout);

struct SegmentFabricParams {
  std::uint32_t hosts = 16;              // hosts, >= 1
  HostParams host;                       // the host template
  std::uint32_t hosts_per_segment = 16;  // consecutive hosts sharing one set of ToRs, >= 1
  std::uint32_t spines = 16;             // spine switches; even for rail-dual-plane
  Bandwidth spine_link_bandwidth = Bandwidth::gbps(400);  // each ToR <-> spine cable
  Time link_latency = Time::ns(500);     // every fabric cable
  Time switch_latency = Time::ns(300);   // forwarding latency of ToRs and spines
};

// ToRs per segment (T above).
std::uint32_t tors_per_segment(SegmentLayout layout, const HostParams& host);
Topology make_segment_fabric(SegmentLayout layout, const SegmentFabricParams& params);

}  // namespace loom::topology
