// Workload synthesis and storage at scale.
//
//   workload_synthesize/gpt-175b_tp8_pp8_dp16   one iteration of GPT-175B on 1,024 ranks
//     (b = 1, B = 1536, so m = 96 micro-batches, 1F1B, bf16, fp32 gradients): nodes/s,
//     bytes per node and the Workload's heap bytes (the budget: <= 5 s, <= 2 GiB)
//   workload_add_nodes/10000000                 10^7 plain compute nodes in a chain (bytes per node)
//   workload_copy/gpt-175b_tp8_pp8_dp16          baseline: re-adding the synthesised nodes and
//     dependencies to a fresh Workload; the ratio shows what synthesis costs above storage
//   workload_chakra_roundtrip/gpt-13b_tp8_pp2_dp2  write + read of Chakra traces, nodes/s
#include <sys/resource.h>

#include <filesystem>
#include <memory>
#include <vector>

#include <fmt/format.h>

#include "bench_registry.h"
#include "loom/workload/chakra/chakra_reader.h"
#include "loom/workload/chakra/chakra_writer.h"
#include "loom/workload/synthesis/training_step.h"

namespace loom::bench {
namespace {

using workload::NodeId;
using workload::Workload;

workload::synthesis::ParallelPlan gpt175b_plan() {
  workload::synthesis::ParallelPlan plan;
  plan.tp = 8;
  plan.pp = 8;
  plan.dp = 16;
  plan.micro_batch = 1;
  plan.global_batch = 1536;
  return plan;
}

double peak_rss_bytes() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_maxrss) * 1024.0;
}

void report(benchmark::State& state, const Workload& w) {
  state.counters["nodes"] = w.node_count();
  state.counters["bytes_per_node"] = static_cast<double>(w.memory_bytes()) / w.node_count();
  state.counters["workload_GiB"] = static_cast<double>(w.memory_bytes()) / (1ull << 30);
  state.counters["peak_rss_GiB"] = peak_rss_bytes() / (1ull << 30);
}

void synthesize_gpt175b(benchmark::State& state) {
  const auto& model = workload::synthesis::find_transformer("gpt-175b");
  std::uint64_t nodes = 0;
  for (auto _ : state) {
    Workload w = workload::synthesis::synthesize_training(model, gpt175b_plan());
    nodes += w.node_count();
    state.PauseTiming();
    report(state, w);
    state.ResumeTiming();
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(nodes));
}

void copy_gpt175b(benchmark::State& state, const std::shared_ptr<std::unique_ptr<Workload>>& source) {
  if (!*source) {
    *source = std::make_unique<Workload>(workload::synthesis::synthesize_training(
        workload::synthesis::find_transformer("gpt-175b"), gpt175b_plan()));
  }
  const Workload& from = **source;
  std::uint64_t nodes = 0;
  for (auto _ : state) {
    Workload to(from.rank_count());
    for (workload::CommunicatorId c = 0; c < from.communicator_count(); ++c) to.add_communicator(from.communicator(c));
    for (workload::LabelId l = 0; l < from.label_count(); ++l) to.intern_label(from.label(l));
    to.reserve(from.node_count(), from.dependency_count());
    std::vector<NodeId> deps;
    for (NodeId id = 0; id < from.node_count(); ++id) {
      const workload::DepList d = from.deps(id);
      deps.assign(d.begin(), d.end());
      to.add_node(from.node(id), deps);
    }
    nodes += to.node_count();
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(nodes));
}

void add_ten_million(benchmark::State& state) {
  constexpr std::uint32_t kNodes = 10'000'000;
  for (auto _ : state) {
    Workload w(1);
    workload::Node n;
    n.label = w.intern_label("compute");
    n.duration = Time::us(1);
    w.reserve(kNodes, kNodes);
    NodeId prev = w.add_node(n, {});
    for (std::uint32_t i = 1; i < kNodes; ++i) prev = w.add_node(n, std::span(&prev, 1));
    state.PauseTiming();
    report(state, w);
    state.ResumeTiming();
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()) * kNodes);
}

void chakra_roundtrip(benchmark::State& state) {
  workload::synthesis::ParallelPlan plan;
  plan.tp = 8;
  plan.pp = 2;
  plan.dp = 2;
  plan.global_batch = 16;
  const Workload w = workload::synthesis::synthesize_training(workload::synthesis::find_transformer("gpt-13b"), plan);
  const auto dir = std::filesystem::temp_directory_path() / "loom_workload_bench";
  std::filesystem::create_directories(dir);
  const std::string prefix = (dir / "gpt13b").string();
  for (auto _ : state) {
    workload::chakra::write_chakra(w, prefix);
    const auto back = workload::chakra::read_chakra(prefix);
    benchmark::DoNotOptimize(back.workload.node_count());
  }
  std::filesystem::remove_all(dir);
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()) * w.node_count());
  state.counters["nodes"] = w.node_count();
}

}  // namespace

void register_workload_benchmarks(Registry& registry) {
  const std::string candidate = "workload_synthesize/gpt-175b_tp8_pp8_dp16";
  const std::string baseline = "workload_copy/gpt-175b_tp8_pp8_dp16";
  registry.add(candidate, synthesize_gpt175b)->Unit(benchmark::kMillisecond)->Iterations(1);
  auto source = std::make_shared<std::unique_ptr<Workload>>();
  registry.add(baseline, [source](benchmark::State& s) { copy_gpt175b(s, source); })
      ->Unit(benchmark::kMillisecond)
      ->Iterations(1);
  registry.add_ratio("synthesis vs copying the same nodes into a Workload", candidate, baseline);
  registry.add("workload_add_nodes/10000000", add_ten_million)->Unit(benchmark::kMillisecond)->Iterations(1);
  registry.add("workload_chakra_roundtrip/gpt-13b_tp8_pp2_dp2", chakra_roundtrip)->Unit(benchmark::kMillisecond);
}

}  // namespace loom::bench
