// `loom sweep` as a user meets it: rows equal single runs, any -j gives the same table, an
// interrupted sweep resumes, a failing variant is named; under mpirun, the same table.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "apps/loom_binary.h"
#include "loom/experiment/sweep_table.h"

namespace {

namespace fs = std::filesystem;
using cli_support::Result;
using cli_support::run_loom;
using cli_support::scratch;
using cli_support::slurp;

constexpr const char* kExperiment =
    "topology: {blueprint: leaf-spine, hosts: 2, gpus_per_host: 2, nic_bandwidth: 100Gbps}\n"
    "workload: {collectives: [{op: all-reduce, size: 1MiB, repeat: 2}]}\n"
    "output: {timeline: false, flows: false}\n";
constexpr const char* kGrid = " --vary topology.hosts=2,3 --vary network.mode=analytical,flow";

// A fresh folder holding the experiment file.
fs::path sweep_folder(const std::string& name) {
  const fs::path dir = scratch() / name;
  fs::remove_all(dir);
  fs::create_directories(dir);
  std::ofstream(dir / "exp.yaml") << kExperiment;
  return dir;
}

Result sweep(const fs::path& dir, const std::string& args) {
  return run_loom("sweep exp.yaml" + args, "cd '" + dir.string() + "' && ");
}

nlohmann::json read_json(const fs::path& path) { return nlohmann::json::parse(std::ifstream(path)); }

TEST(Sweep, RowsEqualSingleRunsOfTheSameVariants) {
  const fs::path dir = sweep_folder("rows");
  const Result r = sweep(dir, std::string(kGrid) + " -j 2 --out s");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json table = read_json(dir / "s/sweep.json");
  ASSERT_EQ(table["variants"].size(), 4u);
  const std::vector<std::pair<std::string, std::string>> grid = {
      {"2", "analytical"}, {"2", "flow"}, {"3", "analytical"}, {"3", "flow"}};
  for (std::size_t i = 0; i < grid.size(); ++i) {
    const nlohmann::json& row = table["variants"][i];
    const std::string single = "single" + std::to_string(i);
    const Result run = run_loom("run exp.yaml --set topology.hosts=" + grid[i].first +
                                    " --set network.mode=" + grid[i].second + " --out " + single,
                                "cd '" + dir.string() + "' && ");
    ASSERT_EQ(run.exit_code, 0) << run.err;
    EXPECT_EQ(row["settings"]["topology.hosts"], grid[i].first);
    EXPECT_EQ(row["settings"]["network.mode"], grid[i].second);
    EXPECT_EQ(row["status"], "ran");
    nlohmann::json expected = nlohmann::json::object();
    for (const auto& [name, value] : loom::experiment::headline_metrics(read_json(dir / single / "summary.json"))) {
      expected[name] = value;
    }
    EXPECT_EQ(row["metrics"], expected) << row["variant"];
    EXPECT_EQ(slurp(dir / "s" / row["folder"].get<std::string>() / "collectives.csv"),
              slurp(dir / single / "collectives.csv"));
  }
  // More hosts move more bytes: the rows are not all the same run.
  EXPECT_LT(table["variants"][0]["metrics"]["transfers"], table["variants"][2]["metrics"]["transfers"]);
}

TEST(Sweep, TheTableIsTheSameWhateverTheParallelism) {
  const fs::path dir = sweep_folder("parallel");
  ASSERT_EQ(sweep(dir, std::string(kGrid) + " -j 1 --out one").exit_code, 0);
  ASSERT_EQ(sweep(dir, std::string(kGrid) + " -j 3 --out three").exit_code, 0);
  EXPECT_EQ(slurp(dir / "one/sweep.csv"), slurp(dir / "three/sweep.csv"));
  EXPECT_EQ(slurp(dir / "one/sweep.json"), slurp(dir / "three/sweep.json"));
}

TEST(Sweep, AnInterruptedSweepResumesAndChangedSettingsRerun) {
  const fs::path dir = sweep_folder("resume");
  ASSERT_EQ(sweep(dir, std::string(kGrid) + " -j 2 --out s").exit_code, 0);
  const std::string table = slurp(dir / "s/sweep.csv");
  // As if the run of one variant was stopped after its tables, before its summary.
  fs::remove(dir / "s/hosts-3_mode-flow/summary.json");
  const Result resumed = sweep(dir, std::string(kGrid) + " -j 2 --out s");
  ASSERT_EQ(resumed.exit_code, 0) << resumed.err;
  EXPECT_NE(resumed.out.find("[1/4] hosts-2_mode-analytical: reused"), std::string::npos) << resumed.out;
  EXPECT_NE(resumed.out.find("[4/4] hosts-3_mode-flow: ran"), std::string::npos) << resumed.out;
  EXPECT_NE(resumed.out.find("4 variants, 1 ran, 3 reused, 0 failed"), std::string::npos) << resumed.out;
  // Only the status column differs.
  std::string reused_table = slurp(dir / "s/sweep.csv");
  for (std::size_t at; (at = reused_table.find(",reused,")) != std::string::npos;) reused_table.replace(at, 8, ",ran,");
  EXPECT_EQ(reused_table, table);
  // Another seed is another effective configuration: nothing is reused.
  const Result reseeded = sweep(dir, std::string(kGrid) + " -j 2 --out s --seed 9");
  ASSERT_EQ(reseeded.exit_code, 0) << reseeded.err;
  EXPECT_NE(reseeded.out.find("4 variants, 4 ran, 0 reused"), std::string::npos) << reseeded.out;
}

TEST(Sweep, ClusterRunsGiveTheirMetricsAndResumeToo) {
  const fs::path dir = sweep_folder("cluster");
  fs::copy(fs::path(LOOM_SOURCE_DIR) / "examples/cluster_jobs.yaml", dir / "cluster.yaml");
  const std::string args = "sweep cluster.yaml --vary cluster.scheduler=fcfs,easy-backfill -j 2 --out s";
  const Result first = run_loom(args, "cd '" + dir.string() + "' && ");
  ASSERT_EQ(first.exit_code, 0) << first.err;
  const nlohmann::json table = read_json(dir / "s/sweep.json");
  for (const nlohmann::json& row : table["variants"]) {
    const nlohmann::json summary = read_json(dir / "s" / row["folder"].get<std::string>() / "summary.json");
    EXPECT_EQ(row["metrics"]["jobs"], summary["jobs"]["count"]);
    EXPECT_EQ(row["metrics"]["jct_p99_s"], summary["jct_s"]["p99"]);
    EXPECT_EQ(row["metrics"]["utilisation"], summary["utilisation"]);
  }
  // Backfilling shortens the mean wait of the same jobs.
  EXPECT_GT(table["variants"][0]["metrics"]["wait_mean_s"], table["variants"][1]["metrics"]["wait_mean_s"]);
  const Result again = run_loom(args, "cd '" + dir.string() + "' && ");
  EXPECT_NE(again.out.find("2 variants, 0 ran, 2 reused"), std::string::npos) << again.out;
}

TEST(Sweep, AFailingVariantIsNamedWithItsErrorAndTheSweepExitsTwo) {
  const fs::path dir = sweep_folder("failing");
  const Result r = sweep(dir, " --vary topology.hosts=2,0 -j 2 --out s");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("loom: sweep: variant 'hosts-0' failed: exp.yaml:1:11: leaf-spine blueprint: hosts = 0"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("loom: sweep: 1 of 2 variants failed"), std::string::npos) << r.err;
  const nlohmann::json table = read_json(dir / "s/sweep.json");
  EXPECT_EQ(table["variants"][0]["status"], "ran");
  EXPECT_EQ(table["variants"][1]["status"], "failed");
  const Result unknown = sweep(dir, " --vary topology.hostz=2 --out u");
  EXPECT_EQ(unknown.exit_code, 2);
  EXPECT_NE(unknown.err.find("variant 'hostz-2' failed: --set topology.hostz=2: unknown key 'hostz' in topology; "
                             "did you mean 'hosts'?"),
            std::string::npos)
      << unknown.err;
}

TEST(Sweep, BadArgumentsAreOneLineAndExitTwo) {
  const fs::path dir = sweep_folder("arguments");
  for (const char* args : {"", " --vary topology.hosts", " --vary topology.hosts=2,,3", " --vary a=1 --vary a=2",
                           " --vary a=1 --variants v.csv", " --vary a=1 -j 0"}) {
    const Result r = sweep(dir, args);
    EXPECT_EQ(r.exit_code, 2) << args;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << args << ": " << r.err;
  }
}

// `mpirun -np K loom sweep`: the variants spread over K ranks give the serial sweep's table, byte
// for byte; a failing variant on any rank is named and ends the sweep with exit 2; a rerun with
// the same K reuses what each rank ran. Skips when the build has no MPI.
constexpr const char* kMpiGrid = " --vary topology.hosts=2,3,4 --vary network.mode=analytical,flow,packet";

// `loom sweep exp.yaml ARGS` in `dir`, under `mpirun -np ranks` (0: without mpirun).
Result mpi_sweep(const fs::path& dir, int ranks, const std::string& args) {
  std::string before = "cd '" + dir.string() + "' && ";
#ifndef LOOM_MPIEXEC
  static_cast<void>(ranks);
#else
  if (ranks > 0) before += std::string(LOOM_MPIEXEC) + " --allow-run-as-root --oversubscribe -np " + std::to_string(ranks) + " ";
#endif
  return run_loom("sweep exp.yaml" + args, before);
}

class SweepOverMpi : public testing::Test {
 protected:
  void SetUp() override {
#ifndef LOOM_MPIEXEC
    GTEST_SKIP() << "built without MPI (install libopenmpi-dev openmpi-bin, then cmake again)";
#endif
  }
};

TEST_F(SweepOverMpi, TwoAndFourRanksWriteTheSerialTable) {
  const fs::path dir = sweep_folder("mpi_ranks");
  const Result serial = mpi_sweep(dir, 0, std::string(kMpiGrid) + " -j 1 --out serial");
  ASSERT_EQ(serial.exit_code, 0) << serial.err;
  for (const int ranks : {2, 4}) {
    const std::string out = "mpi" + std::to_string(ranks);
    const Result r = mpi_sweep(dir, ranks, std::string(kMpiGrid) + " -j 1 --out " + out);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.out.find("9 variants, 9 ran, 0 reused, 0 failed (over " + std::to_string(ranks) + " MPI ranks)"),
              std::string::npos)
        << r.out;
    EXPECT_EQ(slurp(dir / out / "sweep.csv"), slurp(dir / "serial/sweep.csv")) << ranks << " ranks";
    EXPECT_EQ(slurp(dir / out / "sweep.json"), slurp(dir / "serial/sweep.json")) << ranks << " ranks";
    // Every rank ran its share: each variant's own outputs are there and equal the serial ones.
    for (const char* variant : {"hosts-2_mode-packet", "hosts-4_mode-flow"}) {
      EXPECT_EQ(slurp(dir / out / variant / "collectives.csv"), slurp(dir / "serial" / variant / "collectives.csv"))
          << variant;
    }
  }
  EXPECT_NE(slurp(dir / "serial/sweep.csv").find("hosts-4_mode-packet,4,packet,ran,"), std::string::npos);
}

TEST_F(SweepOverMpi, AFailureOnAnyRankIsNamedAndARerunReusesEachRanksVariants) {
  const fs::path dir = sweep_folder("mpi_failing");
  // With 2 ranks, rank 1 owns the second variant, the one that fails.
  const Result r = mpi_sweep(dir, 2, " --vary topology.hosts=2,0,3 -j 1 --out s");
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.err.find("loom: sweep: variant 'hosts-0' failed: exp.yaml:1:11: leaf-spine blueprint: hosts = 0"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("loom: sweep: 1 of 3 variants failed"), std::string::npos) << r.err;
  const std::string table = slurp(dir / "s/sweep.csv");
  EXPECT_NE(table.find("hosts-0,0,failed,"), std::string::npos) << table;
  EXPECT_NE(table.find("hosts-3,3,ran,"), std::string::npos) << table;
  const Result again = mpi_sweep(dir, 2, " --vary topology.hosts=2,3 -j 1 --out s");
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_NE(again.out.find("2 variants, 0 ran, 2 reused, 0 failed (over 2 MPI ranks)"), std::string::npos)
      << again.out;
}

}  // namespace
