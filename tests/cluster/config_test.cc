// Reading the `cluster:` section: jobs from every kind of source, defaults, and errors that
// name the job or key and where it is.
#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include "loom/cluster/cluster_config.h"
#include "loom/config/document.h"
#include "test_cluster.h"

namespace loom::cluster {
namespace {

ClusterSettings read(const std::string& yaml, const Machines& m) {
  config::Document doc = config::Document::parse(yaml, "exp.yaml");
  ClusterSettings s = read_cluster(doc.root().child("cluster"), m, ".", 1);
  doc.finish();
  return s;
}

std::string error_of(const std::string& yaml, const Machines& m) {
  try {
    read(yaml, m);
  } catch (const UserError& e) {
    return e.what();
  }
  return "no error";
}

TEST(ClusterConfig, ReadsJobListsSyntheticSourcesAndDefaults) {
  const Machines m = testing::machines(4, 8);
  const ClusterSettings s = read(R"(
cluster:
  scheduler: easy-backfill
  placement: topology-aware
  checkpoint: {interval: 30min, cost: 1min, restart_cost: 5min}
  jobs:
    - {id: big, submit: 1h, gpus: 16, duration: 2d, priority: 2, user: alice, checkpoint_interval: 1h}
    - {id: drawn, gpus: 2, duration_distribution: {dist: uniform, min: 1h, max: 2h}}
  synthetic:
    - {name: poisson, count: 50, arrivals: {dist: exponential, mean: 10min},
       gpus: {dist: choice, values: [1, 2, 4, 8], weights: [4, 3, 2, 1]},
       duration: {dist: lognormal, median: 30min, sigma: 1}}
  failures:
    host: {time_to_failure: {dist: weibull, shape: 0.8, scale: 30d}, repair: {dist: fixed, value: 4h}}
    events: [{at: 2h, component: host.1.gpu.3, repair: 30min}]
    hot_spares: 1
  maintenance: [{target: leaf.0, start: 1d, duration: 2h}]
)", m);
  EXPECT_EQ(s.options.scheduler, "easy-backfill");
  EXPECT_EQ(s.options.placement, "topology-aware");
  ASSERT_EQ(s.jobs.size(), 52u);
  EXPECT_EQ(s.jobs[0].id, "drawn");  // sorted by submit: drawn at 0 comes first
  const Job& big = *std::find_if(s.jobs.begin(), s.jobs.end(), [](const Job& j) { return j.id == "big"; });
  EXPECT_EQ(big.gpus, 16u);
  EXPECT_EQ(*big.duration, Span::hours(48));
  EXPECT_EQ(big.checkpoint_interval, Span::hours(1));
  EXPECT_EQ(big.restart_cost, Span::s(300));  // from the defaults
  EXPECT_GE(*s.jobs[0].duration, Span::hours(1));
  EXPECT_LE(*s.jobs[0].duration, Span::hours(2));
  EXPECT_TRUE(s.options.failures.host.has_value());
  EXPECT_EQ(s.options.failures.listed.size(), 1u);
  EXPECT_EQ(s.options.failures.maintenance.size(), 1u);
  EXPECT_EQ(s.options.failures.hot_spares, 1u);
}

TEST(ClusterConfig, AJobWithoutDurationIsAnErrorNamingIt) {
  const Machines m = testing::machines(1, 8);
  const std::string e = error_of("cluster:\n  jobs:\n    - {id: a, gpus: 1, duration: 1h}\n    - {id: nodur, gpus: 2}\n", m);
  EXPECT_NE(e.find("exp.yaml:4"), std::string::npos) << e;
  EXPECT_NE(e.find("job 'nodur' has no duration"), std::string::npos) << e;
}

TEST(ClusterConfig, MistakesAreLocated) {
  const Machines m = testing::machines(1, 8);
  EXPECT_NE(error_of("cluster:\n  scheduler: lottery\n  jobs: [{id: a, duration: 1h}]\n", m).find("exp.yaml:2"),
            std::string::npos);
  EXPECT_NE(error_of("cluster:\n  jobs: [{id: a, duration: 90}]\n", m).find("expected a duration"), std::string::npos);
  EXPECT_NE(error_of("cluster:\n  jobs: [{id: a, gpus: 9, duration: 1h}]\n", m).find("the cluster has 8"),
            std::string::npos);
  EXPECT_NE(error_of("cluster:\n  jobs: [{id: a, duration: 1h}, {id: a, duration: 2h}]\n", m).find("defined twice"),
            std::string::npos);
  EXPECT_NE(error_of("cluster:\n  mode: job\n", m).find("defines no jobs"), std::string::npos);
  EXPECT_NE(error_of("cluster:\n  jobs: [{id: a, duration: 1h, colour: red}]\n", m).find("unknown key 'colour'"),
            std::string::npos);
  EXPECT_NE(error_of("cluster:\n  synthetic: [{count: 3, arrivals: {dist: exponential, mean: 0s}, duration: "
                     "{dist: fixed, value: 1h}}]\n", m).find("must be positive"),
            std::string::npos);
}

TEST(ClusterConfig, ListedFailuresFromAFile) {
  const Machines m = testing::machines(2, 8);
  const std::filesystem::path file = std::filesystem::temp_directory_path() / "loom_cluster_failures.csv";
  std::ofstream(file) << "at,component,repair\n3600,host.1,600\n7200,host.0.gpu.2,60\n";
  const std::string jobs = "  jobs: [{id: a, gpus: 8, duration: 1h}]\n";
  const ClusterSettings s = read("cluster:\n  failures: {file: " + file.string() + "}\n" + jobs, m);
  ASSERT_EQ(s.options.failures.listed.size(), 2u);
  EXPECT_EQ(s.options.failures.listed[1].component, "host.0.gpu.2");
  EXPECT_EQ(s.options.failures.listed[1].at, Span::s(7200));
  EXPECT_EQ(s.options.failures.listed[0].repair, Span::s(600));
  std::ofstream(file) << "at,component,repair\n3600,host.1,600\nsoon,host.0,60\n";
  EXPECT_NE(error_of("cluster:\n  failures: {file: " + file.string() + "}\n" + jobs, m).find(file.string() + ":3"),
            std::string::npos);
  std::filesystem::remove(file);
}

}  // namespace
}  // namespace loom::cluster
