#include "loom/cluster/distribution.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "loom/cluster/span.h"
#include "loom/core/error.h"

namespace loom::cluster {

namespace {
double read_value(config::Reader& section, std::string_view key, Quantity quantity) {
  if (quantity == Quantity::kCount) return section.required<double>(key);
  const std::string text = section.required<std::string>(key);
  try {
    return parse_span(text).seconds();
  } catch (const UserError& e) {
    section.fail(key, e.message());
  }
}
}  // namespace

Distribution Distribution::fixed(double value) {
  Distribution d;
  d.kind_ = Kind::kFixed;
  d.a_ = value;
  return d;
}
Distribution Distribution::exponential(double mean) {
  Distribution d;
  d.kind_ = Kind::kExponential;
  d.a_ = mean;
  return d;
}
Distribution Distribution::weibull(double shape, double scale) {
  Distribution d;
  d.kind_ = Kind::kWeibull;
  d.a_ = shape;
  d.b_ = scale;
  return d;
}
Distribution Distribution::choice(std::vector<double> values, std::vector<double> weights) {
  LOOM_ASSERT(!values.empty() && values.size() == weights.size(), "choice needs matching values and weights");
  Distribution d;
  d.kind_ = Kind::kChoice;
  d.values_ = std::move(values);
  double total = 0;
  for (double w : weights) d.cumulative_.push_back(total += w);
  return d;
}

Distribution Distribution::read(config::Reader section, Quantity quantity) {
  const std::string kind =
      section.choice("dist", {"fixed", "exponential", "uniform", "lognormal", "weibull", "choice"});
  const auto positive = [&](std::string_view key, double value) {
    if (!(value > 0)) section.fail(key, fmt::format("must be positive, got {}", value));
    return value;
  };
  if (kind == "fixed") return fixed(read_value(section, "value", quantity));
  if (kind == "exponential") return exponential(positive("mean", read_value(section, "mean", quantity)));
  if (kind == "weibull") {
    const double shape = positive("shape", section.required<double>("shape"));
    return weibull(shape, positive("scale", read_value(section, "scale", quantity)));
  }
  Distribution d;
  if (kind == "uniform") {
    d.kind_ = Kind::kUniform;
    d.a_ = read_value(section, "min", quantity);
    d.b_ = read_value(section, "max", quantity);
    if (d.b_ < d.a_) section.fail("max", "must not be below min");
    return d;
  }
  if (kind == "lognormal") {
    d.kind_ = Kind::kLognormal;
    d.a_ = positive("median", read_value(section, "median", quantity));
    d.b_ = section.required<double>("sigma");
    if (d.b_ < 0) section.fail("sigma", "must not be negative");
    return d;
  }
  std::vector<double> values;
  if (quantity == Quantity::kCount) {
    values = section.list<double>("values");
  } else {
    for (const std::string& text : section.list<std::string>("values")) {
      try {
        values.push_back(parse_span(text).seconds());
      } catch (const UserError& e) {
        section.fail("values", e.message());
      }
    }
  }
  if (values.empty()) section.fail("values", "must list at least one value");
  std::vector<double> weights(values.size(), 1.0);
  if (section.has("weights")) {
    weights = section.list<double>("weights");
    if (weights.size() != values.size()) {
      section.fail("weights", fmt::format("lists {} weights for {} values", weights.size(), values.size()));
    }
    if (std::any_of(weights.begin(), weights.end(), [](double w) { return !(w >= 0); }) ||
        std::all_of(weights.begin(), weights.end(), [](double w) { return w == 0; })) {
      section.fail("weights", "must be non-negative and not all zero");
    }
  }
  return choice(std::move(values), std::move(weights));
}

double Distribution::sample(RandomStream& random) const {
  switch (kind_) {
    case Kind::kFixed: return a_;
    case Kind::kExponential: return random.exponential(a_);
    case Kind::kUniform: return a_ + (b_ - a_) * random.uniform();
    case Kind::kLognormal: return a_ * std::exp(random.normal(0.0, b_));
    case Kind::kWeibull: return b_ * std::pow(-std::log1p(-random.uniform()), 1.0 / a_);
    case Kind::kChoice: {
      const double u = random.uniform() * cumulative_.back();
      const auto it = std::upper_bound(cumulative_.begin(), cumulative_.end(), u);
      return values_[std::min<std::size_t>(static_cast<std::size_t>(it - cumulative_.begin()), values_.size() - 1)];
    }
  }
  return a_;
}

double Distribution::mean() const {
  switch (kind_) {
    case Kind::kFixed:
    case Kind::kExponential: return a_;
    case Kind::kUniform: return (a_ + b_) / 2;
    case Kind::kLognormal: return a_ * std::exp(b_ * b_ / 2);
    case Kind::kWeibull: return b_ * std::tgamma(1.0 + 1.0 / a_);
    case Kind::kChoice: {
      double sum = 0, previous = 0;
      for (std::size_t i = 0; i < values_.size(); ++i) {
        sum += values_[i] * (cumulative_[i] - previous);
        previous = cumulative_[i];
      }
      return sum / cumulative_.back();
    }
  }
  return a_;
}

const std::vector<DistributionInfo>& distribution_catalog() {
  static const std::vector<DistributionInfo> catalog{
      {"fixed", "value"},
      {"exponential", "mean"},
      {"uniform", "min, max"},
      {"lognormal", "median, sigma (of the underlying normal)"},
      {"weibull", "shape, scale; P(X > x) = exp(-(x/scale)^shape)"},
      {"choice", "values, weights (default equal)"},
  };
  return catalog;
}

}  // namespace loom::cluster
