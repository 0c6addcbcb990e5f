#include "loom/network/route_cache.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <vector>

#include "loom/core/error.h"
#include "loom/topology/blueprints.h"

namespace loom::network {
namespace {

using ::testing::HasSubstr;
using topology::LinkId;
using topology::NodeId;

// 4 hosts x 4 GPUs on 2 leaves and 3 spines with 2 cables per leaf-spine pair: 12 paths
// between GPUs under different leaves.
topology::Topology fabric() {
  topology::LeafSpineParams p;
  p.hosts = 4;
  p.host.gpus_per_host = 4;
  p.hosts_per_leaf = 2;
  p.spines = 3;
  p.links_per_pair = 2;
  return topology::make_leaf_spine(p);
}

std::vector<LinkId> direct(const topology::Routing& routing, NodeId src, NodeId dst, std::uint64_t hash) {
  std::vector<LinkId> path;
  routing.route(src, dst, hash, path);
  return path;
}

// Every GPU pair, many hashes, twice over (the second round all hits): the cached paths are
// Routing::route's.
TEST(RouteCache, GivesTheRoutingsPaths) {
  const topology::Topology t = fabric();
  const topology::Routing routing(t, 3);
  RouteCache cache(routing);
  const std::uint32_t n = t.gpu_count();
  for (int round = 0; round < 2; ++round) {
    for (std::uint32_t a = 0; a < n; ++a) {
      for (std::uint32_t b = 0; b < n; ++b) {
        for (std::uint64_t h = 0; h < 8; ++h) {
          std::vector<LinkId> path;
          cache.route(t.gpu_node(a), t.gpu_node(b), h * 7919 + a, path);
          ASSERT_EQ(path, direct(routing, t.gpu_node(a), t.gpu_node(b), h * 7919 + a)) << a << "->" << b;
        }
      }
    }
  }
  const std::uint64_t pairs = std::uint64_t{n} * (n - 1);
  EXPECT_EQ(cache.pairs(), pairs);
  EXPECT_EQ(cache.misses(), pairs);
  EXPECT_EQ(cache.hits(), 2 * 8 * pairs - pairs);
  EXPECT_EQ(cache.clears(), 0u);
  EXPECT_GT(cache.memory_bytes(), 0u);
}

// A budget smaller than one pair forgets everything before each new pair; routes stay right.
TEST(RouteCache, StaysWithinItsBudget) {
  const topology::Topology t = fabric();
  const topology::Routing routing(t);
  RouteCache cache(routing, 1);
  for (std::uint32_t a = 0; a < 8; ++a) {
    std::vector<LinkId> path;
    cache.route(t.gpu_node(a), t.gpu_node(15 - a), a, path);
    EXPECT_EQ(path, direct(routing, t.gpu_node(a), t.gpu_node(15 - a), a));
    EXPECT_EQ(cache.pairs(), 1u);
  }
  EXPECT_EQ(cache.clears(), 7u);
}

// A cable going down makes the cache start again and route around it.
TEST(RouteCache, FollowsLinkStateChanges) {
  const topology::Topology t = fabric();
  topology::Routing routing(t);
  RouteCache cache(routing);
  const NodeId src = t.gpu_node(0);
  const NodeId dst = t.gpu_node(12);
  std::vector<LinkId> path;
  cache.route(src, dst, 5, path);
  const LinkId spine_link = path[2];  // gpu -> nic -> leaf -> spine: the leaf's uplink
  routing.set_link_up(spine_link, false);
  for (std::uint64_t h = 0; h < 64; ++h) {
    std::vector<LinkId> again;
    cache.route(src, dst, h, again);
    EXPECT_EQ(again, direct(routing, src, dst, h));
    EXPECT_THAT(again, ::testing::Not(::testing::Contains(spine_link)));
  }
  EXPECT_EQ(cache.clears(), 1u);
}

TEST(RouteCache, UnreachablePairIsAUserError) {
  topology::Topology t;
  const NodeId a = t.add_node(topology::NodeKind::kGpu, "host.0.gpu.0", 0);
  const NodeId b = t.add_node(topology::NodeKind::kGpu, "host.1.gpu.0", 1);
  const NodeId sw = t.add_node(topology::NodeKind::kSwitch, "switch.0");
  t.add_duplex_link(a, sw, Bandwidth::gbps(100), Time::ns(1));
  const topology::Routing routing(t);
  RouteCache cache(routing);
  std::vector<LinkId> path;
  try {
    cache.route(a, b, 0, path);
    FAIL() << "expected a UserError";
  } catch (const UserError& e) {
    EXPECT_THAT(e.what(), HasSubstr("no path from 'host.0.gpu.0' to 'host.1.gpu.0'"));
  }
  EXPECT_TRUE(path.empty());
  EXPECT_EQ(cache.pairs(), 0u);
}

}  // namespace
}  // namespace loom::network
