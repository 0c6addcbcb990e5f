// Mechanisms of the layers below that an experiment file reaches: measured kernel tables,
// custom model shapes, trace scaling and per-rank slow NICs, each with its effect asserted.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

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

// Two hosts of one GPU on one switch, a 2-rank ring all-reduce of 8 MiB: 2 steps of 4 MiB, each
// a transfer each way through both NICs (400 Gbit/s; PCIe 512 Gbit/s), 83,886,080 ps of
// serialisation per step at 400 Gbit/s. `variation` is appended under the workload.
std::string two_host_all_reduce(const std::string& mode, const std::string& variation, int repeat = 1) {
  return fmt::format(R"(
topology: {{blueprint: single-switch, hosts: 2, gpus_per_host: 1}}
collective: {{algorithm: ring, channels: 1, chunks: 1, protocol: simple, hop_latency: none}}
network: {{mode: {}}}
workload:
  collectives: [{{op: all-reduce, size: 8MiB, repeat: {}}}]
{})",
                     mode, repeat, variation);
}

// The collectives' durations of a run of `text`, its output in a scratch folder named `name`.
std::vector<Time> collective_times(const std::string& text, const std::string& name) {
  Experiment e = load_text(text);
  e.output.dir = scratch("nic_windows") / name;
  std::vector<Time> times;
  for (const system::CollectiveRecord& c : run(e).result.collectives) times.push_back(c.duration());
  return times;
}

double relative_difference(Time a, Time b) {
  return std::abs(static_cast<double>((a - b).picoseconds())) / static_cast<double>(b.picoseconds());
}

// Rank 0's NIC at a quarter of its bandwidth from time 0 to past the end: the same all-reduce
// time as the whole-run slowdown built into the topology (exactly in analytical and flow mode,
// whose rates change before any transfer; packet mode within 0.5%), and 4x slower than none.
TEST(Reach, ANicWindowCoveringTheRunMatchesTheWholeRunSlowdown) {
  for (const std::string mode : {"analytical", "flow", "packet"}) {
    // Packet mode with DCQCN's window (SimAI.conf's): rate-only DCQCN, its default, keeps the
    // full line rate for queue pairs that start at the instant of the change (2.7% apart).
    const std::string network = mode == "packet" ? "packet, packet: {window: true}" : mode;
    const Time plain = collective_times(two_host_all_reduce(network, ""), mode + "_plain").at(0);
    const Time whole = collective_times(
        two_host_all_reduce(network, "  variation: {slow_nics: [{rank: 0, factor: 4}]}"), mode + "_whole").at(0);
    const Time window = collective_times(
        two_host_all_reduce(network, "  variation: {slow_nics: [{rank: 0, factor: 4, from: 0s, until: 10ms}]}"),
        mode + "_window").at(0);
    EXPECT_LT(relative_difference(window, whole), 0.005) << mode << ": " << window << " vs " << whole;
    if (mode != "packet") {
      EXPECT_EQ(window, whole) << mode;
    }
    EXPECT_GT(whole, plain * 3) << mode;
  }
}

// A window over the first of two all-reduces ([0, 50 us), the first takes about 170 us): the
// first is slower, the second takes exactly as long as without any slowdown.
TEST(Reach, ANicWindowThatEndedChangesNothingLater) {
  for (const std::string mode : {"analytical", "flow", "packet"}) {
    const std::vector<Time> plain = collective_times(two_host_all_reduce(mode, "", 2), mode + "_plain2");
    const std::vector<Time> early = collective_times(
        two_host_all_reduce(mode, "  variation: {slow_nics: [{rank: 0, factor: 4, until: 50us}]}", 2),
        mode + "_early");
    ASSERT_EQ(plain.size(), 2u);
    ASSERT_EQ(early.size(), 2u);
    EXPECT_GT(early[0], plain[0]) << mode;
    EXPECT_EQ(early[1], plain[1]) << mode;
  }
}

// Flow mode, rank 0's NIC at 1/4 in [20 us, 60 us), inside the first step (0 to 83.9 us at full
// rate). Each step is one flow each way, both through NIC 0 and alone on their links, so take
// one: it sends at R (400 Gbit/s) until 20 us, at R/4 (its NIC port and PCIe link at 100 and
// 128 Gbit/s) until 60 us, then at R again. Its W bits need W/R alone; with the window they
// need t such that 20 us R + 40 us R/4 + (t - 60 us) R = W, so t = W/R + 40 us (1 - 1/4): the
// step, and the all-reduce, end 30 us later (up to a picosecond per rate change of rounding).
// Packet mode lands between no slowdown and the whole-run one as well.
TEST(Reach, ANicWindowDuringATransferCostsItsLengthTimesTheRateLost) {
  const std::string window = "  variation: {slow_nics: [{rank: 0, factor: 4, from: 20us, until: 60us}]}";
  const Time plain = collective_times(two_host_all_reduce("flow", ""), "flow_plain_half").at(0);
  const Time half = collective_times(two_host_all_reduce("flow", window), "flow_half").at(0);
  EXPECT_NEAR(static_cast<double>(half.picoseconds()), static_cast<double>((plain + Time::us(30)).picoseconds()), 8)
      << half << " vs " << plain;
  const Time packet_plain = collective_times(two_host_all_reduce("packet", ""), "packet_plain_half").at(0);
  const Time packet_half = collective_times(two_host_all_reduce("packet", window), "packet_half").at(0);
  const Time packet_whole = collective_times(
      two_host_all_reduce("packet", "  variation: {slow_nics: [{rank: 0, factor: 4}]}"), "packet_whole_half").at(0);
  EXPECT_GT(packet_half, packet_plain + Time::us(25));
  EXPECT_LT(packet_half, packet_whole);
}

// Each bad entry, on line 7 of the file, is refused with its location, key and expectation.
TEST(Reach, BadNicWindowsAreRejectedWithTheirKey) {
  const std::pair<std::string, std::string> cases[] = {
      {"rank: 0, factor: 4, from: 60us, until: 20us", "exp.yaml:7:"},
      {"rank: 0, factor: 4, from: 60us, until: 20us", "slow_nics[0].until: must be after from (60us), got 20us"},
      {"rank: 0, factor: 4, until: 0s", "slow_nics[0].until: must be after from (0ps), got 0ps"},
      {"rank: 0, factor: 4, from: -1us", "slow_nics[0].from: '-1us' is not a time: it is negative"},
      {"rank: 0, factor: 4, from: soon", "slow_nics[0].from: "},
      {"rank: 2, factor: 4, from: 1us", "slow_nics[0].rank: rank 2 is not a GPU of the topology (ranks 0..1)"},
  };
  for (const auto& [entry, expected] : cases) {
    const std::string text = two_host_all_reduce("flow", "  variation: {slow_nics: [{" + entry + "}]}\n");
    EXPECT_THAT(load_error(text), HasSubstr(expected)) << entry;
    EXPECT_THAT(load_error(text), HasSubstr("workload.variation.slow_nics[0].")) << entry;
  }
}

// Windows and whole-run slowdowns compose: a cable runs at its bandwidth over the largest factor
// in force at either end. Rank 0's NIC: 2x for the whole run, 4x in [10, 30) us, 8x in [20, 40)
// us; rank 1's NIC 3x in [20, 50) us.
TEST(Reach, NicWindowsComposeByTheLargestFactorInForce) {
  const Experiment e = load_text(two_host_all_reduce("flow", R"(  variation:
    slow_nics:
      - {rank: 0, factor: 2}
      - {rank: 0, factor: 4, from: 10us, until: 30us}
      - {rank: 0, factor: 8, from: 20us, until: 40us}
      - {rank: 1, factor: 3, from: 20us, until: 50us}
)"));
  const topology::Topology& t = e.topology;  // with the whole-run slowdown built in
  const topology::NodeId nic0 = t.nic_of_rank(0), nic1 = t.nic_of_rank(1);
  topology::LinkId host0 = 0, host1 = 0;  // NIC -> switch
  for (topology::LinkId l = 0; l < t.link_count(); ++l) {
    if (t.link(l).src == nic0 && t.node(t.link(l).dst).kind == topology::NodeKind::kSwitch) host0 = l;
    if (t.link(l).src == nic1 && t.node(t.link(l).dst).kind == topology::NodeKind::kSwitch) host1 = l;
  }
  ASSERT_EQ(t.link(host0).bandwidth, Bandwidth::gbps(200));
  std::vector<std::string> seen;
  for (const LinkRateChange& c : e.link_rate_changes) {
    if (c.link == host0 || c.link == host1) {
      seen.push_back(fmt::format("{} {} {}", c.at, c.link == host0 ? "nic0" : "nic1", c.rate.bps() / 1'000'000'000.0));
    }
  }
  EXPECT_THAT(seen, ::testing::ElementsAre("10us nic0 100", "20us nic0 50", "20us nic1 133.333333333", "40us nic0 200",
                                           "50us nic1 400"));
  // Every cable of both NICs (GPU-NIC and NIC-switch, both ways) changes at 20 us.
  EXPECT_EQ(std::count_if(e.link_rate_changes.begin(), e.link_rate_changes.end(),
                          [](const LinkRateChange& c) { return c.at == Time::us(20); }),
            8);
}

}  // namespace
}  // namespace loom::experiment
