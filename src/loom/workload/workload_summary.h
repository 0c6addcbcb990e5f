// What `loom workload show` prints: per-rank node counts, FLOPs and communication bytes per
// communicator kind, and the critical path at infinite bandwidth (critical_path.h).
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "loom/workload/workload.h"

namespace loom::workload {

// Communicator kinds (CommunicatorKind, 8 of them) plus point-to-point last.
inline constexpr std::size_t kTrafficKinds = 9;

struct RankSummary {
  std::array<std::uint64_t, 4> nodes{};    // by NodeKind
  std::uint64_t flops = 0;
  Time compute_time;                       // sum of compute durations
  std::array<Bytes, kTrafficKinds> bytes{};  // collectives by communicator kind; sends (p2p) last
};

struct WorkloadSummary {
  std::vector<RankSummary> ranks;
  std::uint64_t dependencies = 0;
  std::size_t memory_bytes = 0;
};

// O(nodes).
WorkloadSummary summarize(const Workload& workload);

}  // namespace loom::workload
