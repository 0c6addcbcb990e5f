#include "loom/report/html/downsample.h"

#include <algorithm>
#include <cmath>

#include "loom/core/error.h"

namespace loom::report::html {

std::vector<CdfPoint> cdf_points(std::vector<double> values, std::size_t max_points) {
  LOOM_ASSERT(max_points >= 2, "a CDF needs at least its first and last point");
  std::erase_if(values, [](double v) { return std::isnan(v); });
  std::sort(values.begin(), values.end());
  const std::size_t n = values.size();
  std::vector<CdfPoint> points;
  if (n == 0) return points;
  const std::size_t kept = std::min(n, max_points);
  points.reserve(kept);
  for (std::size_t j = 0; j < kept; ++j) {
    // Evenly spaced ranks from 0 to n - 1 (all of them when kept == n).
    const std::size_t rank = kept == 1 ? 0 : (j * (n - 1) + (kept - 1) / 2) / (kept - 1);
    points.push_back({values[rank], static_cast<double>(rank + 1) / static_cast<double>(n)});
  }
  return points;
}

std::vector<double> bucket_means(std::span<const double> values, std::size_t buckets) {
  LOOM_ASSERT(buckets > 0, "bucket_means needs at least one bucket");
  if (values.size() <= buckets) return {values.begin(), values.end()};
  std::vector<double> means;
  means.reserve(buckets);
  const std::size_t base = values.size() / buckets, longer = values.size() % buckets;
  std::size_t at = 0;
  for (std::size_t b = 0; b < buckets; ++b) {
    const std::size_t size = base + (b < longer ? 1 : 0);
    double sum = 0;
    for (std::size_t i = at; i < at + size; ++i) sum += values[i];
    means.push_back(sum / static_cast<double>(size));
    at += size;
  }
  return means;
}

Keep keep_at_most(std::size_t count, std::size_t max_items) {
  return {std::min(count, max_items), count > max_items};
}

}  // namespace loom::report::html
