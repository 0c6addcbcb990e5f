// The `loom` binary as a user meets it: exit codes, one-line errors on stderr, outputs.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "apps/loom_binary.h"

namespace {

namespace fs = std::filesystem;
using cli_support::Result;
using cli_support::scratch;
using cli_support::slurp;

Result loom(const std::string& args) { return cli_support::run_loom(args); }

int lines(const std::string& text) {
  int n = 0;
  for (char c : text) n += c == '\n';
  return n;
}

TEST(Cli, MissingExperimentFileIsOneLineAndExitTwo) {
  const Result r = loom("run missing.yaml");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "loom: cannot open experiment file 'missing.yaml': No such file or directory\n");
}

TEST(Cli, MisspelledKeyIsOneLocatedLineAndExitTwo) {
  const fs::path file = scratch() / "misspelled.yaml";
  std::ofstream(file) << "topology:\n  blueprint: single-switch\n  hosts: 2\n  nic_bandwdith: 400Gbps\n"
                         "workload:\n  collectives: [{op: all-reduce, size: 1MiB}]\n";
  const Result r = loom("run " + file.string());
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "loom: " + file.string() +
                       ":4:3: unknown key 'nic_bandwdith' in topology; did you mean 'nic_bandwidth'?\n");
}

TEST(Cli, BadArgumentsExitTwo) {
  for (const char* args : {"", "frob", "run a.yaml b.yaml", "run --seed abc", "run --set nodot"}) {
    const Result r = loom(args);
    EXPECT_EQ(r.exit_code, 2) << args;
    EXPECT_EQ(lines(r.err), 1) << args << ": " << r.err;
  }
}

TEST(Cli, DefaultRunSaysSoPrintsTheTableAndWritesTheSummary) {
  const fs::path out = scratch() / "default_run";
  fs::remove_all(out);
  const Result r = loom("run --out " + out.string());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("running the built-in default experiment"), std::string::npos);
  EXPECT_NE(r.out.find("busbw GB/s"), std::string::npos);
  EXPECT_NE(r.out.find("all-to-all"), std::string::npos);
  EXPECT_TRUE(fs::exists(out / "summary.json"));
  EXPECT_TRUE(r.err.empty()) << r.err;
}

TEST(Cli, SeedAndSetOverridesReachTheRunRecord) {
  const fs::path out = scratch() / "overrides";
  const Result r = loom("run --out " + out.string() + " --seed 42 --set topology.hosts=2 --set workload.ranks=8");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string summary = slurp(out / "summary.json");
  EXPECT_NE(summary.find("\"seed\": 42"), std::string::npos);
  EXPECT_NE(summary.find("\"ranks\": 8"), std::string::npos);
}

TEST(Cli, ListShowsBlueprintsWithTheirParameters) {
  const Result r = loom("list");
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_NE(r.out.find("leaf-spine"), std::string::npos);
  EXPECT_NE(r.out.find("nic_bandwidth"), std::string::npos);
  EXPECT_NE(r.out.find("400Gbps"), std::string::npos);
}

TEST(Cli, CollectiveExplainPrintsTheTunersChoice) {
  const Result r = loom("collective explain --op all-reduce --size 64MiB --ranks 8 --gpu h100");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("choice: "), std::string::npos);
  EXPECT_NE(r.out.find("busbw"), std::string::npos);
  const Result bad = loom("collective explain --gpu h999");
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_EQ(bad.err, "loom: unknown GPU 'h999'; expected one of: a100, h100, b200\n");
}

TEST(Cli, CollectiveExplainSimulatesTheCandidatesOnATopologyFile) {
  const fs::path topo = scratch() / "rail2.yaml";
  ASSERT_EQ(loom("topo generate rail-optimized --hosts 2 --host-model dgx-h100 -o " + topo.string()).exit_code, 0);
  const Result r = loom("collective explain --size 64MiB --top 2 --mode analytical --rank-list 0-3,8-11 --topology " +
                        topo.string());
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("on 8 ranks (2 hosts x 4)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("(analytical mode, 8 ranks on 2 hosts)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("simulated"), std::string::npos);
  const Result uneven = loom("collective explain --rank-list 0-9 --topology " + topo.string());
  EXPECT_EQ(uneven.exit_code, 2);
  EXPECT_NE(uneven.err.find("spread unevenly over hosts (host 0: 8, host 1: 2)"), std::string::npos) << uneven.err;
  const Result out_of_range = loom("collective explain --rank-list 3-40 --topology " + topo.string());
  EXPECT_EQ(out_of_range.exit_code, 2);
  EXPECT_NE(out_of_range.err.find("rank 40 in '3-40' is out of range: the topology has 16 GPUs"), std::string::npos);
  const Result backwards = loom("collective explain --rank-list 5-2 --topology " + topo.string());
  EXPECT_NE(backwards.err.find("range '5-2' runs backwards"), std::string::npos) << backwards.err;
}

TEST(Cli, CollectivePlanDescribesAndProvesAnImportedPlan) {
  const fs::path plan =
      fs::path(LOOM_SOURCE_DIR) / "../shared/fixtures/msccl/msccl_xml/astra-sim_custom_allreduce_ring_8gpus.xml";
  if (!fs::exists(plan)) GTEST_SKIP() << "shared fixtures not found at " << plan << " (a user's clone)";
  const Result r = loom("collective plan " + plan.string() + " --size 8MiB --check 3");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("rank 7:"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("check: the postcondition holds in 3 random completion orders"), std::string::npos) << r.out;
  const fs::path bad = scratch() / "bad_plan.json";
  std::ofstream(bad) << "{\"name\": \"x\"";
  const Result broken = loom("collective plan " + bad.string());
  EXPECT_EQ(broken.exit_code, 2);
  EXPECT_EQ(lines(broken.err), 1) << broken.err;
  EXPECT_NE(broken.err.find(bad.string()), std::string::npos) << broken.err;
}

TEST(Cli, WorkloadShowSynthesisesAPlanAndEstimatesMemory) {
  const Result r = loom("workload show --model gpt-7b --tp 2 --dp 2 --global-batch 4 --sharding gradients");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("gpt-7b: tp 2 cp 1 pp 1 dp 2"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("critical path at infinite bandwidth"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("memory per rank (stage 0, sharding gradients)"), std::string::npos) << r.out;
  const Result bad = loom("workload show --model gpt-7b --tp 3");
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_EQ(lines(bad.err), 1) << bad.err;
}

TEST(Cli, HpccRunsAnNs3ExperimentAsItIs) {
  const fs::path config = fs::path(LOOM_SOURCE_DIR) / "../shared/fixtures/hpcc/inputs/shipped_star66/config_shipped_hpcc_notrace.txt";
  if (!fs::exists(config)) GTEST_SKIP() << "shared fixtures not found at " << config << " (a user's clone)";
  const fs::path out = scratch() / "hpcc";
  const Result r = loom("hpcc " + config.string() + " --out " + out.string());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(lines(slurp(out / "fct_shipped_hpcc_notrace.txt")), 2);
  EXPECT_EQ(loom("hpcc missing_config.txt").exit_code, 2);
}

TEST(Cli, HelpAndVersion) {
  const Result help = loom("--help");
  EXPECT_EQ(help.exit_code, 0);
  EXPECT_NE(help.out.find("Examples:"), std::string::npos);
  const Result version = loom("version");
  EXPECT_EQ(version.exit_code, 0);
  EXPECT_EQ(version.out.rfind("loom ", 0), 0u);
}

}  // namespace
