// The cluster clock's duration syntax and the checkpoint arithmetic of one run, with the
// expected values worked out by hand in the comments.
#include <cstdlib>

#include <gtest/gtest.h>

#include "loom/cluster/checkpoint.h"
#include "loom/cluster/span.h"
#include "loom/core/error.h"

namespace loom::cluster {
namespace {

TEST(Span, ParsesUnitsUpToWeeks) {
  EXPECT_EQ(parse_span("90s"), Span::s(90));
  EXPECT_EQ(parse_span("30min"), Span::s(1800));
  EXPECT_EQ(parse_span("1.5h"), Span::s(5400));
  EXPECT_EQ(parse_span("2d"), Span::s(172800));
  EXPECT_EQ(parse_span("1w"), Span::s(604800));
  EXPECT_EQ(parse_span("250ms"), Span::ns(250'000'000));
  EXPECT_EQ(parse_span("0"), Span::zero());
  // 149 days, beyond loom::Time's ~106, is fine on the cluster clock.
  EXPECT_EQ(parse_span("149d").seconds(), 149 * 86400.0);
}

TEST(Span, RejectsBareNumbersAndUnknownUnits) {
  EXPECT_THROW(parse_span("90"), UserError);
  EXPECT_THROW(parse_span("3 fortnights"), UserError);
  EXPECT_THROW(parse_span("-1s"), UserError);
  EXPECT_THROW(parse_span("h"), UserError);
}

TEST(Span, SecondsTextIsExact) {
  EXPECT_EQ(seconds_text(Span::s(12)), "12");
  EXPECT_EQ(seconds_text(Span::ns(12'500'000'000)), "12.5");
  EXPECT_EQ(seconds_text(Span::ns(1)), "0.000000001");
}

// τ = 10 s, C = 2 s, restart R = 5 s.
const RunCosts kCosts{Span::s(5), Span::s(10), Span::s(2)};

TEST(Checkpoint, RunLengthCountsEveryCheckpointButTheLast) {
  // 35 s of work: checkpoints after 10, 20 and 30 s -> 5 + 35 + 3*2 = 46 s.
  EXPECT_EQ(run_length(kCosts, Span::s(35)), Span::s(46));
  // 30 s of work: checkpoints after 10 and 20 s only (none after the last piece) -> 5 + 30 + 4.
  EXPECT_EQ(run_length(kCosts, Span::s(30)), Span::s(39));
  EXPECT_EQ(run_length(RunCosts{}, Span::s(30)), Span::s(30));
}

TEST(Checkpoint, RollBackKeepsCompletedCyclesOnly) {
  // 30 s after start: 25 s past the restart = two full 12 s cycles (20 s kept) + 1 s of work lost.
  Rollback rb = roll_back(kCosts, Span::s(35), Span::s(30));
  EXPECT_EQ(rb.kept, Span::s(20));
  EXPECT_EQ(rb.lost, Span::s(1));
  EXPECT_EQ(rb.overhead, Span::s(9));  // 5 restart + 2 x 2 checkpoints
  // Cut 1 s into the second checkpoint write (5 + 12 + 10 + 1 s): the 10 s it was saving are lost.
  rb = roll_back(kCosts, Span::s(35), Span::s(28));
  EXPECT_EQ(rb.kept, Span::s(10));
  EXPECT_EQ(rb.lost, Span::s(10));
  EXPECT_EQ(rb.overhead, Span::s(8));
  // During the restart nothing is done.
  rb = roll_back(kCosts, Span::s(35), Span::s(3));
  EXPECT_EQ(rb.kept + rb.lost, Span::zero());
  // Without checkpoints everything done is lost.
  rb = roll_back(RunCosts{}, Span::s(35), Span::s(20));
  EXPECT_EQ(rb.kept, Span::zero());
  EXPECT_EQ(rb.lost, Span::s(20));
}


// The run clock at half speed (co-runners halve the job's work rate): R = 5 s and C = 2 s
// stay wall time, each τ = 10 s of work takes 20 s. Run-clock 5 + 12 + 3 = 20 (restart, one
// full cycle, 3 s into the next work) takes 5 + (20 + 2) + 6 = 33 s of wall time.
TEST(Checkpoint, WorkSlowsWithTheRateButRestartsAndWritesDoNot) {
  EXPECT_EQ(wall_between(kCosts, Span::zero(), Span::s(20), 0.5), Span::s(33));
  EXPECT_EQ(wall_between(kCosts, Span::s(3), Span::s(5), 0.5), Span::s(2));      // inside the restart
  EXPECT_EQ(wall_between(kCosts, Span::s(15), Span::s(17), 0.5), Span::s(2));    // inside a write
  EXPECT_EQ(wall_between(kCosts, Span::s(17), Span::s(20), 0.5), Span::s(6));    // 3 s of work
  EXPECT_EQ(advance(kCosts, Span::zero(), Span::s(33), 0.5), Span::s(20));
  EXPECT_EQ(advance(kCosts, Span::s(5), Span::s(21), 0.5), Span::s(16));  // 1 s into the write
  EXPECT_EQ(wall_between(kCosts, Span::s(7), Span::s(100), 1.0), Span::s(93));  // exact at rate 1
}

TEST(Checkpoint, AdvanceInvertsWallBetweenAtAnyRate) {
  for (const double rate : {0.37, 0.5, 0.999, 1.0, 1.7}) {
    for (const RunCosts& c : {kCosts, RunCosts{Span::zero(), Span::zero(), Span::zero()}, RunCosts{Span::s(1), Span::s(7), Span::zero()}}) {
      for (std::int64_t from = 0; from < 60; from += 7) {
        for (std::int64_t wall = 0; wall < 90; wall += 11) {
          const Span to = advance(c, Span::s(from), Span::s(wall), rate);
          EXPECT_GE(to, Span::s(from));
          EXPECT_LE(std::abs((wall_between(c, Span::s(from), to, rate) - Span::s(wall)).nanoseconds()), 2)
              << "rate " << rate << " from " << from << " wall " << wall;
        }
      }
    }
  }
}

}  // namespace
}  // namespace loom::cluster
