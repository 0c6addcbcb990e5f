#include "loom/workload/scaling.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "loom/core/error.h"

namespace loom::workload {
namespace {

std::uint64_t scaled(std::uint64_t value, double factor) {
  if (value == 0) return 0;
  return std::max<std::uint64_t>(1, static_cast<std::uint64_t>(std::llround(static_cast<double>(value) * factor)));
}

}  // namespace

void scale_workload(Workload& workload, double factor) {
  if (!(factor > 0 && factor <= 1)) {
    throw UserError(fmt::format("scale factor {} is invalid, expected a value in (0, 1]", factor));
  }
  workload.edit_nodes([factor](Node& n, std::uint64_t) {
    n.flops = scaled(n.flops, factor);
    n.bytes = scaled(n.bytes, factor);
    n.duration = Time::ps(static_cast<std::int64_t>(scaled(static_cast<std::uint64_t>(n.duration.picoseconds()), factor)));
  });
}

}  // namespace loom::workload
