// Closed-form timings of the ring and direct algorithms with one channel and one chunk (the
// first version's schedules, unchanged), on the harness of timing_harness.h.
#include <algorithm>
#include <cstdint>
#include <vector>

#include <gtest/gtest.h>

#include "loom/collective/collective.h"
#include "timing_harness.h"

namespace loom::collective {
namespace {

using harness::run_timed;
using harness::Timing;

constexpr std::uint64_t kAlphaPs = 1'000'000;  // 1 us
constexpr std::uint64_t kPsPerByte = 10;        // 800 Gb/s
constexpr Bytes kBlock = 4096;                  // S / n

const std::uint32_t kSizes[] = {2, 3, 4, 5, 7, 8, 13, 16, 31, 64, 100};

// The closed forms: steps * (alpha + S/(nB)), with every member finishing at the end.
void expect_steps(Algorithm algorithm, CollectiveOp op, std::uint32_t window,
                  std::uint64_t (*steps)(std::uint32_t n, std::uint32_t window)) {
  for (const std::uint32_t n : kSizes) {
    const CollectiveSpec spec{.op = op, .members = n, .size = kBlock * n, .window = window};
    const Timing timing = run_timed(algorithm, spec, kAlphaPs, kPsPerByte);
    const std::uint64_t step_ps = kAlphaPs + kBlock * kPsPerByte;
    EXPECT_EQ(timing.end_ps, steps(n, window) * step_ps)
        << to_string(algorithm) << " " << to_string(op) << " n=" << n << " window=" << window;
    for (std::uint32_t m = 0; m < n; ++m) {
      EXPECT_EQ(timing.member_end_ps[m], timing.end_ps) << "member " << m << " n=" << n;
    }
  }
}

std::uint64_t one_pass(std::uint32_t n, std::uint32_t) { return n - 1; }
std::uint64_t two_passes(std::uint32_t n, std::uint32_t) { return 2 * (n - 1); }
std::uint64_t windowed_pass(std::uint32_t n, std::uint32_t w) { return (n - 1 + w - 1) / w; }
std::uint64_t two_windowed_passes(std::uint32_t n, std::uint32_t w) { return 2 * windowed_pass(n, w); }

TEST(Timing, RingAllReduceTakesTwoNMinusOneSteps) {
  expect_steps(Algorithm::kRing, CollectiveOp::kAllReduce, 1, two_passes);
}

TEST(Timing, RingGatherScatterAndAllToAllTakeNMinusOneSteps) {
  expect_steps(Algorithm::kRing, CollectiveOp::kAllGather, 1, one_pass);
  expect_steps(Algorithm::kRing, CollectiveOp::kReduceScatter, 1, one_pass);
  expect_steps(Algorithm::kRing, CollectiveOp::kAllToAll, 1, one_pass);
}

TEST(Timing, DirectWithWindowOneTakesNMinusOneStepsPerPhase) {
  expect_steps(Algorithm::kDirect, CollectiveOp::kAllGather, 1, one_pass);
  expect_steps(Algorithm::kDirect, CollectiveOp::kReduceScatter, 1, one_pass);
  expect_steps(Algorithm::kDirect, CollectiveOp::kAllToAll, 1, one_pass);
  expect_steps(Algorithm::kDirect, CollectiveOp::kAllReduce, 1, two_passes);
}

TEST(Timing, DirectWindowSendsThatManyPeersAtOnce) {
  for (const std::uint32_t window : {2u, 3u, 8u, 1000u}) {
    expect_steps(Algorithm::kDirect, CollectiveOp::kAllGather, window, windowed_pass);
    expect_steps(Algorithm::kDirect, CollectiveOp::kReduceScatter, window, windowed_pass);
    expect_steps(Algorithm::kDirect, CollectiveOp::kAllToAll, window, windowed_pass);
    expect_steps(Algorithm::kDirect, CollectiveOp::kAllReduce, window, two_windowed_passes);
  }
  // n = 6, window 2: 5 peers in batches of 2, 2, 1 -> 3 steps; all-reduce 6.
  EXPECT_EQ(windowed_pass(6, 2), 3u);
  EXPECT_EQ(two_windowed_passes(6, 2), 6u);
}

TEST(Timing, RingAllToAllMembersAdvanceAtTheirOwnPace) {
  // Member i's transfers take (i+1) ps: each member's step s follows its own step s-1, so its
  // step s arrives at (s+1)(i+1) ps whatever the others do.
  constexpr std::uint32_t n = 6;
  const Timing timing = run_timed(Algorithm::kRing, {.op = CollectiveOp::kAllToAll, .members = n, .size = 600},
                                  [](const Transfer& t) { return std::uint64_t{t.src} + 1; });
  ASSERT_EQ(timing.arrivals.size(), n * (n - 1));
  for (const auto& [t, at] : timing.arrivals) {
    const std::uint32_t step = (t.dst + n - t.src) % n - 1;
    EXPECT_EQ(t.step, step);
    EXPECT_EQ(at, (step + 1) * (t.src + 1)) << t.src << " -> " << t.dst;
  }
}

TEST(Timing, RingStepWaitsForItsReceiveAndItsOwnPreviousSend) {
  // Member i's transfers take (i+1) ps. Member i's step s starts once step s-1 of member i-1 has
  // arrived (the block it forwards) and its own step s-1 has arrived (one connection), so
  //   A(i, 0) = i+1,   A(i, s) = max(A(i-1, s-1), A(i, s-1)) + i+1.
  constexpr std::uint32_t n = 5;
  const Timing timing = run_timed(Algorithm::kRing, {.op = CollectiveOp::kAllGather, .members = n, .size = 500},
                                  [](const Transfer& t) { return std::uint64_t{t.src} + 1; });
  ASSERT_EQ(timing.arrivals.size(), n * (n - 1));
  std::uint64_t expected[n][n - 1];
  for (std::uint32_t s = 0; s < n - 1; ++s) {
    for (std::uint32_t i = 0; i < n; ++i) {
      const std::uint64_t ready = s == 0 ? 0 : std::max(expected[(i + n - 1) % n][s - 1], expected[i][s - 1]);
      expected[i][s] = ready + i + 1;
    }
  }
  for (const auto& [t, at] : timing.arrivals) {
    EXPECT_EQ(t.src, (t.block + t.step) % n);
    EXPECT_EQ(at, expected[t.src][t.step]) << "member " << t.src << " step " << t.step;
  }
}

TEST(Timing, RingIsPacedByItsSlowestLink) {
  // n = 4 all-gather, member 0's link takes 10 ps, the others 1 ps: member 0 sends its three
  // steps back to back, so the ring ends at 3 x 10 ps, not at 10 + 2 x 1 ps.
  const Timing timing = run_timed(Algorithm::kRing, {.op = CollectiveOp::kAllGather, .members = 4, .size = 400},
                                  [](const Transfer& t) { return t.src == 0 ? std::uint64_t{10} : std::uint64_t{1}; });
  EXPECT_EQ(timing.end_ps, 30u);
}

TEST(Timing, InFlightStaysLinearInMembers) {
  // A ring never has more than n transfers in flight; direct at most n * window.
  const Timing ring = run_timed(Algorithm::kRing, {.op = CollectiveOp::kAllReduce, .members = 512, .size = 1 << 20},
                                kAlphaPs, kPsPerByte);
  EXPECT_EQ(ring.max_in_flight, 512u);
  EXPECT_EQ(ring.transfers, 2u * 511 * 512);
  const Timing direct = run_timed(Algorithm::kDirect,
                                  {.op = CollectiveOp::kAllToAll, .members = 512, .size = 1 << 20, .window = 2},
                                  kAlphaPs, kPsPerByte);
  EXPECT_EQ(direct.max_in_flight, 1024u);
  EXPECT_EQ(direct.transfers, 511u * 512);
}

TEST(Timing, UnevenBlocksAreBoundByTheLargest) {
  // n = 4, S = 10: blocks of 3, 3, 2, 2 bytes; alpha 0, 1 ps per byte. With the recurrence of
  // RingStepWaitsForItsReceiveAndItsOwnPreviousSend (durations = block bytes) the last arrival
  // is member 2's and member 3's step 2, at 9 ps.
  const Timing timing = run_timed(Algorithm::kRing, {.op = CollectiveOp::kAllGather, .members = 4, .size = 10}, 0, 1);
  EXPECT_EQ(timing.end_ps, 9u);  // three steps of at most 3 bytes
  EXPECT_EQ(timing.transfers, 12u);
}

}  // namespace
}  // namespace loom::collective
