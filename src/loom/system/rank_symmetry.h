// Rank symmetry: ranks whose programs are identical up to rank ids (all DP replicas of a
// pipeline stage, ...), so that a run need only step one representative per class.
//
// Two ranks are in one class when they hold the same number of nodes and, position by position
// in program order (node id order within the rank), the nodes agree in everything that decides
// their timing: kind, operation, algorithm, compute kind, stream, bytes, flops, duration,
// iteration, layer, micro-batch, element type, and their dependencies (by position). Which
// communicator, peer, tag and label a node has may differ: the members of every collective and
// every point-to-point transfer still run on the network (Runtime, `mirror` nodes), only the
// other ranks' own nodes are not stepped. A class's representative is its lowest rank.
//
// A workload with a dependency between nodes of different ranks has no reduction (`declined`
// says so): a mirrored rank's nodes never complete as events, so nothing may wait on them.
//
// With shared programs (workload/shared_programs.h), ranks whose blocks are the same programs in
// the same order are in one class without comparing their nodes: only the first of each such
// group is hashed and compared.
//
// Cost: O(nodes) time (a hash per rank, then a comparison with a candidate representative;
// with shared programs per rank of distinct blocks, and O(nodes) array work otherwise); memory
// O(ranks) when each rank's nodes are one id range (rank_programs.h), 8 bytes per node
// otherwise, and 4 more per node while finding. A refinement shares the programs: O(ranks).
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "loom/system/rank_programs.h"
#include "loom/workload/workload.h"

namespace loom::system {

class RankSymmetry {
 public:
  // Finds the classes of `workload`'s ranks. O(nodes).
  static RankSymmetry find(const workload::Workload& workload);
  // These classes split by `key` (per rank): ranks stay together only where their keys are
  // equal (RunResult::symmetry_split: the ranks a run found to differ from their representative).
  RankSymmetry refined(const std::vector<std::uint64_t>& key) const;

  // Why nothing is reduced, when nothing is (empty otherwise).
  const std::string& declined() const { return declined_; }
  std::uint32_t rank_count() const { return static_cast<std::uint32_t>(representative_.size()); }
  std::uint32_t class_count() const { return static_cast<std::uint32_t>(class_reps_.size()); }
  // The representative of `rank`'s class (itself for a representative).
  std::uint32_t representative(std::uint32_t rank) const { return representative_[rank]; }
  // Representatives in rank order, and each class's members (representative first, rank order).
  const std::vector<std::uint32_t>& representatives() const { return class_reps_; }
  std::span<const std::uint32_t> members(std::uint32_t class_index) const;
  // The class index of a representative rank.
  std::uint32_t class_of(std::uint32_t rank) const { return class_index_[representative_[rank]]; }
  // A rank whose nodes are not stepped by the runtime (not a representative).
  bool is_mirrored(std::uint32_t rank) const { return representative_[rank] != rank; }
  // The representative's node at the program position of `id`, a node of `its_rank` (the node
  // itself on a representative).
  workload::NodeId image(workload::NodeId id, std::uint32_t its_rank) const {
    return counterpart(id, its_rank, representative_[its_rank]);
  }
  // The node of `rank` at the program position of `id`, a node of `its_rank` (of `rank`'s class).
  workload::NodeId counterpart(workload::NodeId id, std::uint32_t its_rank, std::uint32_t rank) const {
    return programs_->node(rank, programs_->position(id, its_rank));
  }
  // The index of `id`, a node of `its_rank`, in its rank's program.
  std::uint32_t position(workload::NodeId id, std::uint32_t its_rank) const {
    return programs_->position(id, its_rank);
  }
  // `rank`'s nodes in program (id) order.
  RankPrograms::View program(std::uint32_t rank) const { return programs_->program(rank); }
  std::uint64_t mirrored_nodes() const { return mirrored_nodes_; }
  // True when some class has more than one member.
  bool reduces() const { return declined_.empty() && class_count() < rank_count(); }

  // Each rank's nodes in program order, shared by every refinement of these classes (and by
  // the run's NodeTimings, which map mirrored nodes with them after the classes are gone).
  const std::shared_ptr<const RankPrograms>& programs() const { return programs_; }

 private:
  // Classes and members from representative_.
  void build_classes();

  std::string declined_;
  std::vector<std::uint32_t> representative_;  // per rank
  std::vector<std::uint32_t> class_index_;     // per rank: its class, valid for representatives
  std::vector<std::uint32_t> class_reps_;      // per class
  std::vector<std::uint32_t> member_first_;    // CSR over classes into members_
  std::vector<std::uint32_t> members_;
  std::shared_ptr<const RankPrograms> programs_;
  std::uint64_t mirrored_nodes_ = 0;
};

}  // namespace loom::system
