// Every collective setting either changes the run or is rejected (or warned of) with its key:
// none is silently ignored. With algorithm auto, protocol, channels and chunks constrain the
// tuner as NCCL_PROTO / NCCL_MIN_NCHANNELS do; a fixed algorithm keeps the tuner's other
// choices; what ran is reported per collective.
#include "loom/experiment/experiment.h"

#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "loom/core/error.h"

namespace loom::experiment {
namespace {

namespace fs = std::filesystem;

// 2 hosts of 8 GPUs on one switch, one 64 MiB all-reduce and one 8 MiB all-to-all.
const std::string kBase =
    "topology: {hosts: 2, gpus_per_host: 8}\n"
    "workload: {collectives: [{op: all-reduce, size: 64MiB}, {op: all-to-all, size: 8MiB}]}\n";

Outcome run_with(const std::vector<std::string>& overrides) {
  const fs::path dir = fs::temp_directory_path() / ("loom_collective_settings_test." + std::to_string(getpid()));
  fs::remove_all(dir);
  config::Document document = config::Document::parse(kBase, "exp.yaml");
  document.apply_override("output.dir=" + dir.string());
  for (const auto& o : overrides) document.apply_override(o);
  Outcome outcome = run(load(document));
  fs::remove_all(dir);
  return outcome;
}

std::string error_of(const std::vector<std::string>& overrides) {
  try {
    run_with(overrides);
  } catch (const UserError& e) {
    return e.what();
  }
  return "no error";
}

const system::CollectiveRecord& all_reduce(const Outcome& o) { return o.result.collectives.at(0); }

TEST(CollectiveSettings, AutoConstrainsTheTunerWithEachSettingGiven) {
  const Outcome tuned = run_with({});
  const system::CollectiveRecord& t = all_reduce(tuned);
  // The tuner's choice for 64 MiB over 16 H100s: several channels, not Simple.
  EXPECT_GT(t.channels, 2u);
  EXPECT_NE(t.protocol, collective::Protocol::kSimple);

  const Outcome channels = run_with({"collective.channels=2"});
  EXPECT_EQ(all_reduce(channels).channels, 2u);
  EXPECT_NE(all_reduce(channels).duration(), t.duration());

  const Outcome protocol = run_with({"collective.protocol=simple"});
  EXPECT_EQ(all_reduce(protocol).protocol, collective::Protocol::kSimple);
  EXPECT_NE(all_reduce(protocol).duration(), t.duration());

  const Outcome chunks = run_with({"collective.chunks=4"});
  EXPECT_EQ(all_reduce(chunks).chunks, 4u);
  EXPECT_NE(all_reduce(chunks).duration(), t.duration());

  const Outcome no_hop = run_with({"collective.hop_latency=none"});
  EXPECT_LT(all_reduce(no_hop).duration(), t.duration());

  // 256 MiB on one host of 8: NVLS on H100, which A100 does not have.
  const std::string one_host = "topology.hosts=1", large = "workload.collectives=[{op: all-reduce, size: 256MiB}]";
  EXPECT_EQ(all_reduce(run_with({one_host, large})).algorithm, collective::Algorithm::kNvls);
  EXPECT_NE(all_reduce(run_with({one_host, large, "collective.gpu=a100"})).algorithm, collective::Algorithm::kNvls);
}

TEST(CollectiveSettings, AFixedAlgorithmKeepsTheTunersChannels) {
  const std::string only_all_reduce = "workload.collectives=[{op: all-reduce, size: 64MiB}]";
  const Outcome ring = run_with({only_all_reduce, "collective.algorithm=ring"});
  EXPECT_EQ(all_reduce(ring).algorithm, collective::Algorithm::kRing);
  EXPECT_GT(all_reduce(ring).channels, 1u);
  const Outcome tree = run_with({only_all_reduce, "collective.algorithm=tree"});
  EXPECT_EQ(all_reduce(tree).algorithm, collective::Algorithm::kTree);
  EXPECT_NE(all_reduce(tree).duration(), all_reduce(ring).duration());
}

TEST(CollectiveSettings, DirectWindowChangesDirectRunsAndIsWarnedOfOtherwise) {
  const Outcome one = run_with({"collective.algorithm=direct"});
  const Outcome four = run_with({"collective.algorithm=direct", "collective.direct_window=4"});
  EXPECT_NE(one.result.collectives.at(1).duration(), four.result.collectives.at(1).duration());
  EXPECT_TRUE(four.run_warnings.empty());
  const Outcome unused = run_with({"collective.algorithm=ring", "collective.direct_window=4"});
  ASSERT_EQ(unused.run_warnings.size(), 1u);
  EXPECT_NE(unused.run_warnings[0].find("collective.direct_window"), std::string::npos);
}

TEST(CollectiveSettings, SettingsWithoutEffectAreRejectedWithTheirKey) {
  EXPECT_NE(error_of({"collective.algorithm=ring", "collective.protocol=simple", "collective.channels=2",
                      "collective.chunks=1", "collective.gpu=a100"})
                .find("collective.gpu: has no effect"),
            std::string::npos);
  EXPECT_NE(error_of({"collective.channels=many"}).find("collective.channels: expected auto or a whole number"),
            std::string::npos);
  EXPECT_NE(error_of({"collective.channels=0"}).find("collective.channels"), std::string::npos);
  EXPECT_NE(error_of({"collective.protocol=ll64"}).find("protocol"), std::string::npos);
}

TEST(CollectiveSettings, APlanThatMatchesNoCollectiveIsWarnedOfByName) {
  const fs::path plan =
      fs::path(LOOM_SOURCE_DIR) / "../shared/fixtures/msccl/msccl_xml/astra-sim_custom_allreduce_ring_8gpus.xml";
  if (!fs::exists(plan)) GTEST_SKIP() << "shared fixtures not found at " << plan << " (a user's clone)";
  const Outcome o = run_with({"collective.plans=[" + plan.string() + "]"});  // 8 ranks; the run has 16
  ASSERT_EQ(o.run_warnings.size(), 1u);
  EXPECT_NE(o.run_warnings[0].find("plan 'allreduce_ring_1channelsperring'"), std::string::npos) << o.run_warnings[0];
  EXPECT_EQ(all_reduce(o).plan, system::kNoPlan);
}

TEST(CollectiveSettings, WhatRanIsReportedPerCollective) {
  const fs::path dir = fs::temp_directory_path() / ("loom_collective_settings_report." + std::to_string(getpid()));
  fs::remove_all(dir);
  config::Document document = config::Document::parse(kBase, "exp.yaml");
  document.apply_override("output.dir=" + dir.string());
  document.apply_override("collective.chunks=2");
  const Outcome o = run(load(document));
  std::ifstream in(dir / "collectives.csv");
  std::string header, row;
  std::getline(in, header);
  std::getline(in, row);
  EXPECT_NE(header.find(",algorithm,protocol,channels,chunks,"), std::string::npos);
  const auto& r = all_reduce(o);
  EXPECT_NE(row.find(fmt::format(",{},{},{},2,", collective::to_string(r.algorithm), collective::to_string(r.protocol),
                                 r.channels)),
            std::string::npos)
      << row;
  std::ifstream summary_file(dir / "summary.json");
  std::stringstream summary;
  summary << summary_file.rdbuf();
  EXPECT_NE(summary.str().find("\"chunks\": 2"), std::string::npos);
  EXPECT_NE(summary.str().find("\"channels\": \"auto\""), std::string::npos);  // the tuner chose
  fs::remove_all(dir);
}

}  // namespace
}  // namespace loom::experiment
