// Rank symmetry in the runtime (RuntimeOptions::symmetry): mirrored ranks' communication nodes
// join their operations with their representative, and after the run every mirrored node takes
// its representative's timing, checked against the ends the operations reported.
#include <fmt/format.h>

#include "loom/system/runtime.h"
#include "loom/system/runtime_state.h"

namespace loom::system {

using workload::NodeId;
using workload::NodeKind;

void Runtime::join_mirrors(NodeId id) {
  const RankSymmetry& symmetry = *options_.symmetry;
  const std::uint32_t rank = streams_[node_state_[id].stream].rank;
  const auto members = symmetry.members(symmetry.class_of(rank));
  const bool collective = static_cast<NodeKind>(node_state_[id].kind) == NodeKind::kCollective;
  for (std::size_t i = 1; i < members.size(); ++i) {
    const NodeId mirror = symmetry.counterpart(id, members[i]);
    result_.nodes[mirror].start = simulator_.now();
    collective ? arrive(mirror) : arrive_point_to_point(mirror);
  }
}

void Runtime::finish_mirror(NodeId id) {
  ++nodes_done_;
  result_.nodes[id].end = simulator_.now();
}

void Runtime::expand_mirrors() {
  if (options_.symmetry == nullptr) return;
  const RankSymmetry& symmetry = *options_.symmetry;
  std::vector<std::uint64_t> split(symmetry.rank_count(), 0);
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
        const NodeId mirror = symmetry.counterpart(original, rank);
        const NodeTiming& theirs = result_.nodes[original];
        NodeTiming& mine = result_.nodes[mirror];
        const bool compute = workload_.node(mirror).kind == NodeKind::kCompute;
        if (!compute && result_.complete && split[rank] == 0 && (mine.end != theirs.end || mine.start != theirs.start)) {
          split[rank] = (std::uint64_t{position} + 1) * 0x9e3779b97f4a7c15ULL ^
                        static_cast<std::uint64_t>(mine.end.picoseconds());
          if (!differs) {
            result_.symmetry_mismatch = fmt::format(
                "rank {}'s '{}' ran [{}, {}] but its representative rank {}'s ran [{}, {}]", rank,
                workload_.label(workload_.node(mirror).label), mine.start, mine.end, rep, theirs.start, theirs.end);
          }
          differs = true;
        }
        mine.start = theirs.start;
        mine.end = theirs.end;
        mine.enabler = theirs.enabler == kNoNode ? kNoNode : symmetry.counterpart(theirs.enabler, rank);
        if (compute) mine.rendezvous = theirs.rendezvous;
      }
    }
  }
  if (differs) result_.symmetry_split = std::move(split);
}

}  // namespace loom::system
