// The readers on the shared reference plans: every field that the engine uses, resolved.
#include <gtest/gtest.h>

#include "loom/collective/msccl/plan_reader.h"
#include "collective/msccl/fixtures.h"

namespace loom::collective::msccl {
namespace {

using testing::fixture;

TEST(MscclReader, CurrentSchemaPacketAllReduce) {
  LOOM_REQUIRE_FIXTURES();
  const Plan plan = read_plan_file(fixture("mscclpp_plans_current_format/allreduce_packet.json"));
  EXPECT_EQ(plan.format, PlanFormat::kMscclppJson);
  EXPECT_EQ(plan.name, "allreduce_pkt");
  EXPECT_EQ(plan.collective, "allreduce");
  EXPECT_EQ(plan.protocol, Protocol::kLL);
  EXPECT_TRUE(plan.inplace);
  ASSERT_EQ(plan.rank_count(), 2u);
  EXPECT_EQ(plan.ranks[0].input_chunks, 4u);
  EXPECT_EQ(plan.ranks[0].scratch_chunks, 4u);
  ASSERT_EQ(plan.ranks[0].thread_blocks.size(), 2u);
  const Op& put = plan.ranks[0].thread_blocks[0].ops[0];
  EXPECT_EQ(put.name, "ppkt");
  EXPECT_EQ(put.kind, OpKind::kData);
  EXPECT_TRUE(put.packet);
  EXPECT_FALSE(put.reduce);
  // Local input chunks 2..3 to rank 1's scratch chunks 0..1 (remote buffer 0 of gpu 0).
  EXPECT_EQ(put.srcs, (std::vector<ChunkRange>{{0, BufferKind::kInput, 2, 2}}));
  EXPECT_EQ(put.dsts, (std::vector<ChunkRange>{{1, BufferKind::kScratch, 0, 2}}));
  const Op& reduce_send = plan.ranks[0].thread_blocks[0].ops[1];
  EXPECT_EQ(reduce_send.name, "respkt");
  EXPECT_TRUE(reduce_send.reduce);
  EXPECT_EQ(reduce_send.srcs, (std::vector<ChunkRange>{{0, BufferKind::kInput, 0, 1}, {0, BufferKind::kScratch, 0, 1}}));
  EXPECT_EQ(reduce_send.dsts, (std::vector<ChunkRange>{{0, BufferKind::kInput, 0, 1}, {1, BufferKind::kScratch, 2, 1}}));
  EXPECT_EQ(reduce_send.where, fixture("mscclpp_plans_current_format/allreduce_packet.json") +
                                   ": gpus[0].threadblocks[0].ops[1] (respkt)");
}

TEST(MscclReader, CurrentSchemaSignalsAndRemoteReads) {
  LOOM_REQUIRE_FIXTURES();
  const Plan plan = read_plan_file(fixture("mscclpp_plans_current_format/reduce.json"));
  EXPECT_EQ(plan.protocol, Protocol::kSimple);
  const std::vector<Op>& ops = plan.ranks[0].thread_blocks[0].ops;
  ASSERT_EQ(ops.size(), 15u);
  EXPECT_EQ(ops[2].kind, OpKind::kSignal);
  ASSERT_EQ(ops[2].connections.size(), 1u);
  EXPECT_EQ(ops[2].connections[0].peer, 1u);
  EXPECT_EQ(ops[2].connections[0].index, 0u);
  EXPECT_EQ(ops[4].kind, OpKind::kWait);
  // rres reads rank 1's scratch chunk 0 and writes rank 1's input chunk 0.
  EXPECT_EQ(ops[6].srcs[1], (ChunkRange{1, BufferKind::kScratch, 0, 1}));
  EXPECT_EQ(ops[6].dsts[1], (ChunkRange{1, BufferKind::kInput, 0, 1}));
  // get: rank 1's scratch chunk 1 into the local scratch.
  EXPECT_EQ(ops[7].srcs[0], (ChunkRange{1, BufferKind::kScratch, 1, 1}));
  EXPECT_EQ(ops[7].dsts[0], (ChunkRange{0, BufferKind::kScratch, 1, 1}));
}

TEST(MscclReader, LegacySchemaResolvesChannelsThroughTheThreadBlock) {
  LOOM_REQUIRE_FIXTURES();
  const Plan plan = read_plan_file(fixture("mscclpp_plan_legacy_format/allreduce_packet.at-88d28e07.json"));
  EXPECT_EQ(plan.format, PlanFormat::kMscclppLegacyJson);
  EXPECT_EQ(plan.collective, "allreduce");  // spelled "colletive" in the file
  EXPECT_EQ(plan.ranks[0].output_chunks, 0u);
  EXPECT_EQ(plan.ranks[0].scratch_chunks, 8u);
  const Op& rspkt = plan.ranks[0].thread_blocks[0].ops[0];
  EXPECT_TRUE(rspkt.reduce);
  EXPECT_TRUE(rspkt.packet);
  // srcbuff/srcoff first, then srcs; dstbuff/dstoff first, then o_cids (peer 1's scratch).
  EXPECT_EQ(rspkt.srcs, (std::vector<ChunkRange>{{0, BufferKind::kInput, 0, 1}, {0, BufferKind::kScratch, 2, 1}}));
  EXPECT_EQ(rspkt.dsts, (std::vector<ChunkRange>{{0, BufferKind::kInput, 0, 1}, {1, BufferKind::kScratch, 4, 1}}));
  const Op& copy = plan.ranks[0].thread_blocks[1].ops[2];
  EXPECT_EQ(copy.name, "cpkt");
  EXPECT_EQ(copy.srcs, (std::vector<ChunkRange>{{0, BufferKind::kScratch, 6, 2}}));
  EXPECT_EQ(copy.dsts, (std::vector<ChunkRange>{{0, BufferKind::kInput, 2, 2}}));
}

TEST(MscclReader, XmlRingSteps) {
  LOOM_REQUIRE_FIXTURES();
  const std::string path = fixture("msccl_xml/astra-sim_custom_allreduce_ring_8gpus.xml");
  const Plan plan = read_plan_file(path);
  EXPECT_EQ(plan.format, PlanFormat::kMscclXml);
  EXPECT_EQ(plan.protocol, Protocol::kLL128);
  EXPECT_EQ(plan.rank_count(), 8u);
  const ThreadBlock& tb = plan.ranks[0].thread_blocks[0];
  EXPECT_EQ(tb.send_peer, 1u);
  EXPECT_EQ(tb.recv_peer, 7u);
  ASSERT_EQ(tb.ops.size(), 28u);
  EXPECT_EQ(tb.ops[1].name, "rrc");
  EXPECT_TRUE(tb.ops[1].receives && tb.ops[1].reduce && tb.ops[1].stores && !tb.ops[1].sends);
  EXPECT_EQ(tb.ops[1].dsts[0], (ChunkRange{0, BufferKind::kInput, 7, 1}));
  EXPECT_EQ(tb.ops[1].where, path + ":5: <step>");
}

TEST(MscclReader, XmlCrossThreadBlockDependencies) {
  LOOM_REQUIRE_FIXTURES();
  const Plan plan = read_plan_file(fixture("msccl_xml/collectiveapi_allgather_hierarchical_8gpus.xml"));
  const Op& first = plan.ranks[0].thread_blocks[1].ops[0];
  EXPECT_EQ(first.depends_on_tb, 0u);
  EXPECT_EQ(first.depends_on_step, 1u);
  EXPECT_TRUE(plan.ranks[0].thread_blocks[0].ops[1].has_dependents);
  EXPECT_EQ(first.srcs[0].count, 2u);
}

}  // namespace
}  // namespace loom::collective::msccl
