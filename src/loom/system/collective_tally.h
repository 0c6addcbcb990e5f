// Per-entry statistics of a run's collective operations, accumulated as operations end, so that
// a run need not hold a record per operation (RuntimeOptions::keep_collective_records) to report
// them. An entry is every operation sharing a label, communicator group, operation, size and
// member count (report/collective_stats.h); it keeps its number of operations, their shortest,
// longest and summed times, and the record of its earliest operation by (start, communicator,
// sequence), the order RunResult::collectives is sorted in, whose settings the entry reports.
//
// Cost: one hash lookup per operation; memory per entry (a few hundred in a training run).
#pragma once

#include <cstdint>
#include <unordered_map>
#include <vector>

#include "loom/core/time.h"
#include "loom/system/collective_record.h"
#include "loom/workload/workload.h"

namespace loom::system {

class CollectiveTally {
 public:
  struct Entry {
    CollectiveRecord first;  // the earliest operation's record
    std::uint64_t operations = 0;
    Time min_time, max_time;
    __extension__ __int128 total_ps = 0;
  };

  CollectiveTally() = default;
  // For `workload`'s communicators (their groups name entries).
  explicit CollectiveTally(const workload::Workload& workload);

  void add(const CollectiveRecord& record);
  // Entries in the order their first operation ended.
  const std::vector<Entry>& entries() const { return entries_; }
  std::uint64_t operations() const { return operations_; }
  // Whether some operation ran custom plan `plan` (RunResult::plan_names), or the direct
  // algorithm without a plan.
  bool ran_plan(std::uint32_t plan) const { return plan < plans_run_.size() && plans_run_[plan]; }
  bool ran_direct() const { return ran_direct_; }

 private:
  struct Key {
    workload::LabelId label;
    std::uint32_t group;  // index of the communicator's group name
    collective::CollectiveOp op;
    Bytes bytes;
    std::uint32_t members;
    bool operator==(const Key&) const = default;
  };
  struct KeyHash {
    std::size_t operator()(const Key& k) const;
  };
  std::vector<std::uint32_t> group_of_;  // per communicator
  std::unordered_map<Key, std::uint32_t, KeyHash> index_;
  std::vector<Entry> entries_;
  std::vector<bool> plans_run_;
  bool ran_direct_ = false;
  std::uint64_t operations_ = 0;
};

}  // namespace loom::system
