// One workload built from copies of others, each copy's ranks moved onto chosen ranks of the
// result. The cluster level uses it to run several jobs on one fabric at once (each job's rank
// r on the GPU it was placed on: with one result rank per GPU, rank = GPU) and to chain a job's
// iterations.
//
// Copies on the same rank run one after another: a copied node with no dependencies waits for
// every node of the previous copy on its rank that nothing in that copy depends on (its sinks).
// Copies of different jobs (disjoint ranks) are independent.
#pragma once

#include <span>
#include <string>
#include <vector>

#include "loom/workload/workload.h"

namespace loom::workload {

// Node ids [first, last) of one appended copy in the composed workload.
struct NodeRange {
  NodeId first = 0;
  NodeId last = 0;
};

class Composition {
 public:
  explicit Composition(std::uint32_t rank_count) : workload_(rank_count), sinks_(rank_count) {}

  // Appends `copies` copies of `part`, chained, with part rank r on rank rank_map[r]
  // (rank_map: one distinct rank per part rank). The copies share one set of communicators,
  // named `prefix` + the part's names; labels get the same prefix. UserError when rank_map
  // does not fit. Returns each copy's node range.
  std::vector<NodeRange> append(const Workload& part, std::span<const std::uint32_t> rank_map, const std::string& prefix,
                                std::uint32_t copies = 1);
  // Appends a compute node of `duration` on `rank` after what the rank has so far (a start
  // delay).
  NodeId delay(std::uint32_t rank, Time duration, const std::string& label);

  const Workload& workload() const { return workload_; }
  Workload take() { return std::move(workload_); }

 private:
  Workload workload_;
  std::vector<std::vector<NodeId>> sinks_;  // per rank: what the next copy's roots wait for
};

}  // namespace loom::workload
