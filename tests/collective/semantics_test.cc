// Every algorithm x every operation it implements, N = 1..64 (primes included), several chunk
// and channel counts: the symbolic checker must prove each postcondition and byte count.
#include "loom/collective/semantics_checker.h"

#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "loom/collective/block_layout.h"
#include "loom/core/error.h"

namespace loom::collective {
namespace {

// Each round pairs a seed with its own size, window, channels, chunks and root. 5 B leaves most
// pieces empty, 1'000'003 B (prime) leaves a remainder for every n > 1, 3 MiB divides evenly.
struct Round {
  std::uint64_t seed;
  Bytes size;
  std::uint32_t window;
  std::uint32_t channels;
  std::uint32_t chunks;
};
constexpr Round kRounds[] = {{1, 5, 1, 1, 1}, {2, 1'000'003, 2, 2, 3}, {3, 3 << 20, 5, 1, 4}, {4, 4096, 1000, 3, 1}};

// Every n runs rounds 1 and 3; the heavier rounds 2 and 4 run for n up to 24 and for the
// primes and powers of two above (the checker's cost grows as n^3 * pieces).
bool heavy_rounds_for(std::uint32_t n) {
  for (const std::uint32_t special : {29u, 31u, 32u, 37u, 41u, 43u, 47u, 53u, 59u, 61u, 64u}) {
    if (n == special) return true;
  }
  return n <= 24;
}

// Pair sizes for all-to-all-v: uneven, some zero.
std::shared_ptr<const std::vector<Bytes>> pair_sizes(std::uint32_t n) {
  auto sizes = std::make_shared<std::vector<Bytes>>(std::size_t{n} * n);
  for (std::size_t i = 0; i < sizes->size(); ++i) (*sizes)[i] = (i * 7919) % 13 == 0 ? 0 : (i * 31) % 1000 + 1;
  return sizes;
}

// A layout of n members over hosts of the largest of 8, 4, 2, 1 members dividing n.
std::shared_ptr<const GroupLayout> hosts_for(std::uint32_t n) {
  for (const std::uint32_t per_host : {8u, 4u, 2u, 1u}) {
    if (n % per_host == 0) return std::make_shared<const GroupLayout>(regular_layout(n / per_host, per_host));
  }
  return nullptr;
}

// A three-tier aggregation tree for in-network: members dealt round-robin over leaves of up to 4,
// two leaves per middle switch, the middle switches under one root (fewer tiers when small).
std::shared_ptr<const SwitchTree> switches_for(std::uint32_t n) {
  auto tree = std::make_shared<SwitchTree>();
  const std::uint32_t leaves = (n + 3) / 4;
  const std::uint32_t middles = leaves == 1 ? 0 : (leaves + 1) / 2;
  for (std::uint32_t m = 0; m < n; ++m) tree->leaf.push_back(m % leaves);
  for (std::uint32_t l = 0; l < leaves; ++l) tree->parent.push_back(middles == 0 ? kNoSwitch : leaves + l / 2);
  for (std::uint32_t s = 0; middles > 1 && s < middles; ++s) tree->parent.push_back(leaves + middles);
  if (middles == 1) tree->parent.push_back(kNoSwitch);
  if (middles > 1) tree->parent.push_back(kNoSwitch);
  return tree;
}

CollectiveSpec make_spec(Algorithm algorithm, CollectiveOp op, std::uint32_t n, const Round& round) {
  return {.op = op,
          .members = n,
          .size = round.size,
          .window = round.window,
          .channels = round.channels,
          .chunks = round.chunks,
          .root = static_cast<std::uint32_t>(round.seed * 5 % n),
          .layout = algorithm == Algorithm::kNvls ? nullptr : hosts_for(n),
          .pair_bytes = op == CollectiveOp::kAllToAllV ? pair_sizes(n) : nullptr,
          .switch_tree = algorithm == Algorithm::kInNetwork ? switches_for(n) : nullptr};
}

class EveryOperation : public ::testing::TestWithParam<Algorithm> {};

TEST_P(EveryOperation, HoldsForOneToSixtyFourMembers) {
  const Algorithm algorithm = GetParam();
  for (const CollectiveOp op : all_collective_ops()) {
    if (!supports(algorithm, op)) continue;
    for (std::uint32_t n = 1; n <= 64; ++n) {
      for (const Round& round : kRounds) {
        if (round.seed % 2 == 0 && !heavy_rounds_for(n)) continue;
        const CollectiveSpec spec = make_spec(algorithm, op, n, round);
        const SemanticsCheckResult result = check_semantics(algorithm, spec, round.seed);
        ASSERT_TRUE(result.ok) << to_string(algorithm) << " " << to_string(op) << " n=" << n << " size=" << round.size
                               << " channels=" << round.channels << " chunks=" << round.chunks << ": "
                               << result.description;
        EXPECT_EQ(result.bytes, expected_wire_bytes(algorithm, spec));
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Semantics, EveryOperation, ::testing::ValuesIn(all_algorithms()),
                         [](const ::testing::TestParamInfo<Algorithm>& param) {
                           std::string name(to_string(param.param));
                           std::erase(name, '-');
                           return name;
                         });

TEST(Semantics, SupportMatrix) {
  std::uint32_t combinations = 0;
  for (const Algorithm algorithm : all_algorithms()) {
    for (const CollectiveOp op : all_collective_ops()) combinations += supports(algorithm, op) ? 1 : 0;
  }
  // ring 7, direct 10, tree 2, halving-doubling 4, hierarchical 2, nvls 2, nvls-tree 2, in-network 2
  EXPECT_EQ(combinations, 31u);
}

TEST(Semantics, HierarchicalHoldsForEveryHostShapeAndBothOrders) {
  for (std::uint32_t hosts = 1; hosts <= 6; ++hosts) {
    for (std::uint32_t per_host = 1; per_host <= 6; ++per_host) {
      for (const bool inter_first : {false, true}) {
        CollectiveSpec spec{.op = CollectiveOp::kAllReduce, .members = hosts * per_host, .size = 100'003,
                            .channels = 2, .chunks = 2,
                            .layout = std::make_shared<const GroupLayout>(regular_layout(hosts, per_host)),
                            .inter_host_first = inter_first};
        const SemanticsCheckResult result = check_semantics(Algorithm::kHierarchical, spec, hosts * 7 + per_host);
        ASSERT_TRUE(result.ok) << hosts << "x" << per_host << " inter_first=" << inter_first << ": "
                               << result.description;
      }
    }
  }
}

TEST(Semantics, HierarchicalFollowsAnIrregularLayout) {
  // Members scattered over 3 hosts of 2, in no particular order.
  auto layout = std::make_shared<GroupLayout>();
  layout->host = {2, 0, 1, 0, 2, 1};
  layout->local = {1, 1, 0, 0, 0, 1};
  const CollectiveSpec spec{.op = CollectiveOp::kAllReduce, .members = 6, .size = 6000, .layout = layout};
  for (std::uint64_t seed = 1; seed <= 10; ++seed) {
    const SemanticsCheckResult result = check_semantics(Algorithm::kHierarchical, spec, seed);
    ASSERT_TRUE(result.ok) << result.description;
  }
}

TEST(Semantics, ManyInterleavingsOfOnePrimeSizedCommunicator) {
  for (const Algorithm algorithm : all_algorithms()) {
    for (const CollectiveOp op : all_collective_ops()) {
      if (!supports(algorithm, op)) continue;
      for (std::uint64_t seed = 10; seed < 40; ++seed) {
        const Round round{seed, 1000, 3, 2, 2};
        const SemanticsCheckResult result = check_semantics(algorithm, make_spec(algorithm, op, 7, round), seed);
        ASSERT_TRUE(result.ok) << to_string(algorithm) << " " << to_string(op) << " seed " << seed << ": "
                               << result.description;
      }
    }
  }
}

TEST(Semantics, ExpectedVolumes) {
  const CollectiveSpec all_reduce{.op = CollectiveOp::kAllReduce, .members = 8, .size = 1000};
  EXPECT_EQ(expected_wire_bytes(Algorithm::kRing, all_reduce), 14'000u);
  EXPECT_EQ(expected_wire_bytes(Algorithm::kTree, all_reduce), 14'000u);
  const CollectiveSpec all_to_all{.op = CollectiveOp::kAllToAll, .members = 8, .size = 1000};
  EXPECT_EQ(expected_wire_bytes(Algorithm::kDirect, all_to_all), 7'000u);
  // n = 6: p = 4, r = 2; blocks of 167, 167, 167, 167, 166, 166 B. (p-1)S + rS + B(0) + B(2).
  const CollectiveSpec gather6{.op = CollectiveOp::kAllGather, .members = 6, .size = 1000};
  EXPECT_EQ(expected_wire_bytes(Algorithm::kHalvingDoubling, gather6), 3000u + 2000u + 334u);
  EXPECT_EQ(expected_wire_bytes(Algorithm::kRing, gather6), 5000u);
  const CollectiveSpec scatter{.op = CollectiveOp::kScatter, .members = 4, .size = 10, .root = 2};
  EXPECT_EQ(expected_wire_bytes(Algorithm::kDirect, scatter), 8u);  // blocks 3, 3, 2, 2 minus the root's
  const CollectiveSpec barrier{.op = CollectiveOp::kBarrier, .members = 8, .size = 1000};
  EXPECT_EQ(expected_wire_bytes(Algorithm::kRing, barrier), 0u);
}

TEST(Semantics, InvalidSpecIsAUserError) {
  EXPECT_THROW(check_semantics(Algorithm::kRing, {.op = CollectiveOp::kAllGather, .members = 0}, 1), UserError);
}

}  // namespace
}  // namespace loom::collective
