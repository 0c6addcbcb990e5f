#include "loom/experiment/slow_nics.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include <fmt/format.h>

namespace loom::experiment {

namespace {

// `bandwidth` divided by `factor`, to whole bit/s and at least 1.
Bandwidth divided(Bandwidth bandwidth, double factor) {
  if (factor == 1.0) return bandwidth;
  const double bps = std::round(static_cast<double>(bandwidth.bps()) / factor);
  return Bandwidth::bits_per_second(std::max<std::uint64_t>(1, static_cast<std::uint64_t>(bps)));
}

void check(const topology::Topology& t, const workload::NicSlowdown& s) {
  if (s.rank >= t.gpu_count()) {
    throw UserError(fmt::format("NIC slowdown names rank {}, but the topology has ranks 0..{}", s.rank, t.gpu_count() - 1));
  }
  if (!(s.factor > 0)) throw UserError(fmt::format("NIC slowdown of rank {}: factor {} must be positive", s.rank, s.factor));
}

// Per node: the largest whole-run factor of the NIC (1 elsewhere).
std::vector<double> whole_run_factors(const topology::Topology& t, std::span<const workload::NicSlowdown> slow) {
  std::vector<double> factor(t.node_count(), 1.0);
  for (const workload::NicSlowdown& s : slow) {
    check(t, s);
    const topology::NodeId nic = t.nic_of_rank(s.rank);
    if (nic != topology::kNone) factor[nic] = std::max(factor[nic], s.factor);
  }
  return factor;
}

}  // namespace

topology::Topology with_slow_nics(const topology::Topology& t, std::span<const workload::NicSlowdown> slow) {
  const std::vector<double> factor = whole_run_factors(t, slow);
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
    out.add_duplex_link(l.src, l.dst, divided(l.bandwidth, std::max(factor[l.src], factor[l.dst])), l.latency,
                        l.error_rate);
  }
  for (std::uint32_t rank = 0; rank < t.gpu_count(); ++rank) {
    if (t.nic_of_rank(rank) != topology::kNone) out.attach_nic(rank, t.nic_of_rank(rank));
  }
  return out;
}

std::vector<LinkRateChange> nic_rate_changes(const topology::Topology& t, std::span<const SlowNic> slow) {
  struct Window {
    topology::NodeId nic;
    double factor;
    TimeWindow span;
  };
  std::vector<workload::NicSlowdown> whole_run;
  std::vector<Window> windows;
  std::vector<Time> instants;
  for (const SlowNic& s : slow) {
    if (!s.window) {
      whole_run.push_back(s.slowdown);
      continue;
    }
    try {
      check(t, s.slowdown);
    } catch (const UserError& e) {
      throw e.located(s.where);
    }
    const topology::NodeId nic = t.nic_of_rank(s.slowdown.rank);
    if (nic == topology::kNone) continue;
    windows.push_back({nic, s.slowdown.factor, *s.window});
    instants.push_back(s.window->from);
    if (s.window->until != Time::max()) instants.push_back(s.window->until);
  }
  if (windows.empty()) return {};
  std::sort(instants.begin(), instants.end());
  instants.erase(std::unique(instants.begin(), instants.end()), instants.end());
  const std::vector<double> base = whole_run_factors(t, whole_run);
  // The cables (both directions) at a NIC with a window, and their rates so far.
  std::vector<topology::LinkId> links;
  for (topology::LinkId l = 0; l < t.link_count(); ++l) {
    const topology::Link& link = t.link(l);
    const bool touched = std::any_of(windows.begin(), windows.end(),
                                     [&](const Window& w) { return w.nic == link.src || w.nic == link.dst; });
    if (touched) links.push_back(l);
  }
  const auto rate = [&](topology::LinkId l, const std::vector<double>& factor) {
    const topology::Link& link = t.link(l);
    return divided(link.bandwidth, std::max(factor[link.src], factor[link.dst]));
  };
  std::vector<Bandwidth> current;
  for (const topology::LinkId l : links) current.push_back(rate(l, base));
  std::vector<LinkRateChange> changes;
  std::vector<double> factor;
  for (const Time at : instants) {
    factor = base;
    for (const Window& w : windows) {
      if (w.span.from <= at && at < w.span.until) factor[w.nic] = std::max(factor[w.nic], w.factor);
    }
    for (std::size_t i = 0; i < links.size(); ++i) {
      const Bandwidth now = rate(links[i], factor);
      if (now == current[i]) continue;
      current[i] = now;
      changes.push_back({at, links[i], now});
    }
  }
  return changes;
}

}  // namespace loom::experiment
