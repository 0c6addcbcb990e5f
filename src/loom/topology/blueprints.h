// Blueprints: parameterised generators of whole cluster topologies.
//
// Every blueprint repeats the host template of host_template.h (GPUs on a scale-up fabric,
// NICs) and cables the NICs into a fabric. Node names follow InfraGraph's
// `<instance>.<index>.<component>.<index>` form. Each generator checks its parameters and
// throws loom::UserError "<blueprint> blueprint: <parameter> = <value>: expected ..." before
// building anything; the result passes Topology::validate(). The other blueprints are in
// clos.h (clos, fat-tree, clos-ratio) and rail_fabrics.h (rail-optimised, HPN, DCN+).
//
// Counts, with H hosts, g GPUs and n NICs per host, and c = scale_up_cable_count(host) plus
// one GPU-router cable per GPU for ring/torus shapes (s = 1 if the shape is a switch and
// g > 1, r = g for ring/torus, else 0):
//   single-switch: nodes H(g + n + s + r) + 1;       cables H(c + g) + Hn
//   leaf-spine:    nodes H(g + n + s + r) + L + S;   cables H(c + g) + Hn + L S k
// with L = ceil(H / hosts_per_leaf) leaves, S spines and k links_per_pair; link_count() is
// twice the number of cables. The parameter catalog (name, unit, default, doc) that `loom
// list` prints is in blueprint_catalog.h.
#pragma once

#include <cstdint>

#include "loom/core/time.h"
#include "loom/core/units.h"
#include "loom/topology/host_template.h"
#include "loom/topology/topology.h"

namespace loom::topology {

// Upper bound on hosts x gpus_per_host for every blueprint (keeps ids and memory sane).
inline constexpr std::uint64_t kMaxBlueprintGpus = std::uint64_t{1} << 20;

// All NICs on one switch ("switch.0", tier 0): a non-blocking fabric.
struct SingleSwitchParams {
  std::uint32_t hosts = 4;              // hosts, >= 1
  HostParams host;                      // the host template
  Time link_latency = Time::ns(500);    // NIC <-> switch cable, propagation plus PHY/FEC
  Time switch_latency = Time::ns(300);  // forwarding latency of the switch
};
Topology make_single_switch(const SingleSwitchParams& params);

// Two-tier Clos: the NICs of hosts_per_leaf consecutive hosts on one leaf ("leaf.i", tier 0),
// every leaf cabled to every spine ("spine.j", tier 1) with links_per_pair parallel cables.
// A last leaf may hold fewer hosts when hosts is not a multiple of hosts_per_leaf. The
// defaults are non-blocking: 4 hosts x 8 NICs x 400 Gbit/s = 12.8 Tbit/s down per leaf and
// 8 spines x 4 cables x 400 Gbit/s = 12.8 Tbit/s up.
struct LeafSpineParams {
  std::uint32_t hosts = 16;          // hosts, >= 1
  HostParams host;                   // the host template
  std::uint32_t hosts_per_leaf = 4;  // consecutive hosts whose NICs share a leaf, >= 1
  std::uint32_t spines = 8;          // spine switches, 1..65536
  std::uint32_t links_per_pair = 4;  // parallel cables per (leaf, spine) pair, 1..64
  // Each leaf <-> spine cable, per direction.
  Bandwidth spine_link_bandwidth = Bandwidth::gbps(400);
  Time link_latency = Time::ns(500);    // every fabric cable (NIC-leaf and leaf-spine)
  Time switch_latency = Time::ns(300);  // forwarding latency of leaves and spines
};
Topology make_leaf_spine(const LeafSpineParams& params);
// Leaves the blueprint builds: ceil(hosts / hosts_per_leaf). Requires hosts_per_leaf >= 1.
std::uint32_t leaf_count(const LeafSpineParams& params);
// Downlink over uplink capacity of a full leaf:
// (hosts_per_leaf x gpus_per_host x nic_bandwidth) / (spines x links_per_pair x
// spine_link_bandwidth). 1 is non-blocking, 3 means 3:1 oversubscribed, below 1 means spare
// uplink capacity. Throws the same UserError as make_leaf_spine on bad parameters.
double oversubscription(const LeafSpineParams& params);

}  // namespace loom::topology
