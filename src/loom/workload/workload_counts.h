// What a workload holds, counted from its description without building it: the size check
// before a run (core/memory_budget.h) and `loom workload show` read these.
#pragma once

#include <cstdint>

namespace loom::workload {

struct WorkloadCounts {
  std::uint64_t nodes = 0;
  std::uint64_t dependencies = 0;
  std::uint64_t ranks = 0;
};

}  // namespace loom::workload
