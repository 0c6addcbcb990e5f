#include "loom/network/packet/fastforward/fast_forward_params.h"

namespace loom::network::packet::fastforward {

void visit_fast_forward(FastForwardParams& p, ParamVisitor& v) {
  v.flag("enabled", p.enabled, "skip partitions whose queue pairs send at a steady rate (Wormhole)");
  v.real("threshold", p.threshold, RealRange{0, 1, true, true},
         "theta: a rate window is steady when (max - min - one packet) / mean is below this");
  v.count("window", p.window, 0, 1'000'000,
          "l: rate samples per window; 0 = from the congestion control's convergence time");
  v.time("interval", p.interval, Time::ns(100), Time::s(1), "rate sampling period");
  v.flag("memo", p.memo, "replay a partition's transient when an isomorphic one was simulated before (--memo DIR keeps them)");
}

}  // namespace loom::network::packet::fastforward
