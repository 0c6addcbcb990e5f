// Failures, checkpoints, hot spares and drains: the closed-form completion time of a long job
// under exponential failures, and properties every run must keep (no work lost beyond the
// last checkpoint, gangs placed whole, GPUs never double-booked, GPU-seconds conserved).
#include <algorithm>
#include <cmath>
#include <map>

#include <gtest/gtest.h>

#include "loom/cluster/job_mode.h"
#include "test_cluster.h"

namespace loom::cluster {
namespace {

// Expected time to get through a piece of x seconds that must run uninterrupted, with failures
// at rate λ and a restart of R seconds (also exposed to failures) after each: the first
// attempt takes E[min(T, x)] = (1 - e^{-λx}) / λ and fails with probability 1 - e^{-λx}; each
// retry needs R + x uninterrupted, which takes (e^{λ(R+x)} - 1) / λ in expectation.
double piece_time(double x, double lambda, double restart) {
  const double fail = 1 - std::exp(-lambda * x);
  return fail / lambda + fail * (std::exp(lambda * (restart + x)) - 1) / lambda;
}

TEST(Failures, LongJobMeetsTheClosedFormUnderExponentialFailures) {
  // W = 50 h of work, checkpoints every τ = 1 h costing C = 5 min, restart R = 10 min, host
  // MTBF M = 8 h, repair instant: 49 pieces of τ + C and a last piece of τ, independent by
  // memorylessness. 2,000 one-GPU jobs on 2,000 one-GPU hosts average it out.
  const double tau = 3600, cost = 300, restart = 600, mtbf = 8 * 3600.0, work = 50 * 3600.0;
  const double lambda = 1 / mtbf;
  const double expected = 49 * piece_time(tau + cost, lambda, restart) + piece_time(tau, lambda, restart);
  const std::uint32_t n = 2000;
  const Machines m = testing::machines(n, 1);
  std::vector<Job> jobs;
  for (std::uint32_t i = 0; i < n; ++i) {
    Job j = testing::job("j" + std::to_string(i), 0, 1, work);
    j.checkpoint_interval = Span::from_seconds(tau);
    j.checkpoint_cost = Span::from_seconds(cost);
    j.restart_cost = Span::from_seconds(restart);
    jobs.push_back(j);
  }
  finalize_jobs(jobs, m.gpu_count);
  JobModeOptions options;
  options.seed = 3;
  options.failures.host = FailureProcess{Distribution::exponential(mtbf), Distribution::fixed(0)};
  const JobModeResult result = run_job_mode(m, jobs, options);
  double total = 0;
  std::uint64_t failures = 0;
  for (const JobRecord& r : result.jobs) {
    ASSERT_TRUE(r.end.has_value());
    total += r.end->seconds();
    failures += r.failures;
  }
  const double mean = total / n;
  EXPECT_NEAR(mean / expected, 1.0, 0.03) << "mean completion " << mean / 3600 << " h, closed form " << expected / 3600 << " h";
  EXPECT_GT(failures, 5u * n);  // about 7 per job: the test exercises many rollbacks
}

// A busy mixed run: host and GPU failures with repairs, listed failures, a drain, hot spares
// and preemptions by priority.
struct MixedRun {
  Machines machines = testing::machines(6, 8, 2, 2);
  std::vector<Job> jobs;
  JobModeResult result;
};

MixedRun mixed_run(const std::string& scheduler) {
  MixedRun run;
  for (int i = 0; i < 80; ++i) {
    Job j = testing::job("j" + std::to_string(i), i * 900.0, 1u << (i % 4), 3600.0 * (1 + i % 5), i % 3);
    j.checkpoint_interval = Span::from_seconds(600.0 * (i % 3));
    j.checkpoint_cost = Span::s(30);
    j.restart_cost = Span::s(120);
    run.jobs.push_back(j);
  }
  finalize_jobs(run.jobs, run.machines.gpu_count);
  JobModeOptions options;
  options.scheduler = scheduler;
  options.seed = 9;
  options.sample_interval = Span::s(600);
  options.failures.host = FailureProcess{Distribution::exponential(20 * 3600.0), Distribution::exponential(3600)};
  options.failures.gpu = FailureProcess{Distribution::weibull(0.8, 40 * 3600.0), Distribution::fixed(1800)};
  options.failures.listed.push_back(ListedFailure{Span::s(5000), "host.1.gpu.3", Span::s(600), {}});
  options.failures.maintenance.push_back(Maintenance{"leaf.1", Span::s(20000), Span::s(7200), {}});
  options.failures.hot_spares = 1;
  run.result = run_job_mode(run.machines, run.jobs, options);
  return run;
}

class MixedRunProperties : public ::testing::TestWithParam<const char*> {};

TEST_P(MixedRunProperties, WorkIsNeverLostBeyondTheLastCheckpoint) {
  const MixedRun run = mixed_run(GetParam());
  ASSERT_FALSE(run.result.interruptions.empty());
  for (const Interruption& i : run.result.interruptions) {
    const Job& job = run.jobs[i.job];
    EXPECT_GE(i.saved_after, i.saved_before);
    if (job.checkpoint_interval > Span::zero()) {
      EXPECT_LE(i.lost, job.checkpoint_interval) << job.id;
      EXPECT_EQ((i.saved_after - i.saved_before).nanoseconds() % job.checkpoint_interval.nanoseconds(), 0) << job.id;
    } else {
      EXPECT_EQ(i.saved_after, Span::zero()) << job.id;
    }
  }
}

TEST_P(MixedRunProperties, EveryJobsTimeOnGpusIsWorkPlusLostWorkPlusOverhead) {
  const MixedRun run = mixed_run(GetParam());
  std::vector<double> gpu_seconds(run.jobs.size(), 0);
  for (const RunSpan& s : run.result.runs) gpu_seconds[s.job] += (s.end - s.start).seconds() * s.gpus;
  for (JobId id = 0; id < run.jobs.size(); ++id) {
    const JobRecord& r = run.result.jobs[id];
    ASSERT_TRUE(r.end.has_value()) << run.jobs[id].id;
    const double expected = run.jobs[id].gpus * (*run.jobs[id].duration + r.lost_work + r.overhead).seconds();
    EXPECT_NEAR(gpu_seconds[id], expected, 1e-6) << run.jobs[id].id;
  }
}

TEST_P(MixedRunProperties, GangsArePlacedWholeAndGpusNeverDoubleBooked) {
  const MixedRun run = mixed_run(GetParam());
  // Each run of a job (its spans with one start) covers exactly the job's GPUs.
  std::map<std::pair<JobId, std::int64_t>, std::uint32_t> per_run;
  for (const RunSpan& s : run.result.runs) per_run[{s.job, s.start.nanoseconds()}] += s.gpus;
  for (const auto& [key, gpus] : per_run) EXPECT_EQ(gpus, run.jobs[key.first].gpus) << run.jobs[key.first].id;
  // Sweep each host's spans: never more GPUs in use than it has.
  std::map<std::uint32_t, std::vector<std::pair<std::int64_t, int>>> edges;
  for (const RunSpan& s : run.result.runs) {
    edges[s.host].emplace_back(s.start.nanoseconds(), static_cast<int>(s.gpus));
    edges[s.host].emplace_back(s.end.nanoseconds(), -static_cast<int>(s.gpus));
  }
  for (auto& [host, list] : edges) {
    std::sort(list.begin(), list.end());  // at equal times, ends (negative) first
    int in_use = 0;
    for (const auto& [t, delta] : list) {
      in_use += delta;
      EXPECT_LE(in_use, static_cast<int>(run.machines.hosts[host].gpus)) << "host " << host << " at " << t;
    }
  }
}

TEST_P(MixedRunProperties, GpuSecondsAreConserved) {
  const MixedRun run = mixed_run(GetParam());
  const JobModeResult& r = run.result;
  const double capacity = run.machines.gpu_count * r.makespan.seconds();
  EXPECT_NEAR((r.busy_gpu_s + r.idle_gpu_s + r.down_gpu_s + r.drained_gpu_s + r.spare_gpu_s) / capacity, 1.0, 1e-12);
  double busy = 0;
  for (const RunSpan& s : r.runs) busy += (s.end - s.start).seconds() * s.gpus;
  EXPECT_NEAR(r.busy_gpu_s / busy, 1.0, 1e-12);
  EXPECT_GT(r.down_gpu_s, 0);
  EXPECT_GT(r.drained_gpu_s, 0);
  for (const Sample& s : r.samples) {
    EXPECT_EQ(s.gpus.busy + s.gpus.idle + s.gpus.down + s.gpus.drained + s.gpus.spare, run.machines.gpu_count);
  }
}

INSTANTIATE_TEST_SUITE_P(Schedulers, MixedRunProperties,
                         ::testing::Values("fcfs", "first-fit", "sjf", "priority", "easy-backfill"));

// Two hosts of 8 GPUs; job a (8 GPUs, 1000 s, restart 10 s) on host 0 loses host 0 at 100 s for
// an hour. Without checkpoints the 100 s done are lost.
TEST(Failures, AHotSpareRestartsTheJobAtOnce) {
  const Machines m = testing::machines(2, 8);
  std::vector<Job> jobs{testing::job("a", 0, 8, 1000)};
  jobs[0].restart_cost = Span::s(10);
  JobModeOptions options;
  options.failures.listed.push_back(ListedFailure{Span::s(100), "host.0", Span::s(3600), {}});
  options.failures.hot_spares = 1;  // host 1
  const JobModeResult r = run_job_mode(m, jobs, options);
  EXPECT_EQ(*r.jobs[0].end, Span::s(100 + 10 + 1000));
  EXPECT_EQ(r.jobs[0].wait, Span::zero());
  EXPECT_EQ(r.jobs[0].failures, 1u);
  EXPECT_EQ(r.jobs[0].lost_work, Span::s(100));
}

TEST(Failures, AJobTheSparesCannotCoverWaitsForRepairs) {
  // Four hosts of 8 GPUs, host 3 the hot spare; a (24 GPUs) runs on hosts 0-2. At 100 s hosts 0
  // and 1 fail, one after the other, until 600 s.
  const Machines m = testing::machines(4, 8);
  std::vector<Job> jobs{testing::job("a", 0, 24, 1000)};
  JobModeOptions options;
  options.failures.listed.push_back(ListedFailure{Span::s(100), "host.0", Span::s(500), {}});
  options.failures.listed.push_back(ListedFailure{Span::s(100), "host.1", Span::s(500), {}});
  options.failures.hot_spares = 1;  // host 3
  const JobModeResult r = run_job_mode(m, jobs, options);
  // After the first failure the spare fills in (hosts 1, 2, 3); the second takes host 1 and no
  // spare is left, so a waits for the repairs at 600 s (host 0 comes back as the new spare) and
  // runs its 1000 s again on hosts 1-3.
  EXPECT_EQ(r.jobs[0].failures, 2u);
  EXPECT_EQ(*r.jobs[0].end, Span::s(1600));
  EXPECT_EQ(r.jobs[0].wait, Span::s(500));
}

TEST(Failures, WithoutSparesAFailedJobWaitsForAFreeHost) {
  // Host 1 runs b until 5000 s, so a waits for host 0's repair at 3700 s.
  const Machines m = testing::machines(2, 8);
  std::vector<Job> jobs{testing::job("a", 0, 8, 1000), testing::job("b", 0, 8, 5000)};
  jobs[0].restart_cost = Span::s(10);
  JobModeOptions options;
  options.failures.listed.push_back(ListedFailure{Span::s(100), "host.0", Span::s(3600), {}});
  const JobModeResult r = run_job_mode(m, jobs, options);
  EXPECT_EQ(*r.jobs[0].end, Span::s(3700 + 10 + 1000));
  EXPECT_EQ(r.jobs[0].wait, Span::s(3600));
}

TEST(Failures, AGpuFailureStopsOnlyTheJobOnThatGpu) {
  const Machines m = testing::machines(1, 8);
  std::vector<Job> jobs{testing::job("a", 0, 4, 1000), testing::job("b", 0, 4, 1000)};
  JobModeOptions options;
  options.failures.listed.push_back(ListedFailure{Span::s(100), "host.0.gpu.5", Span::s(50), {}});
  const JobModeResult r = run_job_mode(m, jobs, options);
  EXPECT_EQ(r.jobs[0].failures, 0u);
  EXPECT_EQ(*r.jobs[0].end, Span::s(1000));
  // b (GPUs 4-7) restarts when GPU 5 is back at 150 s and runs its 1000 s again.
  EXPECT_EQ(r.jobs[1].failures, 1u);
  EXPECT_EQ(*r.jobs[1].end, Span::s(1150));
}

TEST(Failures, UnknownComponentsAreUserErrors) {
  const Machines m = testing::machines(1, 8);
  std::vector<Job> jobs{testing::job("a", 0, 4, 1000)};
  JobModeOptions options;
  options.failures.listed.push_back(ListedFailure{Span::s(100), "host.0.gpu.8", Span::s(50), {"f.yaml", 3, 5}});
  EXPECT_THROW(run_job_mode(m, jobs, options), UserError);
  options.failures.listed.clear();
  options.failures.maintenance.push_back(Maintenance{"spine.0", Span::s(1), Span::s(1), {}});
  EXPECT_THROW(run_job_mode(m, jobs, options), UserError);
}

TEST(Maintenance, ADrainPreemptsTheJobsThereAndKeepsTheHostEmpty) {
  const Machines m = testing::machines(2, 8);
  std::vector<Job> jobs{testing::job("a", 0, 8, 1000), testing::job("b", 0, 8, 1000)};
  jobs[0].checkpoint_interval = Span::s(100);
  JobModeOptions options;
  options.failures.maintenance.push_back(Maintenance{"host.0", Span::s(250), Span::s(500), {}});
  const JobModeResult r = run_job_mode(m, jobs, options);
  // a ran on host 0: 200 s kept, 50 s lost; host 1 is busy with b until 1000 s; host 0 is back
  // at 750 s, so a resumes there and ends at 750 + 800.
  EXPECT_EQ(r.jobs[0].preemptions, 1u);
  EXPECT_EQ(r.jobs[0].lost_work, Span::s(50));
  EXPECT_EQ(*r.jobs[0].end, Span::s(1550));
  EXPECT_EQ(*r.jobs[1].end, Span::s(1000));
}

}  // namespace
}  // namespace loom::cluster
