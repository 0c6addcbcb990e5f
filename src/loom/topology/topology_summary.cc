#include "loom/topology/topology_summary.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "loom/core/random.h"

namespace loom::topology {

namespace {

void count_nodes(const Topology& t, TopologySummary& s, std::map<std::uint16_t, TierSummary>& tiers) {
  for (NodeId v = 0; v < t.node_count(); ++v) {
    const Node& n = t.node(v);
    switch (n.kind) {
      case NodeKind::kGpu: ++s.gpus; break;
      case NodeKind::kNic: ++s.nics; break;
      case NodeKind::kScaleUpSwitch: ++s.scale_up_switches; break;
      case NodeKind::kSwitch:
        ++s.fabric_switches;
        tiers[n.tier].tier = n.tier;
        ++tiers[n.tier].switches;
        break;
    }
  }
  for (LinkId l = 0; l < t.link_count(); ++l) {
    const Link& k = t.link(l);
    const Node& a = t.node(k.src);
    const Node& b = t.node(k.dst);
    if (a.kind == NodeKind::kNic && b.host == kNone) s.nic_bps += k.bandwidth.bps();
    if (a.host != kNone) continue;
    TierSummary& tier = tiers[a.tier];
    if (b.host != kNone || b.tier < a.tier) tier.down_bps += k.bandwidth.bps();
    if (b.host == kNone && b.tier > a.tier) tier.up_bps += k.bandwidth.bps();
  }
}

void sample_paths(const Topology& t, const Routing& r, std::uint32_t samples, std::uint64_t seed,
                  TopologySummary& s) {
  if (t.gpu_count() < 2) return;
  RandomStream rng(seed, "topology-summary");
  std::uint64_t hops = 0;
  std::uint64_t paths = 0;
  std::uint32_t cross = 0;
  s.min_paths = ~std::uint64_t{0};
  const auto visit = [&](std::uint32_t a, std::uint32_t b) {
    ++s.sampled_pairs;
    const std::uint32_t h = r.hop_count(t.gpu_node(a), t.gpu_node(b));
    if (h == kNone) {
      ++s.unreachable_pairs;
      return;
    }
    hops += h;
    s.diameter = std::max(s.diameter, h);
    if (t.host_of_rank(a) == t.host_of_rank(b)) return;
    const std::uint64_t p = r.path_count(t.gpu_node(a), t.gpu_node(b));
    ++cross;
    paths += p;
    s.min_paths = std::min(s.min_paths, p);
    s.max_paths = std::max(s.max_paths, p);
  };
  if (t.host_of_rank(0) == t.host_of_rank(1)) visit(0, 1);
  for (std::uint32_t i = 0; i < samples && t.host_count() > 1; ++i) {
    const auto a = static_cast<std::uint32_t>(rng.next() % t.gpu_count());
    const auto b = static_cast<std::uint32_t>(rng.next() % t.gpu_count());
    if (t.host_of_rank(a) != t.host_of_rank(b)) visit(a, b);
  }
  const std::uint32_t reached = s.sampled_pairs - s.unreachable_pairs;
  s.mean_hops = reached == 0 ? 0 : static_cast<double>(hops) / reached;
  s.mean_paths = cross == 0 ? 0 : static_cast<double>(paths) / cross;
  if (cross == 0) s.min_paths = 0;
}

std::string rate(std::uint64_t bps) { return to_string(Bandwidth::bits_per_second(bps)); }

}  // namespace

TopologySummary summarize(const Topology& t, const Routing& r, std::uint32_t samples,
                          std::uint64_t seed) {
  TopologySummary s;
  s.hosts = t.host_count();
  s.cables = t.link_count() / 2;
  s.groups = r.group_count();
  std::map<std::uint16_t, TierSummary> tiers;
  count_nodes(t, s, tiers);
  for (const auto& [tier, summary] : tiers) s.tiers.push_back(summary);
  std::uint64_t narrowest = s.nic_bps;
  for (std::size_t i = 0; i + 1 < s.tiers.size(); ++i) narrowest = std::min(narrowest, s.tiers[i].up_bps);
  s.bisection_bps = narrowest / 2;
  sample_paths(t, r, samples, seed, s);
  return s;
}

void print_summary(const TopologySummary& s, std::ostream& out) {
  out << fmt::format("hosts {}   GPUs {}   NICs {}   scale-up switches {}   fabric switches {}   "
                     "cables {}\n",
                     s.hosts, s.gpus, s.nics, s.scale_up_switches, s.fabric_switches, s.cables);
  if (!s.tiers.empty()) {
    out << fmt::format("{:>6} {:>9} {:>14} {:>14} {:>17}\n", "tier", "switches", "down", "up",
                       "oversubscription");
    for (const TierSummary& t : s.tiers) {
      out << fmt::format("{:>6} {:>9} {:>14} {:>14} {:>17}\n", t.tier, t.switches, rate(t.down_bps),
                         t.up_bps == 0 ? "-" : rate(t.up_bps),
                         t.up_bps == 0 ? "-" : fmt::format("{:.2f}:1", t.oversubscription()));
    }
  }
  out << fmt::format("NIC capacity {}   bisection bandwidth (estimate) {}\n", rate(s.nic_bps),
                     rate(s.bisection_bps));
  out << fmt::format("sampled GPU pairs {}: diameter {} hops, mean {:.2f}; unreachable {}\n",
                     s.sampled_pairs, s.diameter, s.mean_hops, s.unreachable_pairs);
  if (s.max_paths > 0) {
    out << fmt::format("ECMP paths between hosts: min {}, mean {:.1f}, max {}\n", s.min_paths,
                       s.mean_paths, s.max_paths);
  }
  out << fmt::format("routing destination groups {}\n", s.groups);
}

}  // namespace loom::topology
