// The communicators of a synthesised training job, added to its workload, and each rank's
// communicator of every kind (training_step.h builds the DAG that uses them).
//
// Rank layout is the plan's (parallel_plan.h, Megatron order). Per pipeline stage s:
//   tp.i         the TP ranks of one replica (only when tp > 1)
//   cp.i         the CP ranks at one (data index, TP position) (only when cp > 1)
//   dp.i         all replicas (data x context parallel) at one TP position: gradients are
//                reduced over them (only when there is more than one replica)
//   ep.i         ep consecutive replicas at one TP position (MoE models, ep > 1)
//   expert_dp.i  the stage's ranks at one EP position (MoE models, unless that is one rank)
// and, with pp > 1, embedding.i joining the first and last stage's ranks at one (replica, TP
// position): the tied word embedding's gradients are all-reduced between them.
// Communicators are added in that order, stage by stage, the embedding groups last.
#pragma once

#include <vector>

#include "loom/workload/synthesis/parallel_plan.h"
#include "loom/workload/synthesis/transformer_config.h"
#include "loom/workload/workload.h"

namespace loom::workload::synthesis {

inline constexpr CommunicatorId kNoCommunicator = 0xffffffffu;

// Indexed by rank: the rank's communicator of each kind, or kNoCommunicator if it has none.
struct TrainingGroups {
  std::vector<CommunicatorId> tp, cp, dp, ep, expert_dp, embedding;
};

// Adds the job's communicators to `w` (which has plan.ranks() ranks). O(ranks).
TrainingGroups add_training_groups(const TransformerConfig& model, const ParallelPlan& plan, Workload& w);

}  // namespace loom::workload::synthesis
