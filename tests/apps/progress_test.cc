// `loom run`'s progress line and Ctrl-C, as a user meets them: a live line rewritten with '\r'
// on a terminal (a pseudo-terminal from util-linux's `script`), a single plain line in a pipe,
// nothing with --quiet, and a SIGINT that stops a long run with its results written and marked
// incomplete (exit code 130).
#include <filesystem>
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "loom_binary.h"

namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using cli_support::Result;
using cli_support::run_loom;
using cli_support::scratch;
using cli_support::slurp;

TEST(Progress, LiveLineOnATerminal) {
  if (std::system("command -v script > /dev/null") != 0) GTEST_SKIP() << "no `script` (util-linux): no pseudo-terminal";
  const fs::path out = scratch() / "progress_tty", screen = scratch() / "progress_tty.txt";
  // `script` runs loom with its stdin, stdout and stderr on a new pseudo-terminal and copies
  // what appears there to its own stdout; loom's stdout (the table) is sent away.
  const std::string command = "script -qec '" + std::string(LOOM_BINARY) + " run --progress --out " + out.string() +
                              " > /dev/null' /dev/null < /dev/null > " + screen.string();
  ASSERT_EQ(std::system(command.c_str()), 0);
  const std::string text = slurp(screen);
  EXPECT_THAT(text, HasSubstr("\rloom: "));                 // rewritten in place
  EXPECT_THAT(text, HasSubstr("% of operations ("));
  EXPECT_THAT(text, HasSubstr("events/s"));
  EXPECT_THAT(text, HasSubstr("\rloom: done: "));           // the final line replaces it
  EXPECT_THAT(text, HasSubstr("100.0% of operations (480/480)"));
}

TEST(Progress, PipedOutputIsOnePlainFinalLine) {
  const fs::path out = scratch() / "progress_pipe";
  const Result r = run_loom("run --progress --out " + out.string());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.err, HasSubstr("loom: done: "));
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  for (const char c : r.err + r.out) {
    EXPECT_TRUE(c == '\n' || static_cast<unsigned char>(c) >= 0x20) << "control character " << int(c) << " in " << r.err;
  }
}

TEST(Progress, ALogGetsALineEveryProgressEverySeconds) {
  const fs::path out = scratch() / "progress_log";
  // A run of about 2 s (more on a loaded machine: more lines), a line every 0.3 s.
  const Result r = run_loom("run examples/gpt13b_training_flow.yaml --set output.flows=false --set output.timeline=false "
                            "--set workload.iterations=3 --progress --progress-every 0.3 --out " + out.string(),
                            "cd " LOOM_SOURCE_DIR " && ");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_GE(std::count(r.err.begin(), r.err.end(), '\n'), 3) << r.err;
  EXPECT_THAT(r.err, HasSubstr("% of operations ("));
  EXPECT_THAT(r.err, HasSubstr("\nloom: done: "));
  EXPECT_EQ(r.err.find('\r'), std::string::npos) << r.err;
  for (const char* bad : {"0", "0.01", "1e300", "soon"}) {
    const Result refused = run_loom(std::string("run --progress-every ") + bad + " --out " + out.string());
    EXPECT_EQ(refused.exit_code, 2) << bad;
    EXPECT_THAT(refused.err, HasSubstr("--progress-every: expected seconds from 0.1 to 86400")) << refused.err;
  }
}

TEST(Progress, QuietSilencesIt) {
  const fs::path out = scratch() / "progress_quiet";
  const Result r = run_loom("run --progress --quiet --out " + out.string());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "");
}

TEST(Progress, CtrlCStopsARunWritesItsResultsAndMarksThemIncomplete) {
  if (std::system("command -v timeout > /dev/null") != 0) GTEST_SKIP() << "no `timeout` (coreutils)";
  const fs::path out = scratch() / "progress_sigint";
  fs::remove_all(out);
  // 20 iterations of GPT-13B take tens of seconds; SIGINT comes after 2 (a Ctrl-C while loading
  // stops the run at its first check just the same). --foreground: without it `timeout` sends
  // the signal to loom and again to its own process group, and that second SIGINT is the
  // "second Ctrl-C" that kills at once whenever the first has been handled in between.
  const Result r = run_loom("run examples/gpt13b_training_flow.yaml --set workload.iterations=20 --set output.flows=false "
                            "--set output.timeline=false --out " + out.string(),
                            "cd " LOOM_SOURCE_DIR " && timeout --foreground --preserve-status -s INT 2 ");
  EXPECT_EQ(r.exit_code, 130) << r.err;
  EXPECT_THAT(r.err, HasSubstr("loom: interrupted (Ctrl-C) at "));
  ASSERT_TRUE(fs::exists(out / "summary.json"));
  const nlohmann::json summary = nlohmann::json::parse(slurp(out / "summary.json"));
  EXPECT_EQ(summary["complete"], false);
  // Stopped long before 20 iterations (about 5 s of simulated time) ended.
  EXPECT_LT(summary["totals"]["makespan_us"].get<double>(), 2e6);
  EXPECT_TRUE(fs::exists(out / "ranks.csv"));
  EXPECT_TRUE(fs::exists(out / "collectives.csv"));
}

TEST(Progress, ASecondSigintWithinASecondIsTheSameCtrlC) {
  const fs::path out = scratch() / "progress_double_sigint", err = scratch() / "double_sigint_err.txt";
  fs::remove_all(out);
  // As `timeout -s INT` delivers it: to loom, and again to the process group holding it.
  const std::string command = "cd " LOOM_SOURCE_DIR " && (" + std::string(LOOM_BINARY) +
                              " run examples/gpt13b_training_flow.yaml --set workload.iterations=20 "
                              "--set output.flows=false --set output.timeline=false --out " + out.string() +
                              " > /dev/null 2> " + err.string() +
                              " & pid=$!; sleep 2; kill -INT $pid; sleep 0.2; kill -INT $pid; wait $pid)";
  std::system(command.c_str());
  EXPECT_THAT(slurp(err), HasSubstr("loom: interrupted (Ctrl-C) at "));
  ASSERT_TRUE(fs::exists(out / "summary.json"));
  EXPECT_EQ(nlohmann::json::parse(slurp(out / "summary.json"))["complete"], false);
}

}  // namespace
