#include "loom/collective/semantics_checker.h"

#include <gtest/gtest.h>

#include "loom/core/error.h"

namespace loom::collective {
namespace {

constexpr CollectiveOp kOps[] = {CollectiveOp::kAllReduce, CollectiveOp::kAllGather,
                                 CollectiveOp::kReduceScatter, CollectiveOp::kAllToAll};

// Each seed pairs with its own size and, for direct, its own window. 5 B leaves most blocks
// empty, 1'000'003 B (prime) leaves a remainder for every n > 1, 3 MiB divides evenly by many n.
struct Round {
  std::uint64_t seed;
  Bytes size;
  std::uint32_t window;
};
constexpr Round kRounds[] = {{1, 5, 1}, {2, 1'000'003, 2}, {3, 3 << 20, 5}, {4, 4096, 1000}};

TEST(Semantics, EveryAlgorithmAndOperationHoldsForOneToSixtyFourMembers) {
  for (const auto algorithm : {Algorithm::kRing, Algorithm::kDirect}) {
    for (const CollectiveOp op : kOps) {
      for (std::uint32_t n = 1; n <= 64; ++n) {
        for (const Round& round : kRounds) {
          const CollectiveSpec spec{.op = op, .members = n, .size = round.size, .window = round.window};
          const SemanticsCheckResult result = check_semantics(algorithm, spec, round.seed);
          ASSERT_TRUE(result.ok) << to_string(algorithm) << " " << to_string(op) << " n=" << n
                                 << " size=" << round.size << " window=" << round.window << ": "
                                 << result.description;
          const std::uint64_t passes = op == CollectiveOp::kAllReduce ? 2 * (n - 1) : n - 1;
          EXPECT_EQ(result.transfers, passes * n);
          EXPECT_EQ(result.bytes, passes * round.size);
        }
      }
    }
  }
}

TEST(Semantics, ManyInterleavingsOfOnePrimeSizedCommunicator) {
  for (const auto algorithm : {Algorithm::kRing, Algorithm::kDirect}) {
    for (const CollectiveOp op : kOps) {
      for (std::uint64_t seed = 10; seed < 60; ++seed) {
        const CollectiveSpec spec{.op = op, .members = 7, .size = 1000, .window = 3};
        const SemanticsCheckResult result = check_semantics(algorithm, spec, seed);
        ASSERT_TRUE(result.ok) << to_string(algorithm) << " " << to_string(op) << " seed " << seed << ": "
                               << result.description;
      }
    }
  }
}

TEST(Semantics, ExpectedVolumes) {
  const CollectiveSpec all_reduce{.op = CollectiveOp::kAllReduce, .members = 8, .size = 1000};
  EXPECT_EQ(expected_wire_bytes(Algorithm::kRing, all_reduce), 14'000u);
  EXPECT_EQ(expected_transfers(Algorithm::kDirect, all_reduce), 112u);
  const CollectiveSpec all_to_all{.op = CollectiveOp::kAllToAll, .members = 8, .size = 1000};
  EXPECT_EQ(expected_wire_bytes(Algorithm::kDirect, all_to_all), 7'000u);
  EXPECT_EQ(expected_transfers(Algorithm::kRing, all_to_all), 56u);
}

TEST(Semantics, InvalidSpecIsAUserError) {
  EXPECT_THROW(check_semantics(Algorithm::kRing, {.op = CollectiveOp::kAllGather, .members = 0}, 1), UserError);
}

}  // namespace
}  // namespace loom::collective
