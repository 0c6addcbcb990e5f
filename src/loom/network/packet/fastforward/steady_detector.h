// Steady-state detection per queue pair from its sending rate (Wormhole section 5.1.2).
//
// Every sampling interval a QP's rate sample is the in-order bytes its receiver gained over
// the interval (goodput, bit/s): that is what its completion time follows, and unlike the
// congestion control's rate it also sees a QP limited by its window. With the last l samples
// R_1..R_l, the QP is steady when
//   mean > 0  and  (max_k R_k - min_k R_k) / mean < theta,   mean = sum_k R_k / l,
// and a skip credits it bytes at `mean`. A window fills again from empty after reset() (a
// QP starting, its partition changing, a skip).
// Resolution: a sample counts whole packets, so two samples of a perfectly steady QP differ
// by up to one packet per interval (`resolution`, bit/s: MTU x 8 / interval). That much of
// max - min is taken as measurement, not fluctuation: the test is
//   (max - min - resolution) / mean < theta.
// Without it a QP below about 2 / theta packets per interval (16 Gb/s at 1000 B and 10 us)
// could never be steady. In turn a QP is never steady below 2 / theta packets per interval
// (6.4 Gb/s at 1000 B, 50 us and theta 5%), where that allowance would be more than half the
// spread allowed (at a few packets per interval every window would pass: a 7-to-1 DCQCN
// incast cut to its minimum rate once did, and was skipped for 0.8 s at that rate). The mean
// itself is exact up to one packet over the whole window.
// Trend: a window may also not drift: the means of its older and newer halves must agree
// within theta / 4 of the mean (plus a packet per half). This goes beyond Wormhole: a slowly
// converging QP (HPCC's additive pull) passes the spread test but would be frozen mid-way.
//
// Cycles (rate-only DCQCN): a QP whose rate saw-tooths between rate cuts is judged over whole
// cycles instead: a cycle runs from the first sample after one cut to the first sample after
// a later one (`cuts` counts them, CcState::cuts), at least max(l / 2, 8) samples on (so that
// shorter cycles are taken several at a time, whole), and its rate is the in-order bytes
// gained over it / its length. The QP is cycle-steady when its last kCycles cycle rates
// agree within theta and the cycle now open is no longer than 1.5 x the longest of them (a
// longer one: the cuts stopped, the rate is climbing); a skip credits the bytes of those
// whole cycles / their time, which a window on a stretch of the sawtooth would not (it saw
// the flat top of a cycle, or the trough after a cut).
//
// Memory: l doubles and kCycles + 1 cycle marks per QP slot. steady() is O(l); sample() O(1).
#pragma once

#include <cstdint>
#include <limits>
#include <vector>

#include "loom/core/time.h"
#include "loom/network/packet/fastforward/fast_forward_params.h"
#include "loom/network/packet/packet_params.h"
#include "loom/network/packet/queue_pair.h"

namespace loom::network::packet::fastforward {

// l for a run sampling every `interval`: params.window when set, else from the congestion
// control's convergence time (README): DCQCN one rate-increase timer period plus one sample,
// so a window always holds an increase step; HPCC, TIMELY and DCTCP 20 samples; none 4.
std::uint32_t window_samples(const FastForwardParams& params, Time interval, const CcParams& cc);

class SteadyDetector {
 public:
  SteadyDetector(double threshold, std::uint32_t length, double resolution);

  std::uint32_t length() const { return length_; }
  // Empties qp's window. Its next sample only sets the baseline (so every rate in a window
  // covers a whole sampling interval).
  void reset(QpId qp);
  // Samples qp at `now`: `received` is its receiver's in-order bytes; adds the rate since the
  // previous sample. `cuts` (CcState::cuts) having moved since the previous sample closes a
  // cycle here.
  void sample(QpId qp, std::uint64_t received, Time now, std::uint32_t cuts = 0);
  // Over the last `samples` (<= length()) samples; 0 or more than length() means length().
  bool steady(QpId qp, std::uint32_t samples = 0) const;
  // Mean of those samples, bit/s (0 before there are that many).
  double mean_rate(QpId qp, std::uint32_t samples = 0) const;

  static constexpr std::uint32_t kCycles = 2;
  // A cycle spans at least max(l / 2, this many) samples: shorter ones are taken several at a
  // time (a sample of a fast sawtooth holds part of a cycle).
  static constexpr std::uint32_t kMinCycleSamples = 8;
  // Samples since the last one that saw a cut (UINT32_MAX when none since reset).
  std::uint32_t samples_since_cut(QpId qp) const { return windows_[qp].since_cut; }
  // Samples in qp's window since its last reset (capped at length()).
  std::uint32_t samples(QpId qp) const { return windows_[qp].count; }
  // Rate over the last kCycles whole cycles, bit/s, when qp is cycle-steady; else 0.
  double cycle_rate(QpId qp) const;

 private:
  struct Window {
    std::uint64_t last_received = 0;
    Time last_time;
    bool primed = false;      // a baseline sample was taken
    std::uint32_t count = 0;  // samples taken since reset, capped at length_
    std::uint32_t next = 0;   // ring position of the next sample
    std::uint32_t cuts = 0;   // CcState::cuts at the previous sample
    std::uint32_t marks = 0;  // cycle marks taken since reset
    std::uint32_t since_cut = std::numeric_limits<std::uint32_t>::max();
    std::uint32_t since_mark = std::numeric_limits<std::uint32_t>::max();
  };
  struct Mark {
    Time time;
    std::uint64_t received = 0;
  };
  static constexpr std::uint32_t kMarks = kCycles + 1;
  // The k-th newest cycle mark (k = 0: the newest).
  const Mark& mark(QpId qp, std::uint32_t k) const {
    return marks_[std::size_t{qp} * kMarks + (windows_[qp].marks - 1 - k) % kMarks];
  }
  const double* ring(QpId qp) const { return rates_.data() + std::size_t{qp} * length_; }
  // The k-th newest sample (k = 0: the newest).
  double newest(QpId qp, std::uint32_t k) const {
    return ring(qp)[(windows_[qp].next + length_ - 1 - k) % length_];
  }
  std::uint32_t span(std::uint32_t samples) const { return samples == 0 || samples > length_ ? length_ : samples; }

  double threshold_;
  double resolution_;
  std::uint32_t length_;
  std::vector<Window> windows_;  // by QP id
  std::vector<double> rates_;    // by QP id, length_ each
  std::vector<Mark> marks_;      // by QP id, kMarks each
};

}  // namespace loom::network::packet::fastforward
