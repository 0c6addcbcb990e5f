// LPs placed on threads by load (parallel/lp_placement.h): longest processing time first, and
// the imbalance of a placement.
#include "loom/network/packet/parallel/lp_placement.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

namespace loom::network::packet::parallel {
namespace {

TEST(LpPlacement, HeaviestFirstOnTheLeastLoadedThread) {
  // 7, 5, 4, 3, 1 on two threads: 7 | 5 -> 7 | 5 + 4 -> 7 + 3 | 9 -> 10 | 9 + 1.
  const std::vector<std::uint64_t> load = {3, 7, 1, 5, 4};
  const std::vector<std::uint32_t> thread_of = place_by_load(load, 2);
  EXPECT_EQ(thread_of, (std::vector<std::uint32_t>{0, 0, 1, 1, 1}));
  EXPECT_DOUBLE_EQ(placement_imbalance(load, thread_of, 2), 1.0);  // 10 | 10
  // Five equal pods on two threads split 3:2, 20% above the mean whatever the placement.
  const std::vector<std::uint64_t> pods(5, 100);
  EXPECT_DOUBLE_EQ(placement_imbalance(pods, place_by_load(pods, 2), 2), 1.2);
  // Round robin of an uneven load: 9 + 1 | 1 + 1 = 10 | 2 -> 10 / 6.
  const std::vector<std::uint64_t> uneven = {9, 1, 1, 1};
  EXPECT_DOUBLE_EQ(placement_imbalance(uneven, std::vector<std::uint32_t>{0, 1, 0, 1}, 2), 10.0 / 6.0);
  EXPECT_DOUBLE_EQ(placement_imbalance(uneven, place_by_load(uneven, 2), 2), 9.0 / 6.0);
}

TEST(LpPlacement, TiesGoToTheLowerLpAndThreadAndNoLoadIsEven) {
  const std::vector<std::uint64_t> equal(4, 0);
  EXPECT_EQ(place_by_load(equal, 4), (std::vector<std::uint32_t>{0, 1, 2, 3}));
  EXPECT_DOUBLE_EQ(placement_imbalance(equal, place_by_load(equal, 4), 4), 1.0);
  EXPECT_EQ(place_by_load(equal, 1), (std::vector<std::uint32_t>(4, 0)));
}

}  // namespace
}  // namespace loom::network::packet::parallel
