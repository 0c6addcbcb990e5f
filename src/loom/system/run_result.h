// What one simulated run of a workload produced: per-collective records and totals.
#pragma once

#include <cstdint>
#include <vector>

#include "loom/collective/collective.h"
#include "loom/core/time.h"
#include "loom/core/units.h"
#include "loom/workload/workload.h"

namespace loom::system {

// One collective instance: the parts of all its members matched together.
struct CollectiveRecord {
  workload::CommunicatorId communicator = 0;
  std::uint32_t sequence = 0;       // the k-th collective on this communicator
  workload::LabelId label = 0;      // the workload's label of the first member's node
  collective::CollectiveOp op = collective::CollectiveOp::kAllReduce;
  collective::Algorithm algorithm = collective::Algorithm::kRing;
  std::uint32_t members = 0;
  Bytes bytes = 0;                  // nccl-tests size
  Time first_arrival;               // the first member became ready
  Time start;                       // the last member became ready (the rendezvous)
  Time end;                         // the last member finished its part
  std::uint64_t transfers = 0;
  Bytes bytes_moved = 0;            // sum over its transfers

  Time duration() const { return end - start; }
};

struct RunResult {
  Time makespan;                          // when the last node of any rank finished
  std::vector<Time> rank_finish;          // per rank
  std::vector<CollectiveRecord> collectives;  // ordered by (start, communicator, sequence)
  std::uint64_t transfers = 0;
  Bytes bytes_moved = 0;
  std::uint64_t events = 0;               // simulator events processed
};

}  // namespace loom::system
