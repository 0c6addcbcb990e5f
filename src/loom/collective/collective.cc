#include "loom/collective/collective.h"

#include <algorithm>
#include <string>

#include <fmt/format.h>

#include "loom/collective/direct_execution.h"
#include "loom/collective/halving_doubling_schedule.h"
#include "loom/collective/hierarchical_schedule.h"
#include "loom/collective/in_switch_execution.h"
#include "loom/collective/ring_schedule.h"
#include "loom/collective/step_execution.h"
#include "loom/collective/tree_schedule.h"
#include "loom/core/error.h"

namespace loom::collective {

namespace {

// All-to-all block ids are src * n + dst in 32 bits: n * n <= 2^32.
constexpr std::uint32_t kMaxAllToAllMembers = 65536;
// Pieces are numbered in 32 bits and tracked per block by the semantics checker.
constexpr std::uint64_t kMaxPieces = 65536;

// Finds `text` among the names of `values`, or throws naming `what` and every valid name.
template <typename T>
T parse_name(std::string_view text, const std::vector<T>& values, std::string_view what) {
  std::string valid;
  for (const T value : values) {
    if (to_string(value) == text) return value;
    valid += valid.empty() ? "" : ", ";
    valid += to_string(value);
  }
  throw UserError(fmt::format("unknown {} '{}'; expected one of: {}", what, text, valid));
}

}  // namespace

std::string_view to_string(CollectiveOp op) {
  switch (op) {
    case CollectiveOp::kAllReduce: return "all-reduce";
    case CollectiveOp::kAllGather: return "all-gather";
    case CollectiveOp::kReduceScatter: return "reduce-scatter";
    case CollectiveOp::kAllToAll: return "all-to-all";
    case CollectiveOp::kAllToAllV: return "all-to-all-v";
    case CollectiveOp::kBroadcast: return "broadcast";
    case CollectiveOp::kReduce: return "reduce";
    case CollectiveOp::kGather: return "gather";
    case CollectiveOp::kScatter: return "scatter";
    case CollectiveOp::kBarrier: return "barrier";
  }
  LOOM_ASSERT(false, "unknown CollectiveOp value");
  return {};
}

std::string_view to_string(Algorithm algorithm) {
  switch (algorithm) {
    case Algorithm::kRing: return "ring";
    case Algorithm::kDirect: return "direct";
    case Algorithm::kTree: return "tree";
    case Algorithm::kHalvingDoubling: return "halving-doubling";
    case Algorithm::kHierarchical: return "hierarchical";
    case Algorithm::kNvls: return "nvls";
    case Algorithm::kNvlsTree: return "nvls-tree";
    case Algorithm::kInNetwork: return "in-network";
  }
  LOOM_ASSERT(false, "unknown Algorithm value");
  return {};
}

const std::vector<CollectiveOp>& all_collective_ops() {
  static const std::vector<CollectiveOp> kAll = {
      CollectiveOp::kAllReduce, CollectiveOp::kAllGather, CollectiveOp::kReduceScatter, CollectiveOp::kAllToAll,
      CollectiveOp::kAllToAllV, CollectiveOp::kBroadcast, CollectiveOp::kReduce,        CollectiveOp::kGather,
      CollectiveOp::kScatter,   CollectiveOp::kBarrier};
  return kAll;
}

const std::vector<Algorithm>& all_algorithms() {
  static const std::vector<Algorithm> kAll = {Algorithm::kRing, Algorithm::kDirect, Algorithm::kTree,
                                              Algorithm::kHalvingDoubling, Algorithm::kHierarchical,
                                              Algorithm::kNvls, Algorithm::kNvlsTree, Algorithm::kInNetwork};
  return kAll;
}

CollectiveOp parse_collective_op(std::string_view text) {
  return parse_name(text, all_collective_ops(), "collective operation");
}

Algorithm parse_algorithm(std::string_view text) { return parse_name(text, all_algorithms(), "collective algorithm"); }

bool supports(Algorithm algorithm, CollectiveOp op) {
  const bool all_reduce_like = op == CollectiveOp::kAllReduce || op == CollectiveOp::kBarrier;
  switch (algorithm) {
    case Algorithm::kDirect: return true;
    case Algorithm::kRing:
      return all_reduce_like || op == CollectiveOp::kAllGather || op == CollectiveOp::kReduceScatter ||
             op == CollectiveOp::kAllToAll || op == CollectiveOp::kBroadcast || op == CollectiveOp::kReduce;
    case Algorithm::kHalvingDoubling:
      return all_reduce_like || op == CollectiveOp::kAllGather || op == CollectiveOp::kReduceScatter;
    case Algorithm::kTree:
    case Algorithm::kHierarchical:
    case Algorithm::kNvls:
    case Algorithm::kNvlsTree:
    case Algorithm::kInNetwork: return all_reduce_like;
  }
  LOOM_ASSERT(false, "unknown Algorithm value");
  return false;
}

bool spans_hosts(const CollectiveSpec& spec) {
  if (!spec.layout) return false;
  return std::any_of(spec.layout->host.begin(), spec.layout->host.end(),
                     [&spec](std::uint32_t h) { return h != spec.layout->host.front(); });
}

bool uses_switches(Algorithm algorithm) {
  return algorithm == Algorithm::kNvls || algorithm == Algorithm::kNvlsTree || algorithm == Algorithm::kInNetwork;
}

std::uint32_t switch_count(Algorithm algorithm, const CollectiveSpec& spec) {
  switch (algorithm) {
    case Algorithm::kNvls:
    case Algorithm::kNvlsTree:
      return spec.layout && spec.members > 0
                 ? *std::max_element(spec.layout->host.begin(), spec.layout->host.end()) + 1
                 : 1;
    case Algorithm::kInNetwork: return spec.switch_tree ? spec.switch_tree->switches() : 0;
    default: return 0;
  }
}

double bus_bandwidth_factor(CollectiveOp op, std::uint32_t n) {
  if (n == 0) {
    throw UserError("bus bandwidth factor: members is 0; expected at least 1 member");
  }
  const double per_peer = static_cast<double>(n - 1) / static_cast<double>(n);
  switch (op) {
    case CollectiveOp::kAllReduce: return 2.0 * per_peer;
    case CollectiveOp::kBroadcast:
    case CollectiveOp::kReduce: return n == 1 ? 0.0 : 1.0;
    case CollectiveOp::kBarrier: return 0.0;
    default: return per_peer;
  }
}

void validate(const CollectiveSpec& spec) {
  const std::string_view op = to_string(spec.op);
  const auto fail = [op](std::string_view message) { throw UserError(fmt::format("{}: {}", op, message)); };
  if (spec.members == 0) fail("members is 0; expected at least 1 member");
  if (spec.window == 0) fail("window is 0; expected at least 1 transfer outstanding per member");
  if (spec.channels == 0) fail("channels is 0; expected at least 1");
  if (spec.chunks == 0) fail("chunks is 0; expected at least 1");
  if (std::uint64_t{spec.channels} * spec.chunks > kMaxPieces) {
    fail(fmt::format("channels x chunks is {} x {}; expected at most {} pieces per block", spec.channels,
                     spec.chunks, kMaxPieces));
  }
  if (spec.root >= spec.members) {
    fail(fmt::format("root is member {}; expected a member index below {}", spec.root, spec.members));
  }
  if ((spec.op == CollectiveOp::kAllToAll || spec.op == CollectiveOp::kAllToAllV) &&
      spec.members > kMaxAllToAllMembers) {
    fail(fmt::format("members is {}; expected at most {} (block ids are 32-bit)", spec.members,
                     kMaxAllToAllMembers));
  }
  if (spec.op == CollectiveOp::kAllToAllV) {
    const std::uint64_t want = std::uint64_t{spec.members} * spec.members;
    if (!spec.pair_bytes || spec.pair_bytes->size() != want) {
      fail(fmt::format("pair_bytes has {} entries; expected members x members = {}",
                       spec.pair_bytes ? spec.pair_bytes->size() : 0, want));
    }
  }
  if (spec.layout) check_layout(*spec.layout, spec.members);
  if (spec.switch_tree) check_switch_tree(*spec.switch_tree, spec.members);
}

std::unique_ptr<Execution> make_execution(Algorithm algorithm, const CollectiveSpec& spec) {
  validate(spec);
  if (!supports(algorithm, spec.op)) {
    std::string able;
    for (const Algorithm a : all_algorithms()) {
      if (!supports(a, spec.op)) continue;
      able += able.empty() ? "" : ", ";
      able += to_string(a);
    }
    throw UserError(fmt::format("the {} algorithm does not implement {}; algorithms that do: {}",
                                to_string(algorithm), to_string(spec.op), able));
  }
  switch (algorithm) {
    case Algorithm::kDirect: return std::make_unique<DirectExecution>(spec);
    case Algorithm::kRing: return std::make_unique<StepExecution>(spec, std::make_unique<RingSchedule>(spec));
    case Algorithm::kTree:
      // Across hosts NCCL chains each host's GPUs below the inter-host tree (reduction_tree.h).
      {
        CollectiveSpec tree = spec;  // hops at the tree's latencies (protocol.h)
        tree.protocol_costs = spec.protocol_costs.for_tree();
        if (spans_hosts(tree)) return std::make_unique<InSwitchExecution>(algorithm, tree);
        return std::make_unique<StepExecution>(tree, std::make_unique<TreeSchedule>(tree));
      }
    case Algorithm::kHalvingDoubling:
      return std::make_unique<StepExecution>(spec, std::make_unique<HalvingDoublingSchedule>(spec));
    case Algorithm::kHierarchical:
      return std::make_unique<StepExecution>(spec, std::make_unique<HierarchicalSchedule>(spec));
    case Algorithm::kNvls:
    case Algorithm::kNvlsTree:
    case Algorithm::kInNetwork: return std::make_unique<InSwitchExecution>(algorithm, spec);
  }
  LOOM_ASSERT(false, "unknown Algorithm value");
  return nullptr;
}

}  // namespace loom::collective
