// Uneven pipeline stages (first_stage_layers / last_stage_layers): which layers each stage
// holds, that the built ranks run exactly those, that counting and the memory model follow,
// and that plans which leave a stage empty or the rest indivisible are refused.
#include <set>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "workload/synthesis_testing.h"
#include "loom/core/error.h"
#include "loom/workload/synthesis/memory_model.h"
#include "loom/workload/synthesis/training_step.h"

namespace loom::workload::synthesis {
namespace {

using ::testing::HasSubstr;
using testing::plan;
using testing::small_gpt;

// The layers the nodes of `rank` belong to.
std::set<std::uint32_t> layers_run_by(const Workload& w, std::uint32_t rank) {
  std::set<std::uint32_t> layers;
  for (NodeId id = 0; id < w.node_count(); ++id) {
    const Node n = w.node(id);
    if (n.rank == rank && n.layer != kNoIndex) layers.insert(n.layer);
  }
  return layers;
}

std::set<std::uint32_t> range(std::uint32_t first, std::uint32_t count) {
  std::set<std::uint32_t> out;
  for (std::uint32_t l = first; l < first + count; ++l) out.insert(l);
  return out;
}

TEST(UnevenStages, Llama405bRunsSevenLayersOnTheFirstAndLastOfSixteenStages) {
  const TransformerConfig& llama = find_transformer("llama-405b");
  ParallelPlan p = plan(8, 16, 1, 16);
  p.first_stage_layers = 7;
  p.last_stage_layers = 7;
  validate(p, llama);
  std::uint32_t next = 0;
  for (std::uint32_t stage = 0; stage < 16; ++stage) {
    const LayerRange r = layers_of_vstage(p, llama.layers, stage);
    EXPECT_EQ(r.first, next) << "stage " << stage;
    EXPECT_EQ(r.count, stage == 0 || stage == 15 ? 7u : 8u) << "stage " << stage;
    next = r.first + r.count;
  }
  EXPECT_EQ(next, 126u);
}

TEST(UnevenStages, EachStageRunsItsOwnLayersAndCountsFollow) {
  // 10 layers on 4 stages: 1 on the first, the rest 3 each; and 4 on the last only.
  const TransformerConfig m = small_gpt(10);
  for (const auto& [first, last] : {std::pair{1u, 0u}, std::pair{0u, 4u}, std::pair{1u, 3u}}) {
    ParallelPlan p = plan(1, 4, 2, 8);
    p.first_stage_layers = first;
    p.last_stage_layers = last;
    SCOPED_TRACE(::testing::Message() << "first " << first << " last " << last);
    const Workload w = synthesize_training(m, p);
    std::uint32_t next = 0;
    for (std::uint32_t stage = 0; stage < 4; ++stage) {
      const LayerRange r = layers_of_vstage(p, m.layers, stage);
      EXPECT_EQ(r.first, next);
      next += r.count;
      EXPECT_EQ(layers_run_by(w, p.rank(0, 0, stage)), range(r.first, r.count)) << "stage " << stage;
      EXPECT_EQ(layers_run_by(w, p.rank(0, 1, stage)), range(r.first, r.count)) << "stage " << stage;
    }
    EXPECT_EQ(next, 10u);
    testing::expect_counts_of(w, count_training(m, p));
  }
}

TEST(UnevenStages, TheMemoryModelHoldsEachStagesOwnLayers) {
  const TransformerConfig m = small_gpt(10);
  ParallelPlan p = plan(1, 4, 1, 8);
  p.first_stage_layers = 1;
  p.last_stage_layers = 3;
  const MemoryEstimate first = estimate_memory(m, p, 0);
  const MemoryEstimate middle = estimate_memory(m, p, 1);
  EXPECT_EQ(first.parameters, m.layer_parameters(0) + m.embedding_parameters());
  EXPECT_EQ(middle.parameters, m.layer_parameters(1) + m.layer_parameters(2) + m.layer_parameters(3));
  EXPECT_EQ(middle.activations_per_micro_batch, 3 * first.activations_per_micro_batch);
}

TEST(UnevenStages, PlansThatLeaveAStageEmptyOrTheRestUnevenAreRefused) {
  const TransformerConfig m = small_gpt(10);
  const auto refusal = [&](std::uint32_t pp, std::uint32_t first, std::uint32_t last, std::uint32_t vpp = 1) {
    ParallelPlan p = plan(1, pp, 1, 8);
    p.first_stage_layers = first;
    p.last_stage_layers = last;
    if (vpp > 1) {
      p.schedule = PipelineSchedule::kInterleaved;
      p.virtual_stages = vpp;
    }
    try {
      validate(p, m);
    } catch (const UserError& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  EXPECT_THAT(refusal(4, 0, 0), HasSubstr("layers 10 is not divisible by pp * virtual_stages 4; first_stage_layers"));
  EXPECT_THAT(refusal(4, 2, 0), HasSubstr("the 8 layers left by first_stage_layers 2 and last_stage_layers 0 are not "
                                          "divisible by the 3 other stages"));
  EXPECT_THAT(refusal(4, 5, 5), HasSubstr("leave 0 of the 10 layers for the 2 other stage(s)"));
  EXPECT_THAT(refusal(2, 4, 5), HasSubstr("leave 1 of the 10 layers for the 0 other stage(s)"));
  EXPECT_THAT(refusal(1, 10, 0), HasSubstr("need pp of 2 or more"));
  EXPECT_THAT(refusal(2, 4, 0, 2), HasSubstr("need virtual_stages 1"));
  EXPECT_EQ(refusal(2, 4, 6), "accepted");
  EXPECT_EQ(refusal(2, 4, 0), "accepted");
}

}  // namespace
}  // namespace loom::workload::synthesis
