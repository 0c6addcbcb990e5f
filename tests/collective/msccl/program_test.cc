// The dependency graph a plan compiles to: nodes, work per rank and the edges that matter.
#include <gtest/gtest.h>

#include <algorithm>

#include "loom/collective/msccl/plan_reader.h"
#include "loom/collective/msccl/program.h"
#include "collective/msccl/fixtures.h"
#include "collective/msccl/plan_texts.h"

namespace loom::collective::msccl {
namespace {

bool releases(const Program& p, std::uint32_t from, std::uint32_t to) {
  const auto targets = p.after_arrival(from);
  return std::find(targets.begin(), targets.end(), to) != targets.end();
}

TEST(MscclProgram, TwoRankRingNodes) {
  // Per rank: s c(r), rrc c(r-1), s c(r+1), r c(r): two transfers and two local receives.
  const Program p(parse_plan(testing::ring_xml(2), "r.xml"));
  ASSERT_EQ(p.size(), 8u);
  for (std::uint32_t r = 0; r < 2; ++r) {
    EXPECT_EQ(p.work(r), 6u);  // 2 local + 2 sent + 2 received
    EXPECT_EQ(p.staging_chunks(r), 2u);
  }
  const Node& send = p.node(0);
  EXPECT_EQ(send.kind, NodeKind::kTransfer);
  EXPECT_EQ(send.src, 0u);
  EXPECT_EQ(send.dst, 1u);
  EXPECT_EQ(send.chunk_index, 0u);
  EXPECT_EQ(send.to.space, Space::kStaging);
  EXPECT_EQ(p.dependencies(0), 0u);
  // Rank 1's rrc (node 5) waits for its own send (node 4) and rank 0's first send (node 0).
  const Node& rrc = p.node(5);
  EXPECT_EQ(rrc.kind, NodeKind::kLocal);
  EXPECT_EQ(rrc.rank, 1u);
  EXPECT_EQ(p.dependencies(5), 2u);
  EXPECT_TRUE(releases(p, 0, 5));
  EXPECT_TRUE(releases(p, 4, 5));
  ASSERT_EQ(rrc.from.size(), 2u);
  EXPECT_EQ(rrc.from[0].space, Space::kInput);
  EXPECT_EQ(rrc.from[1].space, Space::kStaging);
}

TEST(MscclProgram, SignalsReleaseTheNextOpWhenIssuedAndTheWaitOnArrival) {
  const Program p(parse_plan(testing::all_pairs_json(2), "p.json"));
  // Rank 0: put (0), signal (1), wait (2), ...
  EXPECT_EQ(p.node(1).kind, NodeKind::kSignal);
  EXPECT_EQ(p.after_issue(1).size(), 1u);
  EXPECT_EQ(p.after_issue(1)[0], 2u);
  // Rank 1's first wait is released by the arrival of rank 0's first signal.
  std::uint32_t rank1_wait = 0;
  for (std::uint32_t id = 0; id < p.size(); ++id) {
    if (p.node(id).rank == 1 && p.node(id).kind == NodeKind::kLocal && p.node(id).to.count == 0) {
      rank1_wait = id;
      break;
    }
  }
  EXPECT_TRUE(releases(p, 1, rank1_wait));
}

TEST(MscclProgram, PacketReadsWaitForTheirWriters) {
  LOOM_REQUIRE_FIXTURES();
  const Program p(read_plan_file(testing::fixture("mscclpp_plans_current_format/allreduce_packet.json")));
  // Rank 0 tb 1's upkt reads scratch 2..3, written by rank 1's two respkt remote copies.
  std::uint32_t upkt = p.size();
  for (std::uint32_t id = 0; id < p.size(); ++id) {
    const Node& n = p.node(id);
    if (n.rank == 0 && n.thread_block == 1 && n.op == 1) upkt = id;
  }
  ASSERT_LT(upkt, p.size());
  std::uint32_t writers = 0;
  for (std::uint32_t id = 0; id < p.size(); ++id) {
    const Node& n = p.node(id);
    if (n.kind == NodeKind::kTransfer && n.src == 1 && n.to.space == Space::kScratch && n.to.index >= 2) {
      EXPECT_TRUE(releases(p, id, upkt));
      ++writers;
    }
  }
  EXPECT_EQ(writers, 2u);
  EXPECT_EQ(p.dependencies(upkt), 3u);  // program order + two writers
}

}  // namespace
}  // namespace loom::collective::msccl
