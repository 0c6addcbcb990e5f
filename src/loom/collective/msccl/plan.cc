#include "loom/collective/msccl/plan.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>

#include "loom/core/error.h"

namespace loom::collective::msccl {

std::string_view to_string(BufferKind buffer) {
  switch (buffer) {
    case BufferKind::kInput: return "input";
    case BufferKind::kOutput: return "output";
    case BufferKind::kScratch: return "scratch";
  }
  return "?";
}

std::string_view to_string(ChannelType type) {
  switch (type) {
    case ChannelType::kMemory: return "memory";
    case ChannelType::kPort: return "port";
    case ChannelType::kSwitch: return "switch";
  }
  return "?";
}

std::string_view to_string(PlanFormat format) {
  switch (format) {
    case PlanFormat::kMscclppJson: return "MSCCL++ JSON";
    case PlanFormat::kMscclppLegacyJson: return "MSCCL++ JSON (legacy schema)";
    case PlanFormat::kMscclXml: return "MSCCL XML";
  }
  return "?";
}

std::uint32_t Rank::chunks(BufferKind buffer) const {
  switch (buffer) {
    case BufferKind::kInput: return input_chunks;
    case BufferKind::kOutput: return output_chunks;
    case BufferKind::kScratch: return scratch_chunks;
  }
  return 0;
}

namespace {

void check_range(const Plan& plan, const Op& op, const ChunkRange& range, std::string_view role) {
  if (range.rank >= plan.rank_count()) {
    throw UserError(fmt::format("{}: {} refers to rank {}, but the plan has ranks 0..{}", op.where, role, range.rank,
                                plan.rank_count() - 1));
  }
  const std::uint32_t size = plan.ranks[range.rank].chunks(range.buffer);
  if (range.count == 0 || std::uint64_t{range.index} + range.count > size) {
    throw UserError(fmt::format("{}: {} covers chunks [{}, {}) of the {} buffer of rank {}, which has {} chunks; "
                                "expected a non-empty range inside the buffer",
                                op.where, role, range.index, std::uint64_t{range.index} + range.count,
                                to_string(range.buffer), range.rank, size));
  }
}

void check_peer(const Plan& plan, std::string_view where, std::uint32_t rank, std::uint32_t peer,
                std::string_view role) {
  if (peer >= plan.rank_count() || peer == rank) {
    throw UserError(fmt::format("{}: {} peer {} is out of range; expected a rank of 0..{} other than {}", where,
                                role, peer, plan.rank_count() - 1, rank));
  }
}

void check_op(const Plan& plan, std::uint32_t rank, const Op& op) {
  for (std::size_t i = 0; i < op.srcs.size(); ++i) check_range(plan, op, op.srcs[i], fmt::format("source {}", i));
  for (std::size_t i = 0; i < op.dsts.size(); ++i) {
    check_range(plan, op, op.dsts[i], fmt::format("destination {}", i));
  }
  for (const ChunkRange& range : op.srcs) {
    if (range.count != op.srcs.front().count || (!op.dsts.empty() && range.count != op.dsts.front().count)) {
      throw UserError(fmt::format("{}: its chunk ranges have different sizes; expected every source and "
                                  "destination to cover the same number of chunks",
                                  op.where));
    }
  }
  for (const ChunkRange& range : op.dsts) {
    if (range.count != op.dsts.front().count) {
      throw UserError(fmt::format("{}: its destinations have different sizes; expected equal chunk counts", op.where));
    }
  }
  for (const Connection& c : op.connections) check_peer(plan, op.where, rank, c.peer, "channel");
  if (op.kind == OpKind::kData) {
    if (op.srcs.empty() || op.dsts.empty()) {
      throw UserError(fmt::format("{}: a data op needs at least one source and one destination", op.where));
    }
    if (op.reduce && op.dsts.front().rank != rank) {
      throw UserError(fmt::format("{}: the reduction result (destination 0) is on rank {}; expected the op's own "
                                  "rank {}",
                                  op.where, op.dsts.front().rank, rank));
    }
    if (!op.reduce && op.srcs.size() != op.dsts.size() && op.srcs.size() != 1) {
      throw UserError(fmt::format("{}: {} sources for {} destinations; expected one source, or one per destination",
                                  op.where, op.srcs.size(), op.dsts.size()));
    }
    for (const ChunkRange& src : op.srcs) {
      for (const ChunkRange& dst : op.dsts) {
        if (src.rank != rank && dst.rank != rank && !op.reduce) {
          throw UserError(fmt::format("{}: copies between two other ranks ({} -> {}); expected one side on rank {}",
                                      op.where, src.rank, dst.rank, rank));
        }
      }
    }
  }
}

}  // namespace

void validate_plan(const Plan& plan) {
  if (plan.ranks.empty()) throw UserError(fmt::format("{}: the plan has no ranks; expected at least one", plan.source));
  for (std::uint32_t r = 0; r < plan.rank_count(); ++r) {
    const Rank& rank = plan.ranks[r];
    if (rank.id != r) {
      throw UserError(fmt::format("{}: rank #{} has id {}; expected ids 0..{} in order", plan.source, r, rank.id,
                                  plan.rank_count() - 1));
    }
    for (BufferKind buffer : {BufferKind::kInput, BufferKind::kOutput, BufferKind::kScratch}) {
      if (rank.chunks(buffer) > kMaxBufferChunks) {
        throw UserError(fmt::format("{}: rank {} has {} {} chunks; expected at most {}", plan.source, r,
                                    rank.chunks(buffer), to_string(buffer), kMaxBufferChunks));
      }
    }
    for (const ThreadBlock& tb : rank.thread_blocks) {
      if (tb.send_peer) check_peer(plan, tb.where, r, *tb.send_peer, "send");
      if (tb.recv_peer) check_peer(plan, tb.where, r, *tb.recv_peer, "receive");
      for (const Op& op : tb.ops) check_op(plan, r, op);
    }
  }
}

Protocol parse_plan_protocol(std::string_view text, std::string_view where) {
  std::string lower;
  for (char c : text) lower += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (lower == "simple") return Protocol::kSimple;
  if (lower == "ll") return Protocol::kLL;
  if (lower == "ll128") return Protocol::kLL128;
  throw UserError(fmt::format("{}: unknown protocol '{}'; expected Simple, LL or LL128", where, text));
}

std::optional<CollectiveOp> plan_operation(const Plan& plan) {
  std::string key;
  for (char c : plan.collective) {
    if (c != '-' && c != '_' && c != ' ') key += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  for (CollectiveOp op : all_collective_ops()) {
    std::string name;
    for (char c : to_string(op)) {
      if (c != '-') name += c;
    }
    if (name == key) return op;
  }
  return std::nullopt;
}

std::uint32_t reference_chunks(const Plan& plan) {
  if (plan.ranks.empty()) return 0;
  const Rank& first = plan.ranks.front();
  const std::optional<CollectiveOp> op = plan_operation(plan);
  const bool output = op == CollectiveOp::kAllGather || op == CollectiveOp::kGather;
  const std::uint32_t preferred = output ? first.output_chunks : first.input_chunks;
  return preferred != 0 ? preferred : (output ? first.input_chunks : first.output_chunks);
}

Bytes chunk_bytes(Bytes size, std::uint32_t reference, std::uint32_t index, std::uint32_t count) {
  const Bytes extra = size % reference;
  // Chunks k < end with k % reference < extra.
  auto long_chunks = [&](std::uint64_t end) { return (end / reference) * extra + std::min<Bytes>(end % reference, extra); };
  return (size / reference) * count + long_chunks(std::uint64_t{index} + count) - long_chunks(index);
}

}  // namespace loom::collective::msccl
