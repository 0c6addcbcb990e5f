// Each scheduler's semantics on small traces worked out by hand, and Arcadia's App. A
// anomaly: shortening every job can lengthen the makespan under FIFO list scheduling.
#include <gtest/gtest.h>

#include "loom/cluster/job_mode.h"
#include "test_cluster.h"

namespace loom::cluster {
namespace {

using testing::job;

// Runs `jobs` on one host of `gpus` GPUs.
JobModeResult run(std::vector<Job> jobs, const std::string& scheduler, std::uint32_t gpus = 8) {
  const Machines m = testing::machines(1, gpus);
  finalize_jobs(jobs, m.gpu_count);
  JobModeOptions options;
  options.scheduler = scheduler;
  return run_job_mode(m, jobs, options);
}

Span start_of(const JobModeResult& r, JobId id) { return *r.jobs[id].first_start; }

TEST(Schedulers, FcfsHeadBlocksFirstFitDoesNot) {
  // 8 GPUs. a (6 GPUs, 10 s) starts; b (4 GPUs) waits for it; c (2 GPUs, 1 s) fits now.
  const std::vector<Job> jobs{job("a", 0, 6, 10), job("b", 0, 4, 10), job("c", 0, 2, 1)};
  const JobModeResult fcfs = run(jobs, "fcfs");
  EXPECT_EQ(start_of(fcfs, 1), Span::s(10));
  EXPECT_EQ(start_of(fcfs, 2), Span::s(10));  // behind b, then beside it
  const JobModeResult first_fit = run(jobs, "first-fit");
  EXPECT_EQ(start_of(first_fit, 1), Span::s(10));
  EXPECT_EQ(start_of(first_fit, 2), Span::zero());
}

TEST(Schedulers, SjfStartsTheShortestWaitingJob) {
  // a holds every GPU until 10 s; b (100 s) and c (5 s) wait. SJF: c at 10, b at 15.
  const std::vector<Job> jobs{job("a", 0, 8, 10), job("b", 1, 8, 100), job("c", 2, 8, 5)};
  const JobModeResult sjf = run(jobs, "sjf");
  EXPECT_EQ(start_of(sjf, 2), Span::s(10));
  EXPECT_EQ(start_of(sjf, 1), Span::s(15));
  const JobModeResult fcfs = run(jobs, "fcfs");
  EXPECT_EQ(start_of(fcfs, 1), Span::s(10));
  EXPECT_EQ(start_of(fcfs, 2), Span::s(110));
}

TEST(Schedulers, PriorityPreemptsLowerPriorityAndRollsItBack) {
  // a (priority 0, 8 GPUs, 100 s, checkpoint every 10 s at no cost) runs from 0; b (priority 5,
  // 4 GPUs, 10 s) arrives at 25 s and preempts a, which keeps 20 s and loses 5 s. b runs
  // 25-35 s; a restarts at 35 s with 80 s left and ends at 115 s.
  std::vector<Job> jobs{job("a", 0, 8, 100, 0), job("b", 25, 4, 10, 5)};
  jobs[0].checkpoint_interval = Span::s(10);
  const JobModeResult r = run(jobs, "priority");
  EXPECT_EQ(start_of(r, 1), Span::s(25));
  EXPECT_EQ(*r.jobs[1].end, Span::s(35));
  EXPECT_EQ(r.jobs[0].preemptions, 1u);
  EXPECT_EQ(r.jobs[0].lost_work, Span::s(5));
  EXPECT_EQ(*r.jobs[0].end, Span::s(115));
  // Equal priorities never preempt.
  jobs[1].priority = 0;
  const JobModeResult fair = run(jobs, "priority");
  EXPECT_EQ(fair.jobs[0].preemptions, 0u);
  EXPECT_EQ(start_of(fair, 1), Span::s(100));
}

TEST(Schedulers, EasyBackfillFillsHolesWithoutDelayingTheHead) {
  // a (6 GPUs, 0-100 s). b (8 GPUs) at 1 s waits: reserved for 100 s. c (2 GPUs, 50 s) at 2 s
  // ends by 100 -> backfilled at 2 s. d (2 GPUs, 200 s) at 53 s would delay b -> waits until
  // b ends at 110 s. e (2 GPUs, 40 s) at 54 s ends by 100 -> backfilled at 54 s.
  const std::vector<Job> jobs{job("a", 0, 6, 100), job("b", 1, 8, 10), job("c", 2, 2, 50), job("d", 53, 2, 200),
                              job("e", 54, 2, 40)};
  const JobModeResult r = run(jobs, "easy-backfill");
  EXPECT_EQ(start_of(r, 1), Span::s(100));
  EXPECT_EQ(start_of(r, 2), Span::s(2));
  EXPECT_EQ(start_of(r, 3), Span::s(110));
  EXPECT_EQ(start_of(r, 4), Span::s(54));
  const JobModeResult fcfs = run(jobs, "fcfs");
  EXPECT_EQ(start_of(fcfs, 2), Span::s(110));  // behind b
}

TEST(Schedulers, UnknownNamesAreUserErrors) {
  EXPECT_THROW(run({job("a", 0, 1, 1)}, "lottery"), UserError);
}

// Arcadia App. A replays arrivals with shorter jobs and compares makespans. With 4 GPUs and
// FIFO list scheduling:
//   original   a (1 GPU, 8 s) and b (1 GPU, 4 s) start at 0; c (3 GPUs, 3 s) does not fit;
//              d (1 GPU, 8 s) arrives at 3 and starts; b ends at 4 (2 free, c still waits);
//              a ends at 8, c runs 8-11, d ends at 11: makespan 11 s.
//   each job 1 s shorter: b ends at 3 together with d's arrival; c (earlier in the queue)
//              takes the 3 free GPUs 3-5, d waits for them and runs 5-12: makespan 12 s.
TEST(Schedulers, ShorteningEveryJobCanLengthenTheMakespan) {
  const std::vector<Job> original{job("a", 0, 1, 8), job("b", 0, 1, 4), job("c", 0, 3, 3), job("d", 3, 1, 8)};
  std::vector<Job> shorter = original;
  for (Job& j : shorter) *j.duration -= Span::s(1);
  const JobModeResult before = run(original, "first-fit", 4);
  const JobModeResult after = run(shorter, "first-fit", 4);
  EXPECT_EQ(before.makespan, Span::s(11));
  EXPECT_EQ(after.makespan, Span::s(12));
  EXPECT_GT(after.makespan, before.makespan);
}

}  // namespace
}  // namespace loom::cluster
