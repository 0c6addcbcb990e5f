#include "loom/collective/collective.h"

#include <array>
#include <string>

#include <fmt/format.h>

#include "loom/collective/direct_execution.h"
#include "loom/collective/ring_execution.h"
#include "loom/core/error.h"

namespace loom::collective {

namespace {

constexpr std::array kOps = {CollectiveOp::kAllReduce, CollectiveOp::kAllGather,
                             CollectiveOp::kReduceScatter, CollectiveOp::kAllToAll};
constexpr std::array kAlgorithms = {Algorithm::kRing, Algorithm::kDirect};

// All-to-all block ids are src * n + dst in 32 bits: n * n <= 2^32.
constexpr std::uint32_t kMaxAllToAllMembers = 65536;

// Finds `text` among the names of `values`, or throws naming `what` and every valid name.
template <typename T, std::size_t N>
T parse_name(std::string_view text, const std::array<T, N>& values, std::string_view what) {
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
  }
  LOOM_ASSERT(false, "unknown CollectiveOp value");
  return {};
}

std::string_view to_string(Algorithm algorithm) {
  switch (algorithm) {
    case Algorithm::kRing: return "ring";
    case Algorithm::kDirect: return "direct";
  }
  LOOM_ASSERT(false, "unknown Algorithm value");
  return {};
}

CollectiveOp parse_collective_op(std::string_view text) {
  return parse_name(text, kOps, "collective operation");
}

Algorithm parse_algorithm(std::string_view text) {
  return parse_name(text, kAlgorithms, "collective algorithm");
}

double bus_bandwidth_factor(CollectiveOp op, std::uint32_t n) {
  if (n == 0) {
    throw UserError("bus bandwidth factor: members is 0; expected at least 1 member");
  }
  const double per_peer = static_cast<double>(n - 1) / static_cast<double>(n);
  return op == CollectiveOp::kAllReduce ? 2.0 * per_peer : per_peer;
}

void validate(const CollectiveSpec& spec) {
  if (spec.members == 0) {
    throw UserError(fmt::format("{}: members is 0; expected at least 1 member", to_string(spec.op)));
  }
  if (spec.window == 0) {
    throw UserError(fmt::format("{}: window is 0; expected at least 1 peer outstanding per member",
                                to_string(spec.op)));
  }
  if (spec.op == CollectiveOp::kAllToAll && spec.members > kMaxAllToAllMembers) {
    throw UserError(fmt::format("all-to-all: members is {}; expected at most {} (block ids are 32-bit)",
                                spec.members, kMaxAllToAllMembers));
  }
}

std::uint64_t block_count(CollectiveOp op, std::uint32_t n) {
  return op == CollectiveOp::kAllToAll ? std::uint64_t{n} * n : std::uint64_t{n};
}

Bytes slice_bytes(Bytes size, std::uint32_t n, std::uint32_t index) {
  LOOM_ASSERT(index < n, fmt::format("slice {} of {}", index, n));
  return size / n + (index < size % n ? 1 : 0);
}

Bytes block_bytes(const CollectiveSpec& spec, std::uint32_t block) {
  const std::uint32_t n = spec.members;
  LOOM_ASSERT(block < block_count(spec.op, n), fmt::format("block {} of {} members", block, n));
  return slice_bytes(spec.size, n, spec.op == CollectiveOp::kAllToAll ? block % n : block);
}

std::unique_ptr<Execution> make_execution(Algorithm algorithm, const CollectiveSpec& spec) {
  validate(spec);
  switch (algorithm) {
    case Algorithm::kRing: return std::make_unique<RingExecution>(spec);
    case Algorithm::kDirect: return std::make_unique<DirectExecution>(spec);
  }
  LOOM_ASSERT(false, "unknown Algorithm value");
  return nullptr;
}

}  // namespace loom::collective
