// The sweep table: headline metrics read from run records, rows in variant order.
#include "loom/experiment/sweep_table.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

namespace loom::experiment {
namespace {

namespace fs = std::filesystem;

const nlohmann::json kRun = nlohmann::json::parse(R"({
  "config": {}, "outputs": [],
  "totals": {"makespan_us": 30.5, "collectives": 3, "transfers": 12, "events": 99},
  "entries": [{"instances": 1, "busbw_GBps": 10.0}, {"instances": 3, "busbw_GBps": 30.0}],
  "metrics": {"iteration_us": [10.0, 20.0], "ranks": {"compute_us": {"mean": 4.0}, "exposed_comm_us": {"mean": 2.5}}}
})");

const nlohmann::json kCluster = nlohmann::json::parse(R"({
  "config": {}, "outputs": [], "jobs": {"count": 5, "finished": 4},
  "wait_s": {"mean": 1.5, "p99": 3.0}, "jct_s": {"mean": 10.0, "p99": 20.0},
  "makespan_s": 100.0, "utilisation": 0.5, "goodput": 0.25, "events": 7
})");

nlohmann::json metric(const HeadlineMetrics& metrics, const std::string& name) {
  for (const auto& [key, value] : metrics) {
    if (key == name) return value;
  }
  return "absent";
}

TEST(SweepTable, HeadlineMetricsOfARun) {
  const HeadlineMetrics m = headline_metrics(kRun);
  EXPECT_EQ(metric(m, "makespan_us"), 30.5);
  EXPECT_EQ(metric(m, "iteration_us"), 15.0);
  EXPECT_EQ(metric(m, "busbw_GBps"), 25.0);  // (1 x 10 + 3 x 30) / 4 instances
  EXPECT_EQ(metric(m, "compute_us"), 4.0);
  EXPECT_EQ(metric(m, "exposed_comm_us"), 2.5);
  EXPECT_EQ(metric(m, "collectives"), 3);
  EXPECT_EQ(metric(m, "events"), 99);
  EXPECT_TRUE(complete_summary(kRun));
}

TEST(SweepTable, HeadlineMetricsOfAClusterRun) {
  const HeadlineMetrics m = headline_metrics(kCluster);
  EXPECT_EQ(metric(m, "jobs"), 5);
  EXPECT_EQ(metric(m, "finished"), 4);
  EXPECT_EQ(metric(m, "wait_p99_s"), 3.0);
  EXPECT_EQ(metric(m, "jct_mean_s"), 10.0);
  EXPECT_EQ(metric(m, "utilisation"), 0.5);
  EXPECT_TRUE(complete_summary(kCluster));
}

TEST(SweepTable, AMissingMetricIsNullAndAPartialRecordIsIncomplete) {
  nlohmann::json no_collectives = kRun;
  no_collectives["entries"] = nlohmann::json::array();
  no_collectives["metrics"]["iteration_us"] = nlohmann::json::array();
  EXPECT_TRUE(metric(headline_metrics(no_collectives), "busbw_GBps").is_null());
  EXPECT_TRUE(metric(headline_metrics(no_collectives), "iteration_us").is_null());
  nlohmann::json partial = kRun;
  partial.erase("outputs");
  EXPECT_FALSE(complete_summary(partial));
  EXPECT_FALSE(complete_summary(nlohmann::json::array()));
}

TEST(SweepTable, RowsFollowTheVariantsWithTheirStatusAndError) {
  const fs::path dir = fs::temp_directory_path() / ("loom_sweep_table_test." + std::to_string(getpid()));
  const std::vector<SweepVariant> variants = expand_grid({parse_vary("topology.hosts=2,4"), parse_vary("a.b=\"x,y\"")});
  write_sweep_table(dir, "exp.yaml", variants,
                    {{"ran", "", kRun}, {"failed", "--set a.b=x: unknown key 'a'", nullptr}});
  std::stringstream csv;
  csv << std::ifstream(dir / "sweep.csv").rdbuf();
  EXPECT_EQ(csv.str(),
            "variant,topology.hosts,a.b,status,makespan_us,iteration_us,busbw_GBps,compute_us,exposed_comm_us,"
            "collectives,transfers,events,error\n"
            "hosts-2_b-_x_y_,2,\"\"\"x,y\"\"\",ran,30.5,15.0,25.0,4.0,2.5,3,12,99,\n"
            "hosts-4_b-_x_y_,4,\"\"\"x,y\"\"\",failed,,,,,,,,,--set a.b=x: unknown key 'a'\n");
  const nlohmann::json json = nlohmann::json::parse(std::ifstream(dir / "sweep.json"));
  EXPECT_EQ(json["keys"], nlohmann::json({"topology.hosts", "a.b"}));
  EXPECT_EQ(json["variants"][0]["metrics"]["busbw_GBps"], 25.0);
  EXPECT_EQ(json["variants"][1]["status"], "failed");
  EXPECT_EQ(json["variants"][1]["settings"]["topology.hosts"], "4");
  fs::remove_all(dir);
}

}  // namespace
}  // namespace loom::experiment
