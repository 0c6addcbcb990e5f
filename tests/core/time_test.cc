#include "loom/core/time.h"

#include <gtest/gtest.h>

namespace loom {
namespace {

using namespace time_literals;

TEST(Time, LiteralsAreExactPicoseconds) {
  EXPECT_EQ((1_ns).picoseconds(), 1'000);
  EXPECT_EQ((3_us).picoseconds(), 3'000'000);
  EXPECT_EQ((2_ms).picoseconds(), 2'000'000'000);
  EXPECT_EQ((1_s).picoseconds(), 1'000'000'000'000);
  EXPECT_EQ(1_us + 500_ns, Time::ps(1'500'000));
  EXPECT_LT(999_ps, 1_ns);
}

TEST(Time, PrintsInLargestFittingUnit) {
  EXPECT_EQ(to_string(Time::zero()), "0ps");
  EXPECT_EQ(to_string(10_ps), "10ps");
  EXPECT_EQ(to_string(1_us + 500_ns), "1.5us");
  EXPECT_EQ(to_string(2_ms + 1_ns), "2.000001ms");
  EXPECT_EQ(to_string(Time::zero() - 3_ns), "-3ns");
  EXPECT_EQ(to_string(5_s), "5s");
  EXPECT_EQ(fmt::format("{}", 250_ns), "250ns");
}

}  // namespace
}  // namespace loom
