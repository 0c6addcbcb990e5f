// `mpirun -np K loom hpcc ... --windowed`: one packet simulation split over K MPI ranks writes
// the serial run's fct.txt and pfc.txt byte for byte, with the same event count and counters,
// on 1, 2 and 4 ranks; what cannot be split is refused before the run, once, with exit 2.
// Skips when the build has no MPI.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "apps/mpi_support.h"
#include "fixtures.h"

namespace {

namespace fs = std::filesystem;
using cli_support::Result;
using cli_support::scratch;
using cli_support::slurp;

const fs::path kFat320 = loom::testing::fixture_path("hpcc/inputs/fat320");

// `loom hpcc ARGS` under `mpirun -np ranks` (0: one process, without mpirun).
Result hpcc(int ranks, const std::string& args) { return cli_support::run_loom_on_ranks(ranks, "hpcc " + args); }

// The lines of a run's summary that depend on the simulation: events and hops, PFC, drops, ECN.
std::string totals(const std::string& out) {
  const std::size_t events = out.find(" events, ");
  const std::size_t line_start = out.rfind('\n', events) + 1;
  const std::size_t hops_end = out.find(" in ", events);
  const std::size_t pfc = out.find("  PFC: ");
  return out.substr(line_start, hops_end - line_start) + "\n" + out.substr(pfc, out.find('\n', pfc) - pfc);
}

class HpccOverMpi : public testing::Test {
 protected:
  void SetUp() override {
#ifndef LOOM_MPIEXEC
    GTEST_SKIP() << "built without MPI (install libopenmpi-dev openmpi-bin, then cmake again)";
#endif
    LOOM_SKIP_WITHOUT_FIXTURE(kFat320);
  }
};

TEST_F(HpccOverMpi, FatTreeFixturesEqualTheSerialRunOnOneTwoAndFourRanks) {
  // DCQCN with 74 PFC events (the 60-to-1 incast fills the receiver's ToR), and HPCC, whose
  // packets carry their telemetry across ranks.
  for (const std::string cc : {"dcqcn", "hp95"}) {
    const std::string config = (kFat320 / ("config_fat_incast60_fat320_" + cc + ".txt")).string();
    const std::string name = "fat_incast60_fat320_" + cc + ".txt";
    const fs::path serial_dir = scratch() / ("mpi_serial_" + cc);
    const Result serial = hpcc(0, config + " --out " + serial_dir.string());
    ASSERT_EQ(serial.exit_code, 0) << serial.err;
    if (cc == "dcqcn") {
      EXPECT_NE(serial.out.find("PFC: 74 pause/resume events"), std::string::npos) << serial.out;
    }
    for (const int ranks : {1, 2, 4}) {
      const fs::path dir = scratch() / ("mpi_" + cc + "_" + std::to_string(ranks));
      const Result r = hpcc(ranks, config + " --out " + dir.string() + " --lp-delay-threshold 1ps --windowed");
      ASSERT_EQ(r.exit_code, 0) << r.err;
      EXPECT_NE(r.out.find("MPI ranks: " + std::to_string(ranks) + ";"), std::string::npos) << r.out;
      if (ranks > 1) {
        EXPECT_EQ(r.out.find(" 0 events and 0.0 MB sent between ranks"), std::string::npos) << r.out;
      }
      EXPECT_EQ(slurp(dir / ("fct_" + name)), slurp(serial_dir / ("fct_" + name))) << cc << ", " << ranks << " ranks";
      EXPECT_EQ(slurp(dir / ("pfc_" + name)), slurp(serial_dir / ("pfc_" + name))) << cc << ", " << ranks << " ranks";
      EXPECT_EQ(totals(r.out), totals(serial.out)) << cc << ", " << ranks << " ranks";
    }
  }
}

TEST_F(HpccOverMpi, RefusesWhatItCannotSplitOnceWithExitTwo) {
  const std::string config = (kFat320 / "config_fat_incast60_fat320_dcqcn.txt").string();
  const std::string out = " --out " + (scratch() / "mpi_refused").string();
  struct Case {
    std::string args, message;
  };
  const Case cases[] = {
      {"", "started as one of 2 MPI ranks: expected --windowed"},
      {" --lp-delay-threshold 1ps --windowed --threads 2", "--threads 2 under mpirun"},
      {" --lp-delay-threshold 1ps --windowed --monitor queues", "monitors of a packet simulation over MPI ranks"},
      // Every cable is 1 us: below 3 us the whole fabric is one LP.
      {" --lp-delay-threshold 3us --windowed", "the fabric has 1 LPs (delay < 3us), so some rank would run none"},
  };
  for (const Case& c : cases) {
    cli_support::expect_refused_once(hpcc(2, config + out + c.args), c.message, c.args);
  }
}

}  // namespace
