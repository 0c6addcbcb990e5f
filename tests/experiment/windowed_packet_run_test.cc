// `loom run` in packet mode over logical processes (network.packet.lp_delay_threshold > 0): the
// runtime is told of completions between windows and the windows run on threads. A training
// iteration with pipeline (PP) and data-parallel (DP) traffic and a cable going down writes the
// same files, byte for byte, on 1, 2 and 4 threads; where every reaction to a completion reaches
// past the window's end, the windowed run equals the serial one.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

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
  std::map<std::string, std::string> files;  // name -> contents (summary.json without its threads key)
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
    // The effective configuration echoes the thread count, and network.windows.threads says how
    // the threads shared the work; everything else must agree.
    if (entry.path().filename() == "summary.json") {
      contents = std::regex_replace(contents, std::regex("\"threads\": \\{[^}]*\\}"), "\"threads\": {}");
      contents = std::regex_replace(contents, std::regex("\"threads\": [0-9]+"), "\"threads\": N");
    }
    r.files[entry.path().filename().string()] = contents;
  }
  fs::remove_all(dir);
  return r;
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

TEST(WindowedPacketRun, TrainingWithAFailedCableIsTheSameOnOneTwoAndFourThreads) {
  const RunFiles one = run_with(kTraining, {"network.packet.threads=1"});
  ASSERT_TRUE(one.outcome.result.complete);
  // The run did what the test is about: windows, events handed between LPs, a reroute's losses.
  EXPECT_GT(statistic(one.outcome, "windows", "windows"), 100u);
  EXPECT_GT(statistic(one.outcome, "windows", "handed_over"), 1000u);
  EXPECT_EQ(statistic(one.outcome, "windows", "lps"), 12u);
  EXPECT_EQ(statistic(one.outcome, "windows", "lookahead_ps"), 500'000u);
  EXPECT_GT(statistic(one.outcome, "packets", "retransmitted_bytes"), 0u);
  EXPECT_EQ(one.outcome.summary.at("network").at("windows").at("threads").at("count"), 1);
  for (const char* file : {"collectives.csv", "flows.csv", "ranks.csv", "timeline.json", "summary.json"}) {
    ASSERT_TRUE(one.files.contains(file)) << file;
  }
  // Pipeline sends start as soon as the previous one completes: some wait for a window's end.
  EXPECT_GT(statistic(one.outcome, "windows", "deferred_starts"), 0u);
  for (const std::uint32_t threads : {2u, 4u}) {
    const RunFiles many = run_with(kTraining, {"network.packet.threads=" + std::to_string(threads)});
    ASSERT_EQ(many.files.size(), one.files.size());
    for (const auto& [name, contents] : one.files) {
      EXPECT_TRUE(many.files.at(name) == contents) << name << " differs on " << threads << " threads";
    }
  }
}

// A ring all-reduce's next send waits for its protocol hop latency (NCCL's, microseconds), longer
// than the lookahead (500 ns at ζ = 400 ns, 250 ns at 200 ns): no start is deferred, and the
// windowed run on two threads writes the serial run's tables and counters.
TEST(WindowedPacketRun, WithoutDeferredStartsEqualsTheSerialRun) {
  const std::string text =
      "topology: {blueprint: leaf-spine, hosts: 8, gpus_per_host: 1, hosts_per_leaf: 4, spines: 2, links_per_pair: 1}\n"
      "workload: {type: microbenchmark, collectives: [{op: all-reduce, size: 4MiB, repeat: 2, algorithm: ring}]}\n"
      "network: {mode: packet, packet: {cc: dcqcn}}\n";
  const RunFiles serial = run_with(text, {});
  for (const char* threshold : {"400ns", "200ns"}) {
    const RunFiles windowed =
        run_with(text, {std::string("network.packet.lp_delay_threshold=") + threshold, "network.packet.threads=2"});
    EXPECT_EQ(statistic(windowed.outcome, "windows", "deferred_starts"), 0u) << threshold;
    EXPECT_GT(statistic(windowed.outcome, "windows", "handed_over"), 0u) << threshold;
    for (const char* file : {"collectives.csv", "flows.csv", "ranks.csv", "timeline.json"}) {
      EXPECT_TRUE(windowed.files.at(file) == serial.files.at(file)) << file << " differs at " << threshold;
    }
    EXPECT_EQ(windowed.outcome.summary.at("network").at("packets"), serial.outcome.summary.at("network").at("packets"));
  }
}

}  // namespace
}  // namespace loom::experiment
