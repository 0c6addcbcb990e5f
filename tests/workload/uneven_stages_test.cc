// Uneven pipeline stages (first_stage_layers / last_stage_layers): which layers each stage
// holds, that the built ranks run exactly those, that counting and the memory model follow,
// and that plans which leave a stage empty or the rest indivisible are refused.
#include <set>
#include <vector>

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

TEST(UnevenStages, InterleavedChunksKeepSevenLayersOnTheEndStagesWithTheLighterChunkOutside) {
  // Llama 3 405B interleaved: v = 2 gives the first stage chunks of 3 + 4 layers (the embedding's
  // chunk lighter), the last 4 + 3 (the output's lighter), the others 4 + 4; v = 4: 1 + 2 + 2 + 2.
  const TransformerConfig& llama = find_transformer("llama-405b");
  for (const std::uint32_t v : {2u, 4u}) {
    ParallelPlan p = plan(8, 16, 1, 16);
    p.schedule = PipelineSchedule::kInterleaved;
    p.virtual_stages = v;
    p.first_stage_layers = 7;
    p.last_stage_layers = 7;
    validate(p, llama);
    SCOPED_TRACE(::testing::Message() << "v " << v);
    std::uint32_t next = 0;
    std::vector<std::uint32_t> per_stage(16, 0);
    for (std::uint32_t vs = 0; vs < 16 * v; ++vs) {
      const LayerRange r = layers_of_vstage(p, llama.layers, vs);
      EXPECT_EQ(r.first, next) << "virtual stage " << vs;
      next = r.first + r.count;
      per_stage[vs % 16] += r.count;
      const std::uint32_t even = 8 / v;
      const std::uint32_t light = 7 - (v - 1) * even;
      const bool embedding_chunk = vs == 0, output_chunk = vs + 1 == 16 * v;
      EXPECT_EQ(r.count, embedding_chunk || output_chunk ? light : even) << "virtual stage " << vs;
    }
    EXPECT_EQ(next, 126u);
    for (std::uint32_t stage = 0; stage < 16; ++stage) {
      EXPECT_EQ(per_stage[stage], stage == 0 || stage == 15 ? 7u : 8u) << "stage " << stage;
    }
  }
}

TEST(UnevenStages, InterleavedRanksRunTheirChunksLayersAndCountsFollow) {
  // 14 layers on 4 stages of 2 chunks: 3 + 4 + 4 + 3, the end stages' chunks 1 + 2 and 2 + 1.
  const TransformerConfig m = small_gpt(14);
  ParallelPlan p = plan(1, 4, 2, 8);
  p.schedule = PipelineSchedule::kInterleaved;
  p.virtual_stages = 2;
  p.first_stage_layers = 3;
  p.last_stage_layers = 3;
  const Workload w = synthesize_training(m, p);
  for (std::uint32_t stage = 0; stage < 4; ++stage) {
    std::set<std::uint32_t> expected;
    for (std::uint32_t c = 0; c < 2; ++c) {
      const LayerRange r = layers_of_vstage(p, m.layers, c * 4 + stage);
      for (std::uint32_t l : range(r.first, r.count)) expected.insert(l);
    }
    EXPECT_EQ(expected.size(), stage == 0 || stage == 3 ? 3u : 4u) << "stage " << stage;
    EXPECT_EQ(layers_run_by(w, p.rank(0, 0, stage)), expected) << "stage " << stage;
    EXPECT_EQ(layers_run_by(w, p.rank(0, 1, stage)), expected) << "stage " << stage;
  }
  EXPECT_EQ(layers_of_vstage(p, m.layers, 0).count, 1u);
  EXPECT_EQ(layers_of_vstage(p, m.layers, 7).count, 1u);
  testing::expect_counts_of(w, count_training(m, p));
  // The memory model holds a stage's own layers and the larger chunk's activations per chunk.
  const MemoryEstimate first = estimate_memory(m, p, 0);
  const MemoryEstimate middle = estimate_memory(m, p, 1);
  EXPECT_EQ(first.activations_per_micro_batch * 4, middle.activations_per_micro_batch * 3);
  EXPECT_EQ(first.activations * middle.chunks_in_flight, middle.activations * first.chunks_in_flight);
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
  // Interleaved: middle stages must split evenly over their chunks, every chunk needs a layer.
  EXPECT_THAT(refusal(4, 1, 1, 2), HasSubstr("leaves a model chunk without layers; expected at least "
                                             "virtual_stages 2"));
  EXPECT_THAT(refusal(4, 2, 0, 2), HasSubstr("the 8 layers left by first_stage_layers 2 and last_stage_layers 0 "
                                             "are not divisible by the 3 other stages"));
  EXPECT_THAT(refusal(4, 3, 1, 2), HasSubstr("the 3 layers of each middle stage are not divisible by "
                                             "virtual_stages 2"));
  EXPECT_EQ(refusal(4, 3, 3, 2), "accepted");
  EXPECT_EQ(refusal(2, 4, 6), "accepted");
  EXPECT_EQ(refusal(2, 4, 0), "accepted");
}

}  // namespace
}  // namespace loom::workload::synthesis
