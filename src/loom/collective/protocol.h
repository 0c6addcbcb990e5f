// NCCL's three wire protocols and what they cost.
//
//   Simple  payload as is; bandwidth efficiency 1. Synchronises through memory fences per
//           chunk: the highest per-hop latency.
//   LL      "low latency": every 8-byte line carries 4 bytes of data and a 4-byte flag, so the
//           receiver polls the data itself: efficiency 1/2, the lowest latency.
//   LL128   128-byte lines carrying 120 bytes of data and an 8-byte flag: efficiency 120/128,
//           latency between the two (needs NVLink-class ordering in NCCL).
//
// wire_bytes rounds up to whole lines: LL ceil(b/4)*8, LL128 ceil(b/120)*128, Simple b.
//
// Per-hop latency is the protocol/software latency one transfer pays on top of the network's
// own time, per link class: kIntraHost (scale-up, NVLink) or kInterHost (scale-out NIC).
// ProtocolCosts{} is all zero (the network alone decides the time); nccl_protocol_costs() gives
// NCCL's ring hwLat row (NCCL 2.19-2.2x src/graph/tuning.cc, in microseconds):
//   NVLink  LL 0.6, LL128 1.9, Simple 3.4;   network  LL 2.7, LL128 4.0, Simple 14.0,
// its tree row (for the tree algorithm, for_tree()):
//   NVLink  LL 0.6, LL128 1.25, Simple 4.0;  network  LL 5.0, LL128 8.5, Simple 14.0,
// and NCCL's network post overhead (getNetOverhead: 1 us on x86 Intel, which NCCL triples for
// Simple): on a ring across hosts NCCL charges an intra-host step at least that much, because
// the proxy posts every step of the ring, not only the ones that cross hosts. Loom charges it
// in the tuner (intra_step below); the simulation charges each transfer its hop's latency only
// (the difference is LL's 0.6 against 1.0 us; LL128 and Simple are above the floor).
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <string_view>
#include <vector>

#include "loom/core/time.h"
#include "loom/core/units.h"

namespace loom::collective {

enum class Protocol : std::uint8_t { kSimple, kLL, kLL128 };
enum class LinkClass : std::uint8_t { kIntraHost, kInterHost };

// "simple", "ll", "ll128".
std::string_view to_string(Protocol protocol);
// Exact names as printed by to_string; anything else is a UserError listing them.
Protocol parse_protocol(std::string_view text);
const std::vector<Protocol>& all_protocols();

// Fraction of wire bytes that are payload: 1, 0.5, 120/128.
double protocol_efficiency(Protocol protocol);
// Bytes on the wire for `payload` bytes of data (rounded up to whole lines).
Bytes wire_bytes(Bytes payload, Protocol protocol);

struct ProtocolCosts {
  using Table = std::array<std::array<Time, 2>, 3>;
  // hop_latency[protocol][link class], indexed by the enum values: what hop() charges.
  Table hop_latency{};
  // The tree algorithm's table (NCCL tunes its tree apart from its ring).
  Table tree_hop_latency{};

  // NCCL's network post overhead (zero in ProtocolCosts{}).
  Time net_overhead = Time::zero();

  Time hop(Protocol protocol, LinkClass link) const {
    return hop_latency[static_cast<std::size_t>(protocol)][static_cast<std::size_t>(link)];
  }
  // These costs with the tree's table in force.
  ProtocolCosts for_tree() const {
    ProtocolCosts tree = *this;
    tree.hop_latency = tree_hop_latency;
    return tree;
  }
  // The latency of an intra-host step of a ring that crosses hosts: max(hop, post overhead,
  // tripled for Simple), as NCCL's tuning model charges it.
  Time intra_step(Protocol protocol) const {
    const Time overhead = protocol == Protocol::kSimple ? net_overhead * 3 : net_overhead;
    return std::max(hop(protocol, LinkClass::kIntraHost), overhead);
  }
};

// NCCL's per-hop ring latencies (see above).
ProtocolCosts nccl_protocol_costs();

}  // namespace loom::collective
