// Random distributions for job sources and failure models, read from a map such as
//   {dist: exponential, mean: 2h}            mean
//   {dist: uniform, min: 10min, max: 3h}     inclusive bounds
//   {dist: lognormal, median: 20min, sigma: 1.5}   exp(N(ln median, sigma^2))
//   {dist: weibull, shape: 0.7, scale: 30d}  P(X > x) = exp(-(x/scale)^shape)
//   {dist: choice, values: [1, 2, 8], weights: [6, 3, 1]}   weights default to equal
//   {dist: fixed, value: 1h}
// A Distribution draws doubles: seconds for durations, plain numbers for counts (the reader
// says which, so durations need units: "2h"; counts must not have them). Draws use Loom's own
// RandomStream, so a seed means the same everywhere.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "loom/config/reader.h"
#include "loom/core/random.h"

namespace loom::cluster {

enum class Quantity { kDuration, kCount };

class Distribution {
 public:
  enum class Kind { kFixed, kExponential, kUniform, kLognormal, kWeibull, kChoice };

  static Distribution fixed(double value);
  static Distribution exponential(double mean);
  static Distribution weibull(double shape, double scale);
  static Distribution choice(std::vector<double> values, std::vector<double> weights);

  // Reads the map `section` (see above); errors are located at the offending key.
  static Distribution read(config::Reader section, Quantity quantity);

  double sample(RandomStream& random) const;
  // The distribution's mean (for documentation and tests).
  double mean() const;
  Kind kind() const { return kind_; }

 private:
  Kind kind_ = Kind::kFixed;
  double a_ = 0;  // fixed value, mean, min, median or shape
  double b_ = 0;  // max, sigma or scale
  std::vector<double> values_;
  std::vector<double> cumulative_;  // choice: cumulative weights, last = total
};

// The names and parameters above, for `loom list`.
struct DistributionInfo {
  std::string_view name;
  std::string_view parameters;
};
const std::vector<DistributionInfo>& distribution_catalog();

}  // namespace loom::cluster
