// Shared programs (workload/shared_programs.h): a workload built with them reads node for node
// and dependency for dependency as the one built with a record per node; a pipeline stage's
// ranks share one program; edits reach exactly the nodes they should.
#include <gtest/gtest.h>

#include "workload/synthesis_testing.h"
#include "loom/core/error.h"
#include "loom/workload/shared_programs.h"
#include "loom/workload/synthesis/training_step.h"

namespace loom::workload {
namespace {

using synthesis::testing::plan;
using synthesis::testing::small_gpt;

void expect_same_nodes(const Workload& a, const Workload& b) {
  ASSERT_EQ(a.node_count(), b.node_count());
  ASSERT_EQ(a.dependency_count(), b.dependency_count());
  for (NodeId id = 0; id < a.node_count(); ++id) {
    ASSERT_EQ(a.node(id), b.node(id)) << "node " << id << " (" << a.label(a.node(id).label) << ")";
    const DepList da = a.deps(id), db = b.deps(id);
    ASSERT_EQ(std::vector<NodeId>(da.begin(), da.end()), std::vector<NodeId>(db.begin(), db.end())) << "node " << id;
  }
}

synthesis::ParallelPlan zero3_interleaved() {
  synthesis::ParallelPlan p = plan(2, 2, 2, 8);
  p.schedule = synthesis::PipelineSchedule::kInterleaved;
  p.virtual_stages = 2;
  p.sharding = synthesis::Sharding::kFull;
  p.iterations = 2;
  return p;
}

TEST(SharedPrograms, ReadAsPerNodeStorage) {
  const synthesis::TransformerConfig model = small_gpt();
  for (const synthesis::ParallelPlan& p : {plan(2, 2, 2, 8), plan(1, 4, 2, 8), zero3_interleaved()}) {
    const Workload shared = synthesis::synthesize_training(model, p, NodeStorage::kSharedPrograms);
    const Workload per_node = synthesis::synthesize_training(model, p, NodeStorage::kPerNode);
    expect_same_nodes(shared, per_node);
    // The ranks of a stage share its program; stages differ (pipeline position, embeddings).
    EXPECT_EQ(shared.program_count(), p.pp);
    EXPECT_EQ(shared.stored_nodes() * p.ranks() / p.pp, per_node.node_count());
    EXPECT_EQ(per_node.program_count(), 0u);
  }
}

TEST(SharedPrograms, EditingOneRankCopiesItsProgramOnly) {
  const synthesis::ParallelPlan p = plan(2, 2, 2, 8);
  Workload shared = synthesis::synthesize_training(small_gpt(), p);
  Workload per_node = synthesis::synthesize_training(small_gpt(), p, NodeStorage::kPerNode);
  NodeId target = 0;
  while (shared.node(target).rank != 3 || shared.node(target).kind != NodeKind::kCompute) ++target;
  shared.editable_node(target).duration = Time::us(7);
  per_node.editable_node(target).duration = Time::us(7);
  expect_same_nodes(shared, per_node);
  EXPECT_EQ(shared.program_count(), p.pp + 1);
}

TEST(SharedPrograms, EditEachCountsTheNodesARecordStandsFor) {
  const synthesis::ParallelPlan p = plan(2, 2, 2, 8);
  Workload shared = synthesis::synthesize_training(small_gpt(), p);
  Workload per_node = synthesis::synthesize_training(small_gpt(), p, NodeStorage::kPerNode);
  const auto edit = [](Workload& w) {
    std::uint64_t compute = 0;
    w.edit_nodes([&compute](Node& n, std::uint64_t copies) {
      if (n.kind != NodeKind::kCompute) return;
      n.duration = Time::ns(static_cast<std::int64_t>(n.flops % 1000 + 1));
      compute += copies;
    });
    return compute;
  };
  EXPECT_EQ(edit(shared), edit(per_node));
  expect_same_nodes(shared, per_node);
}

// A builder whose node depends on another rank's breaks the storage's rule: a bug, not input.
TEST(SharedPrograms, RanksAreBlocksOfTheirOwn) {
  Workload w(2, NodeStorage::kSharedPrograms);
  Node n;
  n.label = w.intern_label("x");
  const NodeId first = w.add_node(n, {});
  n.rank = 1;
  const NodeId deps[] = {first};
  EXPECT_THROW(w.add_node(n, deps), InternalError);
}

// Blocks of very different lengths (one node to several index buckets, several blocks in one
// bucket): every node reads back as the block that holds it, also while the last block is open.
TEST(SharedPrograms, EveryNodeIsFoundInItsBlockWhateverTheBlockLengths) {
  SharedPrograms programs;
  std::vector<std::uint32_t> rank_of;
  const std::uint32_t lengths[] = {1, 3, 1500, 2, 1024, 1023, 1025, 5000, 1, 1, 2048, 7};
  NodeId id = 0;
  std::uint32_t rank = 0;
  for (int round = 0; round < 3; ++round) {
    for (const std::uint32_t length : lengths) {
      for (std::uint32_t i = 0; i < length; ++i, ++id) {
        Node n;
        n.kind = NodeKind::kCompute;
        n.rank = rank;
        n.duration = Time::ns(id);
        programs.add(id, n, {});
        rank_of.push_back(rank);
      }
      ++rank;
      // Read back with the last block still open.
      for (NodeId probe : {NodeId{0}, id / 2, id - 1}) {
        ASSERT_EQ(programs.node(probe).rank, rank_of[probe]) << "node " << probe << " of " << id;
      }
    }
  }
  programs.seal();
  for (NodeId probe = 0; probe < id; ++probe) {
    const Node n = programs.node(probe);
    ASSERT_EQ(n.rank, rank_of[probe]) << "node " << probe;
    ASSERT_EQ(n.duration, Time::ns(probe)) << "node " << probe;
  }
}

// A rank copied from another (Workload::add_rank_like) reads as that rank's nodes with its own
// communicators and peers; a copy that would put a rank outside its communicator or make it its
// own peer is refused as add_node refuses it.
TEST(SharedPrograms, ACopiedRankReadsAsItsTemplateWithItsOwnRoles) {
  Workload w(4, NodeStorage::kSharedPrograms);
  const CommunicatorId low = w.add_communicator({"low", "dp", {0, 1}});
  const CommunicatorId high = w.add_communicator({"high", "dp", {2, 3}});
  const LabelId label = w.intern_label("op");
  Node compute;
  compute.kind = NodeKind::kCompute;
  compute.label = label;
  compute.duration = Time::us(3);
  Node reduce = compute;
  reduce.kind = NodeKind::kCollective;
  reduce.op = collective::CollectiveOp::kAllReduce;
  reduce.communicator = low;
  reduce.bytes = 1024;
  Node send = compute;
  send.kind = NodeKind::kSend;
  send.peer = 1;
  send.bytes = 64;
  const NodeId first = w.add_node(compute, {});
  const NodeId second = w.add_node(reduce, std::vector<NodeId>{first});
  w.add_node(send, std::vector<NodeId>{second});
  const auto other_group = [&](CommunicatorId c) { return c == low ? high : low; };
  const auto next_rank = [](std::uint32_t peer) { return peer + 2; };
  w.add_rank_like(2, 0, other_group, next_rank);
  ASSERT_EQ(w.node_count(), 6u);
  EXPECT_EQ(w.dependency_count(), 4u);
  for (NodeId id = 0; id < 3; ++id) {
    Node expected = w.node(id);
    expected.rank = 2;
    if (expected.kind == NodeKind::kCollective) expected.communicator = high;
    if (expected.kind == NodeKind::kSend) expected.peer = 3;
    EXPECT_EQ(w.node(id + 3), expected) << "node " << id + 3;
    const DepList deps = w.deps(id + 3);
    std::vector<NodeId> shifted;
    for (NodeId d : w.deps(id)) shifted.push_back(d + 3);
    EXPECT_EQ(std::vector<NodeId>(deps.begin(), deps.end()), shifted);
  }
  EXPECT_EQ(w.program_count(), 1u);
  // Rank 3 in 'low', and rank 1 as its own peer: refused, nothing added.
  EXPECT_THROW(w.add_rank_like(3, 0, [&](CommunicatorId c) { return c; }, next_rank), UserError);
  EXPECT_THROW(w.add_rank_like(1, 0, [&](CommunicatorId c) { return c; }, [](std::uint32_t p) { return p; }), UserError);
  EXPECT_EQ(w.node_count(), 6u);
}

}  // namespace
}  // namespace loom::workload
