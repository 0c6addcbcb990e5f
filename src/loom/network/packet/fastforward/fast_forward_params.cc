#include "loom/network/packet/fastforward/fast_forward_params.h"

#include <cmath>

namespace loom::network::packet::fastforward {

Time sampling_interval(const FastForwardParams& params, double nic_bps) {
  if (params.interval > Time::zero()) return params.interval;
  if (nic_bps <= 0) return Time::us(50);  // no scale-out link: as at 100 Gb/s
  return Time::ps(std::llround(kSampleBits / nic_bps * 1e12));
}

void visit_fast_forward(FastForwardParams& p, ParamVisitor& v) {
  v.flag("enabled", p.enabled, "skip partitions whose queue pairs send at a steady rate (Wormhole)");
  v.real("threshold", p.threshold, RealRange{0, 1, true, true},
         "theta: a rate window is steady when (max - min - one packet) / mean is below this");
  v.count("window", p.window, 0, 1'000'000,
          "l: rate samples per window; 0 = from the congestion control's convergence time");
  v.derived_time("interval", p.interval, Time::zero(), Time::s(1), kIntervalFromLineRate,
                 "rate sampling period; 'from line rate' (or 0ps): the time the fastest NIC takes to send 625 KB (50 us at "
                 "100 Gb/s, 12.5 us at 400 Gb/s)");
  v.flag("twins", p.twins,
         "a partition that begins a transient in the same state at the same instant as an isomorphic one follows it "
         "instead of being simulated (needs memo)");
  v.flag("whole_life", p.whole_life,
         "memoize a partition's life up to its first completion when it ends before the partition is found steady, "
         "keyed by its flows' remaining sizes, and replay it to just before that completion (needs memo)");
  v.flag("memo", p.memo, "replay a partition's transient when an isomorphic one was simulated before (--memo DIR keeps them)");
}

}  // namespace loom::network::packet::fastforward
