// Fractional GPUs: one-GPU jobs with gpu_milli < 1000 share a GPU while their millis add up to
// at most 1000, go where shares leave the least room (best fit), and GPU time is told in
// fractions: busy + idle + down + drained + spare = GPUs x makespan.
#include <gtest/gtest.h>

#include "loom/cluster/cluster_state.h"
#include "loom/cluster/job_mode.h"
#include "test_cluster.h"
#include "user_error.h"

namespace loom::cluster {
namespace {

using testing::job;

Job share(std::string id, double submit_s, std::uint32_t milli, double duration_s) {
  Job j = job(std::move(id), submit_s, 1, duration_s);
  j.gpu_milli = milli;
  return j;
}

JobModeResult run(std::vector<Job> jobs, std::uint32_t hosts, std::uint32_t gpus_per_host,
                  const std::string& scheduler = "fcfs", FailureOptions failures = {}) {
  const Machines m = testing::machines(hosts, gpus_per_host);
  finalize_jobs(jobs, m.gpu_count);
  JobModeOptions options;
  options.scheduler = scheduler;
  options.failures = std::move(failures);
  options.sample_interval = Span::s(1);
  return run_job_mode(m, jobs, options);
}

TEST(GpuShares, TwoHalvesRunTogetherOnOneGpuASixHundredAndAFiveHundredDoNot) {
  const JobModeResult halves = run({share("a", 0, 500, 10), share("b", 0, 500, 10)}, 1, 1);
  EXPECT_EQ(*halves.jobs[0].first_start, Span::zero());
  EXPECT_EQ(*halves.jobs[1].first_start, Span::zero());
  EXPECT_EQ(halves.makespan, Span::s(10));
  EXPECT_NEAR(halves.busy_gpu_s, 10.0, 1e-9);  // two halves of one GPU for 10 s
  EXPECT_NEAR(halves.idle_gpu_s, 0.0, 1e-9);

  const JobModeResult too_much = run({share("a", 0, 600, 10), share("b", 0, 500, 10)}, 1, 1);
  EXPECT_EQ(*too_much.jobs[1].first_start, Span::s(10));
  EXPECT_EQ(too_much.makespan, Span::s(20));
  // 0.6 of the GPU busy for 10 s, then 0.5 for 10 s.
  EXPECT_NEAR(too_much.busy_gpu_s, 11.0, 1e-9);
  EXPECT_NEAR(too_much.idle_gpu_s, 9.0, 1e-9);
  EXPECT_DOUBLE_EQ(too_much.samples[3].gpus.busy - too_much.samples[3].shared_free, 0.6);
  EXPECT_DOUBLE_EQ(too_much.samples[13].gpus.busy - too_much.samples[13].shared_free, 0.5);
}

TEST(GpuShares, AShareGoesWhereItLeavesTheLeastRoom) {
  // Two GPUs. a (300) takes GPU 0; b (800) does not fit beside it and takes GPU 1; c (150)
  // fits beside either and goes to GPU 1, where 50 remain, not GPU 0 (550 would remain).
  const Machines m = testing::machines(1, 2);
  ClusterState state(m);
  state.assign_share(0, 0, 300);
  EXPECT_EQ(state.best_share_fit(600), 0u);
  EXPECT_EQ(state.best_share_fit(800), kNoJob);
  state.assign_share(1, 1, 800);
  EXPECT_EQ(state.best_share_fit(150), 1u);
  EXPECT_EQ(state.best_share_fit(650), 0u);
  EXPECT_EQ(state.available(), 0u);
  EXPECT_EQ(state.shared_free_milli(), 700u + 200u);
  state.release_share(0, 0, 300);
  EXPECT_EQ(state.available(), 1u);
  EXPECT_EQ(state.shared_free_milli(), 200u);
  EXPECT_EQ(state.jobs_on(1), std::vector<JobId>{1});
  // The same in the engine, with a whole one-GPU job d: it waits for a to leave GPU 0.
  const JobModeResult r = run({share("a", 0, 300, 10), share("b", 0, 800, 10), share("c", 0, 150, 10),
                               job("d", 0, 1, 10)}, 1, 2, "first-fit");
  EXPECT_EQ(*r.jobs[2].first_start, Span::zero());
  EXPECT_EQ(*r.jobs[3].first_start, Span::s(10));
  EXPECT_NEAR(r.busy_gpu_s, (0.3 + 0.8 + 0.15 + 1.0) * 10, 1e-9);
}

TEST(GpuShares, GpuSecondsAreConservedWithSharesFailuresAndWholeJobs) {
  std::vector<Job> jobs;
  for (int i = 0; i < 300; ++i) {
    const double submit = i * 7.0;
    const double duration = 20.0 + (i * 37) % 200;
    if (i % 3 == 0) {
      jobs.push_back(job("w" + std::to_string(i), submit, 1 + i % 4, duration));
    } else {
      jobs.push_back(share("s" + std::to_string(i), submit, 100 + (i * 131) % 900, duration));
    }
    jobs.back().checkpoint_interval = Span::s(30);
  }
  FailureOptions failures;
  failures.host = FailureProcess{Distribution::exponential(400), Distribution::fixed(50)};
  const JobModeResult r = run(jobs, 2, 4, "first-fit", failures);
  const double capacity = 8 * r.makespan.seconds();
  EXPECT_GT(r.component_failures, 0u);
  EXPECT_NEAR((r.busy_gpu_s + r.idle_gpu_s + r.down_gpu_s + r.drained_gpu_s + r.spare_gpu_s) / capacity, 1.0, 1e-12);
  // Busy GPU time is each job's time on its GPUs times its fraction of a GPU.
  double held = 0;
  for (JobId id = 0; id < jobs.size(); ++id) {
    const double fraction = jobs[id].shares_gpu() ? jobs[id].gpu_milli / 1000.0 : jobs[id].gpus;
    for (const RunSpan& run : r.runs) {
      if (run.job == id) held += (run.end - run.start).seconds() * fraction / jobs[id].gpus * run.gpus;
    }
  }
  EXPECT_NEAR(r.busy_gpu_s / held, 1.0, 1e-9);
  for (const Sample& s : r.samples) {
    const double busy = s.gpus.busy - s.shared_free;
    EXPECT_GE(busy, 0.0);
    EXPECT_NEAR(busy + s.gpus.idle + s.shared_free + s.gpus.down + s.gpus.drained + s.gpus.spare, 8.0, 1e-9);
  }
}

// priority and easy-backfill add up whole GPUs freed by preemption or by running jobs' ends: a
// share there is an error at the job, never counted as a GPU.
TEST(GpuShares, PriorityAndBackfillRefuseShares) {
  for (const std::string scheduler : {"priority", "easy-backfill"}) {
    std::vector<Job> jobs{job("w", 0, 1, 10), share("s", 0, 500, 10)};
    jobs[1].where = SourceLocation{"jobs.csv", 3, 1};
    EXPECT_EQ(loom::testing::user_error_of([&] { run(jobs, 1, 2, scheduler); }),
              "jobs.csv:3:1: job 's' is a share of a GPU (gpu_milli 500), which scheduler '" + scheduler +
                  "' cannot weigh: it adds up whole GPUs freed by preemption or by running jobs' ends; use fcfs, "
                  "first-fit or sjf, or give the job gpu_milli 1000");
    EXPECT_EQ(loom::testing::user_error_of([&] { run({job("w", 0, 1, 10), job("v", 0, 1, 10)}, 1, 2, scheduler); }),
              "no error");
  }
  EXPECT_EQ(loom::testing::user_error_of([] { run({share("s", 0, 500, 10), share("t", 0, 500, 10)}, 1, 1, "sjf"); }),
            "no error");
}

}  // namespace
}  // namespace loom::cluster
