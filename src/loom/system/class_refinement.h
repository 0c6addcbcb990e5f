// Rank classes refined before a run (RuntimeOptions::symmetry with closed-form timing), so
// that a reduced run needs no repeated runs to find the ranks that differ.
//
// RankSymmetry::find puts ranks with the same program in one class. In a run, two ranks of a
// class keep the same timeline as long as, position by position, each communication node of
// theirs starts and ends at the same time. In analytical mode with closed-form timing that is
// decided before the run:
// - a collective operation starts when its last member arrives, and ends each member a fixed
//   offset later (its closed-form timing, by member index);
// - a send and its receive start their transfer when both have arrived, and both end the
//   transfer's time (alone on the fabric: analytical mode shares no link between operations)
//   later; with eager sends (workload::PointToPoint) the send ends that time after its own
//   arrival and the receive at the later of its own arrival and the send's end, which the
//   same key decides.
// So a partition of the ranks holds if, for every two ranks of a class and every communication
// node position, the operations there have members of the same (class, program position)
// multiset (their arrivals are the same times, by induction over time) and the two ranks' own
// end offsets are equal; a point-to-point node's partner is of the same class at the same
// position and its transfer takes the same time. refine_classes() splits the classes by that
// key until it no longer splits any (a fixed point, at most one round per class); each
// distinct operation is timed once (the runtime memoises replays, which the run then reuses).
// The run still checks every mirrored rank's ends against its representative's, so a wrong
// class could only cost a repeated run, never a wrong output.
//
// Matching follows program order: a rank's k-th collective node on a communicator is its part
// of the communicator's operation k (whose flow hashes, hence routes over several shortest
// paths, are those of sequence k), its k-th send on (source, destination, tag) meets the
// destination's k-th receive there. Declined (`declined` says why; the run refines by runs
// instead) when an operation cannot be timed apart (PartTimes::operation gives null) or the
// members' calls do not pair up (the run reports it).
//
// Cost: per round O(communication nodes) time; memory 24 bytes per communication node and
// 8 bytes per collective member while refining, 16 bytes per member of each distinct timing
// (every operation whose routes depend on flow hashes has its own), plus the RankSymmetry
// result.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "loom/system/collective_replay.h"
#include "loom/system/rank_symmetry.h"
#include "loom/workload/workload.h"

namespace loom::system {

// What the refinement asks of the runtime: the closed-form timing of collective operation
// `sequence` on a communicator, whose member `node` is (its operation, size and algorithm;
// null when the operation cannot be timed apart), and the time of a send's transfer alone on
// the fabric.
struct PartTimes {
  std::function<std::shared_ptr<const OperationTiming>(workload::CommunicatorId, std::uint32_t sequence,
                                                       workload::NodeId node)>
      operation;
  std::function<Time(workload::NodeId send)> transfer;
};

struct RefinedClasses {
  std::optional<RankSymmetry> classes;  // the fixed point; unset when declined
  std::uint32_t rounds = 0;             // rounds that split some class
  std::string declined;                 // why there was no refinement
};

RefinedClasses refine_classes(const workload::Workload& workload, const RankSymmetry& found, const PartTimes& times);

}  // namespace loom::system
