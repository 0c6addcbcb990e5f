#include "loom/topology/host_template.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "loom/topology/blueprints.h"
#include "loom/topology/routing.h"
#include "user_error.h"
#include "topology/test_paths.h"

namespace loom::topology {
namespace {

using ::testing::HasSubstr;
using testing::cables_between;
using testing::id;
using testing::nodes_named;
using loom::testing::user_error_of;

// One host of g GPUs with this scale-up shape (single switch fabric, one host).
Topology one_host(std::uint32_t g, ScaleUp shape, std::array<std::uint32_t, 3> dims = {0, 0, 0}) {
  SingleSwitchParams p;
  p.hosts = 1;
  p.host.gpus_per_host = g;
  p.host.scale_up = shape;
  p.host.torus_dims = dims;
  return make_single_switch(p);
}

TEST(HostTemplate, PresetsFollowTheHardware) {
  const HostParams a100 = host_preset(HostModel::kDgxA100);
  EXPECT_EQ(a100.gpus_per_host, 8u);
  EXPECT_EQ(a100.nic_count(), 8u);
  EXPECT_EQ(a100.nvlink_bandwidth, Bandwidth::gbps(2400));  // 300 GB/s per direction
  EXPECT_EQ(a100.pcie_bandwidth, Bandwidth::gbps(256));     // PCIe Gen4 x16
  EXPECT_EQ(a100.nic_bandwidth, Bandwidth::gbps(200));      // 8 x HDR 200G
  const HostParams h100 = host_preset(HostModel::kDgxH100);
  EXPECT_EQ(h100.nvlink_bandwidth, Bandwidth::gbps(3600));  // 450 GB/s per direction
  EXPECT_EQ(h100.pcie_bandwidth, Bandwidth::gbps(512));
  EXPECT_EQ(h100.nic_bandwidth, Bandwidth::gbps(400));
  EXPECT_EQ(parse_host_model("dgx-h100"), HostModel::kDgxH100);
  EXPECT_THAT(user_error_of([] { parse_host_model("dgx-b200"); }),
              HasSubstr("host_model = 'dgx-b200': expected one of generic, dgx-a100, dgx-h100"));
}

TEST(HostTemplate, NicsCarryRailsAndMayBeShared) {
  SingleSwitchParams p;
  p.hosts = 2;
  p.host.nics_per_host = 2;  // GPUs 0-3 on NIC 0, 4-7 on NIC 1
  const Topology t = make_single_switch(p);
  EXPECT_EQ(nodes_named(t, "host.1.nic."), 2u);
  EXPECT_EQ(t.node(t.nic_of_rank(8 + 5)).name, "host.1.nic.1");
  EXPECT_EQ(t.node(t.nic_of_rank(3)).name, "host.0.nic.0");
  EXPECT_EQ(t.node(id(t, "host.1.nic.1")).rail, 1);
  EXPECT_EQ(t.node(id(t, "host.1.gpu.1")).rail, kNoRail);
  EXPECT_EQ(cables_between(t, "host.0.nic", "switch.0"), 2u);
  EXPECT_NO_THROW(t.validate());
}

TEST(HostTemplate, ScaleUpShapesCountsAndHops) {
  // Ring of 8: 8 router cables; farthest GPU pair 1 + 4 + 1 hops.
  const Topology ring = one_host(8, ScaleUp::kRing);
  EXPECT_EQ(cables_between(ring, "host.0.router", "host.0.router"), 8u);
  HostParams ring_host;
  ring_host.scale_up = ScaleUp::kRing;
  EXPECT_EQ(scale_up_cable_count(ring_host), 8u);
  Routing r(ring);
  EXPECT_EQ(r.hop_count(id(ring, "host.0.gpu.0"), id(ring, "host.0.gpu.4")), 6u);
  EXPECT_EQ(r.path_count(id(ring, "host.0.gpu.0"), id(ring, "host.0.gpu.4")), 2u);
  EXPECT_EQ(r.hop_count(id(ring, "host.0.gpu.0"), id(ring, "host.0.gpu.7")), 3u);
  // Ring links split the GPU's 3600 Gbit/s over its two ring cables.
  const NodeId router = id(ring, "host.0.router.0");
  EXPECT_EQ(ring.link(ring.out_links(router).back()).bandwidth, Bandwidth::gbps(1800));

  // 4x2 torus: 4 cables per row of 4 (2 rows) + 1 per column pair (4 columns) = 12.
  const Topology torus = one_host(8, ScaleUp::kTorus2d, {4, 2, 0});
  EXPECT_EQ(cables_between(torus, "host.0.router", "host.0.router"), 12u);
  Routing rt(torus);
  // GPU 0 at (0,0), GPU 6 at (2,1): 2 + 1 router hops.
  EXPECT_EQ(rt.hop_count(id(torus, "host.0.gpu.0"), id(torus, "host.0.gpu.6")), 5u);
  // Three router degree: 2 (ring of 4) + 1 (pair) cables, 1200 Gbit/s each.
  EXPECT_EQ(torus.out_links(id(torus, "host.0.router.0")).size(), 1u + 3u);

  // 2x2x2 torus: 3 dimensions x 4 pairs = 12 cables; opposite corners 3 router hops apart.
  const Topology cube = one_host(8, ScaleUp::kTorus3d, {2, 2, 2});
  EXPECT_EQ(cables_between(cube, "host.0.router", "host.0.router"), 12u);
  EXPECT_EQ(Routing(cube).hop_count(id(cube, "host.0.gpu.0"), id(cube, "host.0.gpu.7")), 5u);

  // Fully connected: 28 direct cables, one hop, each 3600/7 Gbit/s.
  const Topology full = one_host(8, ScaleUp::kFullyConnected);
  EXPECT_EQ(cables_between(full, "host.0.gpu", "host.0.gpu"), 28u);
  EXPECT_EQ(Routing(full).hop_count(id(full, "host.0.gpu.2"), id(full, "host.0.gpu.5")), 1u);
  EXPECT_EQ(full.link(full.out_links(id(full, "host.0.gpu.0")).front()).bandwidth,
            Bandwidth::bits_per_second(3'600'000'000'000 / 7));
  EXPECT_EQ(full.find("host.0.nvswitch.0"), std::nullopt);
}

TEST(HostTemplate, RejectsBadShapes) {
  SingleSwitchParams p;
  p.host.scale_up = ScaleUp::kTorus2d;
  p.host.torus_dims = {4, 4, 0};
  EXPECT_THAT(user_error_of([&] { make_single_switch(p); }),
              HasSubstr("host.torus_dims = '4x4': scale_up torus-2d needs 2 sizes whose product "
                        "is gpus_per_host = 8"));
  p.host.scale_up = ScaleUp::kTorus3d;
  p.host.torus_dims = {4, 2, 0};
  EXPECT_THAT(user_error_of([&] { make_single_switch(p); }),
              HasSubstr("scale_up torus-3d needs 3 sizes"));
  EXPECT_THAT(user_error_of([] { parse_torus_dims("4x0"); }),
              HasSubstr("torus_dims = '4x0': expected 2 or 3 positive sizes joined by 'x'"));
  EXPECT_THAT(user_error_of([] { parse_torus_dims("2x2x2x2"); }), HasSubstr("expected 2 or 3"));
  EXPECT_EQ(parse_torus_dims("4x2"), (std::array<std::uint32_t, 3>{4, 2, 0}));
  EXPECT_EQ(format_torus_dims({2, 2, 2}), "2x2x2");
  p = {};
  p.host.nics_per_host = 3;
  EXPECT_THAT(user_error_of([&] { make_single_switch(p); }),
              HasSubstr("host.nics_per_host = 3: expected a divisor of gpus_per_host = 8"));
}

}  // namespace
}  // namespace loom::topology
