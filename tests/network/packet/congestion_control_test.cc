#include "loom/network/packet/congestion_control.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

namespace loom::network::packet {
namespace {

constexpr double kLine = 100e9;

CcParams params(CcKind kind) {
  CcParams p;
  p.kind = kind;
  return p;
}

constexpr double kKeep = 255.0 / 256.0;  // 1 - g

// First CNP at t = 0 (as ns-3: alpha = 1, the first CNP itself not counted): the decrease runs
// at 4 us + 1 ns, after four quiet alpha ticks: alpha = (255/256)^4, rate = 100 (1 - alpha / 2)
// Gb/s; after the 900 us timer, fast recovery: (rate + 100) / 2; then additive increase:
// target stays at the 100 Gb/s ceiling, rate (rate + 100) / 2.
TEST(Dcqcn, DecreaseFastRecoveryAndAdditiveIncrease) {
  const CongestionControl cc(params(CcKind::kDcqcn), 1000);
  CcState s;
  cc.init(s, kLine, Time::us(10), 125'000);
  AckSignal ack;
  ack.ecn_echo = true;
  const Time decrease = cc.on_ack(s, ack, Time::zero(), {});
  EXPECT_EQ(decrease, Time::ns(4'001));
  const Time increase = cc.on_decrease(s, decrease);
  const double cut = kLine * (1 - std::pow(kKeep, 4) / 2);
  EXPECT_DOUBLE_EQ(s.rate, cut);
  EXPECT_EQ(increase, Time::ns(4'001) + Time::us(900));
  cc.on_increase(s, increase);
  EXPECT_DOUBLE_EQ(s.rate, (cut + kLine) / 2);
  cc.on_increase(s, increase + Time::us(900));
  EXPECT_DOUBLE_EQ(s.rate, ((cut + kLine) / 2 + kLine) / 2);
}

// After the first decrease (4.001 us, alpha = (1 - g)^4), a second CNP at 10.5 us finds six
// more quiet ticks: alpha = (1 - g)^10; its decrease lands on the 4 us grid started at 1 ns:
// 12.001 us, after two more ticks (11 us with the second CNP's mark, 12 us without).
TEST(Dcqcn, AlphaDecaysLazilyBetweenCnps) {
  const CongestionControl cc(params(CcKind::kDcqcn), 1000);
  CcState s;
  cc.init(s, kLine, Time::us(10), 125'000);
  AckSignal ack;
  ack.ecn_echo = true;
  cc.on_decrease(s, cc.on_ack(s, ack, Time::zero(), {}));
  const double first = s.rate;
  const Time next = cc.on_ack(s, ack, Time::ns(10'500), {});
  EXPECT_EQ(next, Time::ns(12'001));
  const double alpha = std::pow(kKeep, 10);
  EXPECT_DOUBLE_EQ(s.alpha, alpha);
  cc.on_decrease(s, next);
  const double alpha2 = (kKeep * alpha + 1.0 / 256) * kKeep;
  EXPECT_DOUBLE_EQ(s.alpha, alpha2);
  EXPECT_DOUBLE_EQ(s.rate, first * (1 - alpha2 / 2));
  // A CNP while a decrease is armed arms nothing new.
  EXPECT_EQ(cc.on_ack(s, ack, Time::ns(12'100), {}), Time(Time::ns(16'001)));
  EXPECT_EQ(cc.on_ack(s, ack, Time::ns(12'200), {}), Time::max());
}

// HPCC with one 100 Gb/s hop, T = 10 us: a window of samples spanning exactly T in which the
// hop sent at line rate with an empty queue gives U = 1, so u = 1 and the rate becomes
// R / (1 / 0.95) + 50 Mb/s = 95.05 Gb/s.
TEST(Hpcc, FullLinkWithoutQueueSettlesAtEta) {
  const CongestionControl cc(params(CcKind::kHpcc), 1000);
  CcState s;
  cc.init(s, kLine, Time::us(10), 125'000);
  const std::vector<double> link_bps = {kLine};
  IntHop hop{Time::us(1), 0, 0, 0};
  AckSignal ack;
  ack.ack_seq = 1000;
  ack.snd_nxt = 100'000;
  ack.telemetry = {&hop, 1};
  cc.on_ack(s, ack, Time::us(2), link_bps);
  EXPECT_DOUBLE_EQ(s.rate, kLine);  // the first ACK only stores the samples
  hop = IntHop{Time::us(11), 125'000, 0, 0};  // 125 KB in 10 us = 100 Gb/s
  ack.ack_seq = 100'001;
  ack.snd_nxt = 200'000;
  cc.on_ack(s, ack, Time::us(12), link_bps);
  EXPECT_NEAR(s.rate, kLine * 0.95 + 50e6, 1.0);
  EXPECT_NEAR(s.reference_rate, kLine * 0.95 + 50e6, 1.0);
}

// A queue of one BDP adds 1 to the utilisation: u = 2, rate = 100 / (2 / 0.95) + 0.05 Gb/s.
TEST(Hpcc, QueueCountsAsUtilisation) {
  const CongestionControl cc(params(CcKind::kHpcc), 1000);
  CcState s;
  cc.init(s, kLine, Time::us(10), 125'000);
  const std::vector<double> link_bps = {kLine};
  IntHop hop{Time::us(1), 0, 125'000, 0};
  AckSignal ack{1000, 100'000, false, Time::us(10), {&hop, 1}};
  cc.on_ack(s, ack, Time::us(2), link_bps);
  hop = IntHop{Time::us(11), 125'000, 125'000, 0};
  ack.ack_seq = 100'001;
  cc.on_ack(s, ack, Time::us(12), link_bps);
  EXPECT_NEAR(s.rate, kLine / (2 / 0.95) + 50e6, 1.0);
}

TEST(Timely, HighRttDecreasesAndLowRttIncreases) {
  const CongestionControl cc(params(CcKind::kTimely), 1000);
  CcState s;
  cc.init(s, kLine, Time::us(10), 125'000);
  AckSignal ack{1000, 2000, false, Time::us(30), {}};
  cc.on_ack(s, ack, Time::us(30), {});
  EXPECT_DOUBLE_EQ(s.rate, kLine);
  // rtt 1000 us > t_high: rate * (1 - 0.8 (1 - 500/1000)) = 60 Gb/s
  ack = AckSignal{3000, 4000, false, Time::us(1000), {}};
  cc.on_ack(s, ack, Time::us(1000), {});
  EXPECT_DOUBLE_EQ(s.rate, 60e9);
  // rtt 20 us < t_low: + 50 Mb/s
  ack = AckSignal{5000, 6000, false, Time::us(20), {}};
  cc.on_ack(s, ack, Time::us(1100), {});
  EXPECT_DOUBLE_EQ(s.rate, 60e9 + 50e6);
}

// DCTCP: alpha starts at 1, so the first echo halves the rate; echoes inside the reduction
// window do not cut again.
TEST(Dctcp, OneCutPerWindow) {
  const CongestionControl cc(params(CcKind::kDctcp), 1000);
  CcState s;
  cc.init(s, kLine, Time::us(10), 125'000);
  AckSignal ack{1000, 10'000, true, Time::us(10), {}};
  cc.on_ack(s, ack, Time::us(10), {});
  EXPECT_DOUBLE_EQ(s.rate, 50e9);
  ack.ack_seq = 2000;
  cc.on_ack(s, ack, Time::us(11), {});
  EXPECT_DOUBLE_EQ(s.rate, 50e9);
}

}  // namespace
}  // namespace loom::network::packet
