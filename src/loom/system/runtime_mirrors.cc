// Rank symmetry in the runtime (RuntimeOptions::symmetry): mirrored ranks' communication nodes
// join their operations with their representative, and after the run every mirrored
// communication node takes its representative's timing, checked against the ends the operations
// reported (mirrored compute nodes read as their representative's, node_timings.h).
#include <algorithm>

#include <fmt/format.h>

#include "loom/core/error.h"
#include "loom/system/runtime.h"
#include "loom/system/runtime_state.h"

namespace loom::system {

using workload::NodeId;
using workload::NodeKind;

// The mirrored nodes at `id`'s program position join now, in rank order, but for collective
// nodes of skipped communicators: no run operation waits for them (runtime_twins.cc).
void Runtime::join_mirrors(NodeId id) {
  const RankSymmetry& symmetry = *options_.symmetry;
  const bool collective = static_cast<NodeKind>(node_state_[id].kind) == NodeKind::kCollective;
  const std::uint32_t rank = rank_of(id);
  const auto members = symmetry.members(symmetry.class_of(rank));
  for (std::size_t i = 1; i < members.size(); ++i) {
    const NodeId mirror = symmetry.counterpart(id, rank, members[i]);
    if (collective && twins_ && twins_->skips(mirror)) continue;
    result_.nodes.held(mirror).start = simulator_.now();
    collective ? arrive(mirror) : arrive_point_to_point(mirror);
  }
}

void Runtime::finish_mirror(NodeId id) {
  ++nodes_done_;
  result_.nodes.held(id).end = simulator_.now();
  part_done_[id] = true;
  const NodeId original = options_.symmetry->image(id, rank_of(id));
  if (part_done_[original] && result_.nodes[original].end != simulator_.now()) stop_on_mismatch();
}

void Runtime::part_done(NodeId id) {
  if (options_.symmetry == nullptr) return;
  part_done_[id] = true;
  result_.nodes.held(id).end = simulator_.now();  // node_done() records the same when it runs
  const RankSymmetry& symmetry = *options_.symmetry;
  const std::uint32_t rank = rank_of(id);
  const auto members = symmetry.members(symmetry.class_of(rank));
  for (std::size_t i = 1; i < members.size(); ++i) {
    const NodeId mirror = symmetry.counterpart(id, rank, members[i]);
    if (part_done_[mirror] && result_.nodes[mirror].end != simulator_.now()) stop_on_mismatch();
  }
}

// Once a mirrored rank has left its representative's timeline, the rest of the run would be
// wrong: the run stops when the operation that showed it ends (apply(), on_transfer_complete),
// so that every member that differs there is seen, and expand_mirrors() says where.
void Runtime::stop_on_mismatch() { symmetry_broken_ = true; }

void Runtime::expand_mirrors() {
  if (options_.symmetry == nullptr) return;
  const RankSymmetry& symmetry = *options_.symmetry;
  // Skipped operations that would have ended at other times (runtime_twins.cc) come first.
  std::vector<std::uint64_t> split = twin_split_;
  const bool twins_differ = std::any_of(split.begin(), split.end(), [](std::uint64_t key) { return key != 0; });
  bool differs = false;
  for (std::uint32_t c = 0; c < symmetry.class_count(); ++c) {
    const auto members = symmetry.members(c);
    const std::uint32_t rep = members[0];
    const auto program = symmetry.program(rep);
    for (std::size_t i = 1; i < members.size(); ++i) {
      const std::uint32_t rank = members[i];
      result_.rank_finish[rank] = result_.rank_finish[rep];
      for (std::size_t position = 0; position < program.size(); ++position) {
        const NodeId original = program[position];
        // Compute nodes of mirrored ranks are not held: they read as their representative's.
        if (static_cast<NodeKind>(node_state_[original].kind) == NodeKind::kCompute) continue;
        const NodeId mirror = symmetry.counterpart(original, rep, rank);
        const NodeTiming theirs = result_.nodes[original];
        NodeTiming& mine = result_.nodes.held(mirror);
        const bool both_done = part_done_[mirror] && part_done_[original];
        if (both_done && split[rank] == 0 && (mine.end != theirs.end || mine.start != theirs.start)) {
          split[rank] = (std::uint64_t{position} + 1) * 0x9e3779b97f4a7c15ULL ^
                        static_cast<std::uint64_t>(mine.end.picoseconds());
          if (result_.symmetry_mismatch.empty()) {
            result_.symmetry_mismatch = fmt::format(
                "rank {}'s '{}' ran [{}, {}] but its representative rank {}'s ran [{}, {}]", rank,
                workload_.label(workload_.node(mirror).label), mine.start, mine.end, rep, theirs.start, theirs.end);
          }
          differs = true;
        }
        mine.start = theirs.start;
        mine.end = theirs.end;
        mine.enabler = theirs.enabler == kNoNode ? kNoNode : symmetry.counterpart(theirs.enabler, rep, rank);
      }
    }
  }
  differs = differs || twins_differ;
  LOOM_ASSERT(differs == symmetry_broken_, "a mismatch of mirrored ranks was seen in the run but not after it");
  if (differs) result_.symmetry_split = std::move(split);
}

}  // namespace loom::system
