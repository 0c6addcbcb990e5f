// Cluster experiments in the network modes (experiment/cluster_fidelity.h): jobs that share
// links slow each other down in flow mode and not in analytical mode; iteration fast-forward
// agrees with one simulation of every iteration; the sections' errors.
#include <cmath>
#include <filesystem>
#include <iomanip>
#include <iostream>
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "loom/config/document.h"
#include "loom/core/error.h"
#include "loom/core/simulator.h"
#include "cluster_text.h"
#include "loom/experiment/cluster_experiment.h"
#include "loom/network/models/backend_factory.h"
#include "loom/system/runtime.h"
#include "loom/topology/routing.h"
#include "loom/workload/composition.h"
#include "user_error.h"

namespace loom::experiment {
namespace {

namespace fs = std::filesystem;
using testing::load_cluster_text;

ClusterOutcome run(ClusterExperiment e, const std::string& name) {
  e.output.dir = fs::temp_directory_path() / ("loom_cluster_fidelity_" + name);
  fs::remove_all(e.output.dir);
  ClusterOutcome outcome = run_cluster(e);
  fs::remove_all(e.output.dir);
  return outcome;
}

double seconds(const cluster::Span& s) { return s.seconds(); }

// 16 hosts of 8 GPUs on two leaves with one 400G uplink each: jobs crossing leaves contend.
std::string contention(const std::string& mode, const std::string& placement, bool with_b) {
  return testing::two_all_reduce_jobs(
      "{blueprint: leaf-spine, hosts: 16, hosts_per_leaf: 8, gpus_per_host: 8, spines: 1, links_per_pair: 1}", mode,
      placement, with_b, 64, "64MiB");
}

// The same two jobs in job mode: opaque durations of 1 h on the same fabric and placements.
std::string contention_job_mode(const std::string& placement, bool with_b) {
  std::string yaml = contention("job", placement, with_b);
  yaml.erase(yaml.find("  workloads:"), yaml.find("  jobs:") - yaml.find("  workloads:"));
  for (std::size_t at = yaml.find("workload: dp, iterations: 20"); at != std::string::npos;
       at = yaml.find("workload: dp, iterations: 20")) {
    yaml.replace(at, std::string("workload: dp, iterations: 20").size(), "duration: 1h");
  }
  return yaml;
}

cluster::Span jct_of_a(const std::string& mode, const std::string& placement, bool with_b) {
  const std::string yaml = mode == "job" ? contention_job_mode(placement, with_b) : contention(mode, placement, with_b);
  const ClusterOutcome o = run(load_cluster_text(yaml), mode + placement + (with_b ? "ab" : "a"));
  EXPECT_EQ(o.result.jobs[0].hosts, placement == "packed" ? 8u : 16u);  // packed: leaf 0; spread: every host
  EXPECT_EQ(*o.result.jobs[0].first_start, cluster::Span::zero());
  return *o.result.jobs[0].end;
}

// Issue #14's contention test: two 64-GPU data-parallel jobs on shared leaves run slower in
// flow mode than placed apart, and exactly as fast as alone in analytical and job mode.
TEST(ClusterFidelity, JobsSharingUplinksSlowEachOtherInFlowModeOnly) {
  // Packed: a fills leaf 0 and b leaf 1, no shared link. Spread: both span every host and
  // both leaves' uplinks.
  EXPECT_EQ(jct_of_a("flow", "packed", true), jct_of_a("flow", "packed", false));
  const cluster::Span shared = jct_of_a("flow", "spread", true);
  const cluster::Span alone = jct_of_a("flow", "spread", false);
  EXPECT_GT(seconds(shared), 1.2 * seconds(alone));
  EXPECT_GT(shared, jct_of_a("flow", "packed", true));
  // Analytical mode is contention-free: a co-runner changes nothing.
  EXPECT_EQ(jct_of_a("analytical", "spread", true), jct_of_a("analytical", "spread", false));
  EXPECT_EQ(jct_of_a("analytical", "packed", true), jct_of_a("analytical", "packed", false));
  // Job mode runs each job for its duration, wherever it is and whatever runs beside it.
  for (const char* placement : {"packed", "spread"}) {
    for (const bool with_b : {false, true}) EXPECT_EQ(jct_of_a("job", placement, with_b), cluster::Span::ns(3'600'000'000'000));
  }
}

TEST(ClusterFidelity, SummaryAndJobsTableShowTheSimulation) {
  const ClusterOutcome o = run(load_cluster_text(contention("flow", "spread", true)), "summary");
  const nlohmann::json& s = o.summary;
  EXPECT_EQ(s["mode"], "flow");
  EXPECT_EQ(s["simulation"]["mode"], "flow");
  EXPECT_EQ(s["simulation"]["fast_forward_iterations"], 2);
  // References of a and b (same workload and GPUs 0..63: one simulation, then remembered),
  // then {a, b} together.
  EXPECT_EQ(s["simulation"]["simulations"], 2);
  EXPECT_GE(s["simulation"]["remembered"], 1);
  EXPECT_GT(o.result.jobs[0].iteration_time, cluster::Span::zero());
}

// Flow mode times operations on links nobody else uses in closed form (system.closed_form), in
// cluster runs as in single runs: a and b spread over both leaves share the uplink, so the
// first flow of one that meets the other's closed-form all-reduce stops that simulation, which
// is repeated with the conflicting group sent transfer by transfer. Every job's times are those
// of the run with every transfer, with fewer events.
TEST(ClusterFidelity, ClosedFormTimingInFlowModeChangesNoJobsTime) {
  const std::string yaml = contention("flow", "spread", true);
  const ClusterOutcome closed = run(load_cluster_text(yaml), "closed_form_on");
  const ClusterOutcome every = run(load_cluster_text("system: {closed_form: false}\n" + yaml), "closed_form_off");
  ASSERT_EQ(closed.result.jobs.size(), 2u);
  for (std::size_t j = 0; j < 2; ++j) {
    EXPECT_EQ(*closed.result.jobs[j].end, *every.result.jobs[j].end) << j;
    EXPECT_EQ(closed.result.jobs[j].iteration_time, every.result.jobs[j].iteration_time) << j;
  }
  const nlohmann::json& on = closed.summary["simulation"];
  const nlohmann::json& off = every.summary["simulation"];
  EXPECT_EQ(on["simulations"], off["simulations"]);
  EXPECT_GE(on["closed_form_repeats"], 1) << "the shared uplink makes {a, b} conflict";
  EXPECT_EQ(off["closed_form_repeats"], 0);
  std::cout << "closed form: " << on["closed_form_repeats"] << " repeats, events " << on["events"] << " vs "
            << off["events"] << " sending every transfer\n";
  // The references (each job alone) need no repeat and send no transfer of the all-reduce.
  EXPECT_LT(on["events"].get<double>(), off["events"].get<double>());
}

// Iteration fast-forward against one simulation of every iteration: a (hosts 0-11: leaf 0 and
// half of leaf 1) runs 40 all-reduces from 0; b (hosts 12-23: half of leaf 1 and leaf 2)
// arrives mid-run and runs 20. Both rings cross leaf 1's single uplink, so while both run
// each slows the other down.
std::string a_then_b(const std::string& collective_section = "") {
  return R"(
topology: {blueprint: leaf-spine, hosts: 24, hosts_per_leaf: 8, gpus_per_host: 1, spines: 1, links_per_pair: 1}
)" + collective_section + R"(cluster:
  mode: flow
  workloads:
    dp: {type: microbenchmark, ranks: 12, collectives: [{op: all-reduce, group: world, size: 64MiB}]}
  jobs:
    - {id: a, gpus: 12, workload: dp, iterations: 40}
    - {id: b, submit: 30ms, gpus: 12, workload: dp, iterations: 20}
  sample_interval: 0
)";
}

TEST(ClusterFidelity, FastForwardMatchesSimulatingEveryIteration) {
  const std::string yaml = a_then_b();
  const ClusterExperiment e = load_cluster_text(yaml);
  const ClusterOutcome o = run(load_cluster_text(yaml), "fast_forward");
  const cluster::Span ff_a = *o.result.jobs[0].end;
  const cluster::Span ff_b = *o.result.jobs[1].end - cluster::Span::ns(30'000'000);

  // The same two jobs in one simulation: b's ranks wait 30 ms, then run their iterations.
  const ClusterNetwork& net = *e.network;
  const workload::Workload& dp = net.workloads.at("dp").workload;
  workload::Composition composition(net.topology.gpu_count());
  std::vector<std::uint32_t> a_ranks(12), b_ranks(12);
  for (std::uint32_t r = 0; r < 12; ++r) {
    a_ranks[r] = r;
    b_ranks[r] = 12 + r;
    composition.delay(12 + r, Time::ms(30), "submit");
  }
  const workload::NodeRange a = composition.append(dp, a_ranks, "a/", 40).back();
  const workload::NodeRange b = composition.append(dp, b_ranks, "b/", 20).back();
  const workload::Workload both = composition.take();
  Simulator simulator;
  topology::Routing routing(net.topology);
  auto backend = network::make_backend(simulator, net.topology, routing, net.network.params);
  system::Runtime runtime(simulator, net.topology, both, *backend, net.runtime);
  const system::RunResult truth = runtime.run();
  const auto end_of = [&](workload::NodeRange range) {
    Time end;
    for (workload::NodeId id = range.first; id < range.last; ++id) end = std::max(end, truth.nodes[id].end);
    return end.picoseconds() * 1e-12;
  };
  const double truth_a = end_of(a), truth_b = end_of(b) - 30e-3;
  std::cout << std::setprecision(5) << "fast-forward / every iteration: a " << seconds(ff_a) / truth_a << ", b "
            << seconds(ff_b) / truth_b << "\n";
  EXPECT_NEAR(seconds(ff_a) / truth_a, 1.0, 0.01) << "fast-forward " << seconds(ff_a) << " s, every iteration " << truth_a;
  EXPECT_NEAR(seconds(ff_b) / truth_b, 1.0, 0.01) << "fast-forward " << seconds(ff_b) << " s, every iteration " << truth_b;
  // b arrived while a was running and left before it, and they contended: a alone is faster.
  EXPECT_GT(truth_a, 30e-3 + truth_b);
  std::string alone = yaml;
  alone.erase(alone.find("    - {id: b"), alone.find("  sample_interval") - alone.find("    - {id: b"));
  EXPECT_GT(truth_a, 1.05 * seconds(*run(load_cluster_text(alone), "fast_forward_alone").result.jobs[0].end));
  // Simulated: a alone on GPUs 0-11 (also b's reference), {a, b}, a alone again (remembered).
  EXPECT_EQ(o.summary["simulation"]["simulations"], 2);
}

// A group's simulation stops once every member's measured iterations have ended: later events
// cannot move those ends, so the times are the same as running the trailing iterations out.
// (a and b of the test above, 64 chunks per all-reduce so that the run is long enough for the
// stop check, every Simulator::kWatchdogEvents events, to come before the end.)
TEST(ClusterFidelity, GroupSimulationsStopWhenTheMeasuredIterationsEnd) {
  ClusterExperiment e = load_cluster_text(a_then_b("collective: {algorithm: ring, chunks: 64}\n"));
  const ClusterOutcome stopped = run(e, "stop_measured");
  e.network->stop_when_measured = false;
  const ClusterOutcome full = run(e, "stop_full");
  for (std::size_t j = 0; j < 2; ++j) {
    EXPECT_EQ(*stopped.result.jobs[j].end, *full.result.jobs[j].end);
    EXPECT_EQ(stopped.result.jobs[j].iteration_time, full.result.jobs[j].iteration_time);
  }
  const double stopped_events = stopped.summary["simulation"]["events"];
  const double full_events = full.summary["simulation"]["events"];
  std::cout << "events with the stop / run out: " << stopped_events / full_events << "\n";
  EXPECT_LT(stopped_events, 0.95 * full_events);
}

TEST(ClusterFidelity, UnevenPlacementsAreTuned) {
  // Spread places b's 6 GPUs 2, 2, 1, 1 over the 4 hosts (a holds one GPU on hosts 0 and 1):
  // the tuner models uneven hosts with flat algorithms instead of refusing them.
  const ClusterOutcome o = run(load_cluster_text(R"(
topology: {blueprint: leaf-spine, hosts: 4, hosts_per_leaf: 2, gpus_per_host: 4}
collective: {algorithm: auto}
cluster:
  mode: flow
  placement: spread
  workloads:
    dp2: {type: microbenchmark, ranks: 2, collectives: [{op: all-reduce, group: world, size: 4MiB}]}
    dp6: {type: microbenchmark, ranks: 6, collectives: [{op: all-reduce, group: world, size: 4MiB}]}
  jobs:
    - {id: a, gpus: 2, workload: dp2, iterations: 10}
    - {id: b, gpus: 6, workload: dp6, iterations: 10}
  sample_interval: 0
)"), "uneven");
  EXPECT_EQ(o.summary["jobs"]["finished"], 2);
  EXPECT_EQ(o.result.jobs[1].hosts, 4u);
}

// A spine drained mid-run: the job's cross-leaf all-to-all loses half its uplinks for the
// window and reroutes; afterwards it runs as before. Work advances at T_normal / T_drained
// during the window, so the job ends d (1 - T_normal / T_drained) later than undrained.
TEST(ClusterFidelity, ASpineDrainReroutesAndSlowsJobsOnlyDuringIt) {
  const auto yaml = [](const std::string& maintenance) {
    return R"(
topology: {blueprint: leaf-spine, hosts: 8, hosts_per_leaf: 4, gpus_per_host: 1, spines: 2, links_per_pair: 1}
cluster:
  mode: flow
  workloads:
    a2a: {type: microbenchmark, ranks: 8, collectives: [{op: all-to-all, group: world, size: 16MiB, algorithm: direct}]}
  jobs:
    - {id: a, gpus: 8, workload: a2a, iterations: 400}
)" + maintenance + "  sample_interval: 0\n";
  };
  const ClusterOutcome normal = run(load_cluster_text(yaml("")), "drain_none");
  const ClusterOutcome drained_all =
      run(load_cluster_text(yaml("  maintenance: [{target: spine.0, start: 0s, duration: 1h}]\n")), "drain_all");
  const ClusterOutcome drained =
      run(load_cluster_text(yaml("  maintenance: [{target: spine.0, start: 20ms, duration: 30ms}]\n")), "drain_mid");
  const double t_normal = seconds(normal.result.jobs[0].iteration_time);
  const double t_drained = seconds(drained_all.result.jobs[0].iteration_time);
  EXPECT_GT(t_drained, 1.3 * t_normal);
  const double expected = seconds(*normal.result.jobs[0].end) + 30e-3 * (1 - t_normal / t_drained);
  EXPECT_NEAR(seconds(*drained.result.jobs[0].end), expected, 1e-6);
  // Normal, drained, normal again (remembered).
  EXPECT_EQ(drained.summary["simulation"]["simulations"], 2);
  EXPECT_EQ(drained.summary["preemptions"], 0);
}

// Training data on another host is fetched over the fabric before the first iteration: a
// direct scatter from host 0's NIC (400 Gb/s) of 512 MiB to each of the job's 2 hosts, both
// flows through that one NIC: 1 GiB x 8 / 400e9 s = 21.47 ms (plus tens of microseconds of
// hop and protocol latency: within 0.5%). With the data on one of the job's own hosts only the
// other host's half moves: 10.74 ms.
TEST(ClusterFidelity, TrainingDataIsStagedOverTheFabricFirst) {
  const auto jct = [](const std::string& data) {
    const ClusterOutcome o = run(load_cluster_text(R"(
topology: {blueprint: leaf-spine, hosts: 4, hosts_per_leaf: 4, gpus_per_host: 1}
cluster:
  mode: flow
  workloads:
    dp: {type: microbenchmark, ranks: 2, collectives: [{op: all-reduce, group: world, size: 1MiB}]}
  jobs:
    - {id: a, gpus: 2, workload: dp, iterations: 10)" + data + R"(}
  placement: spread
  sample_interval: 0
)"), "staging");
    return seconds(*o.result.jobs[0].end);
  };
  const double none = jct("");
  // Spread: a runs on hosts 0 and 1; the data sits on host 2 or on host 0.
  EXPECT_NEAR(jct(", data: {host: host.2, size: 1GiB}") - none, 1073741824.0 * 8 / 400e9, 0.005 * 21.47e-3);
  EXPECT_NEAR(jct(", data: {host: host.0, size: 1GiB}") - none, 536870912.0 * 8 / 400e9, 0.005 * 10.74e-3);
  EXPECT_THAT(loom::testing::user_error_of([] {
                load_cluster_text("topology: {blueprint: leaf-spine, hosts: 2, gpus_per_host: 8}\ncluster:\n  jobs: "
                                  "[{id: a, gpus: 8, duration: 1h, data: {host: host.0, size: 1GiB}}]\n");
              }),
              ::testing::HasSubstr("job mode does not move"));
}

std::string error_of(const std::string& yaml) {
  return loom::testing::user_error_of([&] { load_cluster_text(yaml); });
}

const char* kTopology = "topology: {blueprint: leaf-spine, hosts: 2, hosts_per_leaf: 2, gpus_per_host: 8}\n";
const char* kWorkloads =
    "  workloads: {dp: {type: microbenchmark, ranks: 8, collectives: [{op: all-reduce, group: world, size: 1MiB}]}}\n";

TEST(ClusterFidelity, EveryMisuseIsNamed) {
  using ::testing::HasSubstr;
  const std::string t = kTopology, w = kWorkloads;
  EXPECT_THAT(error_of(t + "cluster:\n  mode: flow\n  jobs: [{id: a, gpus: 8, workload: dp, iterations: 2}]\n"),
              HasSubstr("workloads"));
  EXPECT_THAT(error_of(t + "cluster:\n  mode: flow\n" + w + "  jobs: [{id: a, gpus: 8, workload: dp}]\n"),
              HasSubstr("give its iterations"));
  EXPECT_THAT(error_of(t + "cluster:\n  mode: flow\n" + w + "  jobs: [{id: a, gpus: 8, workload: dp, iterations: 2, duration: 1h}]\n"),
              HasSubstr("gives a duration and a workload"));
  EXPECT_THAT(error_of(t + "cluster:\n  jobs: [{id: a, gpus: 8, workload: dp, iterations: 2}]\n"),
              HasSubstr("job mode does not run"));
  EXPECT_THAT(error_of(t + "network: {mode: flow}\ncluster:\n  jobs: [{id: a, gpus: 8, duration: 1h}]\n"),
              HasSubstr("exp.yaml:2"));
  EXPECT_THAT(error_of(t + "network: {mode: packet}\ncluster:\n  mode: flow\n" + w +
                       "  jobs: [{id: a, gpus: 8, workload: dp, iterations: 2}]\n"),
              HasSubstr("give the fidelity once"));
  EXPECT_THAT(error_of(t + "cluster:\n  mode: flow\n  workloads: {dp: {type: microbenchmark, ranks: 8, iterations: 3, "
                           "collectives: [{op: all-reduce, group: world, size: 1MiB}]}}\n"
                           "  jobs: [{id: a, gpus: 8, workload: dp, iterations: 2}]\n"),
              HasSubstr("the workload is one iteration"));
  EXPECT_THAT(error_of(t + "cluster:\n  fast_forward: {iterations: 3}\n  jobs: [{id: a, gpus: 8, duration: 1h}]\n"),
              HasSubstr("job mode simulates no iterations"));
  EXPECT_THAT(error_of(t + "cluster:\n  mode: flow\n  fast_forward: {groups: triples}\n" + w +
                       "  jobs: [{id: a, gpus: 8, workload: dp, iterations: 2}]\n"),
              HasSubstr("exp.yaml:4:26: cluster.fast_forward.groups: unknown value 'triples'; expected one of whole, pairs"));
  EXPECT_THAT(error_of(t + "cluster:\n  mode: flow\n  threads: 0\n" + w +
                       "  jobs: [{id: a, gpus: 8, workload: dp, iterations: 2}]\n"),
              HasSubstr("exp.yaml:4:12: cluster.threads: must be between 1 and 256, got 0"));
  EXPECT_THAT(error_of(t + "cluster:\n  threads: 2\n  jobs: [{id: a, gpus: 8, duration: 1h}]\n"),
              HasSubstr("job mode simulates no network"));
}

TEST(ClusterFidelity, UnknownWorkloadsAndRankMismatchesAreNamedWhenTheRunStarts) {
  using ::testing::HasSubstr;
  const std::string t = kTopology, w = kWorkloads;
  const auto run_error = [](const std::string& yaml) {
    return loom::testing::user_error_of([&] { run(load_cluster_text(yaml), "errors"); });
  };
  EXPECT_THAT(run_error(t + "cluster:\n  mode: flow\n" + w + "  jobs: [{id: a, gpus: 8, workload: dpp, iterations: 2}]\n"),
              HasSubstr("workload 'dpp', which cluster.workloads does not define (it defines: dp)"));
  EXPECT_THAT(run_error(t + "cluster:\n  mode: flow\n" + w + "  jobs: [{id: a, gpus: 16, workload: dp, iterations: 2}]\n"),
              HasSubstr("job 'a' has 16 GPUs but workload 'dp' has 8 ranks"));
}

}  // namespace
}  // namespace loom::experiment
