#include "loom/topology/rail_fabrics.h"

#include <fmt/format.h>

#include <array>
#include <vector>

#include "loom/core/error.h"
#include "loom/topology/fabric_builder.h"
#include "loom/topology/parameter_checks.h"

namespace loom::topology {

namespace {

constexpr std::array<std::string_view, 5> kNames = {
    "rail-optimized", "rail-dual-tor", "rail-dual-plane", "dcn-single-tor", "dcn-dual-tor"};
constexpr std::uint64_t kMaxCables = std::uint64_t{1} << 26;

bool dual_tor(SegmentLayout layout) {
  return layout == SegmentLayout::kRailDualTor || layout == SegmentLayout::kRailDualPlane ||
         layout == SegmentLayout::kDcnDualTor;
}

void check(SegmentLayout layout, const SegmentFabricParams& p) {
  check_blueprint(to_string(layout), [&] {
    check_hosts(p.hosts, p.host);
    require_in_range("hosts_per_segment", p.hosts_per_segment, 1, 65536);
    require_in_range("spines", p.spines, 1, 65536);
    if (layout == SegmentLayout::kRailDualPlane && p.spines % 2 != 0) {
      throw UserError(fmt::format("spines = {}: expected an even count, half for each of the "
                                  "two planes",
                                  p.spines));
    }
    require_positive("spine_link_bandwidth", p.spine_link_bandwidth);
    require_non_negative("link_latency", p.link_latency);
    require_non_negative("switch_latency", p.switch_latency);
    const std::uint64_t segments = (p.hosts + p.hosts_per_segment - 1) / p.hosts_per_segment;
    const std::uint64_t cables = segments * tors_per_segment(layout, p.host) * p.spines;
    if (cables > kMaxCables) {
      throw UserError(fmt::format("{} segments x {} ToRs x {} spines = {} ToR-spine cables: "
                                  "expected at most {}",
                                  segments, tors_per_segment(layout, p.host), p.spines, cables,
                                  kMaxCables));
    }
  });
}

}  // namespace

std::string_view to_string(SegmentLayout layout) {
  return kNames[static_cast<std::size_t>(layout)];
}

std::uint32_t tors_per_segment(SegmentLayout layout, const HostParams& host) {
  switch (layout) {
    case SegmentLayout::kRailOptimized: return host.nic_count();
    case SegmentLayout::kRailDualTor:
    case SegmentLayout::kRailDualPlane: return 2 * host.nic_count();
    case SegmentLayout::kDcnSingleTor: return 1;
    case SegmentLayout::kDcnDualTor: return 2;
  }
  return 0;
}

Topology make_segment_fabric(SegmentLayout layout, const SegmentFabricParams& p) {
  check(layout, p);
  Topology t;
  const std::vector<HostNodes> hosts = add_hosts(t, p.hosts, p.host);
  const std::uint32_t per = tors_per_segment(layout, p.host);
  const std::uint32_t segments = (p.hosts + p.hosts_per_segment - 1) / p.hosts_per_segment;
  const std::uint32_t n = p.host.nic_count();
  const bool rail = layout == SegmentLayout::kRailOptimized ||
                    layout == SegmentLayout::kRailDualTor ||
                    layout == SegmentLayout::kRailDualPlane;
  const NodeId first_tor = add_switches(t, "leaf", segments * per, 0, p.switch_latency);
  const NodeId first_spine = add_switches(t, "spine", p.spines, 1, p.switch_latency);
  for (std::uint32_t h = 0; h < p.hosts; ++h) {
    const NodeId base = first_tor + (h / p.hosts_per_segment) * per;
    for (std::uint32_t r = 0; r < n; ++r) {
      const std::uint32_t a = rail ? r : 0;
      cable_nic(t, hosts[h], p.host, r, base + a, p.link_latency);
      if (dual_tor(layout)) cable_nic(t, hosts[h], p.host, r, base + per / 2 + a, p.link_latency);
    }
  }
  const bool planes = layout == SegmentLayout::kRailDualPlane;
  const std::uint32_t half = p.spines / 2;
  for (std::uint32_t i = 0; i < segments * per; ++i) {
    const bool plane_b = i % per >= per / 2;
    const std::uint32_t first = planes && plane_b ? half : 0;
    const std::uint32_t count = planes ? half : p.spines;
    for (std::uint32_t j = first; j < first + count; ++j) {
      t.add_duplex_link(first_tor + i, first_spine + j, p.spine_link_bandwidth, p.link_latency);
    }
  }
  return t;
}

}  // namespace loom::topology
