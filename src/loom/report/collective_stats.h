// Per-entry statistics of collective instances, with nccl-tests bandwidth definitions:
//   algbw = size / time          (GB/s, decimal: 1 GB = 1e9 bytes)
//   busbw = algbw * factor(op, n) (all-reduce 2(n-1)/n; all-gather, reduce-scatter, all-to-all (n-1)/n)
// An "entry" is every instance sharing a workload label (one line of a microbenchmark, say) and
// what it moves: its group, operation, size and member count, so a label whose line runs several
// collectives (a SimAI layer line) gets a row for each. Reported in label order, then by those.
// Taken from the run's tally (system/collective_tally.h), so whether or not it kept a record
// per operation (output.collectives).
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
// The algorithm's name, or "plan:NAME" when the record ran a custom plan.
std::string algorithm_name(const system::CollectiveRecord& record, const system::RunResult& result);

struct EntryStats {
  std::string label;
  std::string group;          // the communicators' group name
  collective::CollectiveOp op;
  collective::Algorithm algorithm;
  std::string algorithm_name;  // the algorithm, or "plan:NAME" for a custom plan
  // What ran (the tuner's choice or the settings; a plan's protocol and thread blocks), as
  // the first instance ran it.
  collective::Protocol protocol = collective::Protocol::kSimple;
  std::uint32_t channels = 1;
  std::uint32_t chunks = 1;
  Bytes bytes = 0;
  std::uint32_t members = 0;
  std::uint64_t instances = 0;
  Time min_time, max_time;
  Time mean_time;             // rounded down to a picosecond
  Bandwidths mean_bandwidth;  // from the mean time
};

std::vector<EntryStats> entry_stats(const workload::Workload& workload, const system::RunResult& result);

}  // namespace loom::report
