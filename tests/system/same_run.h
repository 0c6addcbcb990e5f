// For tests of reduced runs (rank symmetry): running one, and checking that its every node
// timing and total is the full run's.
#pragma once

#include <gtest/gtest.h>

#include "loom/system/rank_symmetry.h"
#include "loom/system/run_result.h"
#include "system/fabric_fixture.h"

namespace loom::system::testing {

// An analytical run stepping only the representatives of `classes`.
inline RunResult run_reduced(const topology::Topology& topology, const topology::Routing& routing,
                             const workload::Workload& workload, const RankSymmetry& classes) {
  RuntimeOptions options;
  options.symmetry = &classes;
  return run_analytical(topology, routing, workload, options);
}

inline void expect_same_run(const RunResult& reduced, const RunResult& full) {
  ASSERT_EQ(reduced.nodes.size(), full.nodes.size());
  for (workload::NodeId id = 0; id < full.nodes.size(); ++id) {
    EXPECT_EQ(reduced.nodes[id].start, full.nodes[id].start) << id;
    EXPECT_EQ(reduced.nodes[id].end, full.nodes[id].end) << id;
    EXPECT_EQ(reduced.nodes[id].enabler, full.nodes[id].enabler) << id;
  }
  EXPECT_EQ(reduced.rank_finish, full.rank_finish);
  EXPECT_EQ(reduced.makespan, full.makespan);
  EXPECT_EQ(reduced.transfers, full.transfers);
  EXPECT_EQ(reduced.bytes_moved, full.bytes_moved);
  EXPECT_EQ(reduced.collectives.size(), full.collectives.size());
}

}  // namespace loom::system::testing
