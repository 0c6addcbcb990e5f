// Shared by the synthesis tests: a small GPT, A100 compute times, and running a synthesised
// step through the system runtime on a contention-free star.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>

#include "loom/workload/compute/compute_model.h"
#include "loom/workload/critical_path.h"
#include "loom/workload/synthesis/training_step.h"
#include "system/fabric_fixture.h"

namespace loom::workload::synthesis::testing {

// h = 512, a = 8, ffn = 4h, V = 1000, learned positions; `layers` and sequence `s` vary.
inline TransformerConfig small_gpt(std::uint32_t layers = 8, std::uint64_t s = 256) {
  return {"small-gpt", layers, 512, 8, 8, 2048, false, 1000, s, true};
}

// TP x PP x DP with `global_batch` sequences, everything else at its default.
inline ParallelPlan plan(std::uint32_t tp, std::uint32_t pp, std::uint32_t dp, std::uint32_t global_batch) {
  ParallelPlan p;
  p.tp = tp;
  p.pp = pp;
  p.dp = dp;
  p.global_batch = global_batch;
  return p;
}

// Counts made without building (workload_counts.h) equal those of the built workload.
inline void expect_counts_of(const Workload& built, const WorkloadCounts& counted) {
  EXPECT_EQ(counted.nodes, built.node_count());
  EXPECT_EQ(counted.dependencies, built.dependency_count());
  EXPECT_EQ(counted.ranks, built.rank_count());
  EXPECT_EQ(counted.collectives, built.counts().collectives);
  if (built.rank_count() > 1) {
    EXPECT_GT(counted.collectives, 0u);
  }
}

// Gives every compute node its A100 roofline duration.
inline void time_on_a100(Workload& w) {
  compute::Params params;
  params.gpu = compute::find_gpu("A100");
  compute::assign_durations(w, params);
}

// Runs `w` (already timed) on a star of `ranks` GPUs with every communication stream, on the
// analytical backend, and checks the run is whole: every node ran, and the step took no less
// than its critical path at infinite bandwidth.
inline system::RunResult run_on_a_star(const Workload& w, std::uint32_t ranks) {
  const system::testing::StarFabric fabric(ranks);
  system::RuntimeOptions options;
  options.comm_streams = kCommStreams;
  system::RunResult result = system::testing::run_analytical(fabric.topology, fabric.routing, w, options);
  EXPECT_EQ(result.nodes.size(), w.node_count());
  EXPECT_GE(result.makespan, critical_path_length(w));
  return result;
}

}  // namespace loom::workload::synthesis::testing
