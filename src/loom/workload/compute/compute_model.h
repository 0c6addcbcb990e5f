// The compute-time model: gives every compute node a duration, as a pass over a Workload (the
// runtime has no compute model of its own and runs compute nodes for their fixed duration).
//
// Roofline per node, with the efficiency of its op kind:
//   time = max(flops / (peak_flops(dtype) * efficiency[kind]),
//              bytes / (hbm_bandwidth * memory_efficiency)) + kernel_overhead
// rounded up to a whole picosecond. dtype is the node's, or Params::dtype when the node's is
// unknown. A KernelTable entry for the node's label replaces the model's time outright.
//
// Defaults (documented guesses, to be calibrated): GEMMs reach 75% of peak, attention 55%,
// other kernels 50%; elementwise kernels are bandwidth-bound (their FLOPs at 50% of peak);
// memory streams at 85% of HBM bandwidth.
#pragma once

#include <cstdint>

#include "loom/core/time.h"
#include "loom/workload/compute/gpu_spec.h"
#include "loom/workload/compute/kernel_table.h"
#include "loom/workload/workload.h"

namespace loom::workload::compute {

struct Params {
  GpuSpec gpu = find_gpu("H100");
  DataType dtype = DataType::kBf16;  // for nodes whose dtype is unknown
  double gemm_efficiency = 0.75;     // fraction of peak FLOP/s, in (0, 1]
  double attention_efficiency = 0.55;
  double elementwise_efficiency = 0.5;
  double other_efficiency = 0.5;
  double memory_efficiency = 0.85;   // fraction of HBM bandwidth, in (0, 1]
  Time kernel_overhead = Time::zero();  // added to every modelled node (launch latency)
  // false: nodes that already have a duration (measured traces) keep it; true: model them too.
  bool overwrite = false;
};
// UserError naming the field when an efficiency is outside (0, 1] or the overhead negative.
void validate(const Params& params);

// The roofline time of one node's work (see above). O(1).
Time roofline_time(std::uint64_t flops, Bytes bytes, ComputeKind kind, DataType dtype, const Params& params);

struct PassStats {
  std::uint64_t modelled = 0;    // durations set by the roofline
  std::uint64_t from_table = 0;  // durations set by the kernel table
  std::uint64_t kept = 0;        // compute nodes left as they were
};

// Sets the duration of every compute node: from `table` when it has the node's label; else by
// the roofline when the node has flops or bytes and (no duration yet or params.overwrite).
// O(nodes · log(table size)).
PassStats assign_durations(Workload& workload, const Params& params, const KernelTable* table = nullptr);

}  // namespace loom::workload::compute
