// The steady detector's cycles (rate-only DCQCN's sawtooth): the rate over whole cycles between
// cuts is the bytes over them / their time, where a window on the flat top of a cycle is
// biased; cycles that disagree, or a cycle that runs on far longer than the last ones (the
// cuts stopped), are not steady.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>

#include "loom/network/packet/fastforward/steady_detector.h"

namespace loom::network::packet::fastforward {
namespace {

constexpr double kThreshold = 0.05;
constexpr std::uint32_t kWindow = 19;
const Time kInterval = Time::us(50);

// Feeds QP 0 one sample per step; cycle() is one sawtooth cycle of `samples` samples: the
// first `trough` at `low` bit/s (just after the cut), the rest at `high`, a cut at its start.
struct Feeder {
  SteadyDetector detector{kThreshold, kWindow, 1000.0 * 8 / kInterval.seconds()};
  std::uint64_t received = 0;
  std::uint32_t cuts = 0;
  Time now;

  Feeder() {
    detector.reset(0);
    detector.sample(0, received, now, cuts);  // the baseline
  }
  void step(double rate, bool cut) {
    now += kInterval;
    received += static_cast<std::uint64_t>(std::llround(rate * kInterval.seconds() / 8));
    if (cut) ++cuts;
    detector.sample(0, received, now, cuts);
  }
  void cycle(std::uint32_t samples, std::uint32_t trough, double low, double high) {
    for (std::uint32_t i = 0; i < samples; ++i) step(i < trough ? low : high, i == 0);
  }
};

TEST(SteadyDetectorCycles, RateOverWholeCyclesIsTheirBytesOverTheirTime) {
  Feeder f;
  f.cycle(72, 8, 10e9, 12e9);
  f.cycle(72, 8, 10e9, 12e9);
  EXPECT_EQ(f.detector.cycle_rate(0), 0) << "one whole cycle only";
  f.cycle(72, 8, 10e9, 12e9);  // its cut closed the second
  const double whole = (8 * 10e9 + 64 * 12e9) / 72;
  EXPECT_NEAR(f.detector.cycle_rate(0), whole, whole * 1e-9);
  // At the end of a cycle its flat top passes the window test, at a rate 1.9% too high.
  EXPECT_TRUE(f.detector.steady(0, kWindow));
  EXPECT_NEAR(f.detector.mean_rate(0, kWindow), 12e9, 1e6);
}

TEST(SteadyDetectorCycles, CyclesThatDisagreeOrAnOpenCycleTooLongAreNotSteady) {
  Feeder f;
  f.cycle(72, 8, 10e9, 12e9);
  f.cycle(72, 8, 10e9, 12e9);
  f.cycle(72, 40, 6e9, 12e9);  // a deep trough: 8.7 against 11.8 Gb/s
  EXPECT_GT(f.detector.cycle_rate(0), 0) << "the deep cycle is still open";
  f.cycle(72, 8, 10e9, 12e9);
  EXPECT_EQ(f.detector.cycle_rate(0), 0);
  f.cycle(72, 8, 10e9, 12e9);
  EXPECT_EQ(f.detector.cycle_rate(0), 0) << "the deep cycle is still one of the last two";
  f.cycle(72, 8, 10e9, 12e9);
  EXPECT_GT(f.detector.cycle_rate(0), 0);
  EXPECT_EQ(f.detector.samples_since_cut(0), 71u);
  // No cut for more than 1.5 cycles: the rate is climbing, not saw-toothing.
  for (int i = 0; i < 40; ++i) f.step(12e9, false);
  EXPECT_EQ(f.detector.cycle_rate(0), 0);
  EXPECT_EQ(f.detector.samples_since_cut(0), 111u);
  f.detector.reset(0);
  EXPECT_EQ(f.detector.samples_since_cut(0), UINT32_MAX);
}

}  // namespace
}  // namespace loom::network::packet::fastforward
