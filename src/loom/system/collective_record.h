// One collective operation as it ran: the parts of all its members matched together.
#pragma once

#include <cstdint>

#include "loom/collective/collective.h"
#include "loom/core/time.h"
#include "loom/core/units.h"
#include "loom/workload/workload.h"

namespace loom::system {

inline constexpr std::uint32_t kNoPlan = 0xffffffffu;

struct CollectiveRecord {
  workload::CommunicatorId communicator = 0;
  std::uint32_t sequence = 0;       // the k-th collective on this communicator
  workload::LabelId label = 0;      // the workload's label of the first member's node
  collective::CollectiveOp op = collective::CollectiveOp::kAllReduce;
  collective::Algorithm algorithm = collective::Algorithm::kRing;
  collective::Protocol protocol = collective::Protocol::kSimple;
  std::uint32_t channels = 1;
  std::uint32_t chunks = 1;
  std::uint32_t members = 0;
  Bytes bytes = 0;                  // nccl-tests size
  Time first_arrival;               // the first member became ready
  Time start;                       // the last member became ready (the rendezvous)
  Time end;                         // the last member finished its part
  std::uint64_t transfers = 0;
  Bytes bytes_moved = 0;            // sum over its transfers
  std::uint32_t plan = kNoPlan;     // the custom plan it ran (RunResult::plan_names), if any

  Time duration() const { return end - start; }
};

}  // namespace loom::system
