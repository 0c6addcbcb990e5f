// Microbenchmark workloads: a list of collectives on named rank groups, each with a size and a
// repeat count, like SimAI's micro-all-reduce files and nccl-tests runs.
//
// A group partitions (some of) the ranks into communicators that run the collective at the same
// time: `all` is one communicator of every rank; `block K` splits ranks into consecutive blocks of
// K (tensor-parallel style: {0..K-1}, {K..2K-1}, ...); `stride K` makes K communicators of the
// ranks equal modulo K (data-parallel style across blocks); `explicit` is one communicator of the
// listed ranks. Every rank runs its collectives one after another in list order, each entry
// `repeat` times before the next; ranks outside a group's communicators skip that entry.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "loom/workload/workload.h"
#include "loom/workload/workload_counts.h"

namespace loom::workload {

struct GroupSpec {
  enum class Shape { kAll, kBlock, kStride, kExplicit };
  std::string name;
  Shape shape = Shape::kAll;
  std::uint32_t k = 0;              // kBlock / kStride
  std::vector<std::uint32_t> ranks; // kExplicit
};

struct CollectiveEntry {
  collective::CollectiveOp op = collective::CollectiveOp::kAllReduce;
  std::string group;               // a GroupSpec name, or "world" (always defined: all ranks)
  Bytes size = 0;                  // nccl-tests meaning, see collective.h
  std::uint32_t repeat = 1;
  std::optional<collective::Algorithm> algorithm;
};

struct MicrobenchmarkSpec {
  std::vector<GroupSpec> groups;
  std::vector<CollectiveEntry> collectives;
};

// Builds the per-rank DAG. UserError on an unknown group name, a block/stride that does not
// divide the rank count, explicit ranks out of range, a zero size or repeat.
Workload make_microbenchmark(const MicrobenchmarkSpec& spec, std::uint32_t rank_count);
// The nodes and dependencies make_microbenchmark would build (dependencies within the rank
// count), without building them; the same
// UserErrors for an unknown group or a group that does not fit the ranks. O(ranks x groups).
WorkloadCounts count_microbenchmark(const MicrobenchmarkSpec& spec, std::uint32_t rank_count);

// The communicators a group shape makes over `rank_count` ranks (names "<group>.<i>", or just
// "<group>" when there is one). Exposed for tests and for `loom` to describe a run.
std::vector<Communicator> make_group(const GroupSpec& group, std::uint32_t rank_count);

}  // namespace loom::workload
