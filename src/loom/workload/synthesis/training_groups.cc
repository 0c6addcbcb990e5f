#include "loom/workload/synthesis/training_groups.h"

#include <fmt/format.h>

namespace loom::workload::synthesis {
namespace {

// Adds `c` to the workload and records it as the communicator of its ranks in `of`.
void add(Workload& w, Communicator c, std::vector<CommunicatorId>& of) {
  const CommunicatorId id = w.add_communicator(std::move(c));
  for (const std::uint32_t r : w.communicator(id).ranks) of[r] = id;
}

// EP groups (ep consecutive replicas) and expert-data-parallel groups (the stage's ranks at one
// EP position) of stage s, for MoE models.
void add_expert_groups(const TransformerConfig& model, const ParallelPlan& plan, std::uint32_t s, Workload& w,
                       TrainingGroups& g) {
  if (model.experts == 0) return;
  const std::uint32_t outer = plan.replicas() / plan.ep;
  for (std::uint32_t t = 0; plan.ep > 1 && t < plan.tp; ++t) {
    for (std::uint32_t o = 0; o < outer; ++o) {
      Communicator c{fmt::format("ep.{}", (s * plan.tp + t) * outer + o), "ep", {}, CommunicatorKind::kExpert};
      for (std::uint32_t e = 0; e < plan.ep; ++e) c.ranks.push_back(plan.rank(t, o * plan.ep + e, s));
      add(w, std::move(c), g.ep);
    }
  }
  if (plan.tp * outer == 1) return;
  for (std::uint32_t e = 0; e < plan.ep; ++e) {
    Communicator c{fmt::format("expert_dp.{}", s * plan.ep + e), "expert_dp", {}, CommunicatorKind::kData};
    for (std::uint32_t o = 0; o < outer; ++o) {
      for (std::uint32_t t = 0; t < plan.tp; ++t) c.ranks.push_back(plan.rank(t, o * plan.ep + e, s));
    }
    add(w, std::move(c), g.expert_dp);
  }
}

}  // namespace

TrainingGroups add_training_groups(const TransformerConfig& model, const ParallelPlan& plan, Workload& w) {
  const std::uint32_t n = plan.ranks();
  const std::uint32_t replicas = plan.replicas();
  TrainingGroups g;
  for (auto* of : {&g.tp, &g.cp, &g.dp, &g.ep, &g.expert_dp, &g.embedding}) of->assign(n, kNoCommunicator);
  for (std::uint32_t s = 0; s < plan.pp; ++s) {
    for (std::uint32_t r = 0; plan.tp > 1 && r < replicas; ++r) {
      Communicator c{fmt::format("tp.{}", s * replicas + r), "tp", {}, CommunicatorKind::kTensor};
      for (std::uint32_t t = 0; t < plan.tp; ++t) c.ranks.push_back(plan.rank(t, r, s));
      add(w, std::move(c), g.tp);
    }
    for (std::uint32_t d = 0; plan.cp > 1 && d < plan.dp; ++d) {
      for (std::uint32_t t = 0; t < plan.tp; ++t) {
        Communicator c{fmt::format("cp.{}", (s * plan.dp + d) * plan.tp + t), "cp", {}, CommunicatorKind::kContext};
        for (std::uint32_t k = 0; k < plan.cp; ++k) c.ranks.push_back(plan.rank(t, k + plan.cp * d, s));
        add(w, std::move(c), g.cp);
      }
    }
    // Gradients are reduced over the replicas: data and context parallel ranks together.
    for (std::uint32_t t = 0; replicas > 1 && t < plan.tp; ++t) {
      Communicator c{fmt::format("dp.{}", s * plan.tp + t), "dp", {}, CommunicatorKind::kData};
      for (std::uint32_t r = 0; r < replicas; ++r) c.ranks.push_back(plan.rank(t, r, s));
      add(w, std::move(c), g.dp);
    }
    add_expert_groups(model, plan, s, w, g);
  }
  for (std::uint32_t r = 0; plan.pp > 1 && r < replicas; ++r) {
    for (std::uint32_t t = 0; t < plan.tp; ++t) {
      Communicator c{fmt::format("embedding.{}", r * plan.tp + t), "embedding",
                     {plan.rank(t, r, 0), plan.rank(t, r, plan.pp - 1)}, CommunicatorKind::kPipeline};
      add(w, std::move(c), g.embedding);
    }
  }
  return g;
}

}  // namespace loom::workload::synthesis
