// `loom run` in packet mode over logical processes (network.packet.lp_delay_threshold > 0): the
// runtime is told of completions between windows, windows end at the fabric's earliest possible
// completion, and the windows run on threads. A training iteration with pipeline (PP) and
// data-parallel (DP) traffic and a cable going down, and ring all-reduces with and without
// NCCL's hop latency (the runtime reacting to a completion at once, or a few microseconds
// later), write the serial run's files, byte for byte, on 1, 2 and 4 threads.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "loom/experiment/experiment.h"

namespace loom::experiment {
namespace {

namespace fs = std::filesystem;

// 8 hosts of one GPU on two leaves and two spines (500 ns cables, 250 ns PCIe): ζ = 400 ns puts
// each host (GPU and NIC) in an LP and each switch in one, lookahead 500 ns. PP 2 x DP 4 of a
// small GPT: activations between the stages, gradient all-reduces within each stage, and one
// leaf-spine cable down during the iteration (its QPs lose packets and are rerouted).
constexpr const char* kTraining =
    "topology: {blueprint: leaf-spine, hosts: 8, gpus_per_host: 1, hosts_per_leaf: 4, spines: 2,\n"
    "           links_per_pair: 1}\n"
    "workload:\n"
    "  type: training\n"
    "  model: {base: gpt-7b, layers: 4, hidden: 512, heads: 8, kv_heads: 8, ffn_hidden: 2048, vocab: 8192, sequence: 512}\n"
    "  pp: 2\n"
    "  dp: 4\n"
    "  global_batch: 8\n"
    "network:\n"
    "  mode: packet\n"
    "  link_changes: [{at: 30us, between: [leaf.0, spine.1], state: down}]\n"
    "  packet: {cc: dcqcn, lp_delay_threshold: 400ns}\n";

fs::path scratch_dir(const std::string& name) {
  const fs::path dir = fs::temp_directory_path() / ("loom_windowed_run_test_" + name + "." + std::to_string(getpid()));
  fs::remove_all(dir);
  return dir;
}

std::string read_file(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

struct RunFiles {
  Outcome outcome;
  std::map<std::string, std::string> files;  // name -> contents (summary.json: see run_with)
};

// One folder for every run, so that the summaries' echo of output.dir agrees.
RunFiles run_with(const std::string& text, const std::vector<std::string>& overrides) {
  config::Document document = config::Document::parse(text, "exp.yaml");
  const fs::path dir = scratch_dir("run");
  document.apply_override("output.dir=" + dir.string());
  for (const std::string& o : overrides) document.apply_override(o);
  RunFiles r{run(load(document)), {}};
  for (const fs::directory_entry& entry : fs::directory_iterator(dir)) {
    std::string contents = read_file(entry.path());
    // What differs from a serial run by design: the configuration's echo of the windowed keys,
    // the windows' own measures, and the event count (a windowed run counts the runtime's
    // simulator only; network.windows.lp_events the fabric's).
    if (entry.path().filename() == "summary.json") {
      nlohmann::json summary = nlohmann::json::parse(contents);
      nlohmann::json& packet = summary.at("config").at("network").at("packet");
      packet.erase("lp_delay_threshold");
      packet.erase("threads");
      packet.erase("lp_groups");
      summary.at("network").erase("windows");
      summary.at("totals").erase("events");
      contents = summary.dump(1);
    }
    r.files[entry.path().filename().string()] = contents;
  }
  fs::remove_all(dir);
  return r;
}

void expect_same_files(const RunFiles& serial, const RunFiles& windowed, const std::string& what) {
  ASSERT_EQ(windowed.files.size(), serial.files.size()) << what;
  for (const auto& [name, contents] : serial.files) {
    ASSERT_TRUE(windowed.files.contains(name)) << name << ", " << what;
    EXPECT_TRUE(windowed.files.at(name) == contents) << name << " differs, " << what;
  }
}

// The summary's network.<group>.<name>.
std::uint64_t statistic(const Outcome& o, const std::string& group, const std::string& name) {
  const nlohmann::json& network = o.summary.at("network");
  if (!network.contains(group) || !network.at(group).contains(name)) {
    ADD_FAILURE() << "no statistic network." << group << "." << name;
    return 0;
  }
  return network.at(group).at(name).get<std::uint64_t>();
}

TEST(WindowedPacketRun, TrainingWithAFailedCableEqualsTheSerialRunOnOneTwoAndFourThreads) {
  const RunFiles serial = run_with(kTraining, {"network.packet.lp_delay_threshold=0s"});
  ASSERT_TRUE(serial.outcome.result.complete);
  EXPECT_GT(statistic(serial.outcome, "packets", "retransmitted_bytes"), 0u);
  for (const char* file : {"collectives.csv", "flows.csv", "ranks.csv", "timeline.json", "summary.json"}) {
    ASSERT_TRUE(serial.files.contains(file)) << file;
  }
  for (const std::uint32_t threads : {1u, 2u, 4u}) {
    const RunFiles windowed = run_with(kTraining, {"network.packet.threads=" + std::to_string(threads)});
    // The run did what the test is about: windows, events handed between LPs, windows cut at
    // possible completions (pipeline sends start as soon as the previous one completes).
    EXPECT_GT(statistic(windowed.outcome, "windows", "windows"), 100u);
    EXPECT_GT(statistic(windowed.outcome, "windows", "handed_over"), 1000u);
    EXPECT_GT(statistic(windowed.outcome, "windows", "cut"), 10u);
    EXPECT_EQ(statistic(windowed.outcome, "windows", "lps"), 12u);
    EXPECT_EQ(statistic(windowed.outcome, "windows", "lookahead_ps"), 500'000u);
    EXPECT_EQ(windowed.outcome.summary.at("network").at("windows").at("threads").at("count"), threads);
    expect_same_files(serial, windowed, std::to_string(threads) + " threads");
  }
  // The LPs merged into three groups (network.packet.lp_groups): three event queues, the same files.
  const RunFiles grouped = run_with(kTraining, {"network.packet.lp_groups=3", "network.packet.threads=2"});
  EXPECT_EQ(statistic(grouped.outcome, "windows", "lps"), 3u);
  expect_same_files(serial, grouped, "3 groups on 2 threads");
}

// Fast-forward on (DCQCN with its window, as the fast-forward tests run it; a wider model, so
// that the gradient all-reduces' flows run long enough to be skipped): its samples, skips and
// memo replays run as global steps between windows, and the files, the fast-forward statistics
// among them, are the serial fast-forward run's on 1, 2 and 4 threads.
TEST(WindowedPacketRun, TrainingWithFastForwardEqualsTheSerialFastForwardRun) {
  const std::vector<std::string> fast_forward = {"network.packet.fast_forward.enabled=true", "network.packet.window=true",
                                                 "workload.model.hidden=2048", "workload.model.ffn_hidden=8192"};
  std::vector<std::string> serial_keys = fast_forward;
  serial_keys.push_back("network.packet.lp_delay_threshold=0s");
  const RunFiles serial = run_with(kTraining, serial_keys);
  ASSERT_TRUE(serial.outcome.result.complete);
  EXPECT_GT(statistic(serial.outcome, "fast_forward", "skips"), 5u);
  EXPECT_GT(statistic(serial.outcome, "fast_forward", "skipped_data_packets"), 10'000u);
  for (const std::uint32_t threads : {1u, 2u, 4u}) {
    std::vector<std::string> keys = fast_forward;
    keys.push_back("network.packet.threads=" + std::to_string(threads));
    const RunFiles windowed = run_with(kTraining, keys);
    EXPECT_GT(statistic(windowed.outcome, "windows", "handed_over"), 1000u);
    expect_same_files(serial, windowed, std::to_string(threads) + " threads with fast-forward");
  }
}

// A ring all-reduce's next send follows its protocol hop latency (NCCL's, microseconds: past
// the lookahead of 500 ns at ζ = 400 ns and 250 ns at 200 ns) or, without it, the completion at
// once; either way the windowed run on two threads writes the serial run's files.
TEST(WindowedPacketRun, RingAllReducesEqualTheSerialRunWithAndWithoutHopLatency) {
  const std::string text =
      "topology: {blueprint: leaf-spine, hosts: 8, gpus_per_host: 1, hosts_per_leaf: 4, spines: 2, links_per_pair: 1}\n"
      "workload: {type: microbenchmark, collectives: [{op: all-reduce, size: 4MiB, repeat: 2, algorithm: ring}]}\n"
      "network: {mode: packet, packet: {cc: dcqcn}}\n";
  for (const char* hop_latency : {"nccl", "none"}) {
    const std::string latency = std::string("collective.hop_latency=") + hop_latency;
    const RunFiles serial = run_with(text, {latency});
    for (const char* threshold : {"400ns", "200ns"}) {
      const RunFiles windowed = run_with(
          text, {latency, std::string("network.packet.lp_delay_threshold=") + threshold, "network.packet.threads=2"});
      EXPECT_GT(statistic(windowed.outcome, "windows", "handed_over"), 0u) << threshold;
      expect_same_files(serial, windowed, std::string("hop latency ") + hop_latency + ", threshold " + threshold);
    }
  }
}

}  // namespace
}  // namespace loom::experiment
