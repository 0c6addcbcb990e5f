// Golden result files: each example in examples/ that runs in a few seconds is run through
// `loom run` (llama70b_cp_zero takes ~15 s and is left out) and its outputs are compared, file
// by file and line by line, with tests/golden/<example>/.
// With LOOM_UPDATE_GOLDEN=1 the same run rewrites tests/golden/<example>/ instead
// (scripts/update-golden.sh, `make golden`).
//
// What is stored: summary.json with the fields that differ between machines and checkouts
// blanked (output dir, Loom version, git SHA); every other output as written, or, above
// kMaxStoredBytes, a `<file>.sha256` holding its SHA-256 (computed with sha256sum).
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>

#include "apps/loom_binary.h"

namespace {

namespace fs = std::filesystem;
using cli_support::slurp;

constexpr std::uintmax_t kMaxStoredBytes = 1 << 20;

const fs::path kSource = LOOM_SOURCE_DIR;
const fs::path kGolden = kSource / "tests" / "golden";

bool updating() {
  const char* flag = std::getenv("LOOM_UPDATE_GOLDEN");
  return flag != nullptr && std::string(flag) == "1";
}

void write(const fs::path& path, const std::string& text) { std::ofstream(path, std::ios::binary) << text; }

// summary.json without what legitimately differs between runs, machines and checkouts.
void normalise_summary(const fs::path& path) {
  nlohmann::json summary = nlohmann::json::parse(slurp(path));
  summary["config"]["output"]["dir"] = "";
  summary["loom"]["version"] = "";
  summary["loom"]["git_sha"] = "";
  write(path, summary.dump(2) + "\n");
}

// Replaces a file above kMaxStoredBytes by `<file>.sha256`.
void digest_if_large(const fs::path& path) {
  if (fs::file_size(path) <= kMaxStoredBytes) return;
  const fs::path digest = path.string() + ".sha256";
  const std::string command = "cd " + path.parent_path().string() + " && sha256sum " + path.filename().string() +
                              " > " + digest.filename().string();
  ASSERT_EQ(std::system(command.c_str()), 0) << command;
  fs::remove(path);
}

std::set<std::string> files_in(const fs::path& dir) {
  std::set<std::string> names;
  if (fs::exists(dir)) {
    for (const fs::directory_entry& e : fs::directory_iterator(dir)) names.insert(e.path().filename().string());
  }
  return names;
}

// Empty when equal; else the first differing line, numbered from 1.
std::string first_difference(const fs::path& expected, const fs::path& actual) {
  std::istringstream want(slurp(expected)), got(slurp(actual));
  std::string w, g;
  for (int line = 1;; ++line) {
    const bool more_w = static_cast<bool>(std::getline(want, w));
    const bool more_g = static_cast<bool>(std::getline(got, g));
    if (!more_w && !more_g) return "";
    if (more_w != more_g || w != g) {
      return "line " + std::to_string(line) + ":\n  golden: " + (more_w ? w : "<end of file>") +
             "\n  now:    " + (more_g ? g : "<end of file>");
    }
  }
}

void expect_same(const std::string& example, const fs::path& golden, const fs::path& out) {
  const std::string how =
      "\nIf the change is intended, regenerate with `make golden` (scripts/update-golden.sh) and review the diff "
      "of tests/golden/.";
  ASSERT_EQ(files_in(golden), files_in(out)) << "the files of tests/golden/" << example << " differ" << how;
  for (const std::string& name : files_in(golden)) {
    const std::string difference = first_difference(golden / name, out / name);
    EXPECT_TRUE(difference.empty()) << "tests/golden/" << example << "/" << name << " differs at " << difference << how;
  }
}

class Golden : public testing::TestWithParam<std::string> {};

TEST_P(Golden, OutputsMatchStoredCopy) {
  const std::string example = GetParam();
  const fs::path out = cli_support::scratch() / ("golden_" + example);
  fs::remove_all(out);
  const cli_support::Result r = cli_support::run_loom("run examples/" + example + ".yaml --out " + out.string(),
                                                      "cd " + kSource.string() + " && ");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  normalise_summary(out / "summary.json");
  for (const std::string& name : files_in(out)) digest_if_large(out / name);

  const fs::path golden = kGolden / example;
  if (updating()) {
    fs::remove_all(golden);
    fs::create_directories(golden);
    fs::copy(out, golden);
  } else {
    expect_same(example, golden, out);
  }
  if (!HasFailure()) fs::remove_all(out);  // a failed run's outputs stay for inspection
}

INSTANTIATE_TEST_SUITE_P(Examples, Golden,
                         testing::Values("default", "incast_packet", "cluster_jobs", "cluster_flow", "gpt13b_training_flow"),
                         [](const testing::TestParamInfo<std::string>& example) { return example.param; });

}  // namespace
