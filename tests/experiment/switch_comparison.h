// Shared by the tests that prove a `system` switch changes no result (symmetry, compact
// programs): run an experiment with the switch on and off and compare every output file.
#pragma once

#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "loom/experiment/experiment.h"
#include "fixtures.h"

namespace loom::experiment::switched {

inline std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// An example experiment file's text.
inline std::string example(const std::string& file) {
  return read_file(std::filesystem::path(LOOM_SOURCE_DIR) / "examples" / file);
}

// A small training plan in `mode`, and the overrides that make the builder emit every kind of
// communicator (ZeRO-3 with interleaving, ZeRO-1 with context parallelism, experts).
inline std::string small_training(const std::string& mode) {
  return "topology: {blueprint: rail-optimized, hosts: 2, host_model: dgx-h100}\n"
         "workload: {type: training, model: gpt-7b, tp: 2, pp: 2, dp: 4, global_batch: 16, iterations: 2}\n"
         "collective: {algorithm: auto}\n"
         "network: {mode: " + mode + "}\n";
}
struct Variant {
  std::string name;
  std::vector<std::string> overrides;
};
inline std::vector<Variant> communicator_variants() {
  return {{"zero3", {"workload.schedule=interleaved", "workload.virtual_stages=2", "workload.sharding=full"}},
          {"zero1_cp", {"workload.distributed_optimizer=true", "workload.cp=2", "workload.dp=2"}},
          {"moe", {"workload.model=mixtral-8x7b", "workload.ep=2", "workload.sequence_parallel=true"}}};
}

inline std::filesystem::path scratch_dir(const std::string& name) {
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("loom_switch_test_" + name + "." + std::to_string(getpid()));
  std::filesystem::remove_all(dir);
  return dir;
}

inline Outcome run_text(const std::string& text, std::vector<std::string> overrides, const std::filesystem::path& dir) {
  config::Document document = config::Document::parse(text, "exp.yaml");
  overrides.push_back("output.dir=" + dir.string());
  for (const auto& o : overrides) document.apply_override(o);
  return run(load(document));
}

inline std::filesystem::path simai_workload_path(const std::string& file) {
  return loom::testing::fixture_path("simai/inputs/workloads/" + file);
}

// SimAI workload text from the shared fixtures, on DGX-H100 hosts of 8 GPUs.
inline std::string simai_experiment(const std::string& file, std::uint32_t gpus) {
  return "topology: {blueprint: rail-optimized, hosts: " + std::to_string(gpus / 8) +
         ", host_model: dgx-h100}\nworkload: {type: trace, file: " + simai_workload_path(file).string() +
         "}\nnetwork: {mode: analytical}\n";
}

// SimAI fixture files (and their GPU counts) that run in a second or two in analytical mode.
inline const std::vector<std::pair<std::string, std::uint32_t>> kSmallSimaiWorkloads = {
    {"simai_example_microAllReduce.txt", 8},
    {"authored_dp_allreduce_64MB_tp8_g128.txt", 128},
    {"aicb_micro_test_all_to_all.txt", 8},
    {"derived_L7B-M1-C04_Llama7B_megatron_tp2_pp1_mbs1_A100_hdrfix_g64.txt", 64},
    {"derived_G175B-M1-C03_GPT175B_megatron_tp8_pp1_mbs1_A100_hdrfix_g128.txt", 128},
};

struct SwitchedRuns {
  Outcome on, off;
};

// Runs `text` with system.`key` true and false: every file but the summary must be
// byte-identical, and the summaries equal but for the switch, the output folder and the
// summary's `blocks` (top-level keys, or JSON pointers such as "/totals/events" naming one
// value each). At least `min_files` files besides the summary are compared.
inline SwitchedRuns expect_same_with_and_without(const std::string& key, const std::vector<std::string>& blocks,
                                                 const std::string& name, const std::string& text,
                                                 const std::vector<std::string>& overrides = {},
                                                 std::size_t min_files = 4) {
  namespace fs = std::filesystem;
  const fs::path on_dir = scratch_dir(name + "_on"), off_dir = scratch_dir(name + "_off");
  std::vector<std::string> with = overrides, without = overrides;
  with.push_back("system." + key + "=true");
  without.push_back("system." + key + "=false");
  SwitchedRuns runs{run_text(text, with, on_dir), run_text(text, without, off_dir)};
  std::size_t compared = 0;
  for (const fs::directory_entry& file : fs::directory_iterator(off_dir)) {
    const std::string filename = file.path().filename().string();
    if (filename == "summary.json") continue;
    EXPECT_TRUE(read_file(file.path()) == read_file(on_dir / filename)) << name << ": " << filename << " differs";
    ++compared;
  }
  EXPECT_GE(compared, min_files) << name << ": collectives, flows, ranks and timeline (as written)";
  const auto comparable = [&](nlohmann::json summary) {
    for (const std::string& block : blocks) {
      if (block.front() == '/') {
        const nlohmann::json::json_pointer value(block);
        summary[value.parent_pointer()].erase(value.back());
      } else {
        summary.erase(block);
      }
    }
    summary["config"]["system"].erase(key);
    summary["config"]["output"].erase("dir");
    return summary;
  };
  EXPECT_EQ(comparable(runs.on.summary), comparable(runs.off.summary)) << name;
  fs::remove_all(on_dir);
  fs::remove_all(off_dir);
  return runs;
}

}  // namespace loom::experiment::switched
