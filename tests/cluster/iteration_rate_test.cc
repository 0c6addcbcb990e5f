// The network modes' seam (iteration_model.h, interference.h): jobs slowed by co-runners work
// at rate (iteration time alone) / (iteration time together) until the running set changes,
// with end times worked out by hand; which jobs may share a link.
#include <map>

#include <gtest/gtest.h>

#include "loom/cluster/interference.h"
#include "loom/cluster/job_mode.h"
#include "test_cluster.h"

namespace loom::cluster {
namespace {

// Jobs take their reference time alone and twice it when two or more run at once.
class TwoIsSlower final : public IterationModel {
 public:
  explicit TwoIsSlower(const std::vector<Job>& jobs) : jobs_(jobs) {}
  std::vector<Span> iteration_times(std::span<const PlacedJob> running) override {
    sets.push_back(running.size());
    std::vector<Span> times;
    for (const PlacedJob& p : running) times.push_back(jobs_[p.id].iteration_time * (running.size() > 1 ? 2 : 1));
    return times;
  }
  std::vector<std::size_t> sets;  // sizes of the sets asked about

 private:
  const std::vector<Job>& jobs_;
};

Job iterating(std::string id, double submit_s, std::uint32_t gpus, std::int64_t iterations, double iteration_s) {
  Job j = testing::job(std::move(id), submit_s, gpus, 0);
  j.iteration_time = Span::from_seconds(iteration_s);
  j.duration = j.iteration_time * iterations;
  return j;
}

TEST(IterationRates, CoRunnersStretchWorkUntilTheSetChanges) {
  // a: 10 iterations of 1 s from t = 0; b: 2 iterations of 1 s from t = 4 s. Together both
  // take 2 s per iteration (rate 1/2): b needs 4 s and ends at 8 s, by when a has done 6 s of
  // work; a's last 4 s run alone, so it ends at 12 s. a's mean iteration time over its 12 s:
  // (4 x 1 + 4 x 2 + 4 x 1) / 12 = 4/3 s.
  std::vector<Job> jobs{iterating("a", 0, 8, 10, 1.0), iterating("b", 4, 8, 2, 1.0)};
  const Machines m = testing::machines(2, 8);
  TwoIsSlower model(jobs);
  const JobModeResult r = run_job_mode(m, jobs, JobModeOptions{}, {}, &model);
  EXPECT_EQ(*r.jobs[1].end, Span::s(8));
  EXPECT_EQ(*r.jobs[0].end, Span::s(12));
  EXPECT_EQ(r.jobs[0].iteration_time, Span::ns(1'333'333'333));
  EXPECT_EQ(r.jobs[1].iteration_time, Span::s(2));
  EXPECT_EQ(model.sets, (std::vector<std::size_t>{1, 2, 1}));
}

TEST(IterationRates, CheckpointWritesKeepWallSpeedWhenWorkSlowsDown) {
  // a: 6 s of work (6 iterations of 1 s), checkpoints every 2 s of work costing 1 s; b keeps it
  // at rate 1/2 throughout (b is long). a's run: work 2 (4 s wall), write 1, work 2 (4 s),
  // write 1, work 2 (4 s): 14 s instead of 6 + 2 = 8 s alone.
  std::vector<Job> jobs{iterating("a", 0, 8, 6, 1.0), iterating("b", 0, 8, 100, 1.0)};
  jobs[0].checkpoint_interval = Span::s(2);
  jobs[0].checkpoint_cost = Span::s(1);
  const Machines m = testing::machines(2, 8);
  TwoIsSlower model(jobs);
  const JobModeResult r = run_job_mode(m, jobs, JobModeOptions{}, {}, &model);
  EXPECT_EQ(*r.jobs[0].end, Span::s(14));
  // b: 7 s of work at rate 1/2 by 14 s, then 93 s alone.
  EXPECT_EQ(*r.jobs[1].end, Span::s(107));
}

TEST(IterationRates, OpaqueJobsNeitherAskNorSlow) {
  std::vector<Job> jobs{testing::job("opaque", 0, 8, 5), iterating("a", 1, 8, 3, 1.0)};
  const Machines m = testing::machines(2, 8);
  TwoIsSlower model(jobs);
  const JobModeResult r = run_job_mode(m, jobs, JobModeOptions{}, {}, &model);
  EXPECT_EQ(*r.jobs[0].end, Span::s(5));
  EXPECT_EQ(*r.jobs[1].end, Span::s(4));
  EXPECT_EQ(model.sets, (std::vector<std::size_t>{1}));
  EXPECT_EQ(r.jobs[0].iteration_time, Span::zero());
}

TEST(Interference, JobsInsideTheirOwnLeavesNeverShareALink) {
  // 8 hosts of 4 GPUs, 2 hosts per leaf, 2 leaves per pod: leaves 0..3, pods 0..1.
  const Machines m = testing::machines(8, 4, 2, 2);
  const auto gpus = [](std::uint32_t first, std::uint32_t count) {
    std::vector<std::uint32_t> g(count);
    for (std::uint32_t i = 0; i < count; ++i) g[i] = first + i;
    return g;
  };
  const std::vector<std::uint32_t> leaf0 = gpus(0, 8), leaf1 = gpus(8, 8);
  const std::vector<std::uint32_t> leaves01 = gpus(0, 12), leaves12 = gpus(12, 8);
  const std::vector<std::uint32_t> pod1_leaves23 = gpus(16, 16), half_host0 = gpus(0, 2), other_half = gpus(2, 2);
  const std::vector<std::uint32_t> host3 = gpus(12, 4);
  const auto groups = [&](std::vector<PlacedJob> jobs) { return interacting_groups(m, jobs); };
  using Groups = std::vector<std::vector<std::size_t>>;
  EXPECT_EQ(groups({{0, leaf0}, {1, leaf1}}), (Groups{{0}, {1}}));
  EXPECT_EQ(groups({{0, half_host0}, {1, other_half}}), (Groups{{0, 1}}));        // one host
  EXPECT_EQ(groups({{0, leaves01}, {1, leaves12}}), (Groups{{0, 1}}));            // both leave leaf 1
  EXPECT_EQ(groups({{0, leaves01}, {1, pod1_leaves23}}), (Groups{{0}, {1}}));     // disjoint leaves
  // a on hosts 0 and 4 (leaves 0, 2), b on hosts 2 and 6 (leaves 1, 3): no common leaf, but
  // both leave pods 0 and 1, whose uplinks they share.
  std::vector<std::uint32_t> a = gpus(0, 4), b = gpus(8, 4);
  for (const std::uint32_t g : gpus(16, 4)) a.push_back(g);
  for (const std::uint32_t g : gpus(24, 4)) b.push_back(g);
  EXPECT_EQ(groups({{0, a}, {1, b}}), (Groups{{0, 1}}));
  EXPECT_EQ(groups({{0, leaves01}, {1, host3}, {2, pod1_leaves23}}), (Groups{{0}, {1}, {2}}));  // host 3 stays home
}

}  // namespace
}  // namespace loom::cluster
