#include "loom/topology/parameter_checks.h"

#include <fmt/format.h>

#include "loom/core/error.h"

namespace loom::topology {

void require_in_range(std::string_view name, std::uint64_t value, std::uint64_t lo,
                      std::uint64_t hi) {
  if (value < lo || value > hi) {
    throw UserError(fmt::format("{} = {}: expected a count from {} to {}", name, value, lo, hi));
  }
}

void require_positive(std::string_view name, Bandwidth value) {
  if (value.is_zero()) {
    throw UserError(
        fmt::format("{} = {}: expected a bandwidth above zero, e.g. 400Gbps", name, value));
  }
}

void require_non_negative(std::string_view name, Time value) {
  if (value < Time::zero()) {
    throw UserError(fmt::format("{} = {}: expected a time of zero or more", name, value));
  }
}

}  // namespace loom::topology
