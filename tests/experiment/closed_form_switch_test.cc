// Closed-form collective timing vs every transfer through the run (system.closed_form,
// system/collective_replay.h): in analytical and flow mode the same experiment gives
// byte-identical tables and the same summary but for the event count (and the flow solver's
// work counters), on the training examples, on plans with every kind of communicator (TP, PP,
// DP, CP, EP, ZeRO-3 gathers) and on SimAI workloads.
#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "experiment/switch_comparison.h"

namespace loom::experiment {
namespace {

// Returns the event counts with and without the closed form. In flow mode the solver's work
// counters differ with the events, and links sampled over time need every transfer.
std::pair<std::uint64_t, std::uint64_t> expect_same_closed_form_or_not(const std::string& name, const std::string& text,
                                                                       std::vector<std::string> overrides = {},
                                                                       const std::string& mode = "analytical") {
  overrides.push_back("network.mode=" + mode);
  overrides.push_back("output.flows=false");  // a transfer log needs every transfer in the run
  std::vector<std::string> differing = {"/totals/events"};
  if (mode == "flow") {
    overrides.push_back("output.links=false");
    differing.push_back("/network/solver");
  }
  // collectives, ranks and timeline
  const switched::SwitchedRuns runs =
      switched::expect_same_with_and_without("closed_form", differing, name, text, overrides, 3);
  const auto on = runs.on.summary["totals"]["events"].get<std::uint64_t>();
  const auto off = runs.off.summary["totals"]["events"].get<std::uint64_t>();
  EXPECT_LE(on, off) << name;
  return {on, off};
}

TEST(ClosedFormTiming, TrainingExamplesAreByteIdentical) {
  // Repeated operations are looked up: far fewer events than with every transfer.
  const auto [on, off] = expect_same_closed_form_or_not("gpt13b", switched::example("gpt13b_training_flow.yaml"));
  EXPECT_LT(on * 4, off);
  expect_same_closed_form_or_not("llama70b_cp_zero", switched::example("llama70b_cp_zero.yaml"));
  expect_same_closed_form_or_not("default", switched::example("default.yaml"));
}

const std::string kSmallTraining = switched::small_training("analytical");

TEST(ClosedFormTiming, EveryKindOfCommunicatorIsByteIdentical) {
  for (const auto& [name, overrides] : switched::communicator_variants()) {
    expect_same_closed_form_or_not(name, kSmallTraining, overrides);
  }
  // Hop latencies: transfers arrive through the runtime's arrival batches.
  expect_same_closed_form_or_not("ring_ll128", kSmallTraining,
                                 {"collective.algorithm=ring", "collective.protocol=ll128", "collective.chunks=4"});
  expect_same_closed_form_or_not("tree", kSmallTraining, {"collective.algorithm=tree"});
  expect_same_closed_form_or_not("nvls", kSmallTraining, {"collective.algorithm=nvls-tree", "workload.dp=1",
                                                          "workload.tp=8", "workload.global_batch=4"});
  // Staggered arrivals: stragglers reach each collective at other times than their peers.
  expect_same_closed_form_or_not("stragglers", kSmallTraining,
                                 {"workload.variation.compute_slowdown_chance=0.3",
                                  "workload.variation.compute_slowdown=[1.5, 2]"});
}

// Flow mode: operations on links no other flow uses are timed in closed form; the others, and
// any met by a flow while reserved (the run is then repeated without their group), run every
// transfer.
std::pair<std::uint64_t, std::uint64_t> expect_same_in_flow_mode(const std::string& name, const std::string& text,
                                                                 std::vector<std::string> overrides = {}) {
  return expect_same_closed_form_or_not(name, text, std::move(overrides), "flow");
}

TEST(ClosedFormTiming, FlowModeTrainingIsByteIdentical) {
  // TP operations inside hosts are timed apart; DP rings share NICs with pipeline sends.
  const auto [on, off] = expect_same_in_flow_mode("gpt13b_flow", switched::example("gpt13b_training_flow.yaml"));
  EXPECT_LT(on * 20, off);
  const std::string small = switched::small_training("flow");
  for (const auto& [name, overrides] : switched::communicator_variants()) {
    expect_same_in_flow_mode(name + "_flow", small, overrides);
  }
  expect_same_in_flow_mode("stragglers_flow", small,
                           {"workload.variation.compute_slowdown_chance=0.3",
                            "workload.variation.compute_slowdown=[1.5, 2]"});
  expect_same_in_flow_mode("ring_ll128_flow", small,
                           {"collective.algorithm=ring", "collective.protocol=ll128", "collective.chunks=4"});
  // Several QPs per transfer, each on its own ECMP route.
  expect_same_in_flow_mode("qps_flow", small, {"network.flow.queue_pairs=4"});
}

// flows.csv keeps the first output.max_rows transfers: the run sends every transfer until
// the log is full, then times operations in closed form. The log, the tables and the count of
// transfers not logged are those of the run that sends every transfer.
TEST(ClosedFormTiming, AFullTransferLogLetsTheRestRunInClosedForm) {
  for (const std::string mode : {"analytical", "flow"}) {
    std::vector<std::string> differing = {"/totals/events"};
    std::vector<std::string> overrides = {"network.mode=" + mode, "output.flows=true", "output.max_rows=5000"};
    if (mode == "flow") {
      overrides.push_back("output.links=false");
      differing.push_back("/network/solver");
    }
    const switched::SwitchedRuns runs = switched::expect_same_with_and_without(
        "closed_form", differing, "full_log_" + mode, switched::example("gpt13b_training_flow.yaml"), overrides, 4);
    const auto on = runs.on.summary["totals"]["events"].get<std::uint64_t>();
    const auto off = runs.off.summary["totals"]["events"].get<std::uint64_t>();
    // In flow mode, links the logged transfers crossed are not reserved later (FlowBackend::
    // may_reserve), so fewer operations are timed apart than without a log.
    EXPECT_LT(on * (mode == "flow" ? 3 : 8), off * 2) << mode << ": " << on << " vs " << off << " events";
    EXPECT_GT(runs.on.result.transfers_not_logged, 0u) << mode << ": the log must have filled";
  }
}

TEST(ClosedFormTiming, SimaiWorkloadsAreByteIdentical) {
  LOOM_SKIP_WITHOUT_FIXTURE(switched::simai_workload_path(switched::kSmallSimaiWorkloads[0].first));
  for (const auto& [file, gpus] : switched::kSmallSimaiWorkloads) {
    expect_same_closed_form_or_not(file, switched::simai_experiment(file, gpus));
  }
}

}  // namespace
}  // namespace loom::experiment
