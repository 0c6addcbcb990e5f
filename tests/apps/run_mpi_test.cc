// `mpirun -np K loom run FILE`: a packet-mode training run whose LPs are split over K MPI ranks
// (every rank runs the runtime, told of every rank's completions) writes the serial run's
// collectives.csv, flows.csv, ranks.csv and timeline.json byte for byte, and its summary but
// the windowed keys and the event count (as a windowed run on one process does); its windows'
// measures equal the one-process windowed run's. What cannot be split is refused before the
// run, once, with exit 2. Skips when the build has no MPI.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "apps/mpi_support.h"

namespace {

namespace fs = std::filesystem;
using cli_support::Result;
using cli_support::scratch;
using cli_support::slurp;

// 8 hosts of one GPU on two leaves and two spines (500 ns cables, 250 ns PCIe): ζ = 400 ns puts
// each host and each switch in an LP (12), lookahead 500 ns. PP 2 x DP 4: activations between
// the stages, gradient all-reduces within each stage, and a leaf-spine cable going down while
// the all-reduces run (packets lost and resent, QPs rerouted).
constexpr const char* kTraining =
    "topology: {blueprint: leaf-spine, hosts: 8, gpus_per_host: 1, hosts_per_leaf: 4, spines: 2,\n"
    "           links_per_pair: 1}\n"
    "workload:\n"
    "  type: training\n"
    "  model: {base: gpt-7b, layers: 4, hidden: 256, heads: 4, kv_heads: 4, ffn_hidden: 1024, vocab: 4096, sequence: 256}\n"
    "  pp: 2\n"
    "  dp: 4\n"
    "  global_batch: 8\n"
    "network:\n"
    "  mode: packet\n"
    "  link_changes: [{at: 600us, between: [leaf.0, spine.1], state: down}]\n"
    "  packet: {cc: dcqcn, lp_delay_threshold: 400ns}\n";

fs::path experiment_file() {
  const fs::path file = scratch() / "mpi_training.yaml";
  std::ofstream(file) << kTraining;
  return file;
}

// `loom run FILE ARGS -q` under `mpirun -np ranks` (0: one process, without mpirun).
Result run(int ranks, const std::string& args) {
  return cli_support::run_loom_on_ranks(ranks, "run " + experiment_file().string() + " -q " + args);
}

nlohmann::json summary_of(const fs::path& dir) { return nlohmann::json::parse(slurp(dir / "summary.json")); }

// The summary less what differs from a serial run by design (windowed_packet_run_test.cc): the
// echo of the folder and of the threshold, the windows' measures and the event count.
std::string comparable(nlohmann::json summary) {
  summary.at("config").at("output").erase("dir");
  summary.at("config").at("network").at("packet").erase("lp_delay_threshold");
  summary.at("network").erase("windows");
  summary.at("totals").erase("events");
  return summary.dump(1);
}

class RunOverMpi : public testing::Test {
 protected:
  void SetUp() override {
#ifndef LOOM_MPIEXEC
    GTEST_SKIP() << "built without MPI (install libopenmpi-dev openmpi-bin, then cmake again)";
#endif
  }
};

TEST_F(RunOverMpi, TrainingWithAFailedCableEqualsTheSerialRunOnTwoAndFourRanks) {
  const fs::path serial_dir = scratch() / "run_mpi_serial";
  const Result serial = run(0, "--out " + serial_dir.string() + " --set network.packet.lp_delay_threshold=0s");
  ASSERT_EQ(serial.exit_code, 0) << serial.err;
  const nlohmann::json serial_summary = summary_of(serial_dir);
  EXPECT_GT(serial_summary.at("network").at("packets").at("retransmitted_bytes").get<std::uint64_t>(), 0u);
  const fs::path windowed_dir = scratch() / "run_mpi_windowed";
  const Result windowed = run(0, "--out " + windowed_dir.string());
  ASSERT_EQ(windowed.exit_code, 0) << windowed.err;
  const nlohmann::json windows = summary_of(windowed_dir).at("network").at("windows");
  for (const int ranks : {2, 4}) {
    const std::string what = std::to_string(ranks) + " ranks";
    const fs::path dir = scratch() / ("run_mpi_" + std::to_string(ranks));
    const Result r = run(ranks, "--out " + dir.string());
    ASSERT_EQ(r.exit_code, 0) << what << "\n" << r.err;
    for (const char* file : {"collectives.csv", "flows.csv", "ranks.csv", "timeline.json"}) {
      EXPECT_EQ(slurp(dir / file), slurp(serial_dir / file)) << file << ", " << what;
    }
    const nlohmann::json summary = summary_of(dir);
    EXPECT_EQ(comparable(summary), comparable(serial_summary)) << what;
    // The ranks split the LPs and exchanged events; windows, cuts, events handed over and per
    // LP are the one-process run's.
    nlohmann::json ranked = summary.at("network").at("windows");
    EXPECT_EQ(ranked.at("ranks").at("count"), ranks) << what;
    EXPECT_GT(ranked.at("ranks").at("events_sent").get<std::uint64_t>(), 1000u) << what;
    EXPECT_GT(ranked.at("cut").get<std::uint64_t>(), 10u) << what;
    // Per window one exchange and one all-gather settle its end (with the completions) and one
    // of each start the next (with the reaction bound): 8 MPI calls; a global step costs 2
    // collectives, as does the last look for a next window.
    const auto count = [&](const char* key) { return ranked.at(key).get<std::uint64_t>(); };
    EXPECT_EQ(ranked.at("ranks").at("collectives").get<std::uint64_t>(),
              4 * count("windows") + 2 * (count("global_steps") + 1))
        << what;
    ranked.erase("ranks");
    EXPECT_EQ(ranked, windows) << what;
    // Rank 0 alone printed the table (the one-process windowed run's: it counts the same events).
    EXPECT_EQ(r.out, windowed.out.substr(0, windowed.out.rfind("wrote ")) + "wrote " + (dir / "summary.json").string() +
                         "\n")
        << what;
  }
}

TEST_F(RunOverMpi, RefusesWhatItCannotSplitOnceWithExitTwo) {
  const std::string out = "--out " + (scratch() / "run_mpi_refused").string();
  struct Case {
    std::string args, message;
  };
  const Case cases[] = {
      {"--set network.packet.lp_delay_threshold=0s", "expected network.mode packet with network.packet.lp_delay_threshold"},
      {"--set network.packet.threads=2", "network.packet.threads 2 over 2 MPI ranks"},
      {"--set network.packet.monitor.queues=true", "network.packet.monitor over MPI ranks"},
      {"--set network.packet.fast_forward.enabled=true", "network.packet.fast_forward.enabled over MPI ranks"},
      // Every cable is at most 500 ns: below 1 us the whole fabric is one LP.
      {"--set network.packet.lp_delay_threshold=1us", "so some rank would run none"},
  };
  for (const Case& c : cases) {
    cli_support::expect_refused_once(run(2, out + " " + c.args), c.message, c.args);
  }
  const std::string cluster = std::string(LOOM_SOURCE_DIR) + "/examples/cluster_jobs.yaml";
  cli_support::expect_refused_once(cli_support::run_loom_on_ranks(2, "run " + cluster + " -q " + out),
                                   "a cluster experiment over 2 MPI ranks", cluster);
}

}  // namespace
