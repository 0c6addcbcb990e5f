#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "loom/core/memory_budget.h"

namespace loom {
namespace {

using ::testing::HasSubstr;

TEST(MemoryBudget, RefusesOnlyWhatExceedsItAndSaysByHowMuch) {
  const MemoryBudget budget(std::uint64_t{8} << 30, "--max-memory 8GiB");
  EXPECT_FALSE(budget.refusal(8.0 * (1 << 30), "nodes"));
  const auto refusal = budget.refusal(12.5 * (1 << 30), "3 nodes");
  ASSERT_TRUE(refusal);
  EXPECT_EQ(*refusal, "needs about 12.5 GiB for 3 nodes, more than the memory budget of 8.0 GiB (--max-memory 8GiB)");
}

TEST(MemoryBudget, TheMachineDefaultIsBelowItsMemory) {
  const MemoryBudget budget = MemoryBudget::of_machine();
  EXPECT_GT(budget.bytes(), std::uint64_t{1} << 26);
  EXPECT_THAT(budget.origin(), HasSubstr("--max-memory sets another"));
}

TEST(MemoryBudget, ReadableBytes) {
  EXPECT_EQ(readable_bytes(37), "37 B");
  EXPECT_EQ(readable_bytes(1536), "1.5 KiB");
  EXPECT_EQ(readable_bytes(3.0 * (1ull << 40)), "3.0 TiB");
}

}  // namespace
}  // namespace loom
