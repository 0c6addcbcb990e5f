#include "loom/collective/block_layout.h"

#include <algorithm>

#include <fmt/format.h>

#include "loom/core/error.h"

namespace loom::collective {

std::uint64_t block_count(CollectiveOp op, std::uint32_t n) {
  switch (op) {
    case CollectiveOp::kAllToAll:
    case CollectiveOp::kAllToAllV: return std::uint64_t{n} * n;
    case CollectiveOp::kBroadcast:
    case CollectiveOp::kReduce: return 1;
    case CollectiveOp::kAllReduce:
    case CollectiveOp::kAllGather:
    case CollectiveOp::kReduceScatter:
    case CollectiveOp::kGather:
    case CollectiveOp::kScatter:
    case CollectiveOp::kBarrier: return n;
  }
  LOOM_ASSERT(false, "unknown CollectiveOp value");
  return 0;
}

Bytes slice_bytes(Bytes size, std::uint64_t count, std::uint64_t index) {
  LOOM_ASSERT(index < count, fmt::format("slice {} of {}", index, count));
  return size / count + (index < size % count ? 1 : 0);
}

Bytes block_bytes(const CollectiveSpec& spec, std::uint32_t block) {
  const std::uint32_t n = spec.members;
  const std::uint64_t count = block_count(spec.op, n);
  LOOM_ASSERT(block < count, fmt::format("block {} of {} members", block, n));
  switch (spec.op) {
    case CollectiveOp::kAllToAll: return slice_bytes(spec.size, n, block % n);
    case CollectiveOp::kAllToAllV: return (*spec.pair_bytes)[block];
    case CollectiveOp::kBarrier: return 0;
    default: return slice_bytes(spec.size, count, block);
  }
}

std::uint32_t pieces(const CollectiveSpec& spec) { return spec.channels * spec.chunks; }

Bytes range_bytes(const CollectiveSpec& spec, std::uint32_t block, std::uint32_t blocks, std::uint32_t piece) {
  const std::uint32_t p = pieces(spec);
  const std::uint64_t count = block_count(spec.op, spec.members);
  LOOM_ASSERT(blocks >= 1 && block + std::uint64_t{blocks} <= count && piece < p,
              fmt::format("blocks [{}, {}) piece {} of {} blocks, {} pieces", block, block + blocks, piece, count, p));
  if (spec.op == CollectiveOp::kBarrier) return 0;
  if (spec.op == CollectiveOp::kAllToAll || spec.op == CollectiveOp::kAllToAllV) {
    Bytes total = 0;
    for (std::uint32_t b = block; b < block + blocks; ++b) total += slice_bytes(block_bytes(spec, b), p, piece);
    return total;
  }
  // Blocks below size % count have one byte more than the others.
  const Bytes small = spec.size / count;
  const std::uint64_t big_end = spec.size % count;
  const std::uint64_t big = big_end > block ? std::min<std::uint64_t>(big_end, block + std::uint64_t{blocks}) - block : 0;
  return big * slice_bytes(small + 1, p, piece) + (blocks - big) * slice_bytes(small, p, piece);
}

}  // namespace loom::collective

namespace loom::collective {

void price_transfer(const CollectiveSpec& spec, Transfer& t) {
  t.bytes = range_bytes(spec, t.block, t.blocks, t.piece);
  t.wire_bytes = wire_bytes(t.bytes, t.protocol);
  t.hop_latency = spec.protocol_costs.hop(t.protocol, link_between(spec.layout.get(), t.src, t.dst));
}

}  // namespace loom::collective
