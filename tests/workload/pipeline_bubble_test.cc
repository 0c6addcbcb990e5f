// With communication that costs (almost) nothing, a synthesised pipeline's iteration time shows
// the textbook bubble: (p-1)/m for gpipe and 1F1B, (p-1)/(m·v) interleaved. Runs the workload
// through loom::system::Runtime on the analytical backend.
#include <gtest/gtest.h>

#include "loom/core/simulator.h"
#include "loom/network/analytical.h"
#include "loom/system/runtime.h"
#include "loom/topology/blueprints.h"
#include "loom/topology/routing.h"
#include "loom/workload/compute/compute_model.h"
#include "loom/workload/critical_path.h"
#include "loom/workload/synthesis/training_step.h"

namespace loom::workload::synthesis {
namespace {

// One GPU per host on one switch, zero latencies and 1 Pbit/s links: a 256 KiB activation
// crosses in about 2 ns, against milliseconds of compute.
topology::Topology free_fabric(std::uint32_t ranks) {
  topology::SingleSwitchParams p;
  p.hosts = ranks;
  p.host.gpus_per_host = 1;
  p.host.pcie_bandwidth = Bandwidth::bits_per_second(1'000'000'000'000'000ull);
  p.host.nic_bandwidth = p.host.pcie_bandwidth;
  p.host.pcie_latency = Time::zero();
  p.host.nic_latency = Time::zero();
  p.link_latency = Time::zero();
  p.switch_latency = Time::zero();
  return topology::make_single_switch(p);
}

// Layer work takes 1 ps per 1000 FLOPs (so backward = 2 x forward); embedding, logits, loss
// and optimizer take no time, so every stage has the same t_f and t_b.
void set_durations(Workload& w) {
  w.edit_nodes([](Node& n, std::uint64_t) {
    if (n.kind != NodeKind::kCompute) return;
    n.duration = n.layer == kNoIndex ? Time::zero() : Time::ps(static_cast<std::int64_t>(n.flops / 1000));
    if (n.layer == kNoIndex) n.flops = 0;  // the runtime asks a node with FLOPs for a duration
  });
}

double bubble(PipelineSchedule schedule, std::uint32_t p, std::uint32_t m, std::uint32_t v) {
  const TransformerConfig model{"bubble-gpt", 16, 512, 8, 8, 2048, false, 1000, 256, true};
  ParallelPlan plan;
  plan.pp = p;
  plan.schedule = schedule;
  plan.virtual_stages = v;
  plan.global_batch = m;
  Workload w = synthesize_training(model, plan);
  set_durations(w);
  Time busy;  // rank 0's compute: m·(t_f + t_b)
  for (NodeId id = 0; id < w.node_count(); ++id) {
    if (w.node(id).rank == 0) busy += w.node(id).duration;
  }
  const topology::Topology topo = free_fabric(p);
  const topology::Routing routing(topo);
  Simulator simulator;
  network::AnalyticalBackend backend(simulator, topo, routing);
  system::RuntimeOptions options;
  options.comm_streams = kCommStreams;
  system::Runtime runtime(simulator, topo, w, backend, options);
  const system::RunResult result = runtime.run();
  return result.makespan.seconds() / busy.seconds() - 1.0;
}

TEST(PipelineBubble, OneFOneBMatchesPMinusOneOverM) {
  for (const auto& [p, m] : {std::pair{4u, 8u}, std::pair{2u, 6u}, std::pair{8u, 16u}}) {
    const double expected = static_cast<double>(p - 1) / m;
    const double measured = bubble(PipelineSchedule::kOneFOneB, p, m, 1);
    EXPECT_NEAR(measured, expected, 0.01 * expected) << "p=" << p << " m=" << m;
    RecordProperty("bubble_p" + std::to_string(p) + "_m" + std::to_string(m), std::to_string(measured));
  }
}

TEST(PipelineBubble, GpipeHasTheSameBubble) {
  EXPECT_NEAR(bubble(PipelineSchedule::kGpipe, 4, 8, 1), 3.0 / 8, 0.01 * 3.0 / 8);
}

TEST(PipelineBubble, InterleavingDividesTheBubbleByV) {
  for (const auto& [p, m, v] : {std::tuple{4u, 8u, 2u}, std::tuple{2u, 4u, 4u}, std::tuple{4u, 4u, 4u}}) {
    const double expected = static_cast<double>(p - 1) / (m * v);
    EXPECT_NEAR(bubble(PipelineSchedule::kInterleaved, p, m, v), expected, 0.01 * expected)
        << "p=" << p << " m=" << m << " v=" << v;
  }
}

// Every parallelism feature at once, with real communication costs (400 Gbit/s, microsecond
// latencies): the runtime finishes the step (no deadlock), no sooner than the critical path at
// infinite bandwidth, and every node ran.
TEST(SynthesisedSteps, RunToCompletionOnTheRuntime) {
  const TransformerConfig moe{"run-moe", 8, 256, 4, 4, 1024, false, 1000, 128, true, 4, 2, 1.0, 1, 512, 2};
  ParallelPlan plan;
  plan.tp = 2;
  plan.sequence_parallel = true;
  plan.pp = 2;
  plan.dp = 2;
  plan.ep = 2;
  plan.schedule = PipelineSchedule::kInterleaved;
  plan.virtual_stages = 2;
  plan.global_batch = 8;
  plan.distributed_optimizer = true;
  plan.recompute = Recompute::kSelective;
  plan.iterations = 2;
  Workload w = synthesize_training(moe, plan);
  compute::Params params;
  params.gpu = compute::find_gpu("A100");
  compute::assign_durations(w, params);
  topology::SingleSwitchParams p;
  p.hosts = plan.ranks();
  p.host.gpus_per_host = 1;
  const topology::Topology topo = topology::make_single_switch(p);
  const topology::Routing routing(topo);
  Simulator simulator;
  network::AnalyticalBackend backend(simulator, topo, routing);
  system::RuntimeOptions options;
  options.comm_streams = kCommStreams;
  system::Runtime runtime(simulator, topo, w, backend, options);
  const system::RunResult result = runtime.run();
  EXPECT_GE(result.makespan, critical_path_length(w));
  ASSERT_EQ(result.nodes.size(), w.node_count());
  for (NodeId id = 0; id < result.nodes.size(); ++id) EXPECT_GE(result.nodes[id].end, result.nodes[id].start);
}

}  // namespace
}  // namespace loom::workload::synthesis
