// What a workload holds, counted from its description without building it: the size check
// before a run (core/memory_budget.h) and `loom workload show` read these.
#pragma once

#include <cstdint>

namespace loom::workload {

struct WorkloadCounts {
  std::uint64_t nodes = 0;
  std::uint64_t dependencies = 0;
  std::uint64_t ranks = 0;
  std::uint64_t collectives = 0;  // collective operations (instances), each with its members' nodes
};

// What one rank's program adds, counted node by node by a builder's counting pass.
struct RankCount {
  std::uint64_t nodes = 0;
  std::uint64_t dependencies = 0;
  // The rank's share of collective operations: 1 / members for each of its collective nodes, so
  // that the shares of all ranks add up to the operations.
  double collective_share = 0;

  // A node with `dependencies` dependencies; `members` > 0 for a collective node of a
  // communicator of that many members.
  void add(std::uint64_t node_dependencies, std::uint64_t members) {
    ++nodes;
    dependencies += node_dependencies;
    if (members > 0) collective_share += 1.0 / static_cast<double>(members);
  }
};

// Sums the counts of stages whose every rank runs the same program (builders whose iterations
// after the first add the same as the second count one rank of each stage for one and for two
// iterations, and extrapolate).
class StageCounts {
 public:
  explicit StageCounts(std::uint64_t ranks) { total_.ranks = ranks; }
  // `ranks` ranks whose programs add `one` for one iteration and `two` for two.
  void add(const RankCount& one, const RankCount& two, std::uint32_t iterations, std::uint64_t ranks);
  WorkloadCounts total() const;

 private:
  WorkloadCounts total_;
  double collectives_ = 0;
};

}  // namespace loom::workload
