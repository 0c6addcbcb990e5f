// Per-entry statistics of collective instances, with nccl-tests bandwidth definitions:
//   algbw = size / time          (GB/s, decimal: 1 GB = 1e9 bytes)
//   busbw = algbw * factor(op, n) (all-reduce 2(n-1)/n; all-gather, reduce-scatter, all-to-all (n-1)/n)
// An "entry" is every instance sharing a workload label (one line of a microbenchmark, say),
// reported in label order.
#pragma once

#include <string>
#include <vector>

#include "loom/system/run_result.h"
#include "loom/workload/workload.h"

namespace loom::report {

struct Bandwidths {
  double algbw_gbytes_per_s = 0;
  double busbw_gbytes_per_s = 0;
};
Bandwidths bandwidths(const system::CollectiveRecord& record);

struct EntryStats {
  std::string label;
  std::string group;          // the communicators' group name
  collective::CollectiveOp op;
  collective::Algorithm algorithm;
  Bytes bytes = 0;
  std::uint32_t members = 0;
  std::uint64_t instances = 0;
  Time min_time, max_time;
  Time mean_time;             // rounded down to a picosecond
  Bandwidths mean_bandwidth;  // from the mean time
};

std::vector<EntryStats> entry_stats(const workload::Workload& workload, const system::RunResult& result);

}  // namespace loom::report
