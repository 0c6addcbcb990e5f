// Job mode against queueing theory: an M/M/c queue (1-GPU jobs, Poisson arrivals, exponential
// durations, c GPUs, FCFS) has the Erlang C mean wait, and Little's law L = λW ties the
// time-average queue length to the mean wait.
#include <cmath>

#include <gtest/gtest.h>

#include "loom/cluster/job_mode.h"
#include "loom/cluster/synthetic_jobs.h"
#include "test_cluster.h"

namespace loom::cluster {
namespace {

// Erlang C: with offered load a = λ/μ on c servers (a < c), the chance an arrival waits is
//   C(c, a) = (a^c / c!) (c / (c - a)) / (Σ_{k<c} a^k / k! + (a^c / c!) (c / (c - a)))
// and the mean wait is W = C(c, a) / (cμ - λ).
double erlang_c_wait(int c, double lambda, double mu) {
  const double a = lambda / mu;
  double term = 1, sum = 0;  // term = a^k / k!
  for (int k = 0; k < c; ++k) {
    sum += term;
    term *= a / (k + 1);
  }
  const double tail = term * c / (c - a);
  return tail / (sum + tail) / (c * mu - lambda);
}

struct MmcRun {
  JobModeResult result;
  std::vector<Job> jobs;
  double lambda;
};

// c = 8 GPUs (one host), mean duration 1 h, utilisation 0.7.
MmcRun run_mmc(std::uint64_t count, std::uint64_t seed, Span sample_interval) {
  const double mean_duration = 3600, lambda = 0.7 * 8 / mean_duration;
  SyntheticJobs spec;
  spec.count = count;
  spec.inter_arrival = Distribution::exponential(1 / lambda);
  spec.duration = Distribution::exponential(mean_duration);
  MmcRun run;
  run.jobs = synthesize_jobs(spec, seed);
  run.lambda = lambda;
  finalize_jobs(run.jobs, 8);
  static const Machines m = testing::machines(1, 8);
  JobModeOptions options;
  options.sample_interval = sample_interval;
  run.result = run_job_mode(m, run.jobs, options);
  return run;
}

TEST(Queueing, ErlangCFormula) {
  // c = 8, a = 6.4: C(8, 6.4) = 0.4576 and cμ - λ = 1.6 per hour, so W = 0.2860 h = 1029.7 s.
  EXPECT_NEAR(erlang_c_wait(8, 6.4 / 3600, 1.0 / 3600), 1029.7, 0.1);
}

TEST(Queueing, FcfsMeanWaitMatchesErlangC) {
  // 400,000 jobs at utilisation 0.7. The mean wait moves by about 1/(1 - ρ) times any relative
  // error in ρ, so it is compared with Erlang C at the arrival rate and mean duration this
  // sample of jobs actually has (each within a few tenths of a percent of the nominal ones).
  const MmcRun run = run_mmc(400'000, 1, Span::zero());
  const auto n = static_cast<double>(run.jobs.size());
  double total_wait = 0, total_duration = 0;
  for (const JobRecord& r : run.result.jobs) total_wait += r.wait.seconds();
  for (const Job& j : run.jobs) total_duration += j.duration->seconds();
  const double lambda = n / run.jobs.back().submit.seconds(), mu = n / total_duration;
  EXPECT_NEAR(lambda / run.lambda, 1.0, 0.01);
  const double expected = erlang_c_wait(8, lambda, mu);
  const double mean = total_wait / n;
  EXPECT_NEAR(mean / expected, 1.0, 0.03) << "simulated mean wait " << mean << " s, Erlang C " << expected << " s";
}

TEST(Queueing, LittlesLawHoldsOnTheSampledQueue) {
  const MmcRun run = run_mmc(100'000, 5, Span::s(60));
  double total_wait = 0;
  for (const JobRecord& r : run.result.jobs) total_wait += r.wait.seconds();
  const double mean_wait = total_wait / static_cast<double>(run.jobs.size());
  // The arrival rate the run actually saw.
  const double lambda = static_cast<double>(run.jobs.size()) / run.jobs.back().submit.seconds();
  double queued = 0;
  for (const Sample& s : run.result.samples) queued += s.queued;
  const double mean_queue = queued / static_cast<double>(run.result.samples.size());
  EXPECT_NEAR(mean_queue / (lambda * mean_wait), 1.0, 0.03)
      << "sampled L = " << mean_queue << ", λW = " << lambda * mean_wait;
  // The exact time integral agrees with the total wait (every job waits only in the queue).
  EXPECT_NEAR(run.result.queue_job_s / total_wait, 1.0, 1e-9);
}

}  // namespace
}  // namespace loom::cluster
