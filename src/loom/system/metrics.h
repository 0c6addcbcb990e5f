// Metrics derived from a run: per-rank time accounting, per-iteration times and the critical path.
//
// For each rank, over [0, finish]:
//   compute      time its compute stream was busy (union of compute node intervals)
//   comm[k]      union of the intervals during which a communication operation of kind k ran on
//                the rank; an operation runs from its rendezvous (the last participant's arrival)
//                to its end on this rank; k is the communicator's kind, or p2p for send/recv
//   exposed[k]   the part of comm[k] not covered by compute (Arcadia's exposed network time)
//   sync_wait    time communication nodes spent waiting for their peers to arrive
//   idle         makespan − |compute ∪ comm|: neither computing nor communicating before the
//                run's end (pipeline bubbles, waiting for peers, finishing early)
// Iteration i ends when the last node of iteration i ends on any rank; its time is the gap from
// the previous iteration's end (from zero for the first).
//
// Critical path: from the node that finished last (lowest id on ties), repeatedly step to what
// made the current node start when it did: its rendezvous partner's start for communication
// (the operation could not begin before the last participant arrived), then that node's enabler
// (the dependency that completed last, or its stream predecessor). The segments are contiguous in
// time and cover [0, makespan]. O(nodes).
#pragma once

#include <array>
#include <vector>

#include "loom/system/run_result.h"

namespace loom::system {

// Communicator kinds plus one for point-to-point operations.
inline constexpr std::size_t kCommKinds = 9;
inline constexpr std::size_t kPointToPointKind = 8;
std::string_view comm_kind_name(std::size_t kind);

struct RankMetrics {
  Time finish;
  Time compute;
  std::array<Time, kCommKinds> comm{};
  std::array<Time, kCommKinds> exposed{};
  Time comm_total;     // |union of all communication|
  Time exposed_total;  // |communication ∪ ... minus compute|
  Time sync_wait;
  Time idle;
};

struct CriticalSegment {
  workload::NodeId node = 0;
  Time start;
  Time end;
};

struct Metrics {
  std::vector<RankMetrics> ranks;
  std::vector<Time> iteration_times;
  std::vector<CriticalSegment> critical_path;  // in time order
  Time critical_compute;                       // time on the path spent computing
  std::array<Time, kCommKinds> critical_comm{};  // ... communicating, per kind
};

// Per-rank intervals are held for a batch of ranks at a time, of at most `batch_intervals`
// intervals where the workload lays ranks out one after another (16 bytes each); the metrics do
// not depend on it.
inline constexpr std::size_t kMetricsBatchIntervals = std::size_t{1} << 22;
Metrics compute_metrics(const workload::Workload& workload, const RunResult& result,
                        std::size_t batch_intervals = kMetricsBatchIntervals);

// The comm kind index of a communication node (its communicator's kind, or p2p).
std::size_t comm_kind_of(const workload::Workload& workload, const workload::Node& node);

}  // namespace loom::system
