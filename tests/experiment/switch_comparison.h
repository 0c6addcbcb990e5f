// Shared by the tests that prove a `system` switch changes no result (symmetry, compact
// programs): run an experiment with the switch on and off and compare every output file.
#pragma once

#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
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

// SimAI workload text from the shared fixtures, on DGX-H100 hosts of 8 GPUs.
inline std::string simai_experiment(const std::string& file, std::uint32_t gpus) {
  return "topology: {blueprint: rail-optimized, hosts: " + std::to_string(gpus / 8) +
         ", host_model: dgx-h100}\nworkload: {type: trace, file: " +
         loom::testing::fixture_path("simai/inputs/workloads/" + file).string() + "}\nnetwork: {mode: analytical}\n";
}

struct SwitchedRuns {
  Outcome on, off;
};

// Runs `text` with system.`key` true and false: every file but the summary must be
// byte-identical, and the summaries equal but for the switch, the output folder and the
// summary's block `block` (none if empty).
inline SwitchedRuns expect_same_with_and_without(const std::string& key, const std::string& block,
                                                 const std::string& name, const std::string& text,
                                                 const std::vector<std::string>& overrides = {}) {
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
  EXPECT_GE(compared, 4u) << name << ": collectives, flows, ranks and timeline";
  const auto comparable = [&](nlohmann::json summary) {
    if (!block.empty()) summary.erase(block);
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
