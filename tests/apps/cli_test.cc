// The `loom` binary as a user meets it: exit codes, one-line errors on stderr, outputs.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "apps/loom_binary.h"
#include "fixtures.h"

namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using cli_support::Result;
using cli_support::scratch;
using cli_support::slurp;

// Runs `loom args` after the shell commands `before` (e.g. "cd dir && ").
Result loom(const std::string& args, const std::string& before = "") { return cli_support::run_loom(args, before); }

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

TEST(Cli, MisspelledTopLevelKeyIsNamedWithTheClosestKey) {
  const fs::path file = scratch() / "topologgy.yaml";
  std::ofstream(file) << "topologgy: {hosts: 2}\nworkload: {collectives: [{op: all-reduce, size: 1MiB}]}\n";
  const Result r = loom("run " + file.string());
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "loom: " + file.string() +
                       ":1:1: unknown key 'topologgy' at the top level; did you mean 'topology'?\n");
}

TEST(Cli, ANegativeSeedIsRefused) {
  const Result r = loom("run --seed -1");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "loom: --seed: expected a non-negative integer, got '-1' (see 'loom --help')\n");
}

TEST(Cli, AMisspelledCommandIsNamedWithTheClosestCommand) {
  const Result r = loom("rn examples/default.yaml");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "loom: unknown command 'rn'; did you mean 'run'? (see 'loom --help')\n");
  const Result far = loom("frobnicate");
  EXPECT_EQ(far.exit_code, 2);
  EXPECT_EQ(far.err, "loom: unknown command 'frobnicate' (see 'loom --help')\n");
  const Result nested = loom("topo shwo clos.yaml");
  EXPECT_EQ(nested.exit_code, 2);
  EXPECT_EQ(nested.err, "loom: unknown command 'topo shwo'; did you mean 'topo show'? (see 'loom topo --help')\n");
}

TEST(Cli, CollectivePlanCheckOfACollectiveWithoutPostconditionIsAnError) {
  const fs::path plan = scratch() / "sendrecv.xml";
  std::ofstream(plan)
      << R"(<algo name="x" proto="Simple" nchannels="1" nchunksperloop="1" ngpus="2" coll="sendrecv" inplace="0">
  <gpu id="0" i_chunks="1" o_chunks="0" s_chunks="0">
    <tb id="0" send="1" recv="-1" chan="0">
      <step s="0" type="s" srcbuf="i" srcoff="0" dstbuf="o" dstoff="0" cnt="1" depid="-1" deps="-1" hasdep="0"/>
    </tb>
  </gpu>
  <gpu id="1" i_chunks="0" o_chunks="1" s_chunks="0">
    <tb id="0" send="-1" recv="0" chan="0">
      <step s="0" type="r" srcbuf="i" srcoff="0" dstbuf="o" dstoff="0" cnt="1" depid="-1" deps="-1" hasdep="0"/>
    </tb>
  </gpu>
</algo>
)";
  const Result r = loom("collective plan " + plan.string() + " --check 2");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "loom: " + plan.string() +
                       ": cannot --check this plan: no postcondition is known for collective 'sendrecv'\n");
}

TEST(Cli, AFailingWriterLeavesNoEmptyFile) {
  const fs::path file = scratch() / "two_gpus.hpcc.txt";
  fs::remove(file);
  const Result r = loom("topo generate leaf-spine --hosts 2 --as hpcc -o " + file.string());
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(lines(r.err), 1) << r.err;
  EXPECT_FALSE(fs::exists(file));
}

TEST(Cli, BinaryInputIsQuotedAsAShortEscapedExcerpt) {
  const fs::path file = scratch() / "binary.txt";
  // An ELF header, a terminal escape sequence, then 200 more bytes of one "word".
  std::ofstream(file, std::ios::binary) << std::string("\x7f" "ELF\x02\x01\x01\x00\x1b[31m", 13)
                                        << std::string(200, 'x');
  const Result r = loom("workload show " + file.string());
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "loom: " + file.string() + ":1: unknown policy '\\x7fELF\\x02\\x01\\x01\\x00\\x1b[31m" +
                       std::string(19, 'x') +
                       "...', expected HYBRID_TRANSFORMER_FWD_IN_BCKWD, HYBRID_TRANSFORMER, MICRO or DATA\n");
}

TEST(Cli, AnInputTooLargeForTheAddressSpaceIsRefusedBeforeBuilding) {
  const fs::path file = scratch() / "huge.yaml";
  std::ofstream(file) << "topology: {hosts: 1, gpus_per_host: 2}\n"
                         "workload: {collectives: [{op: all-reduce, size: 1MiB, repeat: 100000000}]}\n";
  // 600 MB of address space: the 10^8 collectives' DAG cannot fit, and the budget says so.
  const Result r = loom("run " + file.string() + " --out " + (scratch() / "huge").string(), "ulimit -v 600000; ");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr(file.string() + ":2:25: workload.collectives: needs about 38.3 GiB for 200000000 "
                               "workload nodes on 2 ranks and their run state, more than the memory budget of 527.3 "
                               "MiB (90% of the process's 585.9 MiB address-space limit; --max-memory sets another)"));
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1);
}

TEST(Cli, MaxMemorySetsTheBudgetAndABadValueIsNamed) {
  const Result tight = loom("run --max-memory 1KiB --out " + (scratch() / "tight").string());
  EXPECT_EQ(tight.exit_code, 2);
  EXPECT_THAT(tight.err, HasSubstr("more than the memory budget of 1.0 KiB (--max-memory 1KiB)"));
  EXPECT_FALSE(fs::exists(scratch() / "tight" / "summary.json"));
  const Result bad = loom("run --max-memory lots --out " + (scratch() / "bad").string());
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_THAT(bad.err, HasSubstr("loom: --max-memory: 'lots' is not a size"));
  const Result zero = loom("run --max-memory 0B --out " + (scratch() / "zero").string());
  EXPECT_EQ(zero.exit_code, 2);
  EXPECT_EQ(zero.err, "loom: --max-memory: must be positive\n");
  EXPECT_EQ(loom("run --max-memory 8GiB --out " + (scratch() / "roomy").string()).exit_code, 0);
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
  // Nothing on stderr but, on a machine so loaded that the run outlasts 2 s of wall time, the
  // one final progress line a run off a terminal prints.
  const std::string err = r.err.starts_with("loom: done: ") && std::count(r.err.begin(), r.err.end(), '\n') == 1
                              ? std::string()
                              : r.err;
  EXPECT_TRUE(err.empty()) << r.err;
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
  EXPECT_NE(r.out.find("Training models (workload.model): gpt-7b, gpt-13b, gpt-175b, llama-7b"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("GPU models for compute (workload.compute.gpu): "), std::string::npos) << r.out;
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
  const fs::path plan = loom::testing::fixture_path("msccl/msccl_xml/astra-sim_custom_allreduce_ring_8gpus.xml");
  LOOM_SKIP_WITHOUT_FIXTURE(plan);
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
  const fs::path config = loom::testing::fixture_path("hpcc/inputs/shipped_star66/config_shipped_hpcc_notrace.txt");
  LOOM_SKIP_WITHOUT_FIXTURE(config);
  const fs::path out = scratch() / "hpcc";
  const Result r = loom("hpcc " + config.string() + " --out " + out.string());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(lines(slurp(out / "fct_shipped_hpcc_notrace.txt")), 2);
  EXPECT_EQ(loom("hpcc missing_config.txt").exit_code, 2);
}

TEST(Cli, HpccProfilesTheFatTreeIncastForParallelRunsWithoutChangingIt) {
  const fs::path config = loom::testing::fixture_path("hpcc/inputs/fat320/config_fat_incast60_fat320_dcqcn.txt");
  LOOM_SKIP_WITHOUT_FIXTURE(config);
  const fs::path plain = scratch() / "hpcc_plain", profiled = scratch() / "hpcc_profiled";
  ASSERT_EQ(loom("hpcc " + config.string() + " --out " + plain.string()).exit_code, 0);
  const Result r = loom("hpcc " + config.string() + " --out " + profiled.string() + " --lp-delay-threshold 1ps");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // 320 hosts and 56 switches, each alone; every cable is 1 us.
  EXPECT_NE(r.out.find("parallel profile (delay < 1ps): 376 LPs, lookahead 1us;"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("span bound "), std::string::npos) << r.out;
  for (const char* file : {"fct_fat_incast60_fat320_dcqcn.txt", "pfc_fat_incast60_fat320_dcqcn.txt"}) {
    EXPECT_EQ(slurp(profiled / file), slurp(plain / file)) << file;
  }
  // Above every cable's delay the fabric is one LP: nothing to share out.
  const Result one = loom("hpcc " + config.string() + " --out " + profiled.string() + " --lp-delay-threshold 2us");
  EXPECT_NE(one.out.find("1 LPs, lookahead none; 1 windows"), std::string::npos) << one.out;
  EXPECT_NE(one.out.find("span bound 1.00x on 2 threads"), std::string::npos) << one.out;
  EXPECT_EQ(loom("hpcc " + config.string() + " --lp-delay-threshold soon").exit_code, 2);
}

// A two-host ns-3 experiment laid out as in ns-3's working directory: `dir`/mix/config.txt
// naming mix/topology.txt, mix/flow.txt (`flows`, after its count line) and mix/fct_small.txt,
// with `extra` config lines.
fs::path small_hpcc_experiment(const std::string& name, const std::vector<std::string>& flows,
                               const std::string& extra = "") {
  const fs::path dir = scratch() / name;
  fs::remove_all(dir);
  fs::create_directories(dir / "mix");
  std::ofstream(dir / "mix/config.txt") << "TOPOLOGY_FILE mix/topology.txt\nFLOW_FILE mix/flow.txt\n"
                                           "FCT_OUTPUT_FILE mix/fct_small.txt\nPFC_OUTPUT_FILE mix/pfc_small.txt\n"
                                           "SIMULATOR_STOP_TIME 2.5\n" << extra;
  std::ofstream(dir / "mix/topology.txt") << "3 1 2\n0\n0 1 100Gbps 0.001ms 0\n0 2 100Gbps 0.001ms 0\n";
  std::ofstream flow_file(dir / "mix/flow.txt");
  flow_file << flows.size() << '\n';
  for (const std::string& flow : flows) flow_file << flow << '\n';
  return dir;
}

TEST(Cli, HpccWarnsOnceOfTheConfigKeysWithoutEffect) {
  const fs::path dir = small_hpcc_experiment(
      "hpcc_ignored", {"1 2 3 100 10000 2"}, "ENABLE_TRACE 0\nQLEN_MON_FILE mix/qlen.txt\nQLEN_MON_START 2\nENABLE_TRACE 0\n");
  const Result r = loom("hpcc mix/config.txt", "cd '" + dir.string() + "' && ");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "loom: warning: mix/config.txt: keys without effect in Loom: ENABLE_TRACE, QLEN_MON_FILE, "
                   "QLEN_MON_START\n");
}

TEST(Cli, HpccWarnsOfFlowsStartingAfterTheStopTimeWithTheirLines) {
  const fs::path one = small_hpcc_experiment("hpcc_late", {"1 2 3 100 10000 2", "2 1 3 100 10000 3"});
  const Result r = loom("hpcc mix/config.txt", "cd '" + one.string() + "' && ");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "loom: warning: mix/flow.txt:3: the flow starts after SIMULATOR_STOP_TIME (2.5s) and does "
                   "not run\n");
  EXPECT_EQ(lines(slurp(one / "mix/fct_small.txt")), 1);

  const std::vector<std::string> late(7, "1 2 3 100 10000 3");
  const fs::path many = small_hpcc_experiment("hpcc_late_many", late);
  const Result m = loom("hpcc mix/config.txt", "cd '" + many.string() + "' && ");
  ASSERT_EQ(m.exit_code, 0) << m.err;
  EXPECT_EQ(m.err, "loom: warning: mix/flow.txt: 7 flows start after SIMULATOR_STOP_TIME (2.5s) and do not run "
                   "(lines 2, 3, 4, 5, 6, ...)\n");
}

TEST(Cli, HpccWritesItsOutputsWhereTheConfigSaysUnlessOutIsGiven) {
  const fs::path dir = small_hpcc_experiment("hpcc_outputs", {"1 2 3 100 10000 2"});
  // From ns-3's working directory, as ns-3 is run, and from the config's own folder.
  for (const auto& [before, config] : std::vector<std::pair<std::string, std::string>>{
           {"cd '" + dir.string() + "' && ", "mix/config.txt"},
           {"cd '" + (dir / "mix").string() + "' && ", "config.txt"}}) {
    fs::remove(dir / "mix/fct_small.txt");
    const Result r = loom("hpcc " + config, before);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(lines(slurp(dir / "mix/fct_small.txt")), 1) << config;
    EXPECT_TRUE(fs::exists(dir / "mix/pfc_small.txt")) << config;
    EXPECT_NE(r.out.find("wrote " + config.substr(0, config.size() - 10) + "fct_small.txt"), std::string::npos)
        << r.out;
  }
  EXPECT_FALSE(fs::exists(dir / "hpcc-out"));

  const Result r = loom("hpcc mix/config.txt --out results", "cd '" + dir.string() + "' && ");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(lines(slurp(dir / "results/fct_small.txt")), 1);
  EXPECT_TRUE(fs::exists(dir / "results/pfc_small.txt"));
  EXPECT_NE(loom("hpcc --help").out.find("With\n--out DIR they go into DIR"), std::string::npos);
}

TEST(Cli, HelpAndVersion) {
  const Result help = loom("--help");
  EXPECT_EQ(help.exit_code, 0);
  EXPECT_NE(help.out.find("Examples:"), std::string::npos);
  const Result version = loom("version");
  EXPECT_EQ(version.exit_code, 0);
  EXPECT_EQ(version.out.rfind("loom ", 0), 0u);
  const Result flag = loom("--version");
  EXPECT_EQ(flag.exit_code, 0);
  EXPECT_EQ(flag.out, version.out);
}

// "loom ..." command lines in README.md's ```sh blocks and under Examples: in `loom --help`;
// a line joining several with "; " gives each, comments ("# ...", or a help line's description
// after a run of spaces) are cut off.
std::vector<std::string> documented_command_lines() {
  std::vector<std::string> commands;
  const auto keep = [&](std::string line) {
    line = line.substr(0, line.find(" #"));
    if (line.rfind("build/apps/loom/loom ", 0) == 0) line = line.substr(std::string("build/apps/loom/").size());
    for (std::size_t start = 0; start != std::string::npos;) {
      const std::size_t end = line.find("; ", start);
      std::string command = line.substr(start, end == std::string::npos ? std::string::npos : end - start);
      command = command.substr(0, command.find_last_not_of(' ') + 1);
      if (command.rfind("loom ", 0) == 0 || command == "loom") commands.push_back(command);
      start = end == std::string::npos ? end : end + 2;
    }
  };
  std::istringstream readme(slurp(fs::path(LOOM_SOURCE_DIR) / "README.md"));
  bool in_sh = false;
  for (std::string line; std::getline(readme, line);) {
    if (line.rfind("```", 0) == 0) {
      in_sh = line == "```sh";
    } else if (in_sh) {
      keep(line);
    }
  }
  std::istringstream help(loom("--help").out);
  bool in_examples = false;
  for (std::string line; std::getline(help, line);) {
    if (line == "Examples:") {
      in_examples = true;
    } else if (in_examples && line.empty()) {
      break;
    } else if (in_examples) {
      keep(line.substr(2, line.find("   ") == std::string::npos ? std::string::npos : line.find("   ") - 2));
    }
  }
  return commands;
}

// Each documented command line runs as written, in order, in a folder holding the files the
// lines before it wrote (plus exp.yaml, the README's first experiment, and examples/).
TEST(Cli, EveryDocumentedCommandLineRuns) {
  const std::vector<std::string> commands = documented_command_lines();
  ASSERT_GE(commands.size(), 20u);
  const fs::path dir = scratch() / "documented";
  fs::remove_all(dir);
  fs::create_directories(dir);
  fs::copy(fs::path(LOOM_SOURCE_DIR) / "examples", dir / "examples", fs::copy_options::recursive);
  const std::string readme = slurp(fs::path(LOOM_SOURCE_DIR) / "README.md");
  const std::size_t yaml = readme.find("```yaml\n") + 8;
  std::ofstream(dir / "exp.yaml") << readme.substr(yaml, readme.find("```", yaml) - yaml);
  const bool graphviz = std::system("command -v dot >/dev/null 2>&1") == 0;
  for (const std::string& command : commands) {
    // `loom hpcc` needs an ns-3 experiment folder: HpccRunsAnNs3ExperimentAsItIs runs a fixture.
    if (command.rfind("loom hpcc", 0) == 0) continue;
    if (command.rfind("loom topo draw", 0) == 0 && !graphviz) {
      std::cout << "skipped without Graphviz's dot: " << command << '\n';
      continue;
    }
    const Result r = loom(command.substr(4), "cd '" + dir.string() + "' && ");
    EXPECT_EQ(r.exit_code, 0) << command << ": " << r.err;
  }
}

namespace memo_test {

// A 4-to-1 packet incast with fast-forward, repeated, so its transient is recorded.
fs::path incast_file() {
  const fs::path file = scratch() / "memo_incast.yaml";
  std::ofstream(file) << "topology: {blueprint: single-switch, hosts: 5, gpus_per_host: 1, nic_bandwidth: 100Gbps}\n"
                         "workload:\n  collectives: [{op: gather, size: 96MiB, algorithm: direct, repeat: 2}]\n"
                         "network:\n  mode: packet\n  packet: {cc: dcqcn, window: true, fast_forward: {enabled: true}}\n";
  return file;
}

nlohmann::json fast_forward_of(const fs::path& out) {
  return nlohmann::json::parse(slurp(out / "summary.json"))["network"]["fast_forward"];
}

}  // namespace memo_test

TEST(Cli, MemoPersistsAcrossRunsAndADamagedMemoIsRefusedWithExitTwo) {
  const fs::path memo = scratch() / "memo_dir";
  fs::remove_all(memo);
  const std::string run = "run " + memo_test::incast_file().string() + " --memo " + memo.string() + " --out ";
  const Result first = loom(run + (scratch() / "memo_first").string());
  ASSERT_EQ(first.exit_code, 0) << first.err;
  const nlohmann::json a = memo_test::fast_forward_of(scratch() / "memo_first");
  EXPECT_GE(a["memo_stored"].get<int>(), 1);
  const Result second = loom(run + (scratch() / "memo_second").string());
  ASSERT_EQ(second.exit_code, 0) << second.err;
  const nlohmann::json b = memo_test::fast_forward_of(scratch() / "memo_second");
  EXPECT_EQ(b["memo_loaded"], a["memo_size"]);
  EXPECT_GT(b["memo_hits"].get<int>(), a["memo_hits"].get<int>());

  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(memo)) {
    if (entry.path().extension() == ".memo") files.push_back(entry.path());
  }
  ASSERT_EQ(files.size(), 1u);
  fs::resize_file(files[0], fs::file_size(files[0]) - 3);
  const Result damaged = loom(run + (scratch() / "memo_damaged").string());
  EXPECT_EQ(damaged.exit_code, 2);
  EXPECT_THAT(damaged.err, HasSubstr("fast-forward memo " + files[0].string() + ": corrupted or truncated"));
  EXPECT_EQ(lines(damaged.err), 1) << damaged.err;

  const Result flow = loom("run --memo " + memo.string() + " --out " + (scratch() / "memo_flow").string());
  EXPECT_EQ(flow.exit_code, 2);
  EXPECT_THAT(flow.err, HasSubstr("--memo: needs network.mode packet"));
}

}  // namespace
