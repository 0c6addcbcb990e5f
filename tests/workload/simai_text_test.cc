// SimAI / AICB workload text import: fixtures with old and new headers, the DAG shape of small
// hand-written files, and malformed input.
#include <algorithm>
#include <map>

#include <gtest/gtest.h>

#include "loom/core/error.h"
#include "loom/core/simulator.h"
#include "loom/network/analytical.h"
#include "loom/system/runtime.h"
#include "loom/topology/blueprints.h"
#include "loom/topology/routing.h"
#include "loom/workload/critical_path.h"
#include "loom/workload/simai/simai_text.h"
#include "workload/fixture_path.h"

namespace loom::workload::simai {
namespace {

using collective::CollectiveOp;
using testing::fixture;

bool any_warning(const SimaiWorkload& s, const std::string& text) {
  return std::any_of(s.warnings.begin(), s.warnings.end(),
                     [&](const ImportWarning& w) { return to_string(w).find(text) != std::string::npos; });
}

Time compute_time(const Workload& w, std::uint32_t rank) {
  Time total;
  for (NodeId id = 0; id < w.node_count(); ++id) {
    if (w.node(id).rank == rank && w.node(id).kind == NodeKind::kCompute) total += w.node(id).duration;
  }
  return total;
}

TEST(SimaiText, OldAicbHeaderIsDefaultedWithWarnings) {
  LOOM_REQUIRE_FIXTURE("aicb/L7B-M1-C04_Llama7B_megatron_tp2_pp1_mbs1_A100.txt");
  const SimaiWorkload s = read_simai(fixture("aicb/L7B-M1-C04_Llama7B_megatron_tp2_pp1_mbs1_A100.txt"));
  EXPECT_EQ(s.header.policy, "HYBRID_TRANSFORMER_FWD_IN_BCKWD");
  EXPECT_EQ(s.header.tp, 2u);
  EXPECT_EQ(s.header.all_gpus, 2u);
  EXPECT_TRUE(any_warning(s, ":1: header has no 'ep'; using 1"));
  EXPECT_TRUE(any_warning(s, ":1: header has no 'ga'; using 1"));
  EXPECT_TRUE(any_warning(s, ":1: header has no 'all_gpus'; using 2 ranks"));
  // 76 lines: 3 compute nodes each, 75 fwd + 66 ig collectives, one wg collective and its update.
  EXPECT_EQ(s.workload.node_count(), 2u * (76 * 3 + 75 + 66 + 1 + 1));
  EXPECT_EQ(compute_time(s.workload, 1), Time::ns(32842123 + 35888012 + 35888012 + 100));
  EXPECT_NO_THROW(s.workload.validate());
}

TEST(SimaiText, RankCountOptionSizesTheDataParallelGroups) {
  LOOM_REQUIRE_FIXTURE("aicb/G13B-M1-C02_GPT13B_megatron_tp8_pp1_mbs1_sp_A100.txt");
  Options options;
  options.default_rank_count = 32;
  const SimaiWorkload s = read_simai(fixture("aicb/G13B-M1-C02_GPT13B_megatron_tp8_pp1_mbs1_sp_A100.txt"), options);
  ASSERT_EQ(s.workload.rank_count(), 32u);
  std::map<std::string, std::size_t> sizes;
  for (NodeId id = 0; id < s.workload.node_count(); ++id) {
    const Node& n = s.workload.node(id);
    if (n.kind == NodeKind::kCollective) sizes[s.workload.communicator(n.communicator).group] =
        s.workload.communicator(n.communicator).ranks.size();
  }
  EXPECT_EQ(sizes, (std::map<std::string, std::size_t>{{"dp", 4}, {"tp", 8}}));
}

TEST(SimaiText, NewHeaderWithPipelineStagesAndGradientAccumulation) {
  LOOM_REQUIRE_FIXTURE("simai/inputs/workloads/aicb_generated_gpt_13B-world_size128-tp8-pp2-ep1-gbs128-mbs1-seq4096.txt");
  Options options;
  options.rank_count = 16;  // one data-parallel replica: TP 8 x PP 2
  const SimaiWorkload s = read_simai(
      fixture("simai/inputs/workloads/aicb_generated_gpt_13B-world_size128-tp8-pp2-ep1-gbs128-mbs1-seq4096.txt"),
      options);
  EXPECT_EQ(s.header.pp, 2u);
  EXPECT_EQ(s.header.ga, 16u);
  EXPECT_EQ(s.header.pp_comm, 41943040u);
  EXPECT_TRUE(s.warnings.empty());
  std::uint32_t sends = 0, recvs = 0;
  for (NodeId id = 0; id < s.workload.node_count(); ++id) {
    sends += s.workload.node(id).kind == NodeKind::kSend;
    recvs += s.workload.node(id).kind == NodeKind::kRecv;
  }
  // The file holds its 16 micro-batches, each from an embedding_layer line, each cut into vpp 20
  // chunks of one layer, 40 virtual stages over 2 stages. Per pair of ranks (stage 0, stage 1)
  // and micro-batch every hop between virtual stages is a send and a receive, 39 forward and 39
  // backward: 8 pairs x 16 x 78 of each. Its 683 lines run once each, as SimAI runs them: 683
  // forward computes per rank.
  EXPECT_EQ(sends, 8u * 16 * 78);
  EXPECT_EQ(recvs, 8u * 16 * 78);
  EXPECT_FALSE(any_warning(s, "micro-batch"));
  std::uint32_t forwards = 0;
  for (NodeId id = 0; id < s.workload.node_count(); ++id) {
    const Node& n = s.workload.node(id);
    forwards += n.rank == 0 && s.workload.label(n.label).ends_with(".fwd");
  }
  EXPECT_EQ(forwards, 683u);
  EXPECT_NO_THROW(s.workload.validate());
}

constexpr std::string_view kSmall =
    "HYBRID_TRANSFORMER_FWD_IN_BCKWD model_parallel_NPU_group: 2 ep: 2 pp: 1 vpp: 1 ga: 2 all_gpus: 8 "
    "checkpoints: 1 0 checkpoint_initiates: 0\n"
    "2\n"
    "attn -1 10 ALLREDUCE 100 20 ALLGATHER 200 30 REDUCESCATTER 300 5\n"
    "moe  -1 40 ALLTOALL_EP 400 50 NONE 0 60 ALLREDUCE_DP_EP 600 7\n";

TEST(SimaiText, SmallFileHasTheDocumentedShape) {
  const SimaiWorkload s = parse_simai(kSmall, "small.txt");
  // ga 2, but a table without embedding_layer lines is one micro-batch: its lines run once.
  ASSERT_EQ(s.warnings.size(), 1u);
  EXPECT_TRUE(any_warning(s, "small.txt:1: ga 2 but the layer table holds 1 micro-batch(es) (embedding_layer "
                             "lines); as in SimAI the lines run once per iteration and ga repeats nothing"));
  const Workload& w = s.workload;
  // Rank 0's nodes in order: forward, then backward in reverse, each wg collective and update
  // after its line's wg compute.
  std::vector<std::string> labels;
  for (NodeId id = 0; id < w.node_count(); ++id) {
    if (w.node(id).rank == 0) labels.emplace_back(w.label(w.node(id).label));
  }
  const std::vector<std::string> expected = {
      "attn.fwd", "attn.fwd.comm", "moe.fwd", "moe.fwd.comm",                                       // forward
      "moe.ig",   "moe.wg",        "moe.wg.comm", "moe.update",                                     // backward
      "attn.ig",  "attn.ig.comm",  "attn.wg",     "attn.wg.comm", "attn.update"};
  EXPECT_EQ(labels, expected);
  // Groups: TP {0,1}; DP of TP position 0 is {0,2,4,6}; EP pairs {0,2}; DP outside EP {0,4}.
  std::map<std::string, std::vector<std::uint32_t>> groups;
  for (NodeId id = 0; id < w.node_count(); ++id) {
    const Node& n = w.node(id);
    if (n.rank == 0 && n.kind == NodeKind::kCollective) {
      groups[std::string(w.label(n.label))] = w.communicator(n.communicator).ranks;
      if (w.label(n.label) == "moe.wg.comm") {
        EXPECT_EQ(n.stream, 1);
        EXPECT_EQ(n.bytes, 600u);
      }
    }
  }
  EXPECT_EQ(groups["attn.fwd.comm"], (std::vector<std::uint32_t>{0, 1}));
  EXPECT_EQ(groups["attn.wg.comm"], (std::vector<std::uint32_t>{0, 2, 4, 6}));
  EXPECT_EQ(groups["moe.fwd.comm"], (std::vector<std::uint32_t>{0, 2}));
  EXPECT_EQ(groups["moe.wg.comm"], (std::vector<std::uint32_t>{0, 4}));
  // Two ranks per TP group, two iterations make twice the nodes.
  Options two;
  two.iterations = 2;
  EXPECT_EQ(parse_simai(kSmall, "small.txt", two).workload.node_count(), 2 * w.node_count());
}

// A table with a prelude line and two micro-batches on two stages: the prelude runs outside
// the pipeline, forward goes through the micro-batches in file order, backward from the last.
TEST(SimaiText, MicroBatchesStartAtEmbeddingLayerLines) {
  constexpr std::string_view kTwoMicroBatches =
      "HYBRID_TRANSFORMER_FWD_IN_BCKWD model_parallel_NPU_group: 1 ep: 1 pp: 2 vpp: 1 ga: 2 all_gpus: 2 "
      "pp_comm: 1024\n"
      "5\n"
      "norm -1 1 NONE 0 1 NONE 0 1 ALLREDUCE 64 1\n"
      "embedding_layer -1 1 NONE 0 1 NONE 0 1 NONE 0 1\n"
      "attn -1 1 NONE 0 1 NONE 0 1 NONE 0 1\n"
      "embedding_layer -1 1 NONE 0 1 NONE 0 1 NONE 0 1\n"
      "attn -1 1 NONE 0 1 NONE 0 1 NONE 0 1\n";
  const SimaiWorkload s = parse_simai(kTwoMicroBatches, "mb.txt");
  EXPECT_TRUE(s.warnings.empty());
  std::map<std::uint32_t, std::vector<std::string>> order;
  for (NodeId id = 0; id < s.workload.node_count(); ++id) {
    const Node& n = s.workload.node(id);
    order[n.rank].push_back(std::string(s.workload.label(n.label)) + "/" + std::to_string(n.micro_batch));
  }
  EXPECT_EQ(order[0], (std::vector<std::string>{
                          "norm.fwd/0", "embedding_layer.fwd/0", "attn.fwd/0", "pp.send.activation/0",
                          "embedding_layer.fwd/1", "attn.fwd/1", "pp.send.activation/1",
                          "pp.recv.gradient/1", "attn.ig/1", "attn.wg/1", "embedding_layer.ig/1",
                          "embedding_layer.wg/1", "pp.recv.gradient/0", "attn.ig/0", "attn.wg/0",
                          "embedding_layer.ig/0", "embedding_layer.wg/0", "norm.ig/0", "norm.wg/0",
                          "norm.wg.comm/0", "norm.update/0"}));
  EXPECT_EQ(order[1].front(), "norm.fwd/0");
  EXPECT_EQ(order[1][1], "pp.recv.activation/0");
}

// Two pipeline stages, TP 2, DP 2, four micro-batches, two iterations: the runtime finishes it.
TEST(SimaiText, PipelinedFileRunsOnTheRuntime) {
  constexpr std::string_view kPipelined =
      "HYBRID_TRANSFORMER_FWD_IN_BCKWD model_parallel_NPU_group: 2 ep: 1 pp: 2 vpp: 1 ga: 4 all_gpus: 8 "
      "pp_comm: 65536\n"
      "8\n"
      "embedding_layer -1 1000 ALLREDUCE 4096 2000 ALLREDUCE 4096 2000 ALLREDUCE 8192 100\n"
      "mlp  -1 3000 ALLREDUCE 4096 6000 ALLREDUCE 4096 6000 ALLREDUCE 8192 100\n"
      "embedding_layer -1 1000 ALLREDUCE 4096 2000 ALLREDUCE 4096 2000 ALLREDUCE 8192 100\n"
      "mlp  -1 3000 ALLREDUCE 4096 6000 ALLREDUCE 4096 6000 ALLREDUCE 8192 100\n"
      "embedding_layer -1 1000 ALLREDUCE 4096 2000 ALLREDUCE 4096 2000 ALLREDUCE 8192 100\n"
      "mlp  -1 3000 ALLREDUCE 4096 6000 ALLREDUCE 4096 6000 ALLREDUCE 8192 100\n"
      "embedding_layer -1 1000 ALLREDUCE 4096 2000 ALLREDUCE 4096 2000 ALLREDUCE 8192 100\n"
      "mlp  -1 3000 ALLREDUCE 4096 6000 ALLREDUCE 4096 6000 ALLREDUCE 8192 100\n";
  Options options;
  options.iterations = 2;
  const SimaiWorkload s = parse_simai(kPipelined, "pp.txt", options);
  EXPECT_TRUE(s.warnings.empty());
  topology::SingleSwitchParams p;
  p.hosts = 8;
  p.host.gpus_per_host = 1;
  const topology::Topology topo = topology::make_single_switch(p);
  const topology::Routing routing(topo);
  Simulator simulator;
  network::AnalyticalBackend backend(simulator, topo, routing);
  system::RuntimeOptions runtime_options;
  runtime_options.comm_streams = 6;  // the pipeline's sends and receives on streams 2..5
  system::Runtime runtime(simulator, topo, s.workload, backend, runtime_options);
  const system::RunResult result = runtime.run();
  EXPECT_GE(result.makespan, critical_path_length(s.workload));
  EXPECT_GT(critical_path_length(s.workload), Time::us(2 * 4 * 20));  // one stage's compute, twice
}

void expect_error(std::string_view text, const std::string& message) {
  try {
    parse_simai(text, "bad.txt");
    FAIL() << "accepted: " << text;
  } catch (const UserError& e) {
    EXPECT_EQ(std::string(e.what()), message);
  }
}

// With shared programs a stage's later ranks are copied from its first (Workload::add_rank_like):
// node for node and dependency for dependency they read as ranks built one by one, on files with
// pipeline stages, expert parallelism and interleaving, and on a sample of ranks.
TEST(SimaiText, RanksCopiedWithinAStageReadAsRanksBuiltOneByOne) {
  const std::string example = "simai/inputs/workloads/simai_example_workload_analytical.txt";
  const std::string gpt13b = "simai/inputs/workloads/aicb_generated_gpt_13B-world_size128-tp8-pp2-ep1-gbs128-mbs1-seq4096.txt";
  LOOM_REQUIRE_FIXTURE(example);
  LOOM_REQUIRE_FIXTURE(gpt13b);
  struct Case {
    std::string file;
    std::optional<std::uint32_t> ranks, sample;
  };
  for (const Case& c : {Case{example, 384, {}}, Case{example, 768, 40}, Case{gpt13b, {}, {}}}) {
    SCOPED_TRACE(c.file);
    Options options;
    options.rank_count = c.ranks;
    options.sample = c.sample;
    options.storage = NodeStorage::kPerNode;
    const SimaiWorkload one_by_one = read_simai(fixture(c.file), options);
    options.storage = NodeStorage::kSharedPrograms;
    const SimaiWorkload copied = read_simai(fixture(c.file), options);
    const Workload& a = one_by_one.workload;
    const Workload& b = copied.workload;
    ASSERT_EQ(a.node_count(), b.node_count());
    ASSERT_EQ(a.dependency_count(), b.dependency_count());
    ASSERT_GT(a.node_count(), 0u);
    for (NodeId id = 0; id < a.node_count(); ++id) {
      ASSERT_EQ(a.node(id), b.node(id)) << "node " << id;
      const DepList da = a.deps(id), db = b.deps(id);
      ASSERT_EQ(std::vector<NodeId>(da.begin(), da.end()), std::vector<NodeId>(db.begin(), db.end())) << "node " << id;
    }
    // One program per pipeline stage (with interleaving, stages still differ).
    EXPECT_EQ(b.program_count(), copied.header.pp);
    EXPECT_EQ(b.counts().nodes, a.counts().nodes);
  }
}

TEST(SimaiText, MalformedFilesNameTheLine) {
  expect_error("NOPE\n0\n", "bad.txt:1: unknown policy 'NOPE', expected HYBRID_TRANSFORMER_FWD_IN_BCKWD, "
                            "HYBRID_TRANSFORMER, MICRO or DATA");
  expect_error("MICRO\n1\nx -1 1 SEND 5 1 NONE 0 1 NONE 0 1\n",
               "bad.txt:3: unknown comm type 'SEND', expected NONE or ALLREDUCE, ALLGATHER, REDUCESCATTER, ALLTOALL, "
               "BROADCAST with an optional _EP or _DP_EP suffix");
  expect_error("MICRO\n2\nx -1 1 NONE 0 1 NONE 0 1 NONE 0 1\n",
               "bad.txt:2: the header announces 2 layer lines but the file has 1");
  expect_error("MICRO\n1\nx -1 1 NONE 0 1 NONE 0 1 NONE 0\n",
               "bad.txt:3: 11 fields, expected 12 (name depends fwd_compute fwd_comm_type fwd_comm_bytes ig_compute "
               "ig_comm_type ig_comm_bytes wg_compute wg_comm_type wg_comm_bytes wg_update_time)");
  expect_error("MICRO\n1\nx -1 1.5 NONE 0 1 NONE 0 1 NONE 0 1\n",
               "bad.txt:3: fwd_compute is '1.5', expected a whole number >= 0");
  expect_error("MICRO model_parallel_NPU_group: 3 all_gpus: 8\n0\n",
               "bad.txt:1: 8 ranks do not split into TP 3 x PP 1 with the EP group 1 inside data parallelism; "
               "expected all_gpus to be a multiple of TP * PP * EP");
}

}  // namespace
}  // namespace loom::workload::simai
