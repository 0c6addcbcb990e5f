// FabricSkipper's part in memoized transients: the colours of the conflict graph and the
// congestion-control state a memo entry records and sets.
#include <bit>
#include <cmath>

#include "loom/network/packet/fastforward/conflict_graph.h"
#include "loom/network/packet/fastforward/fabric_skipper.h"

namespace loom::network::packet::fastforward {

using topology::LinkId;

namespace {

constexpr double kRateSteps = 32;  // CC rate classes per line rate
constexpr std::uint64_t kQueueStepMtus = 4;

}  // namespace

std::uint64_t FabricSkipper::qp_colour(QpId q) const {
  const Qp& qp = fabric_.qps_[q];
  std::uint64_t c = mix(0, std::bit_cast<std::uint64_t>(qp.cc.line_rate));
  c = mix(c, static_cast<std::uint64_t>(std::llround(qp.window)));
  c = mix(c, qp.weight);
  c = mix(c, qp.priority);
  c = mix(c, qp.snd_una == 0 ? 1 : 0);
  c = mix(c, static_cast<std::uint64_t>(std::lround(qp.cc.rate / qp.cc.line_rate * kRateSteps)));
  return mix(c, qp.cc.dcqcn_started ? 1 : 0);
}

std::uint64_t FabricSkipper::port_colour(LinkId link) const {
  const EgressPort& port = fabric_.ports_[link];
  std::uint64_t c = mix(0, port.bps);
  c = mix(c, static_cast<std::uint64_t>(port.delay.picoseconds()));
  c = mix(c, port.kmin);
  c = mix(c, port.kmax);
  c = mix(c, port.nic != kNoNic ? 1 : 0);
  c = mix(c, (port.forwarding_source ? 1 : 0) | (port.forwarding_target ? 2 : 0));
  c = mix(c, std::bit_cast<std::uint32_t>(port.error_rate));
  return mix(c, port.bytes / (kQueueStepMtus * fabric_.params_.nic.mtu));
}

CcSnapshot FabricSkipper::cc_snapshot(QpId q) const {
  const CcState& s = fabric_.qps_[q].cc;
  return {.rate = s.rate, .target = s.target, .alpha = s.alpha, .reference_rate = s.reference_rate, .u = s.u,
          .rtt_diff = s.rtt_diff, .prev_rtt_ps = s.prev_rtt.picoseconds(), .stage = s.stage,
          .inc_stage = s.inc_stage, .dcqcn_started = s.dcqcn_started};
}

void FabricSkipper::restore_cc(QpId q, const CcSnapshot& m, Time now) {
  Qp& qp = fabric_.qps_[q];
  CcState& s = qp.cc;
  if (!m.dcqcn_started && s.dcqcn_started) {
    fabric_.at_sender(q).cancel(qp.increase);
    fabric_.at_sender(q).cancel(qp.decrease);
    s.dcqcn_started = false;
    s.decrease_armed = false;
  } else if (m.dcqcn_started && !s.dcqcn_started) {
    s.dcqcn_started = true;
    s.alpha_tick = now;
    s.decrease_origin = now + Time::ns(1);
    s.cnp_seen = false;
    s.decrease_armed = false;
    fabric_.schedule_increase(q, now + fabric_.params_.cc.dcqcn.increase_timer);
  }
  s.rate = m.rate;
  s.target = m.target;
  s.alpha = m.alpha;
  s.reference_rate = m.reference_rate;
  s.u = m.u;
  s.rtt_diff = m.rtt_diff;
  s.prev_rtt = Time::ps(m.prev_rtt_ps);
  s.stage = m.stage;
  s.inc_stage = m.inc_stage;
}

}  // namespace loom::network::packet::fastforward
