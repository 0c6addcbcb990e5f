// Mechanisms of the layers below that an experiment file reaches: measured kernel tables,
// custom model shapes, trace scaling and per-rank slow NICs, each with its effect asserted.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include <fmt/format.h>

#include "loom/core/error.h"
#include "loom/experiment/experiment.h"
#include "loom/workload/synthesis/transformer_config.h"
#include "user_error.h"
#include "fixtures.h"

namespace loom::experiment {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

fs::path scratch(const std::string& name) {
  const fs::path dir = fs::temp_directory_path() / ("loom_reach_test_" + name);
  fs::create_directories(dir);
  return dir;
}

Experiment load_text(const std::string& text, const fs::path& file = "exp.yaml") {
  config::Document document = config::Document::parse(text, file.string());
  return load(document);
}

std::string load_error(const std::string& text) {
  return loom::testing::user_error_of([&] { load_text(text); });
}

// A one-layer GPT-like model on 2 GPUs (dp 2), given by its shape.
constexpr const char* kCustomTraining = R"(
topology: {hosts: 1, gpus_per_host: 2}
workload:
  type: training
  model: {name: tiny, layers: 1, hidden: 1024, heads: 8, kv_heads: 8, ffn_hidden: 4096, vocab: 32000, sequence: 512}
  dp: 2
  global_batch: 2
)";

TEST(Reach, CustomModelShapeIsSynthesisedWithTheFormulaFlops) {
  const Experiment e = load_text(kCustomTraining);
  // The layer's forward FLOPs per sequence: 24 b s h^2 + 4 b s^2 h, b = 1 (transformer_config.h).
  workload::synthesis::TransformerConfig c;
  c.layers = 1, c.hidden = 1024, c.heads = 8, c.kv_heads = 8, c.ffn_hidden = 4096, c.vocab = 32000, c.sequence = 512;
  const std::uint64_t s = 512, h = 1024;
  EXPECT_EQ(c.layer_forward_flops(1), 24 * s * h * h + 4 * s * s * h);
  // Rank 0's forward compute FLOPs: the layer plus the logits (2 b s h V); embedding and loss
  // nodes have none.
  std::uint64_t forward = 0;
  for (workload::NodeId id = 0; id < e.workload.node_count(); ++id) {
    const workload::Node& n = e.workload.node(id);
    if (n.rank == 0 && n.kind == workload::NodeKind::kCompute && e.workload.label(n.label).find("fwd.") != std::string::npos &&
        e.workload.label(n.label).find("recompute") == std::string::npos) {
      forward += n.flops;
    }
  }
  EXPECT_EQ(forward, c.layer_forward_flops(1) + c.logits_forward_flops(1));
}

TEST(Reach, CustomModelsStartFromAPresetAndNameWhatIsMissing) {
  const Experiment e = load_text(R"(
topology: {hosts: 1, gpus_per_host: 8}
workload: {type: training, model: {base: gpt-13b, layers: 2}, tp: 8, global_batch: 1}
)");
  ASSERT_TRUE(e.memory.has_value());
  EXPECT_THAT(load_error(R"(
topology: {hosts: 1, gpus_per_host: 2}
workload: {type: training, model: {layers: 1, hidden: 1024}, dp: 2}
)"),
              HasSubstr("workload.model.heads: must be between 1 and 1048576, got 0"));
  EXPECT_THAT(load_error(R"(
topology: {hosts: 1, gpus_per_host: 2}
workload: {type: training, model: {base: gpt-7b, heads: 7}, dp: 2}
)"),
              HasSubstr("hidden 4096 is not a multiple of heads 7"));
  EXPECT_THAT(load_error(R"(
topology: {hosts: 1, gpus_per_host: 2}
workload: {type: training, model: {base: gpt-7b, hiden: 7}, dp: 2}
)"),
              HasSubstr("unknown key 'hiden' in workload.model; did you mean 'hidden'?"));
}

// A kernel table entry replaces the roofline time of every node with that label.
TEST(Reach, KernelTableSetsComputeTimesToTheTablesValues) {
  const fs::path dir = scratch("kernel_table");
  std::ofstream(dir / "kernels.csv") << "label,time\nfwd.logits,1234us\n";
  const std::string text = std::string(kCustomTraining) + "  compute: {kernel_table: kernels.csv}\n";
  Experiment e = load_text(text, dir / "exp.yaml");
  e.output.dir = dir / "out";
  const Outcome outcome = run(e);
  int matched = 0;
  for (workload::NodeId id = 0; id < e.workload.node_count(); ++id) {
    const workload::Node& n = e.workload.node(id);
    if (e.workload.label(n.label) != "fwd.logits") continue;
    EXPECT_EQ(outcome.result.nodes[id].end - outcome.result.nodes[id].start, Time::us(1234));
    ++matched;
  }
  EXPECT_EQ(matched, 2);  // one per rank
  std::ofstream(dir / "bad.csv") << "label,time\nfwd.logits,soon\n";
  EXPECT_THAT(load_error(std::string(kCustomTraining) + "  compute: {kernel_table: " + (dir / "bad.csv").string() + "}\n"),
              HasSubstr("workload.compute.kernel_table: "));
}

TEST(Reach, TraceScaleShrinksSizesAndIsRangeChecked) {
  const std::string trace = loom::testing::fixture_path("simai/inputs/workloads/aicb_micro_test_all_reduce.txt").string();
  LOOM_SKIP_WITHOUT_FIXTURE(trace);
  const auto bytes = [](const Experiment& e) {
    Bytes total = 0;
    for (workload::NodeId id = 0; id < e.workload.node_count(); ++id) total += e.workload.node(id).bytes;
    return total;
  };
  const std::string base = "topology: {hosts: 2, gpus_per_host: 8}\nworkload: {type: trace, file: " + trace;
  const Bytes full = bytes(load_text(base + "}\n"));
  const Bytes quarter = bytes(load_text(base + ", scale: 0.25}\n"));
  ASSERT_GT(full, 0u);
  EXPECT_NEAR(static_cast<double>(quarter), static_cast<double>(full) / 4, static_cast<double>(full) * 1e-6);
  EXPECT_THAT(load_error(base + ", scale: 2}\n"), HasSubstr("workload.scale: must be in (0, 1], got 2"));
}

// A slowed NIC divides its cables' bandwidth, and the all-reduce between the two hosts, whose
// ring crosses that NIC, takes longer.
TEST(Reach, PerRankSlowNicsSlowTheirCables) {
  const std::string text = R"(
topology: {hosts: 2, gpus_per_host: 1}
workload:
  type: microbenchmark
  collectives: [{op: all-reduce, size: 64MiB, algorithm: ring}]
)";
  Experiment normal = load_text(text);
  Experiment slowed = load_text(text + "  variation: {slow_nics: [{rank: 1, factor: 4}]}\n");
  const topology::NodeId nic = slowed.topology.nic_of_rank(1);
  for (topology::LinkId l = 0; l < slowed.topology.link_count(); ++l) {
    const topology::Link& link = slowed.topology.link(l);
    if (link.src != nic && link.dst != nic) continue;
    EXPECT_EQ(link.bandwidth.bps() * 4, normal.topology.link(l).bandwidth.bps()) << l;
  }
  normal.output.dir = scratch("slow_nics") / "normal";
  slowed.output.dir = scratch("slow_nics") / "slowed";
  EXPECT_GT(run(slowed).result.makespan, run(normal).result.makespan);
  EXPECT_THAT(load_error(text + "  variation: {slow_nics: [{rank: 1, factor: 0.5}]}\n"),
              HasSubstr("workload.variation.slow_nics[0].factor: must be at least 1"));
}

}  // namespace
}  // namespace loom::experiment
