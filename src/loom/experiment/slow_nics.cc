#include "loom/experiment/slow_nics.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include <fmt/format.h>

#include "loom/core/error.h"

namespace loom::experiment {

topology::Topology with_slow_nics(const topology::Topology& t, std::span<const workload::NicSlowdown> slow) {
  std::vector<double> factor(t.node_count(), 1.0);  // per node; only NICs get a factor
  for (const workload::NicSlowdown& s : slow) {
    if (s.rank >= t.gpu_count()) {
      throw UserError(fmt::format("NIC slowdown names rank {}, but the topology has ranks 0..{}", s.rank,
                                  t.gpu_count() - 1));
    }
    if (!(s.factor > 0)) throw UserError(fmt::format("NIC slowdown of rank {}: factor {} must be positive", s.rank, s.factor));
    const topology::NodeId nic = t.nic_of_rank(s.rank);
    if (nic != topology::kNone) factor[nic] = std::max(factor[nic], s.factor);
  }
  topology::Topology out;
  for (topology::NodeId id = 0; id < t.node_count(); ++id) {
    const topology::Node& n = t.node(id);
    out.add_node(n.kind, n.name, n.host, n.tier, n.forwarding_latency);
    if (n.rail != topology::kNoRail) out.set_rail(id, n.rail);
    if (n.ports != 0) out.set_ports(id, n.ports);
  }
  // Cables in link-id order, so that both directions keep their ids.
  for (topology::LinkId id = 0; id < t.link_count(); ++id) {
    const topology::Link& l = t.link(id);
    if (l.reverse < id) continue;
    LOOM_ASSERT(l.reverse == id + 1 && t.link(l.reverse).bandwidth == l.bandwidth,
                "with_slow_nics: a cable's directions are not consecutive links of one bandwidth");
    const double f = std::max(factor[l.src], factor[l.dst]);
    Bandwidth bandwidth = l.bandwidth;
    if (f != 1.0) {
      const double bps = std::round(static_cast<double>(l.bandwidth.bps()) / f);
      bandwidth = Bandwidth::bits_per_second(std::max<std::uint64_t>(1, static_cast<std::uint64_t>(bps)));
    }
    out.add_duplex_link(l.src, l.dst, bandwidth, l.latency, l.error_rate);
  }
  for (std::uint32_t rank = 0; rank < t.gpu_count(); ++rank) {
    if (t.nic_of_rank(rank) != topology::kNone) out.attach_nic(rank, t.nic_of_rank(rank));
  }
  return out;
}

}  // namespace loom::experiment
