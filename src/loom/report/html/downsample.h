// Bounds a chart's size: every chart of a report draws at most kMaxPointsPerChart marks, so a
// report of a million-flow run stays a few megabytes and opens in a second. Each reducer keeps
// the shape a reader looks for: a CDF keeps exact quantiles, a time series keeps bucket means.
#pragma once

#include <cstddef>
#include <span>
#include <vector>

namespace loom::report::html {

inline constexpr std::size_t kMaxPointsPerChart = 5000;

struct CdfPoint {
  double value = 0;
  double fraction = 0;  // of the values <= value, in (0, 1]
};

// The empirical CDF of `values` (NaNs ignored) as at most `max_points` points (>= 2): all of
// them when they fit, else the order statistics at evenly spaced ranks, first and last
// included, each with its exact fraction (rank + 1) / n. Empty when no value is a number.
std::vector<CdfPoint> cdf_points(std::vector<double> values, std::size_t max_points);

// `values` cut into `buckets` contiguous groups of near-equal size (the first n % buckets one
// longer), each replaced by its mean; the values themselves when they are no more than
// `buckets`. The same cut for equal-length inputs, so x and y series stay aligned.
std::vector<double> bucket_means(std::span<const double> values, std::size_t buckets);

// How many of `count` items to keep, at most `max_items`, and whether that drops any.
struct Keep {
  std::size_t items = 0;
  bool downsampled = false;
};
Keep keep_at_most(std::size_t count, std::size_t max_items);

}  // namespace loom::report::html
