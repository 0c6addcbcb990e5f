#include "loom/network/packet/fastforward/steady_detector.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "loom/core/error.h"

namespace loom::network::packet::fastforward {

std::uint32_t window_samples(const FastForwardParams& params, Time interval, const CcParams& cc) {
  if (params.window != 0) return params.window;
  switch (cc.kind) {
    case CcKind::kDcqcn: {
      const double periods = cc.dcqcn.increase_timer.seconds() / interval.seconds();
      return static_cast<std::uint32_t>(std::ceil(periods)) + 1;
    }
    case CcKind::kHpcc:
    case CcKind::kTimely:
    case CcKind::kDctcp:
      return 20;
    case CcKind::kNone:
      return 4;
  }
  return 20;
}

SteadyDetector::SteadyDetector(double threshold, std::uint32_t length, double resolution)
    : threshold_(threshold), resolution_(resolution), length_(length) {
  LOOM_ASSERT(length >= 2, "a rate window of fewer than 2 samples");
}

void SteadyDetector::reset(QpId qp) {
  if (qp >= windows_.size()) {
    windows_.resize(qp + 1);
    rates_.resize(windows_.size() * length_);
    marks_.resize(windows_.size() * kMarks);
  }
  windows_[qp] = Window{};
}

void SteadyDetector::sample(QpId qp, std::uint64_t received, Time now, std::uint32_t cuts) {
  Window& w = windows_[qp];
  const Time interval = now - w.last_time;
  const std::uint64_t gained = received - w.last_received;
  const bool cut = cuts != w.cuts;
  w.last_received = received;
  w.last_time = now;
  w.cuts = cuts;
  if (!w.primed || interval <= Time::zero()) {
    w.primed = true;
    return;
  }
  if (w.since_mark != std::numeric_limits<std::uint32_t>::max()) ++w.since_mark;
  if (cut && w.since_mark >= std::max(length_ / 2, kMinCycleSamples)) {
    marks_[std::size_t{qp} * kMarks + w.marks % kMarks] = {now, received};
    ++w.marks;
    w.since_mark = 0;
  }
  if (cut) {
    w.since_cut = 0;
  } else if (w.since_cut != std::numeric_limits<std::uint32_t>::max()) {
    ++w.since_cut;
  }
  rates_[std::size_t{qp} * length_ + w.next] = static_cast<double>(gained) * 8 / interval.seconds();
  w.next = (w.next + 1) % length_;
  w.count = std::min(w.count + 1, length_);
}

double SteadyDetector::mean_rate(QpId qp, std::uint32_t samples) const {
  const std::uint32_t n = span(samples);
  if (windows_[qp].count < n) return 0;
  double sum = 0;
  for (std::uint32_t k = 0; k < n; ++k) sum += newest(qp, k);
  return sum / n;
}

bool SteadyDetector::steady(QpId qp, std::uint32_t samples) const {
  const std::uint32_t n = span(samples);
  if (windows_[qp].count < n) return false;
  double low = newest(qp, 0);
  double high = low;
  for (std::uint32_t k = 1; k < n; ++k) {
    low = std::min(low, newest(qp, k));
    high = std::max(high, newest(qp, k));
  }
  const double mean = mean_rate(qp, n);
  // Too few packets per interval for the test to mean anything: the allowance of one packet
  // would be more than half the spread allowed.
  if (mean < 2 * resolution_ / threshold_) return false;
  if ((high - low - resolution_) >= threshold_ * mean) return false;
  // No trend: the window's older and newer halves agree within theta / 4 (one packet of
  // resolution per half allowed).
  const std::uint32_t half = n / 2;
  double older = 0;
  double newer = 0;
  for (std::uint32_t k = 0; k < half; ++k) {
    newer += newest(qp, k);
    older += newest(qp, n - 1 - k);
  }
  return std::abs(newer - older) / half < threshold_ / 4 * mean + resolution_ / half;
}

double SteadyDetector::cycle_rate(QpId qp) const {
  const Window& w = windows_[qp];
  if (w.marks < kMarks) return 0;
  double low = std::numeric_limits<double>::infinity();
  double high = 0;
  Time longest;
  for (std::uint32_t k = 0; k < kCycles; ++k) {
    const Mark& end = mark(qp, k);
    const Mark& start = mark(qp, k + 1);
    const double rate = static_cast<double>(end.received - start.received) * 8 / (end.time - start.time).seconds();
    low = std::min(low, rate);
    high = std::max(high, rate);
    longest = std::max(longest, end.time - start.time);
  }
  const Mark& first = mark(qp, kCycles);
  const Mark& last = mark(qp, 0);
  const Time span = last.time - first.time;
  const double mean = static_cast<double>(last.received - first.received) * 8 / span.seconds();
  // A cycle holds thousands of packets: whole-packet counting does not matter here.
  if (mean <= 0 || high - low >= threshold_ * mean) return 0;
  if ((w.last_time - last.time) * 2 > longest * 3) return 0;
  return mean;
}

}  // namespace loom::network::packet::fastforward
