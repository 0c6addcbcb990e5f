// tree across hosts is NCCL's shape: each host's members chained below a double binary tree
// over the hosts. The checker proves the all-reduce, the trees have the documented shape, and
// the contention-free timing is the pipeline formula of the chain-plus-tree depth.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "collective/timing_harness.h"
#include "loom/collective/block_layout.h"
#include "loom/collective/reduction_tree.h"
#include "loom/collective/semantics_checker.h"
#include "loom/collective/tree_schedule.h"

namespace loom::collective {
namespace {

std::shared_ptr<const GroupLayout> grid(std::uint32_t hosts, std::uint32_t per_host) {
  return std::make_shared<const GroupLayout>(regular_layout(hosts, per_host));
}

std::uint32_t floor_log2(std::uint32_t n) {
  std::uint32_t levels = 0;
  while ((2u << levels) <= n) ++levels;
  return levels;
}

// Edges from `endpoint` up to the root.
std::uint32_t depth(const ReductionTree& tree, std::uint32_t endpoint) {
  std::uint32_t d = 0;
  for (std::uint32_t e = endpoint; e != tree.root; e = tree.parent[e]) ++d;
  return d;
}

TEST(TreeAcrossHosts, OnlyLayoutsOverSeveralHostsUseTheChains) {
  EXPECT_FALSE(spans_hosts({.op = CollectiveOp::kAllReduce, .members = 8, .size = 8}));
  EXPECT_FALSE(spans_hosts({.op = CollectiveOp::kAllReduce, .members = 8, .size = 8, .layout = grid(1, 8)}));
  EXPECT_TRUE(spans_hosts({.op = CollectiveOp::kAllReduce, .members = 8, .size = 8, .layout = grid(2, 4)}));
}

TEST(TreeAcrossHosts, AllReduceHoldsOverEveryHostShape) {
  for (std::uint32_t hosts = 2; hosts <= 9; ++hosts) {
    for (std::uint32_t per_host = 1; per_host <= 8; ++per_host) {
      for (const auto& [channels, chunks] : {std::pair{1u, 1u}, std::pair{4u, 3u}, std::pair{5u, 2u}}) {
        for (const CollectiveOp op : {CollectiveOp::kAllReduce, CollectiveOp::kBarrier}) {
          const CollectiveSpec spec{.op = op, .members = hosts * per_host, .size = 100'003, .channels = channels,
                                    .chunks = chunks, .layout = grid(hosts, per_host)};
          const SemanticsCheckResult result = check_semantics(Algorithm::kTree, spec, hosts * 97 + per_host);
          ASSERT_TRUE(result.ok) << hosts << "x" << per_host << " C=" << channels << " K=" << chunks << ": "
                                 << result.description;
          EXPECT_EQ(result.bytes, expected_wire_bytes(Algorithm::kTree, spec));
        }
      }
    }
  }
}

TEST(TreeAcrossHosts, ChainsStartAtTheChannelsMemberAndRepresentativesFormTheHostTree) {
  const std::uint32_t hosts = 5, g = 4, n = hosts * g;
  const CollectiveSpec spec{.op = CollectiveOp::kAllReduce, .members = n, .size = 1, .channels = 8,
                            .layout = grid(hosts, g)};
  const std::vector<ReductionTree> trees = reduction_trees(Algorithm::kTree, spec);
  ASSERT_EQ(trees.size(), 4u);  // lcm(2, 4) shapes
  const BinaryTree host_tree(hosts);
  for (std::uint32_t c = 0; c < 4; ++c) {
    const ReductionTree& t = trees[c];
    for (std::uint32_t h = 0; h < hosts; ++h) {
      for (std::uint32_t i = 1; i < g; ++i) {
        EXPECT_EQ(t.parent[h * g + (c + i) % g], h * g + (c + i - 1) % g) << "channel " << c << " host " << h;
        EXPECT_EQ(t.link[h * g + (c + i) % g], LinkClass::kIntraHost);
      }
      const std::uint32_t head = h * g + c % g;
      // Tree 0 places host h at position h + 1, tree 1 at ((h - 1) mod hosts) + 1.
      const std::uint32_t position = c % 2 == 0 ? h + 1 : (h + hosts - 1) % hosts + 1;
      const std::uint32_t up = host_tree.parent(position);
      if (up == 0) {
        EXPECT_EQ(t.root, head);
      } else {
        const std::uint32_t up_host = c % 2 == 0 ? up - 1 : up % hosts;
        EXPECT_EQ(t.parent[head], up_host * g + c % g);
        EXPECT_EQ(t.link[head], LinkClass::kInterHost);
      }
    }
    // Deepest member: the end of a chain under the deepest host.
    std::uint32_t deepest = 0;
    for (std::uint32_t m = 0; m < n; ++m) deepest = std::max(deepest, depth(t, m));
    EXPECT_EQ(deepest, (g - 1) + floor_log2(hosts)) << "channel " << c;
  }
}

TEST(TreeAcrossHosts, PipelinesOverTheChainPlusTreeDepth) {
  // (2 d + K - 1) (alpha + S/(C K) beta) with d = (g - 1) + floor(log2 hosts).
  constexpr std::uint64_t kAlpha = 1'000'000;
  constexpr std::uint64_t kBeta = 10;
  for (const auto& [hosts, g] : {std::pair{2u, 8u}, std::pair{4u, 2u}, std::pair{5u, 3u}, std::pair{16u, 1u}}) {
    for (const std::uint32_t chunks : {1u, 4u}) {
      for (const std::uint32_t channels : {1u, 2u}) {
        const std::uint32_t n = hosts * g;
        const Bytes piece = Bytes{n} * 100;  // whole blocks per piece
        const CollectiveSpec spec{.op = CollectiveOp::kAllReduce, .members = n, .size = piece * channels * chunks,
                                  .channels = channels, .chunks = chunks, .layout = grid(hosts, g)};
        const std::uint64_t d = (g - 1) + floor_log2(hosts);
        EXPECT_EQ(harness::run_timed(Algorithm::kTree, spec, kAlpha, kBeta).end_ps,
                  (2 * d + chunks - 1) * (kAlpha + piece * kBeta))
            << hosts << "x" << g << " C=" << channels << " K=" << chunks;
      }
    }
  }
}

}  // namespace
}  // namespace loom::collective
