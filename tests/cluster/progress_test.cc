// The engine's progress reports (what `loom run` turns into its stderr line for long cluster
// runs): simulated time and jobs done move forward, and only while the run lasts.
#include <chrono>
#include <vector>

#include <gtest/gtest.h>

#include "loom/cluster/job_mode.h"
#include "loom/cluster/synthetic_jobs.h"
#include "test_cluster.h"

namespace loom::cluster {
namespace {

TEST(ClusterProgress, ReportsSimulatedTimeAndJobsDoneAsTheRunGoes) {
  SyntheticJobs spec;
  spec.count = 20'000;
  spec.inter_arrival = Distribution::exponential(600);
  spec.duration = Distribution::exponential(3600);
  std::vector<Job> jobs = synthesize_jobs(spec, 1);
  finalize_jobs(jobs, 8);
  const Machines machines = testing::machines(1, 8);
  std::vector<Progress> reports;
  ProgressReporter progress;
  progress.every = std::chrono::seconds(0);  // at every check (every 4,096 events in job mode)
  progress.report = [&](const Progress& p) { reports.push_back(p); };
  const JobModeResult result = run_job_mode(machines, jobs, JobModeOptions{}, progress);

  ASSERT_GE(reports.size(), 5u) << "20,000 jobs make ~40,000 events, checked every 4,096";
  for (std::size_t i = 1; i < reports.size(); ++i) {
    EXPECT_GE(reports[i].now, reports[i - 1].now);
    EXPECT_GE(reports[i].jobs_done, reports[i - 1].jobs_done);
    EXPECT_GE(reports[i].wall_seconds, reports[i - 1].wall_seconds);
  }
  for (const Progress& p : reports) {
    EXPECT_EQ(p.jobs, jobs.size());
    EXPECT_LE(p.jobs_done, jobs.size());
    EXPECT_LE(p.now, result.makespan);
  }
  EXPECT_GT(reports.back().jobs_done, jobs.size() / 2);
  EXPECT_GT(reports.back().now, reports.front().now);

  // With the default period (2 s of wall time) a run this short reports nothing.
  std::size_t default_reports = 0;
  ProgressReporter every_two_seconds;
  every_two_seconds.report = [&](const Progress&) { ++default_reports; };
  run_job_mode(machines, jobs, JobModeOptions{}, every_two_seconds);
  EXPECT_EQ(default_reports, 0u);
}

}  // namespace
}  // namespace loom::cluster
