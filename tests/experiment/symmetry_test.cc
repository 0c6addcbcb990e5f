// Rank symmetry on vs off (experiment/symmetry_choice.h): the same experiment gives byte-identical
// tables and the same summary (but for its "symmetry" block and the switch itself) whether one
// representative per class of ranks is stepped or every rank is; where ranks are not
// equivalent, the reduction declines and says why.
#include <gtest/gtest.h>

#include <algorithm>

#include <nlohmann/json.hpp>

#include "experiment/switch_comparison.h"
#include "loom/experiment/symmetry_choice.h"
#include "fixtures.h"
#include "user_error.h"

namespace loom::experiment {
namespace {

namespace fs = std::filesystem;
using switched::run_text;
using switched::scratch_dir;
using switched::simai_experiment;

// Every file byte-identical and the summaries equal but for the symmetry block and the event
// count, with the reduction on and off. Without flows.csv (`with_flows` false), whose transfer
// log needs every transfer, operations among mirrored ranks are skipped where a twin stands for
// them. Returns the symmetry block of the reduced run.
// In flow mode the solver's work counters differ too (fewer flows are solved).
nlohmann::json expect_same_with_and_without(const std::string& name, const std::string& text,
                                            std::vector<std::string> overrides = {}, bool with_flows = false) {
  if (!with_flows) overrides.push_back("output.flows=false");
  std::vector<std::string> differing = {"symmetry", "/totals/events"};
  const bool flow = text.find("mode: flow") != std::string::npos ||
                    std::find(overrides.begin(), overrides.end(), "network.mode=flow") != overrides.end();
  if (flow) differing.push_back("/network/solver");
  const switched::SwitchedRuns runs =
      switched::expect_same_with_and_without("symmetry", differing, name, text, overrides, with_flows ? 4 : 3);
  EXPECT_EQ(runs.off.summary["symmetry"]["applied"], false);
  return runs.on.summary["symmetry"];
}

const char* const kTraining = R"(
topology: {blueprint: rail-optimized, hosts: 4, host_model: dgx-h100}
workload: {type: training, model: gpt-13b, tp: 8, pp: 2, dp: 2, global_batch: 8, distributed_optimizer: true}
collective: {algorithm: auto}
network: {mode: analytical}
)";

TEST(RankSymmetry, TrainingIsByteIdenticalWithAndWithoutTheReduction) {
  const nlohmann::json s = expect_same_with_and_without("training", kTraining);
  ASSERT_EQ(s["applied"], true) << s.dump();
  EXPECT_EQ(s["ranks"], 32);
  // Every TP peer and DP replica of a pipeline stage runs the same program: one class per stage.
  EXPECT_EQ(s["classes"], 2);
  EXPECT_EQ(s["class_list"][1]["members"], "16-31");
  // Classes found before the run hold: no run was repeated.
  EXPECT_TRUE(s.contains("rounds_up_front")) << s.dump();
  EXPECT_FALSE(s.contains("refinements")) << s.dump();
  EXPECT_GT(s["skipped_compute_nodes"].get<std::uint64_t>(), 0u);
  // The other DP replica's TP all-reduces are its TP peers' alone: the representative's TP
  // group stands for them.
  EXPECT_GT(s["skipped_operations"].get<std::uint64_t>(), 0u);
  EXPECT_GT(s["skipped_communicators"].get<std::uint64_t>(), 0u);
  // With the transfer log every operation runs, and the summary says why.
  const nlohmann::json logged = expect_same_with_and_without("training_flows", kTraining, {}, true);
  EXPECT_EQ(logged["skipped_operations"], 0);
  EXPECT_NE(logged.value("operations_not_skipped", "").find("output.flows"), std::string::npos) << logged.dump();
}

// ZeRO-3 gathers over DP rings that cross the rail-optimised fabric's spines, whose routes
// (hence times) depend on each operation's flow hashes: each is replayed with its own before
// the run, which splits the ranks those routes treat differently; the outputs are the full
// run's, without repeated runs.
TEST(RankSymmetry, InterleavedZeroThreeTrainingIsByteIdentical) {
  const nlohmann::json s = expect_same_with_and_without(
      "zero3", kTraining,
      {"workload.schedule=interleaved", "workload.virtual_stages=2", "workload.sharding=full", "workload.dp=4",
       "workload.tp=4", "workload.global_batch=8"});
  EXPECT_TRUE(s.contains("rounds_up_front")) << s.dump();
  EXPECT_FALSE(s.contains("refinements")) << s.dump();
}

TEST(RankSymmetry, SimaiWorkloadsAreByteIdenticalWithAndWithoutTheReduction) {
  LOOM_SKIP_WITHOUT_FIXTURE(switched::simai_workload_path(switched::kSmallSimaiWorkloads[0].first));
  for (const auto& [file, gpus] : switched::kSmallSimaiWorkloads) {
    const nlohmann::json s = expect_same_with_and_without(file, simai_experiment(file, gpus));
    EXPECT_TRUE(s.contains("applied")) << file;
  }
  // TP peers of a ring finish at different times: the 8 TP positions are the classes, each
  // holding the 8 DP replicas.
  const std::string g13b = "derived_G13B-M1-C01_GPT13B_megatron_tp8_pp1_mbs1_A100_hdrfix_g64.txt";
  const nlohmann::json s = expect_same_with_and_without("g13b_classes", simai_experiment(g13b, 64));
  ASSERT_EQ(s["applied"], true) << s.dump();
  EXPECT_EQ(s["classes"], 8);
  EXPECT_EQ(s["class_list"][1]["members"], "1,9,17,25,33,41,49,57");
  // Found before the run (one round: the ring's member ends), as repeated runs found them.
  EXPECT_EQ(s["rounds_up_front"], 1) << s.dump();
  EXPECT_FALSE(s.contains("refinements")) << s.dump();
}

// Every kind of communicator the training builder emits (ZeRO-3 with interleaving, ZeRO-1 with
// context parallelism, experts): whatever classes survive, the outputs are the full run's.
TEST(RankSymmetry, EveryBuilderPathIsByteIdentical) {
  for (const auto& [name, overrides] : switched::communicator_variants()) {
    const nlohmann::json s = expect_same_with_and_without(name, switched::small_training("analytical"), overrides);
    EXPECT_TRUE(s.contains("applied")) << name;
  }
}

// A straggler runs a program of its own (a longer micro-batch): it is no rank's mirror, and the
// ranks that wait for it differ from their class, which the run finds; the outputs stay exact.
TEST(RankSymmetry, StragglersAreByteIdentical) {
  const nlohmann::json s = expect_same_with_and_without(
      "stragglers", switched::small_training("analytical"),
      {"workload.variation.stragglers=[{rank: 5, factor: 3, micro_batch: 1}]"});
  const std::string text = s.dump();
  EXPECT_TRUE(s.value("applied", false) == false || s["classes"].get<std::uint32_t>() > 4) << text;
  // The straggler's TP peer and the next stage's ranks that wait on it are split off before the
  // run (its DP peers too: their gradient all-reduce has a member of another class).
  EXPECT_FALSE(s.contains("refinements")) << text;
}

// A ring all-reduce over `hosts` hosts of `gpus` GPUs, two hosts per leaf, one spine cable of a
// quarter of the NICs' bandwidth per leaf.
std::string ring_over_leaves(int hosts, int gpus) {
  return "topology: {blueprint: leaf-spine, hosts: " + std::to_string(hosts) +
         ", hosts_per_leaf: 2, gpus_per_host: " + std::to_string(gpus) +
         ", spines: 1, links_per_pair: 1, spine_link_bandwidth: 100Gbps}\n"
         "workload: {type: microbenchmark, collectives: [{op: all-reduce, group: world, size: 16MiB, "
         "algorithm: ring}]}\nnetwork: {mode: analytical}\n";
}

// Two hosts on one leaf and a third on another: in the ring over the three, one member's hops
// stay under its leaf and the others' cross the spine, so the ranks run one program but are not
// equivalent: the reduction finds it before the run, and with no class left declines and says why.
TEST(RankSymmetry, DeclinesWhereRanksAreNotEquivalentAndSaysSo) {
  const nlohmann::json s = expect_same_with_and_without("oversubscribed", ring_over_leaves(3, 1));
  EXPECT_EQ(s["applied"], false) << s.dump();
  EXPECT_NE(s.value("declined", "").find("not equivalent"), std::string::npos) << s.dump();
  EXPECT_NE(s.value("declined", "").find("before the run"), std::string::npos) << s.dump();
  EXPECT_FALSE(s.contains("refinements")) << s.dump();
}

// With four hosts of two GPUs, two hosts under each leaf, the members pair up by their place in
// the ring: the reduction splits the one class into two and stays exact.
TEST(RankSymmetry, SplitsRanksByWhatTheFabricDoesToThem) {
  const nlohmann::json s = expect_same_with_and_without("split", ring_over_leaves(4, 2));
  ASSERT_EQ(s["applied"], true) << s.dump();
  EXPECT_EQ(s["classes"], 2);
  EXPECT_EQ(s["class_list"][0]["members"], "0-1,4-5");
  EXPECT_FALSE(s.contains("refinements")) << s.dump();
}

// Flow mode (issue #21): mirrored ranks' operations run with every transfer in the flow
// backend, so contention is seen; operations among mirrored ranks only are skipped where their
// twin is timed in closed form, their own links reserved. On these fabrics the ranks of a class
// see the same links, and the outputs are the full run's.
// Without links.csv, whose sampling needs every transfer in the run, operations are timed in
// closed form and twins may be skipped.
const std::vector<std::string> kClosedFormFlow = {"network.mode=flow", "output.links=false"};

TEST(RankSymmetry, FlowModeTrainingIsByteIdenticalWithAndWithoutTheReduction) {
  const nlohmann::json s = expect_same_with_and_without("training_flow", kTraining, kClosedFormFlow);
  ASSERT_EQ(s["applied"], true) << s.dump();
  EXPECT_EQ(s["classes"], 2);
  EXPECT_FALSE(s.contains("refinements")) << s.dump();
  // The TP all-reduces run on NVLink alone: the other replica's are skipped.
  EXPECT_GT(s["skipped_operations"].get<std::uint64_t>(), 0u) << s.dump();
  // With links.csv (compared too) every operation runs transfer by transfer: only mirrored
  // compute nodes are saved, and the summary says why nothing was skipped.
  const nlohmann::json sampled = expect_same_with_and_without("training_flow_links", kTraining, {"network.mode=flow"});
  EXPECT_EQ(sampled["skipped_operations"], 0);
  EXPECT_TRUE(sampled.contains("operations_not_skipped")) << sampled.dump();
  // With the transfer log (flows.csv compared too).
  const nlohmann::json logged = expect_same_with_and_without("training_flow_flows", kTraining, kClosedFormFlow, true);
  EXPECT_EQ(logged["skipped_operations"], 0);
}

TEST(RankSymmetry, FlowModeEveryBuilderPathAndSimaiWorkloadIsByteIdentical) {
  for (auto [name, overrides] : switched::communicator_variants()) {
    overrides.push_back("output.links=false");
    const nlohmann::json s = expect_same_with_and_without(name + "_flow", switched::small_training("flow"), overrides);
    EXPECT_TRUE(s.contains("applied")) << name;
  }
  expect_same_with_and_without("stragglers_flow", switched::small_training("flow"),
                               {"output.links=false", "workload.variation.stragglers=[{rank: 5, factor: 3, micro_batch: 1}]"});
  LOOM_SKIP_WITHOUT_FIXTURE(switched::simai_workload_path(switched::kSmallSimaiWorkloads[0].first));
  for (const auto& [file, gpus] : switched::kSmallSimaiWorkloads) {
    const nlohmann::json s = expect_same_with_and_without(file + "_flow", simai_experiment(file, gpus), kClosedFormFlow);
    EXPECT_TRUE(s.contains("applied")) << file;
  }
}

// The oversubscribed leaf-spine rings above, in flow mode: where the ring's members cross the
// thin spine cable unevenly the ranks are not equivalent; the reduction declines or splits,
// says so, and the outputs stay the full run's.
TEST(RankSymmetry, FlowModeDeclinesOrSplitsWhereRanksAreNotEquivalent) {
  const nlohmann::json declined =
      expect_same_with_and_without("oversubscribed_flow", ring_over_leaves(3, 1), kClosedFormFlow);
  EXPECT_EQ(declined["applied"], false) << declined.dump();
  EXPECT_NE(declined.value("declined", "").find("not equivalent"), std::string::npos) << declined.dump();
  const nlohmann::json split = expect_same_with_and_without("split_flow", ring_over_leaves(4, 2), kClosedFormFlow);
  ASSERT_EQ(split["applied"], true) << split.dump();
  EXPECT_EQ(split["classes"], 2);
}

// DP rings over four hosts of a 2:1 leaf-spine, one per GPU position, cross the same spine
// cables: where a skipped twin's links are not free (reserved by the ring standing for it, or
// crossed by run flows) or the standing ring runs its transfers, the twin's operation runs
// after all (the summary counts them), and the outputs stay the full run's.
TEST(RankSymmetry, FlowModeTwinsSharingSpineCablesRunAndStayExact) {
  const std::string text =
      "topology: {blueprint: leaf-spine, hosts: 4, hosts_per_leaf: 2, gpus_per_host: 2, spines: 1, "
      "links_per_pair: 1, spine_link_bandwidth: 200Gbps}\n"
      "workload: {type: training, model: gpt-7b, tp: 2, pp: 1, dp: 4, global_batch: 8}\n"
      "network: {mode: flow}\n";
  const nlohmann::json s = expect_same_with_and_without("spine_twins_flow", text);
  EXPECT_TRUE(s.contains("applied")) << s.dump();
}

TEST(RankSymmetry, PacketModeDeclinesAndSaysWhy) {
  config::Document document = config::Document::parse(kTraining, "exp.yaml");
  document.apply_override("network.mode=packet");
  document.apply_override("system.symmetry=true");
  const SymmetryChoice choice = choose_symmetry(load(document));
  EXPECT_EQ(choice.classes, nullptr);
  EXPECT_NE(choice.declined.find("network.mode packet"), std::string::npos) << choice.declined;
}

// Off unless asked for (experiment.h says why).
TEST(RankSymmetry, OffByDefaultAndSaysSo) {
  const fs::path dir = scratch_dir("off");
  const Outcome o = run_text(kTraining, {"workload.tp=2", "workload.pp=1"}, dir);
  EXPECT_EQ(o.summary["symmetry"]["enabled"], false);
  EXPECT_NE(o.summary["symmetry"]["declined"].get<std::string>().find("system.symmetry"), std::string::npos);
  fs::remove_all(dir);
}

TEST(RankSymmetry, ANonBooleanSwitchIsRejectedWithItsKey) {
  const std::string error = testing::user_error_of([&] {
    config::Document document = config::Document::parse(std::string(kTraining) + "system: {symmetry: maybe}\n", "exp.yaml");
    load(document);
  });
  EXPECT_NE(error.find("symmetry"), std::string::npos) << error;
  EXPECT_NE(error.find("exp.yaml:"), std::string::npos) << error;
}

}  // namespace
}  // namespace loom::experiment
