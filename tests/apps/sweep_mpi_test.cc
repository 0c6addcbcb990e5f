// `mpirun -np K loom sweep`: the variants spread over K ranks give the serial sweep's table, byte
// for byte; a failing variant on any rank is named and ends the sweep with exit 2; a rerun with
// the same K reuses what each rank ran. Skips when the build has no MPI.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "apps/loom_binary.h"

namespace {

namespace fs = std::filesystem;
using cli_support::Result;
using cli_support::run_loom;
using cli_support::scratch;
using cli_support::slurp;

constexpr const char* kExperiment =
    "topology: {blueprint: leaf-spine, hosts: 2, gpus_per_host: 2, nic_bandwidth: 100Gbps}\n"
    "workload: {collectives: [{op: all-reduce, size: 256KiB, repeat: 2}]}\n"
    "output: {timeline: false, flows: false}\n";
constexpr const char* kGrid = " --vary topology.hosts=2,3,4 --vary network.mode=analytical,flow,packet";

fs::path sweep_folder(const std::string& name) {
  const fs::path dir = scratch() / name;
  fs::remove_all(dir);
  fs::create_directories(dir);
  std::ofstream(dir / "exp.yaml") << kExperiment;
  return dir;
}

// `loom sweep exp.yaml ARGS` in `dir`, under `mpirun -np ranks` (0: without mpirun).
Result sweep(const fs::path& dir, int ranks, const std::string& args) {
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
  const fs::path dir = sweep_folder("ranks");
  const Result serial = sweep(dir, 0, std::string(kGrid) + " -j 1 --out serial");
  ASSERT_EQ(serial.exit_code, 0) << serial.err;
  for (const int ranks : {2, 4}) {
    const std::string out = "mpi" + std::to_string(ranks);
    const Result r = sweep(dir, ranks, std::string(kGrid) + " -j 1 --out " + out);
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
  const fs::path dir = sweep_folder("failing");
  // With 2 ranks, rank 1 owns the second variant, the one that fails.
  const Result r = sweep(dir, 2, " --vary topology.hosts=2,0,3 -j 1 --out s");
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.err.find("loom: sweep: variant 'hosts-0' failed: exp.yaml:1:11: leaf-spine blueprint: hosts = 0"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("loom: sweep: 1 of 3 variants failed"), std::string::npos) << r.err;
  const std::string table = slurp(dir / "s/sweep.csv");
  EXPECT_NE(table.find("hosts-0,0,failed,"), std::string::npos) << table;
  EXPECT_NE(table.find("hosts-3,3,ran,"), std::string::npos) << table;
  const Result again = sweep(dir, 2, " --vary topology.hosts=2,3 -j 1 --out s");
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_NE(again.out.find("2 variants, 0 ran, 2 reused, 0 failed (over 2 MPI ranks)"), std::string::npos)
      << again.out;
}

}  // namespace
