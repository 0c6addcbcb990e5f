#include "loom/experiment/cluster_experiment.h"
#include "loom/experiment/experiment.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "loom/core/error.h"
#include "loom/experiment/slow_nics.h"
#include "loom/topology/blueprint_catalog.h"
#include "user_error.h"
#include "fixtures.h"
#include "scratch_cleanup.h"

namespace loom::experiment {
namespace {

namespace fs = std::filesystem;

std::string read_file(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string default_experiment_text() { return read_file(fs::path(LOOM_SOURCE_DIR) / "examples/default.yaml"); }

fs::path scratch_dir(const std::string& name) {
  // One per process: test runs of other checkouts on the same machine must not share it.
  const fs::path dir = fs::temp_directory_path() / ("loom_experiment_test_" + name + "." + std::to_string(getpid()));
  fs::remove_all(dir);
  loom::testing::remove_at_exit(dir);
  return dir;
}

Outcome run_text(const std::string& text, const std::vector<std::string>& overrides) {
  config::Document document = config::Document::parse(text, "exp.yaml");
  for (const auto& o : overrides) document.apply_override(o);
  return run(load(document));
}

std::string error_of(const std::string& text, const std::vector<std::string>& overrides = {}) {
  return loom::testing::user_error_of([&] { run_text(text, overrides); });
}

// workload.first_stage_layers / last_stage_layers reach the plan: stage 0 runs its own layers,
// and values that do not fit are refused at their key.
TEST(Experiment, UnevenStageKeysShapeThePipelineOrAreRefused) {
  const std::string text =
      "topology: {hosts: 2, gpus_per_host: 4}\n"
      "workload: {type: training, model: gpt-7b, pp: 8, global_batch: 8, first_stage_layers: 4}\n";
  config::Document document = config::Document::parse(text, "exp.yaml");
  const Experiment e = load(document);
  std::set<std::uint32_t> first, second;  // layers of ranks 0 and 1 (stages 0 and 1)
  for (workload::NodeId id = 0; id < e.workload.node_count(); ++id) {
    const workload::Node n = e.workload.node(id);
    if (n.layer == workload::kNoIndex || n.rank > 1) continue;
    (n.rank == 0 ? first : second).insert(n.layer);
  }
  EXPECT_EQ(first, (std::set<std::uint32_t>{0, 1, 2, 3}));
  EXPECT_EQ(second, (std::set<std::uint32_t>{4, 5, 6, 7}));
  EXPECT_EQ(error_of("topology: {hosts: 2, gpus_per_host: 4}\n"
                     "workload: {type: training, model: gpt-7b, pp: 8, global_batch: 8, last_stage_layers: 40}\n"),
            "exp.yaml:2:86: workload.last_stage_layers: must be at most the model's 32 layers, got 40");
  EXPECT_THAT(error_of("topology: {hosts: 2, gpus_per_host: 4}\n"
                       "workload: {type: training, model: gpt-7b, pp: 8, global_batch: 8, first_stage_layers: 3}\n"),
              ::testing::HasSubstr("the 29 layers left by first_stage_layers 3 and last_stage_layers 0 are not divisible by the 7 "
                        "other stages"));
}

TEST(Experiment, SameInputsAndSeedGiveByteIdenticalSummaries) {
  const fs::path a = scratch_dir("a"), b = scratch_dir("b");
  const Outcome first = run_text(default_experiment_text(), {"output.dir=" + a.string()});
  const Outcome second = run_text(default_experiment_text(), {"output.dir=" + b.string()});
  const std::string summary_a = read_file(first.summary_path);
  ASSERT_FALSE(summary_a.empty());
  // The output directory is part of the effective configuration; align it before comparing.
  std::string summary_b = read_file(second.summary_path);
  const auto at = summary_b.find(b.string());
  ASSERT_NE(at, std::string::npos);
  summary_b.replace(at, b.string().size(), a.string());
  EXPECT_EQ(summary_a, summary_b);
}

TEST(Experiment, SummaryRecordsEffectiveConfigurationWithDefaults) {
  const fs::path dir = scratch_dir("effective");
  const Outcome outcome = run_text(default_experiment_text(), {"output.dir=" + dir.string(), "topology.hosts=2"});
  const auto summary = nlohmann::json::parse(read_file(outcome.summary_path));
  EXPECT_EQ(summary["config"]["topology"]["hosts"], 2);
  // Defaults the file never mentions are recorded too, in canonical units.
  EXPECT_EQ(summary["config"]["topology"]["link_latency"], "500ns");
  EXPECT_EQ(summary["config"]["collective"]["direct_window"], 1);
  EXPECT_EQ(summary["config"]["workload"]["ranks"], 16);
  EXPECT_EQ(summary["seed"], 1);
  EXPECT_EQ(summary["backend"], "analytical");
  EXPECT_EQ(summary["entries"].size(), 5u);
  EXPECT_EQ(summary["entries"][0]["op"], "all-reduce");
  EXPECT_EQ(summary["totals"]["collectives"], 3u * (1 + 2 + 2 + 8 + 1));
  // Every optional output is listed with its row count.
  ASSERT_EQ(summary["outputs"].size(), 4u);
  EXPECT_EQ(summary["outputs"][0]["file"], "collectives.csv");
  EXPECT_EQ(summary["outputs"][0]["rows"], summary["totals"]["collectives"]);
  EXPECT_EQ(summary["outputs"][1]["rows"], summary["totals"]["transfers"]);
  EXPECT_EQ(summary["outputs"][2]["rows"], 16u);
  EXPECT_EQ(summary["outputs"][3]["rows"], summary["totals"]["nodes"]);
}

TEST(Experiment, EntryBandwidthsFollowNcclTestsDefinitions) {
  const fs::path dir = scratch_dir("bandwidth");
  const Outcome outcome = run_text(default_experiment_text(), {"output.dir=" + dir.string()});
  // busbw / algbw, written out: all-reduce 2(n-1)/n on 32 and 4 members; all-gather,
  // reduce-scatter and all-to-all (n-1)/n on 8, 8 and 32.
  const double factors[] = {1.9375, 0.875, 0.875, 1.5, 0.96875};
  ASSERT_EQ(outcome.entries.size(), std::size(factors));
  for (std::size_t i = 0; i < std::size(factors); ++i) {
    const report::EntryStats& s = outcome.entries[i];
    const double algbw = static_cast<double>(s.bytes) / s.mean_time.seconds() / 1e9;
    EXPECT_DOUBLE_EQ(s.mean_bandwidth.algbw_gbytes_per_s, algbw) << s.label;
    EXPECT_DOUBLE_EQ(s.mean_bandwidth.busbw_gbytes_per_s, algbw * factors[i]) << s.label;
  }
}

TEST(Experiment, ConfigurationMistakesAreLocatedOneLineErrors) {
  const std::string base =
      "topology:\n"
      "  blueprint: single-switch\n"
      "  hosts: 2\n"
      "workload:\n"
      "  collectives:\n"
      "    - {op: all-reduce, size: 1MiB}\n";
  struct Case {
    std::string text;
    std::vector<std::string> overrides;
    std::string expected;
  };
  const Case cases[] = {
      {"topology:\n  blueprint: single-switch\n  hosts: 2\n  nic_bandwdith: 400Gbps\nworkload:\n  collectives: []\n",
       {},
       "exp.yaml:4:3: unknown key 'nic_bandwdith' in topology; did you mean 'nic_bandwidth'?"},
      {base, {"topology.nic_bandwidth=400"},
       "--set topology.nic_bandwidth=400: topology.nic_bandwidth: '400' is not a bandwidth: the number has no "
       "unit; expected e.g. 400Gbps, 100 Gb/s or 50GB/s"},
      {base, {"network.mode=fluid"},
       "--set network.mode=fluid: network.mode: unknown value 'fluid'; expected one of analytical, flow, packet"},
      {base, {"network.mode=packet", "network.packet={cc: reno}"},
       "--set network.packet={cc: reno}: network.packet.cc: unknown value 'reno'; expected one of none, dcqcn, hpcc, "
       "timely, dctcp"},
      {base, {"workload.groups={tp: {block: 3}}"},
       "--set workload.groups={tp: {block: 3}}: group 'tp': block 3 must be a positive divisor of the rank count 16"},
      {base, {"workload.collectives=[{op: all-sum, size: 1MiB}]"},
       "--set workload.collectives=[{op: all-sum, size: 1MiB}]: unknown collective operation 'all-sum'; expected "
       "one of: all-reduce, all-gather, reduce-scatter, all-to-all, all-to-all-v, broadcast, reduce, gather, scatter, "
       "barrier"},
      {base, {"seed=-1"}, "--set seed=-1: seed: expected a non-negative integer, got '-1'"},
      {base, {"network.flow={queue_pairs: 2}"},
       "--set network.flow={queue_pairs: 2}: network.flow: applies to network.mode flow only"},
      {base, {"network.mode=flow", "network.flow={queue_pairs: 0}"},
       "--set network.flow={queue_pairs: 0}: network.flow.queue_pairs: must be between 1 and 1024, got 0"},
      {"topology:\n  hosts: 2\n", {}, "exp.yaml:1:1: missing required key 'workload' at the top level; expected a map of settings (key: value "
       "lines)"},
      {base, {"workload.collectives=[{op: all-gather, group: tp, size: 1MiB}]"},
       "--set workload.collectives=[{op: all-gather, group: tp, size: 1MiB}]: workload.collectives[0].group: "
       "unknown group 'tp'; define it under workload.groups"},
      {base, {"system.stream_classes=[1, 8]"},
       "--set system.stream_classes=[1, 8]: system.stream_classes: class 8: expected 0 (the packet data_priority) or "
       "1..7"},
      {base, {"system.stream_classes=[1, 2, 3]"},
       "--set system.stream_classes=[1, 2, 3]: system.stream_classes: lists 3 classes for 2 communication streams"},
      {base, {"system.stream_classes=[0, 5]", "network.mode=packet", "network.packet={classes: {queues: 4, data: 3}}"},
       "--set system.stream_classes=[0, 5]: system.stream_classes: class 5 needs network.packet.classes.queues above "
       "5 (it is 4)"},
  };
  for (const Case& c : cases) EXPECT_EQ(error_of(c.text, c.overrides), c.expected);
}

TEST(Experiment, TheSameExperimentRunsInFlowModeAndAgreesWhereNothingIsShared) {
  const Outcome analytical = run_text(default_experiment_text(), {"output.dir=" + scratch_dir("modes_a").string()});
  const fs::path flow_dir = scratch_dir("modes_f");
  const Outcome flow = run_text(default_experiment_text(),
                                {"output.dir=" + flow_dir.string(), "network.mode=flow", "network.flow={queue_pairs: 2}"});
  ASSERT_EQ(analytical.entries.size(), flow.entries.size());
  for (std::size_t i = 0; i < flow.entries.size(); ++i) {
    const double a = analytical.entries[i].mean_time.seconds(), f = flow.entries[i].mean_time.seconds();
    if (analytical.entries[i].group == "tp") {
      // Inside a host each ring link carries one transfer at a time: flow equals analytical.
      EXPECT_NEAR(f / a, 1.0, 1e-3) << analytical.entries[i].label;
    } else {
      EXPECT_GE(f, a * (1 - 1e-9)) << analytical.entries[i].label;  // sharing only slows down
    }
  }
  EXPECT_TRUE(fs::exists(flow_dir / "links.csv"));
  const auto summary = nlohmann::json::parse(read_file(flow.summary_path));
  EXPECT_EQ(summary["backend"], "flow");
  EXPECT_EQ(summary["config"]["network"]["flow"]["queue_pairs"], 2);
  EXPECT_FALSE(summary["network"]["hot_links"].empty());
  EXPECT_LE(summary["network"]["hot_links"][0]["mean_utilisation"].get<double>(), 1.0 + 1e-9);
}

// links.csv on two GPUs behind an NVSwitch (3600 Gb/s cables): an all-gather of 1 MiB sends
// 1 MiB each way over each of the 4 cable directions, so per link the sampled utilisations add
// up to 1 MiB: sum of utilisation x 500 ns x 3600 Gb/s / 8 = 1048576 bytes (within the
// 6-decimal rounding of 5 rows), and a link is fully used between the first and last rows.
TEST(Experiment, LinksCsvUtilisationsAddUpToTheBytesEachLinkCarried) {
  const std::string text =
      "topology: {hosts: 1, gpus_per_host: 2}\n"
      "workload: {collectives: [{op: all-gather, size: 1MiB}]}\n"
      "network: {mode: flow}\n"
      "output: {link_interval: 500ns}\n";
  const fs::path dir = scratch_dir("links_csv");
  run_text(text, {"output.dir=" + dir.string()});
  std::istringstream csv(read_file(dir / "links.csv"));
  std::string line;
  std::getline(csv, line);
  EXPECT_EQ(line, "interval_start_us,interval_end_us,link,src,dst,bandwidth_gbps,utilisation");
  std::vector<double> bytes(4, 0.0);
  std::vector<std::vector<double>> utilisation(4);
  while (std::getline(csv, line)) {
    std::vector<std::string> field;
    std::istringstream row(line);
    for (std::string f; std::getline(row, f, ',');) field.push_back(f);
    ASSERT_EQ(field.size(), 7u) << line;
    const auto link = std::stoul(field[2]);
    ASSERT_LT(link, 4u) << line;
    EXPECT_EQ(field[5], "3600") << line;
    const double seconds = (std::stod(field[1]) - std::stod(field[0])) * 1e-6;
    EXPECT_DOUBLE_EQ(seconds, 500e-9) << line;
    bytes[link] += std::stod(field[6]) * seconds * 3600e9 / 8;
    utilisation[link].push_back(std::stod(field[6]));
  }
  for (std::size_t link = 0; link < 4; ++link) {
    EXPECT_NEAR(bytes[link], 1048576.0, 1.0) << link;
    ASSERT_EQ(utilisation[link].size(), 5u) << link;
    for (std::size_t i = 1; i + 1 < utilisation[link].size(); ++i) EXPECT_EQ(utilisation[link][i], 1.0) << link;
  }
}

// links.csv sampling stops once the file holds output.max_rows rows, or after that many
// intervals: a 1 ps interval costs 10 samples, not one event per picosecond of the run. Data
// moves from the start of this all-reduce (24 links busy at once: the first sample fills the
// cap).
TEST(Experiment, LinkSamplingStopsAtTheRowCapAndSaysSo) {
  const std::string text =
      "topology: {hosts: 2, gpus_per_host: 2}\n"
      "workload: {collectives: [{op: all-reduce, size: 1MiB}]}\n"
      "network: {mode: flow}\n"
      "output: {max_rows: 10, collectives: false, flows: false, ranks: false, timeline: false}\n";
  const fs::path dir = scratch_dir("link_cap");
  const Outcome tiny = run_text(text, {"output.dir=" + dir.string(), "output.link_interval=1ps"});
  EXPECT_LT(tiny.result.events, 10'000u);
  EXPECT_EQ(tiny.run_warnings,
            (std::vector<std::string>{"links.csv: sampling stopped at 1ps after output.max_rows (10) rows or intervals "
                                      "(a longer output.link_interval covers more of the run)",
                                      "links.csv: 10 rows kept, 14 more left out by the row cap"}));
  const Outcome full = run_text(text, {"output.dir=" + dir.string(), "output.link_interval=1us"});
  EXPECT_EQ(full.run_warnings,
            (std::vector<std::string>{"links.csv: sampling stopped at 1us after output.max_rows (10) rows or intervals "
                                      "(a longer output.link_interval covers more of the run)",
                                      "links.csv: 10 rows kept, 14 more left out by the row cap"}));
  const auto summary = nlohmann::json::parse(read_file(full.summary_path));
  EXPECT_EQ(summary["outputs"][0]["file"], "links.csv");
  EXPECT_EQ(summary["outputs"][0]["rows"], 10);
  EXPECT_EQ(summary["outputs"][0]["rows_left_out"], 14);
  EXPECT_EQ(summary["warnings"].size(), 2u);
}

// Up front, before the run: a sampler that can cover less simulated time than the run's
// compute alone (its critical path at infinite bandwidth) is bound to stop early.
TEST(Experiment, ASamplingIntervalTheRowCapCannotCoverIsAWarningUpFront) {
  const std::string text = "topology: {hosts: 1, gpus_per_host: 2}\n"
                           "workload: {type: training, model: gpt-7b, tp: 2, global_batch: 1}\n";
  const auto warnings = [&](const std::vector<std::string>& overrides) {
    config::Document document = config::Document::parse(text, "exp.yaml");
    for (const auto& o : overrides) document.apply_override(o);
    return load(document).warnings;
  };
  const std::vector<std::string> links = warnings({"network.mode=flow", "output.link_interval=1ns", "output.max_rows=1000"});
  ASSERT_EQ(links.size(), 1u);
  EXPECT_THAT(links[0], ::testing::StartsWith("output.link_interval x output.max_rows cover at most 1us of simulated "
                                              "time, but the run lasts at least "));
  EXPECT_THAT(links[0], ::testing::EndsWith(" (its compute alone): links.csv will stop sampling early; a longer "
                                            "interval covers more"));
  const std::vector<std::string> queues = warnings(
      {"network.mode=packet", "network.packet={monitor: {interval: 1ns, queues: true, max_rows: 1200}}"});
  ASSERT_EQ(queues.size(), 1u);
  EXPECT_THAT(queues[0], ::testing::StartsWith("network.packet.monitor.interval x max_rows / 12 watched ports cover "
                                               "at most 100ns of simulated time"));
  EXPECT_TRUE(warnings({"network.mode=flow"}).empty());
  EXPECT_TRUE(warnings({"network.mode=flow", "output.links=false", "output.link_interval=1ns"}).empty());
}

TEST(Experiment, ARerunRemovesThePreviousRunsFilesAndKeepsTheUsers) {
  const std::string text = "topology: {hosts: 1, gpus_per_host: 2}\n"
                           "workload: {collectives: [{op: all-reduce, size: 1MiB}]}\n";
  const fs::path dir = scratch_dir("rerun");
  run_text(text, {"output.dir=" + dir.string()});
  ASSERT_TRUE(fs::exists(dir / "flows.csv"));
  std::ofstream(dir / "notes.txt") << "mine\n";
  run_text(text, {"output.dir=" + dir.string(), "output.flows=false", "output.timeline=false"});
  EXPECT_FALSE(fs::exists(dir / "flows.csv"));
  EXPECT_FALSE(fs::exists(dir / "timeline.json"));
  EXPECT_TRUE(fs::exists(dir / "collectives.csv"));
  EXPECT_TRUE(fs::exists(dir / "notes.txt"));
  // A run that fails (data parallelism's stream is not there) keeps them.
  EXPECT_EQ(error_of("topology: {hosts: 1, gpus_per_host: 2}\n"
                     "workload: {type: training, model: gpt-7b, dp: 2, global_batch: 2}\nsystem: {comm_streams: 1}\n",
                     {"output.dir=" + dir.string()}),
            "dp.allreduce_grads: uses communication stream 5, but ranks have 1 (system.comm_streams)");
  EXPECT_TRUE(fs::exists(dir / "collectives.csv"));
  EXPECT_TRUE(fs::exists(dir / "summary.json"));
  fs::remove(dir / "summary.json");
  fs::remove(dir / "collectives.csv");
  fs::remove(dir / "ranks.csv");
  EXPECT_EQ(error_of(text, {"output.dir=" + dir.string()}),
            "output folder '" + dir.string() + "' holds files but no summary.json, so it is not a Loom result (it "
            "holds 'notes.txt'); choose a new or empty folder");
  // A folder of other runs' folders is a fine place for one more run.
  fs::remove(dir / "notes.txt");
  fs::create_directories(dir / "earlier_run");
  EXPECT_EQ(error_of(text, {"output.dir=" + dir.string()}), "no error");
}

TEST(Experiment, AStoppedRunWritesWhatRanAndWhyItStopped) {
  const fs::path dir = scratch_dir("stopped");
  config::Document document = config::Document::parse(default_experiment_text(), "exp.yaml");
  document.apply_override("output.dir=" + dir.string());
  const Outcome outcome = run(load(document), [](const system::RunProgress&) { return false; });
  EXPECT_FALSE(outcome.result.complete);
  const nlohmann::json summary = nlohmann::json::parse(read_file(outcome.summary_path));
  EXPECT_EQ(summary.at("complete"), false);
  EXPECT_EQ(summary.at("stop_reason"), "interrupted");
  EXPECT_TRUE(fs::exists(dir / "collectives.csv"));
  // A complete run has no stop reason.
  const nlohmann::json whole = nlohmann::json::parse(read_file(run(load(document)).summary_path));
  EXPECT_EQ(whole.at("complete"), true);
  EXPECT_FALSE(whole.contains("stop_reason"));
}

// The run keeps only the transfers flows.csv will hold (and ties at the last start), so the
// capped file is the unlimited file's first rows and the rest are counted, not kept in memory.
TEST(Experiment, FlowsCsvRowCapAlsoBoundsTheTransferLog) {
  const fs::path all = scratch_dir("flows_all"), capped = scratch_dir("flows_capped");
  const Outcome whole = run_text(default_experiment_text(), {"output.dir=" + all.string()});
  const Outcome five = run_text(default_experiment_text(), {"output.dir=" + capped.string(), "output.max_rows=5"});
  ASSERT_GT(whole.result.transfers, 5u);
  EXPECT_EQ(five.result.transfers, whole.result.transfers);
  EXPECT_LT(five.result.transfer_log.size(), whole.result.transfer_log.size());
  EXPECT_EQ(five.result.transfer_log.size() + five.result.transfers_not_logged, whole.result.transfers);
  std::istringstream lines(read_file(all / "flows.csv"));
  std::string first_rows;
  for (std::string line; first_rows.size() < 1u << 20 && std::getline(lines, line);) {
    first_rows += line + "\n";
    if (std::count(first_rows.begin(), first_rows.end(), '\n') == 6) break;  // header and 5 rows
  }
  EXPECT_EQ(read_file(capped / "flows.csv"), first_rows);
  const nlohmann::json summary = nlohmann::json::parse(read_file(five.summary_path));
  for (const nlohmann::json& output : summary.at("outputs")) {
    if (output.at("file") == "flows.csv") {
      EXPECT_EQ(output.at("rows_left_out"), whole.result.transfers - 5);
    }
  }
}

TEST(Experiment, PacketModeRunsTheSameExperiment) {
  const std::string text =
      "topology: {hosts: 2, gpus_per_host: 2}\n"
      "workload: {collectives: [{op: all-gather, size: 1MiB, repeat: 2}]}\n"
      "collective: {algorithm: ring, hop_latency: none}\n";
  const Outcome analytical = run_text(text, {"output.dir=" + scratch_dir("pk_a").string()});
  const Outcome packet = run_text(text, {"output.dir=" + scratch_dir("pk_p").string(), "network.mode=packet",
                                         "network.packet={cc: dcqcn}"});
  ASSERT_EQ(packet.result.collectives.size(), 2u);
  EXPECT_EQ(nlohmann::json::parse(read_file(packet.summary_path))["backend"], "packet");
  // Packets add headers (48 B per 1000 B) and store-and-forward delay, nothing else here.
  const double ratio = packet.entries[0].mean_time.seconds() / analytical.entries[0].mean_time.seconds();
  EXPECT_GT(ratio, 1.0);
  EXPECT_LT(ratio, 1.15);
}

TEST(Experiment, PacketMonitorsAreWrittenAndListedInTheSummary) {
  const std::string text =
      "topology: {hosts: 2, gpus_per_host: 2}\n"
      "workload: {collectives: [{op: all-gather, size: 1MiB}]}\n"
      "network: {mode: packet, packet: {cc: dcqcn, monitor: {interval: 2us, queues: true, throughput: true,\n"
      "                                                       max_rows: 5}}}\n";
  const fs::path dir = scratch_dir("pk_monitor");
  const Outcome packet = run_text(text, {"output.dir=" + dir.string()});
  ASSERT_TRUE(fs::exists(dir / "packet_queues.csv"));
  ASSERT_TRUE(fs::exists(dir / "packet_throughput.csv"));
  EXPECT_FALSE(fs::exists(dir / "packet_pfc.csv"));  // not asked for
  const auto summary = nlohmann::json::parse(read_file(packet.summary_path));
  int listed = 0;
  for (const auto& output : summary["outputs"]) {
    const std::string file = output["file"];
    if (file.rfind("packet_", 0) != 0) continue;
    ++listed;
    EXPECT_EQ(output["rows"], 5) << file;  // capped, and the cap is reported
    EXPECT_GT(output["rows_left_out"].get<std::uint64_t>(), 0u) << file;
  }
  EXPECT_EQ(listed, 2);
}

TEST(Experiment, TrainingWorkloadsAreSynthesisedTimedAndRun) {
  const std::string text =
      "topology: {blueprint: single-switch, hosts: 2, gpus_per_host: 8}\n"
      "workload: {type: training, model: gpt-13b, tp: 8, pp: 2, global_batch: 4}\n"
      "collective: {algorithm: ring, channels: 1, protocol: simple, chunks: 1}\n";  // one channel: few flows
  const Outcome outcome = run_text(text, {"output.dir=" + scratch_dir("training").string()});
  const auto summary = nlohmann::json::parse(read_file(outcome.summary_path));
  // Six communication streams (TP, PP in/out per direction, DP) are provisioned automatically.
  EXPECT_EQ(summary["config"]["system"]["comm_streams"], 6);
  EXPECT_EQ(summary["config"]["workload"]["compute"]["gpu"], "H100");
  ASSERT_EQ(outcome.metrics.iteration_times.size(), 1u);
  EXPECT_GT(outcome.metrics.critical_compute, Time::zero());
  // Two stages with four micro-batches: the last stage also computes the logits, and the
  // pipeline leaves both stages idle for part of the step.
  EXPECT_GT(outcome.metrics.ranks[8].compute, outcome.metrics.ranks[0].compute);
  EXPECT_GT(outcome.metrics.ranks[0].idle, Time::zero());
  EXPECT_GT(outcome.metrics.ranks[8].idle, Time::zero());
  EXPECT_TRUE(summary["warnings"].empty()) << summary["warnings"];  // 13B over 16 GPUs fits in HBM
}

TEST(Experiment, APlanThatOverflowsHbmWarnsAndTheSummaryKeepsTheWarning) {
  // GPT-175B over only 16 H100s, no sharding or recompute: ~215 GiB per rank of stage 0.
  const std::string text =
      "topology: {blueprint: single-switch, hosts: 2, gpus_per_host: 8}\n"
      "workload: {type: training, model: gpt-175b, tp: 8, pp: 2, global_batch: 2}\n"
      "collective: {algorithm: ring, channels: 1, protocol: simple, chunks: 1}\n";  // one channel: few flows
  const Outcome outcome = run_text(text, {"output.dir=" + scratch_dir("hbm").string()});
  ASSERT_EQ(outcome.warnings.size(), 1u);
  EXPECT_THAT(outcome.warnings[0], ::testing::HasSubstr("the estimated memory of a stage-0 rank"));
  EXPECT_THAT(outcome.warnings[0], ::testing::HasSubstr("exceeds H100's 80 GB of HBM by"));
  const auto summary = nlohmann::json::parse(read_file(outcome.summary_path));
  EXPECT_EQ(summary["warnings"], nlohmann::json::array({outcome.warnings[0]}));
}

TEST(Experiment, DlrmAndFullyShardedTrainingRun) {
  const std::string dlrm = "topology: {hosts: 1, gpus_per_host: 8}\nworkload: {type: dlrm, global_batch: 2048}\n";
  const Outcome d = run_text(dlrm, {"output.dir=" + scratch_dir("dlrm").string()});
  // One iteration: the embeddings' all-to-all forward and backward, the MLPs' gradient all-reduce.
  EXPECT_EQ(d.result.collectives.size(), 3u);
  EXPECT_GT(d.metrics.critical_compute, Time::zero());
  const std::string fsdp =
      "topology: {hosts: 1, gpus_per_host: 8}\n"
      "workload: {type: training, model: gpt-7b, dp: 8, global_batch: 8, sharding: full}\n";
  const Outcome f = run_text(fsdp, {"output.dir=" + scratch_dir("fsdp").string()});
  int all_gathers = 0;
  for (const auto& c : f.result.collectives) all_gathers += c.op == collective::CollectiveOp::kAllGather;
  // One micro-batch per rank: FSDP gathers each of the 33 parameter units (the embedding, whose
  // copy the logits share on one stage, and 32 layers) before its forward and its backward.
  EXPECT_EQ(all_gathers, 66);
}

// Context parallelism with ZeRO-2, FSDP-free: the plan's keys reach the synthesis, the DAG
// has CP K/V exchanges, and the per-rank memory estimate is available to the experiment.
TEST(Experiment, ContextParallelTrainingWithZeroTwoRunsAndEstimatesMemory) {
  const std::string text =
      "topology: {hosts: 2, gpus_per_host: 8}\n"
      "workload: {type: training, model: gpt-7b, tp: 4, cp: 2, dp: 2, global_batch: 2, sequence_parallel: true,\n"
      "           sharding: gradients, recompute: selective}\n";
  config::Document document = config::Document::parse(text, "exp.yaml");
  document.apply_override("output.dir=" + scratch_dir("cp").string());
  const Experiment e = load(document);
  ASSERT_TRUE(e.memory.has_value());
  EXPECT_GT(e.memory->model_states.parameters, e.memory->model_states.gradients);  // ZeRO-2 shards gradients
  EXPECT_GT(e.memory->activations, 0u);
  int context = 0;
  for (workload::CommunicatorId c = 0; c < e.workload.communicator_count(); ++c) {
    context += e.workload.communicator(c).kind == workload::CommunicatorKind::kContext;
  }
  EXPECT_EQ(context, 8);  // tp 4 x dp 2 groups of 2
  const Outcome outcome = run(e);
  EXPECT_EQ(outcome.metrics.iteration_times.size(), 1u);
  const auto summary = nlohmann::json::parse(read_file(outcome.summary_path));
  EXPECT_EQ(summary["memory"]["total_bytes"].get<std::uint64_t>(), e.memory->total());
  EXPECT_EQ(summary["memory"]["gradient_bytes"].get<std::uint64_t>(), e.memory->model_states.gradients);
}

TEST(Experiment, ImportedPlansRunInPlaceOfTheAlgorithmAndMatchTheBuiltInRing) {
  const fs::path plan =
      loom::testing::fixture_path("msccl/msccl_xml/astra-sim_custom_allreduce_ring_8gpus.xml");
  LOOM_SKIP_WITHOUT_FIXTURE(plan);
  // The fixture is an 8-GPU LL128 ring all-reduce with one channel: the built-in ring with the
  // same protocol and channel count moves the same bytes in the same steps.
  const std::string text =
      "topology: {hosts: 1, gpus_per_host: 8}\n"
      "workload: {collectives: [{op: all-reduce, size: 8MiB}, {op: all-gather, size: 8MiB}]}\n"
      "collective: {algorithm: ring, protocol: ll128, channels: 1}\n";
  const fs::path dir = scratch_dir("plan");
  const Outcome custom = run_text(text, {"output.dir=" + dir.string(), "collective.plans=[" + plan.string() + "]"});
  const Outcome builtin = run_text(text, {"output.dir=" + scratch_dir("plan_builtin").string()});
  ASSERT_EQ(custom.result.collectives.size(), 2u);
  const auto& all_reduce = custom.result.collectives[0];
  EXPECT_EQ(custom.result.plan_names.at(all_reduce.plan), "allreduce_ring_1channelsperring");
  EXPECT_EQ(custom.result.collectives[1].plan, system::kNoPlan);  // no all-gather plan given
  EXPECT_EQ(all_reduce.duration(), builtin.result.collectives[0].duration());
  EXPECT_EQ(all_reduce.bytes_moved, builtin.result.collectives[0].bytes_moved);
  EXPECT_NE(read_file(dir / "collectives.csv").find(",plan:allreduce_ring_1channelsperring,"), std::string::npos);
  EXPECT_NE(error_of(text, {"collective.plans=[missing.json]"}).find("missing.json"), std::string::npos);
}

TEST(Experiment, PxnKeepsCrossRailRingTrafficOnItsRailAndIsFaster) {
  // Two rail-optimised hosts joined by one thin spine: a ring across hosts enters each host on
  // another rail than it leaves, so without PXN its inter-host hops cross the spine.
  const std::string text =
      "topology: {blueprint: rail-optimized, hosts: 2, gpus_per_host: 4, hosts_per_segment: 2, spines: 1,\n"
      "           spine_link_bandwidth: 100Gbps}\n"
      "workload: {collectives: [{op: all-reduce, size: 64MiB}]}\n"
      "collective: {algorithm: ring, channels: 4}\n"
      "network: {mode: flow}\n";
  const Outcome plain = run_text(text, {"output.dir=" + scratch_dir("pxn_off").string()});
  const Outcome relayed = run_text(text, {"output.dir=" + scratch_dir("pxn_on").string(), "network.pxn=true"});
  EXPECT_LT(relayed.result.makespan.seconds(), plain.result.makespan.seconds() * 0.9);
  const auto summary = nlohmann::json::parse(read_file(relayed.summary_path));
  EXPECT_GT(summary["network"]["pxn_relayed_transfers"].get<std::uint64_t>(), 0u);
  EXPECT_FALSE(nlohmann::json::parse(read_file(plain.summary_path))["network"].contains("pxn_relayed_transfers"));
}

TEST(Experiment, DataLoadingDelaysTheFirstIteration) {
  const std::string base = "topology: {hosts: 1, gpus_per_host: 2}\n"
                           "workload: {type: training, model: gpt-7b, dp: 2, global_batch: 2";
  const Outcome plain = run_text(base + "}\n", {"output.dir=" + scratch_dir("noload").string()});
  const Outcome loading = run_text(
      base + ", data_loading: {bytes_per_rank: 1GiB, bandwidth: 100Gbps, latency: 5us}}\n",
      {"output.dir=" + scratch_dir("load").string()});
  // 2^30 · 8 bits at 10^11 bit/s, plus the latency.
  EXPECT_EQ(loading.result.makespan - plain.result.makespan, Time::ps(85'899'345'920) + Time::us(5));
}

// Two hosts of one GPU on one switch; a 2-rank ring all-reduce of 8 MiB is 2 steps of 4 MiB, each
// through a NIC (400 Gbit/s; PCIe 512). Slowing the NICs by 2 makes each step's serialisation
// 4 MiB · 8 / 200 Gbit/s instead of / 400: the all-reduce takes 2 · 83,886,080 ps longer.
TEST(Experiment, SlowNicsLengthenAnAllReduceByTheClosedFormAmount) {
  const std::string base =
      "topology: {blueprint: single-switch, hosts: 2, gpus_per_host: 1}\n"
      "collective: {algorithm: ring, channels: 1, chunks: 1, protocol: simple, hop_latency: none}\n"
      "workload:\n  collectives: [{op: all-reduce, size: 8MiB}]\n";
  const Outcome plain = run_text(base, {"output.dir=" + scratch_dir("fast_nics").string()});
  const Outcome slow = run_text(base + "  variation: {nic_slowdown_chance: 1, nic_slowdown: [2, 2]}\n",
                                {"output.dir=" + scratch_dir("slow_nics").string()});
  EXPECT_EQ(slow.result.makespan - plain.result.makespan, Time::ps(2 * 83'886'080));
}

TEST(Experiment, WithSlowNicsScalesOnlyThatNicsCablesBothWays) {
  config::Document document =
      config::Document::parse("topology: {blueprint: single-switch, hosts: 2, gpus_per_host: 1}\n"
                              "workload: {collectives: [{op: all-reduce, size: 1MiB}]}\n",
                              "exp.yaml");
  const topology::Topology t = load(document).topology;
  const workload::NicSlowdown slow[] = {{0, 4.0}};
  const topology::Topology s = with_slow_nics(t, slow);
  ASSERT_EQ(s.link_count(), t.link_count());
  ASSERT_EQ(s.node_count(), t.node_count());
  const topology::NodeId nic0 = t.nic_of_rank(0);
  int slowed = 0;
  for (topology::LinkId l = 0; l < t.link_count(); ++l) {
    const topology::Link& before = t.link(l);
    const topology::Link& after = s.link(l);
    EXPECT_EQ(after.src, before.src);
    EXPECT_EQ(after.reverse, before.reverse);
    EXPECT_EQ(after.latency, before.latency);
    const bool touches = before.src == nic0 || before.dst == nic0;
    EXPECT_EQ(after.bandwidth.bps(), touches ? before.bandwidth.bps() / 4 : before.bandwidth.bps()) << l;
    slowed += touches;
  }
  EXPECT_EQ(slowed, 4);  // GPU-NIC and NIC-switch cables, both directions
  EXPECT_EQ(s.nic_of_rank(1), t.nic_of_rank(1));
  const workload::NicSlowdown bad[] = {{7, 2.0}};
  EXPECT_THROW(with_slow_nics(t, bad), UserError);
}

TEST(Experiment, VariationKeysAreCheckedAndStragglersSlowTheRun) {
  const std::string base = "topology: {hosts: 1, gpus_per_host: 2}\n"
                           "workload:\n  type: training\n  model: gpt-7b\n  dp: 2\n  global_batch: 2\n";
  const Outcome plain = run_text(base, {"output.dir=" + scratch_dir("nostraggler").string()});
  const Outcome straggling = run_text(base + "  variation: {stragglers: [{rank: 1, factor: 2}]}\n",
                                      {"output.dir=" + scratch_dir("straggler").string()});
  EXPECT_GT(straggling.result.makespan, plain.result.makespan);
  EXPECT_EQ(error_of(base + "  variation: {nic_slowdown: [2, 1]}\n"),
            "exp.yaml:7:29: workload.variation.nic_slowdown: expected [min, max] factors with 0 < min <= max");
  EXPECT_EQ(error_of(base + "  variation: {nic_slowdown: [0.5, 2]}\n"),
            "exp.yaml:7:29: workload.variation.nic_slowdown: factors must be at least 1 (a factor below 1 would make a "
            "NIC faster than its cable)");
  EXPECT_EQ(error_of(base + "  variation: {compute_slowdown_chance: 2}\n"),
            "exp.yaml:7:40: workload.variation.compute_slowdown_chance: must be a probability in [0, 1], got 2");
  EXPECT_EQ(error_of(base + "  variation: {stragglers: [{rank: 1, layer: 99, factor: 2}]}\n"),
            "exp.yaml:7:14: variation: straggler on rank 1: layer 99 does not exist there (layer range there: 0..31)");
  EXPECT_EQ(error_of(base + "  variation: {stragglers: [{rank: 1, iteration: 1, factor: 2}]}\n"),
            "exp.yaml:7:14: variation: straggler on rank 1: iteration 1 does not exist there (iteration range there: "
            "0..0)");
}

TEST(Experiment, TraceWorkloadsLoadChakraFixtures) {
  const fs::path fixture = loom::testing::fixture_path("chakra/astra-sim_microbench_all_reduce_8npus_1MB");
  LOOM_SKIP_WITHOUT_FIXTURE(fixture);
  const std::string text = "topology: {hosts: 1, gpus_per_host: 8}\nworkload: {type: trace, file: " +
                           (fixture / "all_reduce").string() + "}\n";
  const Outcome outcome = run_text(text, {"output.dir=" + scratch_dir("trace").string()});
  ASSERT_EQ(outcome.result.collectives.size(), 1u);
  EXPECT_EQ(outcome.result.collectives[0].bytes, 1u << 20);
  EXPECT_EQ(outcome.result.collectives[0].members, 8u);
}

// ASTRA-sim's custom ring all-reduce needs eager sends (a receive waits on the rank's previous
// send): Chakra traces get them, the summary counts held data, and rendezvous may be chosen.
TEST(Experiment, ChakraTracesRunWithEagerSendsUnlessToldOtherwise) {
  const fs::path fixture = loom::testing::fixture_path("chakra/astra-sim_custom_ring_allreduce_8npus_1MB");
  LOOM_SKIP_WITHOUT_FIXTURE(fixture);
  const std::string text = "topology: {hosts: 1, gpus_per_host: 8}\nworkload: {type: trace, file: " +
                           (fixture / "custom_allreduce").string() + "}\n";
  const Outcome outcome = run_text(text, {"output.dir=" + scratch_dir("eager").string()});
  EXPECT_EQ(outcome.result.transfers, 8u * 14);
  EXPECT_EQ(outcome.summary["totals"]["point_to_point"], "eager");
  EXPECT_EQ(outcome.summary["totals"]["sends_held"], outcome.result.sends_held);
  EXPECT_NE(error_of(text, {"workload.point_to_point=rendezvous"}).find("waits for a receive that rank 1 never posts"),
            std::string::npos);
  EXPECT_NE(error_of(text, {"workload.point_to_point=early"})
                .find("workload.point_to_point: unknown point-to-point semantics 'early', expected rendezvous or eager"),
            std::string::npos)
      << error_of(text, {"workload.point_to_point=early"});
}

TEST(Experiment, EveryExampleFileLoads) {
  int examples = 0;
  for (const auto& entry : fs::directory_iterator(fs::path(LOOM_SOURCE_DIR) / "examples")) {
    if (entry.path().extension() != ".yaml") continue;
    ++examples;
    config::Document document = config::Document::load_file(entry.path().string());
    if (is_cluster_experiment(document)) {
      EXPECT_NO_THROW(load_cluster(document)) << entry.path();
    } else {
      EXPECT_NO_THROW(load(document)) << entry.path();
    }
  }
  EXPECT_GE(examples, 3);
}

TEST(Experiment, EveryCatalogParameterIsAnExperimentKeyWithItsDocumentedDefault) {
  for (const topology::BlueprintInfo& blueprint : topology::blueprint_catalog()) {
    // Absent keys: the effective configuration must show the catalog's defaults.
    config::Document defaults = config::Document::parse(
        fmt::format("topology: {{blueprint: {}}}\nworkload: {{collectives: [{{op: all-reduce, size: 1MiB}}]}}\n",
                    blueprint.name),
        "exp.yaml");
    load(defaults);
    // Every key written out with its documented default must be accepted.
    std::string explicit_text = fmt::format("topology:\n  blueprint: {}\n", blueprint.name);
    for (const topology::ParameterInfo& p : blueprint.parameters) {
      const auto& recorded = defaults.effective()["topology"][std::string(p.name)];
      const std::string shown = recorded.is_string() ? recorded.get<std::string>() : recorded.dump();
      // Same value, compared in canonical notation ("3600Gbps" is recorded as "3.6Tbps").
      const std::string documented = p.unit == "bandwidth" ? to_string(parse_bandwidth(p.default_value))
                                     : p.unit == "time"    ? to_string(parse_time(p.default_value))
                                                           : std::string(p.default_value);
      EXPECT_EQ(shown, documented) << blueprint.name << "." << p.name;
      explicit_text += fmt::format("  {}: {}\n", p.name, p.default_value);
    }
    explicit_text += "workload: {collectives: [{op: all-reduce, size: 1MiB}]}\n";
    config::Document written = config::Document::parse(explicit_text, "exp.yaml");
    EXPECT_NO_THROW(load(written)) << explicit_text;
    EXPECT_EQ(written.effective()["topology"], defaults.effective()["topology"]);
  }
}

// examples/incast_packet.yaml shows DCQCN at work: without a window the 7-to-1 incast is
// marked, CNPs reach the senders and their rates drop below the 100 Gb/s line rate; with the
// window the in-flight bytes stay under the ECN threshold and no CNP is sent.
TEST(Experiment, IncastExampleProducesCnpsAndRateCuts) {
  const std::string text = read_file(fs::path(LOOM_SOURCE_DIR) / "examples/incast_packet.yaml");
  const auto cnps_and_lowest_rate = [&](const std::vector<std::string>& overrides, const std::string& name) {
    const fs::path dir = scratch_dir("incast_" + name);
    std::vector<std::string> all = overrides;
    all.push_back("output.dir=" + dir.string());
    run_text(text, all);
    std::istringstream cnps(read_file(dir / "packet_cnps.csv"));
    std::string line;
    std::getline(cnps, line);
    EXPECT_EQ(line, "time_us,qp,tag,src,dst,cnps");
    double total = 0;
    while (std::getline(cnps, line)) total += std::stod(line.substr(line.rfind(',') + 1));
    std::istringstream rates(read_file(dir / "packet_qp_rates.csv"));
    std::getline(rates, line);
    double lowest = 1e9;
    while (std::getline(rates, line)) lowest = std::min(lowest, std::stod(line.substr(line.rfind(',') + 1)));
    return std::pair(total, lowest);
  };
  const auto [cnps, lowest] = cnps_and_lowest_rate({}, "as_is");
  EXPECT_GT(cnps, 100.0);
  EXPECT_LT(lowest, 50.0);  // Gb/s: well below line rate (7 senders share 100 Gb/s)
  const auto [windowed_cnps, windowed_lowest] = cnps_and_lowest_rate({"network.packet.window=true"}, "window");
  EXPECT_EQ(windowed_cnps, 0.0);
  EXPECT_EQ(windowed_lowest, 100.0);
}

}  // namespace
}  // namespace loom::experiment
