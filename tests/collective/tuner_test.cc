#include "loom/collective/tuner.h"

#include <algorithm>
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "loom/collective/explain.h"
#include "loom/core/error.h"

namespace loom::collective {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

TunerQuery query(CollectiveOp op, Bytes size, std::uint32_t members, std::uint32_t hosts, std::string_view gpu) {
  return {.op = op, .size = size, .members = members, .hosts = hosts, .gpu = &gpu_model(gpu)};
}

// NCCL with NVLS disabled (as on a topology without a reducing switch).
TunerQuery without_nvls(TunerQuery q) {
  q.in_switch = false;
  return q;
}

TEST(Tuner, LargeSingleNodeAllReducePicksARingWithSimple) {
  // NCCL without NVLS on one 8-GPU node: ring, Simple, many channels.
  const TunerChoice c = tune(without_nvls(query(CollectiveOp::kAllReduce, 64 << 20, 8, 1, "h100")));
  EXPECT_EQ(c.algorithm, Algorithm::kRing);
  EXPECT_EQ(c.protocol, Protocol::kSimple);
  EXPECT_EQ(c.channels, 16u);  // the NVLink saturates at 370 / 24 GB/s = 16 channels; ties keep fewer
  // Modelled bus bandwidth approaches the 370 GB/s nccl-tests measures (FACTS §5) from below.
  const double busbw = (64 << 20) / c.seconds * 1.75 * 1e-9;
  EXPECT_GT(busbw, 300.0);
  EXPECT_LT(busbw, 370.0);
  const TunerChoice huge = tune(without_nvls(query(CollectiveOp::kAllReduce, Bytes{8} << 30, 8, 1, "h100")));
  EXPECT_GT((Bytes{8} << 30) / huge.seconds * 1.75 * 1e-9, 365.0);
}

TEST(Tuner, SmallMessagesPickLowLatency) {
  // On one host NCCL's tree is a chain of 2(n-1) NVLink hops: its model picks the ring there.
  const TunerChoice c = tune(query(CollectiveOp::kAllReduce, 4096, 8, 1, "h100"));
  EXPECT_EQ(c.algorithm, Algorithm::kRing);
  EXPECT_EQ(c.protocol, Protocol::kLL);
  const TunerChoice across = tune(query(CollectiveOp::kAllReduce, 1 << 20, 1024, 128, "h100"));
  EXPECT_EQ(across.algorithm, Algorithm::kTree);  // 20 tree steps instead of 2046 ring steps
  EXPECT_GT(across.chunks, 1u);                     // and pipelined
}

TEST(Tuner, AllToAllUsesDirectSendsAndEveryCandidateImplementsTheOp) {
  for (const CollectiveOp op : all_collective_ops()) {
    const std::vector<TunerChoice> all = tuner_candidates(query(op, 1 << 20, 16, 2, "a100"));
    ASSERT_FALSE(all.empty()) << to_string(op);
    for (std::size_t i = 0; i < all.size(); ++i) {
      EXPECT_TRUE(supports(all[i].algorithm, op));
      if (i > 0) {
        EXPECT_LE(all[i - 1].nccl_seconds, all[i].nccl_seconds);  // ranked by NCCL's estimate
      }
    }
  }
  EXPECT_EQ(tune(query(CollectiveOp::kAllToAll, 64 << 20, 16, 2, "h100")).algorithm, Algorithm::kDirect);
}

TEST(Tuner, TimeGrowsWithSizeAndShrinksWithBandwidth) {
  double previous = 0;
  for (Bytes size = 1024; size <= (Bytes{1} << 32); size *= 4) {
    const double t = tune(query(CollectiveOp::kAllGather, size, 16, 2, "h100")).seconds;
    EXPECT_GT(t, previous) << size;
    previous = t;
  }
  EXPECT_LT(tune(query(CollectiveOp::kAllReduce, 1 << 30, 8, 1, "b200")).seconds,
            tune(query(CollectiveOp::kAllReduce, 1 << 30, 8, 1, "a100")).seconds);
}

TEST(Tuner, AllAlgorithmsAddsHalvingDoublingAndHierarchical) {
  TunerQuery q = without_nvls(query(CollectiveOp::kAllReduce, 1 << 30, 64, 8, "h100"));
  bool nccl_only = true;
  for (const TunerChoice& c : tuner_candidates(q)) {
    nccl_only = nccl_only && (c.algorithm == Algorithm::kRing || c.algorithm == Algorithm::kTree);
  }
  EXPECT_TRUE(nccl_only);
  q.all_algorithms = true;
  bool hierarchical = false;
  for (const TunerChoice& c : tuner_candidates(q)) hierarchical = hierarchical || c.algorithm == Algorithm::kHierarchical;
  EXPECT_TRUE(hierarchical);
}

TEST(Tuner, ApplySetsTheSpec) {
  CollectiveSpec spec{.op = CollectiveOp::kAllReduce, .members = 8, .size = 1 << 20};
  apply({.algorithm = Algorithm::kTree, .protocol = Protocol::kLL128, .channels = 4, .chunks = 8, .seconds = 1}, spec);
  EXPECT_EQ(spec.channels, 4u);
  EXPECT_EQ(spec.chunks, 8u);
  EXPECT_EQ(spec.protocol, Protocol::kLL128);
  // The hop latency stays the caller's (collective.hop_latency: none must stay none).
  EXPECT_EQ(spec.protocol_costs.hop(Protocol::kLL128, LinkClass::kInterHost), Time::zero());
}

TEST(Tuner, UnevenHostsGetFlatAlgorithmsWithAverageStepCounts) {
  // 12 members on 5 hosts (a cluster job placed 3, 3, 2, 2, 2): no grid algorithm (nvls-tree,
  // hierarchical) applies. The ring model takes g = 12/5 members per host on average: its
  // channels share g NICs per host, so with 16 channels (each below the channel cap) its time
  // lies between 12 members on 4 hosts (g = 3) and on 6 (g = 2).
  TunerQuery uneven = query(CollectiveOp::kAllReduce, 64 << 20, 12, 5, "h100");
  uneven.all_algorithms = true;
  for (const TunerChoice& c : tuner_candidates(uneven)) {
    EXPECT_NE(c.algorithm, Algorithm::kHierarchical);
    EXPECT_FALSE(uses_switches(c.algorithm));
  }
  const auto ring_time = [](std::uint32_t hosts) {
    TunerQuery q = query(CollectiveOp::kAllReduce, 64 << 20, 12, hosts, "h100");
    q.algorithm = Algorithm::kRing;
    q.channels = 16;
    return tune(q).seconds;
  };
  EXPECT_GT(ring_time(5), ring_time(4));
  EXPECT_LT(ring_time(5), ring_time(6));
}

TEST(Tuner, InvalidQueriesNameTheProblem) {
  try {
    tune(query(CollectiveOp::kAllReduce, 1024, 3, 5, "h100"));
    FAIL();
  } catch (const UserError& e) {
    EXPECT_STREQ(e.what(), "tuner: 3 members on 5 hosts; expected at least one of each and at least one member per host");
  }
  try {
    gpu_model("v100");
    FAIL();
  } catch (const UserError& e) {
    EXPECT_STREQ(e.what(), "unknown GPU 'v100'; expected one of: a100, h100, b200");
  }
}

TEST(Tuner, TreeDepthOfTwoToTheThirtyFirstMembersDoesNotWrap) {
  // floor(log2 n) once looped forever from n = 2^31 on: its probe 2 << 31 wrapped to 0.
  const auto tree_time = [](std::uint32_t members) {
    for (const TunerChoice& c : tuner_candidates(without_nvls(query(CollectiveOp::kAllReduce, 1 << 20, members, 1, "h100")))) {
      if (c.algorithm == Algorithm::kTree && c.protocol == Protocol::kSimple && c.channels == 1) return c.seconds;
    }
    return 0.0;
  };
  EXPECT_GT(tree_time(0xffffffffu), tree_time(1u << 30));
  EXPECT_GT(tree_time(1u << 31), tree_time(1u << 30));
}

TEST(Explain, PrintsTheChoiceAndItsCandidates) {
  const std::string text = explain(without_nvls(query(CollectiveOp::kAllReduce, 64 << 20, 8, 1, "h100")), 3);
  EXPECT_THAT(text, StartsWith("all-reduce of 64MiB on 8 ranks (1 host x 8), GPU h100\n"
                               "choice: ring, simple, 16 channels, 1 chunk: "));
  EXPECT_THAT(text, HasSubstr("fastest of 36 candidates:\n"));
  EXPECT_THAT(text, HasSubstr("  ring              simple          16       1"));
  EXPECT_THAT(text, HasSubstr("ranked by NCCL's own estimate"));
  EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 3 + 2 + 3);
}

}  // namespace
}  // namespace loom::collective
