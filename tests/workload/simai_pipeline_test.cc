// SimAI text with pipeline stages: vpp chunks run in Megatron's interleaved 1F1B order, their
// bubble written out by hand, and the files whose vpp cannot be honoured.
#include <map>
#include <string>

#include <gtest/gtest.h>

#include "loom/core/error.h"
#include "loom/core/simulator.h"
#include "loom/network/analytical.h"
#include "loom/system/runtime.h"
#include "loom/topology/blueprints.h"
#include "loom/topology/routing.h"
#include "loom/workload/simai/simai_text.h"

namespace loom::workload::simai {
namespace {

// Two stages of one rank each, four micro-batches of an embedding line (no time) and two layers,
// each an attention line (fwd 10 us, ig 20 us) and an MLP line (no time); no weight gradient, no
// communication but the stages'.
std::string two_stage_text(std::uint32_t vpp, std::uint32_t layers_per_micro_batch = 2,
                           std::uint32_t micro_batches = 4) {
  std::string text = "HYBRID_TRANSFORMER_FWD_IN_BCKWD model_parallel_NPU_group: 1 ep: 1 pp: 2 vpp: " +
                     std::to_string(vpp) + " ga: " + std::to_string(micro_batches) + " all_gpus: 2\n" +
                     std::to_string(micro_batches * (1 + 2 * layers_per_micro_batch)) + "\n";
  for (std::uint32_t m = 0; m < micro_batches; ++m) {
    text += "embedding_layer -1 0 NONE 0 0 NONE 0 0 NONE 0 0\n";
    for (std::uint32_t l = 0; l < layers_per_micro_batch; ++l) {
      text += "attention_layer -1 10000 NONE 0 20000 NONE 0 0 NONE 0 0\n";
      text += "mlp_layer -1 0 NONE 0 0 NONE 0 0 NONE 0 0\n";
    }
  }
  return text;
}

// A rank's pipeline steps as the pipeline_schedule tests write them ("F0 F1 F0c1 B0c1 ..."),
// read back from its compute nodes: lines 5m + 3 and 5m + 4 are chunk 1 of micro-batch m.
std::string steps_of(const Workload& w, std::uint32_t rank) {
  std::string out, previous;
  for (NodeId id = 0; id < w.node_count(); ++id) {
    const Node n = w.node(id);
    if (n.rank != rank || n.kind != NodeKind::kCompute) continue;
    const bool forward = w.label(n.label).ends_with(".fwd");
    const std::string step = (forward ? "F" : "B") + std::to_string(n.micro_batch) + (n.layer % 5 >= 3 ? "c1" : "");
    if (step == previous) continue;
    out += (out.empty() ? "" : " ") + step;
    previous = step;
  }
  return out;
}

TEST(SimaiPipeline, VirtualStagesRunInMegatronsInterleavedOrder) {
  const SimaiWorkload s = parse_simai(two_stage_text(2), "vpp.txt");
  EXPECT_TRUE(s.warnings.empty());
  // pipeline_order(kInterleaved, 2 stages, stage, 4 micro-batches, 2 chunks), as in
  // pipeline_schedule_test.cc.
  EXPECT_EQ(steps_of(s.workload, 0), "F0 F1 F0c1 F1c1 F2 B0c1 F3 B1c1 F2c1 B0 F3c1 B1 B2c1 B3c1 B2 B3");
  EXPECT_EQ(steps_of(s.workload, 1), "F0 F1 F0c1 B0c1 F1c1 B1c1 F2 B0 F3 B1 F2c1 B2c1 F3c1 B3c1 B2 B3");
  // Virtual stages 0 (rank 0, chunk 0), 1 (rank 1, chunk 0), 2 (rank 0, chunk 1), 3 (rank 1,
  // chunk 1): rank 0 receives activations for chunk 1 only and sends them from both chunks; it
  // receives gradients for both and sends them from chunk 1 only; rank 1 the other way round.
  std::map<std::string, int> p2p[2];
  for (NodeId id = 0; id < s.workload.node_count(); ++id) {
    const Node n = s.workload.node(id);
    if (n.kind != NodeKind::kSend && n.kind != NodeKind::kRecv) continue;
    EXPECT_EQ(n.peer, 1 - n.rank);
    ++p2p[n.rank][std::string(s.workload.label(n.label))];
  }
  EXPECT_EQ(p2p[0], (std::map<std::string, int>{{"pp.recv.activation", 4}, {"pp.send.activation", 8},
                                                {"pp.recv.gradient", 8}, {"pp.send.gradient", 4}}));
  EXPECT_EQ(p2p[1], (std::map<std::string, int>{{"pp.recv.activation", 8}, {"pp.send.activation", 4},
                                                {"pp.recv.gradient", 4}, {"pp.send.gradient", 8}}));
  EXPECT_NO_THROW(s.workload.validate());
}

Time makespan(const SimaiWorkload& s) {
  topology::SingleSwitchParams p;
  p.hosts = 2;
  p.host.gpus_per_host = 1;
  p.link_latency = p.switch_latency = Time::zero();
  p.host.nvlink_latency = p.host.nvswitch_latency = p.host.pcie_latency = p.host.nic_latency = Time::zero();
  const topology::Topology topo = topology::make_single_switch(p);
  const topology::Routing routing(topo);
  Simulator simulator;
  network::AnalyticalBackend backend(simulator, topo, routing);
  system::RuntimeOptions options;
  options.comm_streams = 6;
  system::Runtime runtime(simulator, topo, s.workload, backend, options);
  return runtime.run().makespan;
}

// Per chunk and micro-batch a forward of t_f = 10 us and a backward of t_b = 20 us; the stages
// exchange no bytes (pp_comm 0), only the dependency. Interleaved 1F1B over p = 2 stages, v = 2
// chunks and m = 4 micro-batches takes m v (t_f + t_b) + (p - 1)(t_f + t_b) = 8 x 30 + 30 =
// 270 us (stepping the orders above by hand gives the same): a bubble of 30 us, (p - 1) / (m v)
// of the work, as SimAI's formula has it, (pp - 1) / (ga vpp) of the lines' fwd and ig time
// (240 us / 8; no weight-gradient time here, which SimAI's formula leaves out). GPipe (vpp 1, one
// chunk of 60 us a micro-batch) takes (m + p - 1) x 60 = 300 us.
TEST(SimaiPipeline, InterleavingShrinksTheBubbleToTheFormula) {
  const Time unit = Time::us(10);
  EXPECT_EQ(makespan(parse_simai(two_stage_text(2), "vpp2.txt")), 27 * unit);
  EXPECT_EQ(makespan(parse_simai(two_stage_text(1), "vpp1.txt")), 30 * unit);
}

void expect_error(const std::string& text, const std::string& message) {
  try {
    parse_simai(text, "bad.txt");
    FAIL() << "accepted: " << text;
  } catch (const UserError& e) {
    EXPECT_EQ(std::string(e.what()), message);
  }
}

TEST(SimaiPipeline, VppThatCannotBeHonouredIsAnError) {
  expect_error(two_stage_text(2, 3), "bad.txt:3: the micro-batch starting here holds 3 transformer layers (each from "
                                     "an attention* line), which vpp 2 does not split evenly; expected a positive "
                                     "multiple of 2 (Megatron gives each of a stage's chunks the same number of "
                                     "layers)");
  expect_error(two_stage_text(2, 2, 3), "bad.txt:1: vpp 2 needs the micro-batches to be a multiple of pp 2, as "
                                        "Megatron's interleaved schedule requires; the layer table holds 3 "
                                        "(embedding_layer lines)");
  std::string no_layers = two_stage_text(2);
  for (std::size_t at = no_layers.find("attention_layer"); at != std::string::npos;
       at = no_layers.find("attention_layer")) {
    no_layers.replace(at, 15, "mlp_layer");
  }
  expect_error(no_layers, "bad.txt:3: the micro-batch starting here holds 0 transformer layers (each from an "
                          "attention* line), which vpp 2 does not split evenly; expected a positive multiple of 2 "
                          "(Megatron gives each of a stage's chunks the same number of layers)");
}

TEST(SimaiPipeline, VppWithoutStagesIsWarnedAbout) {
  std::string text = two_stage_text(2);
  text.replace(text.find("pp: 2 vpp"), 9, "pp: 1 vpp");
  const SimaiWorkload s = parse_simai(text, "one.txt");
  ASSERT_EQ(s.warnings.size(), 1u);
  EXPECT_EQ(to_string(s.warnings[0]), "one.txt:1: vpp 2 has no effect without pipeline stages (pp 1)");
}

}  // namespace
}  // namespace loom::workload::simai
