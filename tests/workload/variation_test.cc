// Performance variation, scaling down, the infinite-bandwidth critical path and the JSON export.
#include <cmath>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "loom/core/error.h"
#include "loom/workload/critical_path.h"
#include "loom/workload/json_export.h"
#include "loom/workload/scaling.h"
#include "loom/workload/synthesis/training_step.h"
#include "loom/workload/variation.h"

namespace loom::workload {
namespace {

// 4-stage 1F1B pipeline of a small GPT; layer work takes 1 ps per 1000 FLOPs, the rest nothing.
Workload pipeline(std::uint32_t pp = 4, std::uint32_t m = 8) {
  const synthesis::TransformerConfig model{"small", 8, 512, 8, 8, 2048, false, 1000, 256, true};
  synthesis::ParallelPlan plan;
  plan.pp = pp;
  plan.global_batch = m;
  Workload w = synthesis::synthesize_training(model, plan);
  w.edit_nodes([](Node& n, std::uint64_t) {
    if (n.kind != NodeKind::kCompute) return;
    n.duration = n.layer == kNoIndex ? Time::zero() : Time::ps(static_cast<std::int64_t>(n.flops / 1000));
    if (n.layer == kNoIndex) n.flops = 0;
  });
  return w;
}

Time stage_work(const Workload& w, std::uint32_t rank) {
  Time total;
  for (NodeId id = 0; id < w.node_count(); ++id) {
    if (w.node(id).rank == rank) total += w.node(id).duration;
  }
  return total;
}

TEST(CriticalPath, PipelineWithFreeCommunicationHasTheBubble) {
  const Workload w = pipeline();
  // (m + p - 1)·(t_f + t_b) with m·(t_f + t_b) = one stage's work.
  EXPECT_EQ(critical_path_length(w), stage_work(w, 0) / 8 * (8 + 3));
}

TEST(CriticalPath, ReportsAPartnerThatNeverArrives) {
  Workload w(2);
  Node s;
  s.kind = NodeKind::kSend;
  s.peer = 1;
  s.label = w.intern_label("lonely send");
  w.add_node(s, {});
  try {
    critical_path_length(w);
    FAIL();
  } catch (const UserError& e) {
    EXPECT_STREQ(e.what(), "lonely send (rank 0): the workload cannot finish; this send waits for a partner that "
                           "never arrives");
  }
}

// A straggler on the last stage's layer 7 for micro-batch 5 delays the iteration by exactly the
// extra time of its nodes: the last stage is on the critical path in its steady state.
TEST(Variation, StragglerDelaysExactlyItsExtraWork) {
  Workload w = pipeline();
  const Time base = critical_path_length(w);
  Time expected_added;  // each matching node: round(1.5·d) - d
  for (NodeId id = 0; id < w.node_count(); ++id) {
    const Node& n = w.node(id);
    if (n.rank == 3 && n.layer == 7 && n.micro_batch == 5 && n.kind == NodeKind::kCompute) {
      expected_added += Time::ps(std::llround(1.5 * static_cast<double>(n.duration.picoseconds()))) - n.duration;
    }
  }
  VariationSpec spec;
  spec.stragglers.push_back({3, 7, 5, kAnyIteration, 1.5});
  const VariationResult r = apply_variation(w, spec);
  // qkv, attention, proj and mlp forward and backward; elementwise nodes take no time here.
  EXPECT_EQ(r.slowed_nodes, 8u);
  EXPECT_EQ(r.added, expected_added);
  EXPECT_EQ(critical_path_length(w), base + r.added);
}

TEST(Variation, RandomSlowdownsAreSeededAndReproducible) {
  VariationSpec spec;
  spec.seed = 7;
  spec.compute_slowdown_chance = 0.25;
  spec.compute_slowdown_min = 1.1;
  spec.compute_slowdown_max = 1.3;
  spec.nic_slowdown_chance = 0.5;
  spec.nic_slowdown_min = 2;
  spec.nic_slowdown_max = 4;
  Workload a = pipeline(), b = pipeline();
  const VariationResult ra = apply_variation(a, spec);
  const VariationResult rb = apply_variation(b, spec);
  EXPECT_EQ(ra.added, rb.added);
  EXPECT_GT(ra.slowed_nodes, 0u);
  ASSERT_EQ(ra.nic_slowdowns.size(), rb.nic_slowdowns.size());
  for (std::size_t i = 0; i < ra.nic_slowdowns.size(); ++i) {
    EXPECT_EQ(ra.nic_slowdowns[i].rank, rb.nic_slowdowns[i].rank);
    EXPECT_GE(ra.nic_slowdowns[i].factor, 2.0);
    EXPECT_LE(ra.nic_slowdowns[i].factor, 4.0);
  }
  for (NodeId id = 0; id < a.node_count(); ++id) {
    const Time before = pipeline().node(id).duration;  // same DAG, rebuilt
    if (a.node(id).duration == before) continue;
    const double f = static_cast<double>(a.node(id).duration.picoseconds()) / static_cast<double>(before.picoseconds());
    EXPECT_GE(f, 1.1 - 1e-9);
    EXPECT_LE(f, 1.3 + 1e-9);
    break;
  }
  spec.seed = 8;
  Workload c = pipeline();
  EXPECT_NE(apply_variation(c, spec).added, ra.added);
}

TEST(Variation, InvalidSpecsNameTheField) {
  Workload w = pipeline();
  VariationSpec spec;
  spec.compute_slowdown_chance = 1.5;
  try {
    apply_variation(w, spec);
    FAIL();
  } catch (const UserError& e) {
    EXPECT_STREQ(e.what(), "variation: compute_slowdown_chance is 1.5, expected a probability in [0, 1]");
  }
  spec = VariationSpec{};
  spec.stragglers.push_back({9, kNoIndex, kNoIndex, kAnyIteration, 2});
  try {
    apply_variation(w, spec);
    FAIL();
  } catch (const UserError& e) {
    EXPECT_STREQ(e.what(), "variation: straggler rank 9 is outside 0..3");
  }
}

std::string variation_error(const VariationSpec& spec) {
  Workload w = pipeline();
  try {
    apply_variation(w, spec);
  } catch (const UserError& e) {
    return e.what();
  }
  return "no error";
}

// Rank 3, the last of 4 stages of 8 layers, runs layers 6 and 7 of 8 micro-batches, 1 iteration.
TEST(Variation, AStragglerThatMatchesNothingNamesWhatItsRankLacks) {
  VariationSpec spec;
  spec.stragglers.push_back({3, 2, kNoIndex, kAnyIteration, 2});
  EXPECT_EQ(variation_error(spec),
            "variation: straggler on rank 3: layer 2 does not exist there (layer range there: 6..7)");
  spec.stragglers = {{3, 7, 8, kAnyIteration, 2}};
  EXPECT_EQ(variation_error(spec),
            "variation: straggler on rank 3: micro-batch 8 does not exist there (micro-batch range "
            "there: 0..7)");
  spec.stragglers = {{3, kNoIndex, kNoIndex, 1, 2}};
  EXPECT_EQ(variation_error(spec),
            "variation: straggler on rank 3: iteration 1 does not exist there (iteration range there: 0..0)");
  spec.stragglers = {{3, 7, 7, 0, 2}};
  EXPECT_EQ(variation_error(spec), "no error");
}

TEST(Variation, NicSlowdownsBelowOneAreRefused) {
  VariationSpec spec;
  spec.nic_slowdown_chance = 0.5;
  spec.nic_slowdown_min = 0.5;
  spec.nic_slowdown_max = 2;
  EXPECT_EQ(variation_error(spec), "variation: nic_slowdown factors must be at least 1 (a factor below 1 would make a "
                                   "NIC faster than its cable)");
}

TEST(Scaling, OneFactorScalesFlopsBytesAndDurations) {
  Workload w = pipeline(2, 2);
  const Workload original = pipeline(2, 2);
  scale_workload(w, 0.25);
  for (NodeId id = 0; id < w.node_count(); ++id) {
    const Node& a = original.node(id);
    const Node& b = w.node(id);
    EXPECT_EQ(b.bytes, a.bytes == 0 ? 0 : std::max<Bytes>(1, (a.bytes + 2) / 4));
    EXPECT_EQ(b.flops, a.flops == 0 ? 0 : std::max<std::uint64_t>(1, (a.flops + 2) / 4));
  }
  // Each node rounds on its own: within a picosecond per node of a quarter.
  EXPECT_NEAR(static_cast<double>(critical_path_length(w).picoseconds()),
              static_cast<double>(critical_path_length(original).picoseconds()) / 4, 1e-5 * 15.7e6);
  EXPECT_THROW(scale_workload(w, 0.0), UserError);
  EXPECT_THROW(scale_workload(w, 1.5), UserError);
}

TEST(JsonExport, NodesCommunicatorsAndTruncation) {
  Workload w(2);
  w.add_communicator({"tp.0", "tp", {0, 1}, CommunicatorKind::kTensor});
  Node c;
  c.label = w.intern_label("fwd.qkv");
  c.flops = 10;
  c.layer = 3;
  w.add_node(c, {});
  Node ar;
  ar.kind = NodeKind::kCollective;
  ar.label = w.intern_label("fwd.tp");
  ar.bytes = 64;
  ar.dtype = DataType::kBf16;
  const NodeId dep = 0;
  w.add_node(ar, std::span(&dep, 1));
  const nlohmann::json doc = nlohmann::json::parse(to_json(w));
  EXPECT_EQ(doc["ranks"], 2);
  EXPECT_EQ(doc["communicators"][0]["kind"], "tp");
  EXPECT_EQ(doc["nodes"][0]["kind"], "compute");
  EXPECT_EQ(doc["nodes"][0]["layer"], 3);
  EXPECT_EQ(doc["nodes"][1]["op"], "all-reduce");
  EXPECT_EQ(doc["nodes"][1]["communicator"], "tp.0");
  EXPECT_EQ(doc["nodes"][1]["deps"], nlohmann::json::array({0}));
  EXPECT_EQ(doc["nodes"][1]["dtype"], "bf16");
  EXPECT_FALSE(doc["nodes"][1].contains("layer"));
  const nlohmann::json cut = nlohmann::json::parse(to_json(w, {1, -1}));
  EXPECT_EQ(cut["nodes"].size(), 1u);
  EXPECT_EQ(cut["nodes_omitted"], 1);
}

}  // namespace
}  // namespace loom::workload
