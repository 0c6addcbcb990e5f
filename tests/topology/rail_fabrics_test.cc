#include "loom/topology/rail_fabrics.h"

#include <gmock/gmock.h>
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <string>
#include <tuple>

#include "loom/topology/routing.h"
#include "user_error.h"
#include "topology/test_paths.h"

namespace loom::topology {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using testing::cables_between;
using testing::id;
using testing::nodes_named;
using testing::route_of;
using loom::testing::user_error_of;
using testing::visited;

constexpr SegmentLayout kLayouts[] = {SegmentLayout::kRailOptimized, SegmentLayout::kRailDualTor,
                                      SegmentLayout::kRailDualPlane, SegmentLayout::kDcnSingleTor,
                                      SegmentLayout::kDcnDualTor};

// H hosts of 4 GPUs, `per_segment` hosts per segment, S spines.
SegmentFabricParams params(std::uint32_t hosts, std::uint32_t per_segment, std::uint32_t spines) {
  SegmentFabricParams p;
  p.hosts = hosts;
  p.host.gpus_per_host = 4;
  p.hosts_per_segment = per_segment;
  p.spines = spines;
  return p;
}

TEST(SegmentFabrics, CountsMatchTheFormulas) {
  for (SegmentLayout layout : kLayouts) {
    for (const auto& [hosts, per_segment, spines] :
         {std::tuple{2u, 2u, 4u}, std::tuple{5u, 2u, 6u}, std::tuple{16u, 8u, 2u}}) {
      const Topology t = make_segment_fabric(layout, params(hosts, per_segment, spines));
      const std::uint32_t segments = (hosts + per_segment - 1) / per_segment;
      const std::uint32_t per = tors_per_segment(layout, params(1, 1, 1).host);
      const bool dual = layout == SegmentLayout::kRailDualTor ||
                        layout == SegmentLayout::kRailDualPlane ||
                        layout == SegmentLayout::kDcnDualTor;
      const std::uint32_t spine_cables = segments * per * spines /
                                         (layout == SegmentLayout::kRailDualPlane ? 2 : 1);
      const std::string what = fmt::format("{} H={} G={} S={}", to_string(layout), hosts,
                                           per_segment, spines);
      EXPECT_EQ(nodes_named(t, "leaf."), segments * per) << what;
      EXPECT_EQ(nodes_named(t, "spine."), spines) << what;
      EXPECT_EQ(cables_between(t, "host.", "leaf."), hosts * 4u * (dual ? 2 : 1)) << what;
      EXPECT_EQ(cables_between(t, "leaf.", "spine."), spine_cables) << what;
      EXPECT_NO_THROW(t.validate()) << what;
    }
  }
}

TEST(SegmentFabrics, ToRsPerSegment) {
  const HostParams h;  // 8 NICs
  EXPECT_EQ(tors_per_segment(SegmentLayout::kRailOptimized, h), 8u);
  EXPECT_EQ(tors_per_segment(SegmentLayout::kRailDualTor, h), 16u);
  EXPECT_EQ(tors_per_segment(SegmentLayout::kRailDualPlane, h), 16u);
  EXPECT_EQ(tors_per_segment(SegmentLayout::kDcnSingleTor, h), 1u);
  EXPECT_EQ(tors_per_segment(SegmentLayout::kDcnDualTor, h), 2u);
}

TEST(SegmentFabrics, SameRailStaysBelowOneTorCrossRailClimbsToASpine) {
  const Topology t = make_segment_fabric(SegmentLayout::kRailOptimized, params(4, 4, 3));
  const Routing r(t);
  EXPECT_THAT(visited(t, route_of(r, id(t, "host.0.gpu.2"), id(t, "host.3.gpu.2"), 5)),
              ElementsAre("host.0.gpu.2", "host.0.nic.2", "leaf.2", "host.3.nic.2",
                          "host.3.gpu.2"));
  for (std::uint32_t a = 0; a < t.gpu_count(); ++a) {
    for (std::uint32_t b = 0; b < t.gpu_count(); ++b) {
      if (t.host_of_rank(a) == t.host_of_rank(b)) continue;
      const bool same_rail = a % 4 == b % 4;
      EXPECT_EQ(r.hop_count(t.gpu_node(a), t.gpu_node(b)), same_rail ? 4u : 6u) << a << "->" << b;
      EXPECT_EQ(r.path_count(t.gpu_node(a), t.gpu_node(b)), same_rail ? 1u : 3u);
    }
  }
}

TEST(SegmentFabrics, DualPlaneTrafficNeverCrossesPlanes) {
  const Topology t = make_segment_fabric(SegmentLayout::kRailDualPlane, params(4, 2, 4));
  const Routing r(t);
  // Per segment ToRs 0..3 are plane A (spines 0, 1), ToRs 4..7 plane B (spines 2, 3).
  const auto plane_of = [&](const std::string& name) {
    if (name.starts_with("spine.")) return std::stoi(name.substr(6)) < 2 ? 0 : 1;
    return std::stoi(name.substr(5)) % 8 < 4 ? 0 : 1;
  };
  int crossings = 0;
  int used_b = 0;
  for (std::uint32_t a = 0; a < t.gpu_count(); ++a) {
    for (std::uint32_t b = 0; b < t.gpu_count(); ++b) {
      if (t.host_of_rank(a) == t.host_of_rank(b)) continue;
      for (std::uint64_t h = 0; h < 8; ++h) {
        int plane = -1;
        for (const std::string& name : visited(t, route_of(r, t.gpu_node(a), t.gpu_node(b), h))) {
          if (!name.starts_with("leaf.") && !name.starts_with("spine.")) continue;
          if (plane >= 0 && plane != plane_of(name)) ++crossings;
          plane = plane_of(name);
        }
        used_b += plane == 1 ? 1 : 0;
      }
    }
  }
  EXPECT_EQ(crossings, 0);
  EXPECT_GT(used_b, 0) << "flows use both planes";
}

TEST(SegmentFabrics, DcnPutsEveryNicOfASegmentOnOneTor) {
  const Topology t = make_segment_fabric(SegmentLayout::kDcnSingleTor, params(4, 2, 2));
  const Routing r(t);
  EXPECT_EQ(r.hop_count(id(t, "host.0.gpu.0"), id(t, "host.1.gpu.3")), 4u);  // same segment
  EXPECT_EQ(r.hop_count(id(t, "host.0.gpu.0"), id(t, "host.2.gpu.0")), 6u);  // via a spine
  EXPECT_EQ(r.path_count(id(t, "host.0.gpu.0"), id(t, "host.2.gpu.0")), 2u);
  const Topology dual = make_segment_fabric(SegmentLayout::kDcnDualTor, params(4, 2, 2));
  const Routing rd(dual);
  // Two ToRs below the pair: two paths.
  EXPECT_EQ(rd.path_count(id(dual, "host.0.gpu.0"), id(dual, "host.1.gpu.3")), 2u);
}

TEST(SegmentFabrics, DualHomedNicsCarryNoTransitTraffic) {
  const Topology t = make_segment_fabric(SegmentLayout::kRailDualTor, params(2, 2, 1));
  const Routing r(t);
  // leaf.0 to leaf.4 (the same rail's two ToRs): through the spine, never through a NIC.
  EXPECT_THAT(visited(t, route_of(r, id(t, "leaf.0"), id(t, "leaf.4"), 0)),
              ElementsAre("leaf.0", "spine.0", "leaf.4"));
}

TEST(SegmentFabrics, RejectBadParameters) {
  SegmentFabricParams p = params(4, 2, 3);
  EXPECT_THAT(user_error_of([&] { make_segment_fabric(SegmentLayout::kRailDualPlane, p); }),
              HasSubstr("rail-dual-plane blueprint: spines = 3: expected an even count, half for "
                        "each of the two planes"));
  p.hosts_per_segment = 0;
  EXPECT_THAT(user_error_of([&] { make_segment_fabric(SegmentLayout::kRailOptimized, p); }),
              HasSubstr("rail-optimized blueprint: hosts_per_segment = 0: expected a count from "
                        "1 to 65536"));
  p = params(4, 2, 0);
  EXPECT_THAT(user_error_of([&] { make_segment_fabric(SegmentLayout::kDcnDualTor, p); }),
              HasSubstr("dcn-dual-tor blueprint: spines = 0"));
  p = params(4, 2, 2);
  p.spine_link_bandwidth = Bandwidth{};
  EXPECT_THAT(user_error_of([&] { make_segment_fabric(SegmentLayout::kDcnSingleTor, p); }),
              HasSubstr("dcn-single-tor blueprint: spine_link_bandwidth = 0bps"));
  p = params(4, 2, 2);
  p.host.nics_per_host = 3;
  EXPECT_THAT(user_error_of([&] { make_segment_fabric(SegmentLayout::kRailDualTor, p); }),
              HasSubstr("rail-dual-tor blueprint: host.nics_per_host = 3: expected a divisor of "
                        "gpus_per_host = 4"));
}

}  // namespace
}  // namespace loom::topology
