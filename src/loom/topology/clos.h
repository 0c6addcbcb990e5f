// Two- and three-tier Clos fabrics, described three ways that all become one ClosShape.
//
// Wiring of a ClosShape (n = NICs per host):
//   hosts       host h cables all its NICs to leaf h / hosts_per_leaf ("leaf.i", tier 0);
//               the last leaf may hold fewer hosts.
//   two tiers   every leaf cables once to every spine ("spine.j", tier 1).
//   three tiers leaves form pods of leaves_per_pod (the last pod may be partial); every pod
//               has aggs_per_pod aggregation switches ("agg.a", tier 1, pod-major) and every
//               leaf cables once to every agg of its pod. Spines ("spine.j", tier 2) form
//               `planes` equal planes of consecutive ids; agg number j of each pod cables once
//               to every spine of plane j mod planes.
// Cables: two tiers  H n + L S;
//         three tiers H n + L A + P A S / planes,  with P = ceil(L / leaves_per_pod) pods and
//         A = aggs_per_pod.
//
// The three descriptions:
//  - clos (ClosParams): switches of `radix` ports, leaf downlinks:uplinks = oversubscription:1.
//    A leaf has D = radix o / (o + 1) NIC ports and U = radix / (o + 1) uplinks, holds
//    floor(D / n) hosts; two tiers: S = U spines, at most radix leaves; three tiers: pods of
//    radix/2 leaves and U aggs, U planes of radix/2 spines (so S = U radix / 2), at most radix
//    pods. Every switch gets `radix` ports. With o = 1 this is the k-ary fat-tree, partially
//    populated when there are fewer hosts.
//  - fat-tree (FatTreeParams): the full k-ary fat-tree (Al-Fares et al.), i.e. clos with
//    radix k, oversubscription 1 and hosts = 2 (k/2)^tiers / n. Requires k even and
//    (k/2) % n == 0 so that a host's NICs share one leaf.
//  - clos-ratio (ClosRatioParams): switch counts in a fixed ratio leaf:agg:spine (e.g.
//    32:8:1 as in Meta's Arcadia clusters) or leaf:spine; leaves from hosts_per_leaf, the
//    ratio must give whole numbers of switches. One spine plane (every agg cables to every
//    spine); pods of leaves_per_pod leaves (0: one pod) must split the aggs evenly.
#pragma once

#include <cstdint>
#include <string>

#include "loom/core/time.h"
#include "loom/core/units.h"
#include "loom/topology/host_template.h"
#include "loom/topology/topology.h"

namespace loom::topology {

struct ClosShape {
  std::uint32_t tiers = 3;           // 2 or 3
  std::uint32_t hosts = 0;
  std::uint32_t hosts_per_leaf = 0;
  std::uint32_t leaves = 0;
  std::uint32_t leaves_per_pod = 0;  // three tiers only
  std::uint32_t aggs_per_pod = 0;    // three tiers only
  std::uint32_t spines = 0;
  std::uint32_t planes = 1;          // three tiers only; divides spines
  std::uint32_t ports = 0;           // port count of every switch, 0 = unlimited
  std::uint32_t pods() const { return (leaves + leaves_per_pod - 1) / leaves_per_pod; }
  std::uint32_t aggs() const { return tiers == 3 ? pods() * aggs_per_pod : 0; }
};

// Cabling shared by the three descriptions.
struct ClosLinks {
  Bandwidth fabric_bandwidth = Bandwidth::gbps(400);  // every switch-to-switch cable
  Time link_latency = Time::ns(500);                  // every fabric cable, NIC-leaf included
  Time switch_latency = Time::ns(300);                // forwarding latency of every switch
};

struct ClosParams {
  std::uint32_t hosts = 512;           // hosts, >= 1
  HostParams host;
  std::uint32_t tiers = 3;             // 2 or 3
  std::uint32_t radix = 64;            // ports per switch, 4..65535
  std::uint32_t oversubscription = 1;  // leaf downlinks : uplinks = oversubscription : 1
  ClosLinks links;
};

struct FatTreeParams {
  std::uint32_t k = 16;  // switch radix, even; (k/2) % nics_per_host == 0
  std::uint32_t tiers = 3;
  HostParams host;
  ClosLinks links;
};

struct ClosRatioParams {
  std::uint32_t hosts = 160;
  HostParams host;
  std::uint32_t hosts_per_leaf = 16;
  std::string switch_ratio = "10:5:1";  // leaf:agg:spine (three tiers) or leaf:spine (two)
  std::uint32_t leaves_per_pod = 0;     // 0: all leaves in one pod
  ClosLinks links;
};

// The shapes; each throws UserError "<blueprint> blueprint: <parameter> ..." when the
// combination cannot be built.
ClosShape clos_shape(const ClosParams& params);
ClosShape clos_shape(const FatTreeParams& params);
ClosShape clos_shape(const ClosRatioParams& params);

Topology make_clos(const ClosParams& params);
Topology make_fat_tree(const FatTreeParams& params);
Topology make_clos_ratio(const ClosRatioParams& params);

// Builds `shape` (already checked) with these hosts and links.
Topology build_clos(const ClosShape& shape, const HostParams& host, const ClosLinks& links);

}  // namespace loom::topology
