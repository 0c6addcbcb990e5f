#include "loom/report/html/downsample.h"

#include <cmath>
#include <limits>
#include <vector>

#include <gtest/gtest.h>

namespace loom::report::html {
namespace {

TEST(Downsample, SmallCdfKeepsEveryValueWithItsFraction) {
  const auto points = cdf_points({3, 1, std::numeric_limits<double>::quiet_NaN(), 2, 2}, 10);
  // NaN dropped; sorted 1, 2, 2, 3.
  ASSERT_EQ(points.size(), 4u);
  EXPECT_EQ(points[0].value, 1);
  EXPECT_DOUBLE_EQ(points[0].fraction, 0.25);
  EXPECT_EQ(points[2].value, 2);
  EXPECT_DOUBLE_EQ(points[2].fraction, 0.75);
  EXPECT_EQ(points[3].value, 3);
  EXPECT_DOUBLE_EQ(points[3].fraction, 1.0);
  EXPECT_TRUE(cdf_points({}, 10).empty());
}

TEST(Downsample, LargeCdfKeepsExactQuantilesIncludingBothEnds) {
  // 0..99999 shuffled by a stride: the value at rank k is k, so each kept point must be exact.
  const std::size_t n = 100000;
  std::vector<double> values;
  for (std::size_t i = 0; i < n; ++i) values.push_back(static_cast<double>((i * 7919) % n));
  const auto points = cdf_points(values, 1000);
  ASSERT_EQ(points.size(), 1000u);
  EXPECT_EQ(points.front().value, 0);
  EXPECT_EQ(points.back().value, static_cast<double>(n - 1));
  EXPECT_DOUBLE_EQ(points.back().fraction, 1.0);
  for (std::size_t j = 0; j < points.size(); ++j) {
    EXPECT_DOUBLE_EQ(points[j].fraction, (points[j].value + 1) / n) << j;
    if (j > 0) {
      EXPECT_GT(points[j].value, points[j - 1].value) << j;
    }
  }
  // Evenly spaced: the median point sits at the median rank (within one step of 100).
  EXPECT_NEAR(points[500].value, 50000, 100);
}

TEST(Downsample, BucketMeansAverageContiguousGroups) {
  const std::vector<double> values = {1, 2, 3, 4, 5, 6, 7};
  // 7 into 3: sizes 3, 2, 2.
  EXPECT_EQ(bucket_means(values, 3), (std::vector<double>{2, 4.5, 6.5}));
  EXPECT_EQ(bucket_means(values, 7), values);
  EXPECT_EQ(bucket_means(values, 100), values);
  // The mean of the bucket means, weighted by size, is the overall mean.
  std::vector<double> many;
  for (int i = 0; i < 10007; ++i) many.push_back(std::sin(i));
  const auto means = bucket_means(many, 1000);
  ASSERT_EQ(means.size(), 1000u);
  double sum = 0, weighted = 0;
  for (double v : many) sum += v;
  for (std::size_t b = 0; b < means.size(); ++b) weighted += means[b] * (b < 7 ? 11 : 10);
  EXPECT_NEAR(weighted, sum, 1e-9);
}

TEST(Downsample, KeepAtMostSaysWhetherItDropped) {
  EXPECT_EQ(keep_at_most(10, 20).items, 10u);
  EXPECT_FALSE(keep_at_most(10, 20).downsampled);
  EXPECT_EQ(keep_at_most(30, 20).items, 20u);
  EXPECT_TRUE(keep_at_most(30, 20).downsampled);
}

}  // namespace
}  // namespace loom::report::html
