#include "loom/collective/msccl/describe.h"

#include <fmt/format.h>

#include <map>

#include "loom/collective/msccl/program.h"

namespace loom::collective::msccl {

std::string describe(const Plan& plan, Bytes size) {
  const Program program(plan);
  const std::optional<CollectiveOp> op = plan_operation(plan);
  const std::uint32_t reference = reference_chunks(plan);
  std::string out = fmt::format("plan '{}' ({}) from {}\n", plan.name, to_string(plan.format), plan.source);
  out += fmt::format("  collective: {} ({}), protocol {}, {}\n", plan.collective,
                     op ? std::string(to_string(*op)) : std::string("no Loom operation of that name"),
                     to_string(plan.protocol), plan.inplace ? "in-place" : "out-of-place");
  std::size_t thread_blocks = 0;
  std::size_t ops = 0;
  std::map<std::string, std::size_t> by_kind;
  for (const Rank& rank : plan.ranks) {
    thread_blocks += rank.thread_blocks.size();
    for (const ThreadBlock& tb : rank.thread_blocks) {
      ops += tb.ops.size();
      for (const Op& o : tb.ops) ++by_kind[o.name];
    }
  }
  out += fmt::format("  ranks: {}, thread blocks: {}, ops: {}\n", plan.rank_count(), thread_blocks, ops);
  std::string kinds;
  for (const auto& [name, count] : by_kind) kinds += fmt::format("{}{} {}", kinds.empty() ? "" : ", ", name, count);
  out += fmt::format("  ops by kind: {}\n", kinds.empty() ? "none" : kinds);
  if (reference > 0) {
    out += fmt::format("  chunk: {} of {} chunks at size {}\n", format_size(chunk_bytes(size, reference, 0, 1)),
                       reference, format_size(size));
  }
  struct Traffic {
    std::uint64_t sends = 0, receives = 0, signals = 0, local = 0;
    Bytes sent = 0, received = 0;
  };
  std::vector<Traffic> traffic(plan.rank_count());
  for (std::uint32_t id = 0; id < program.size(); ++id) {
    const Node& n = program.node(id);
    if (n.kind == NodeKind::kLocal) {
      ++traffic[n.rank].local;
    } else if (n.kind == NodeKind::kSignal) {
      ++traffic[n.src].signals;
    } else {
      const Bytes bytes = reference > 0 ? chunk_bytes(size, reference, n.chunk_index, n.chunks) : 0;
      ++traffic[n.src].sends;
      ++traffic[n.dst].receives;
      traffic[n.src].sent += bytes;
      traffic[n.dst].received += bytes;
    }
  }
  for (std::uint32_t r = 0; r < plan.rank_count(); ++r) {
    const Rank& rank = plan.ranks[r];
    const Traffic& t = traffic[r];
    out += fmt::format("  rank {}: {} thread blocks, chunks in/out/scratch {}/{}/{}; sends {} transfers ({}), "
                       "receives {} ({}), {} signals, {} local steps\n",
                       r, rank.thread_blocks.size(), rank.input_chunks, rank.output_chunks, rank.scratch_chunks,
                       t.sends, format_size(t.sent), t.receives, format_size(t.received), t.signals, t.local);
  }
  return out;
}

}  // namespace loom::collective::msccl
