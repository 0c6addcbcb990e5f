#include "loom/network/packet/congestion_control.h"

#include <algorithm>
#include <cmath>

namespace loom::network::packet {

namespace {
double bps(Bandwidth b) { return static_cast<double>(b.bps()); }
}  // namespace

CongestionControl::CongestionControl(const CcParams& params, Bytes mtu)
    : params_(params), mtu_(static_cast<double>(mtu)), min_rate_(bps(params.min_rate)),
      exact_telemetry_(params.hpcc.int_byte_unit == 1 && params.hpcc.int_queue_unit == 1 &&
                       params.hpcc.int_time_unit == Time::ps(1)) {}

double CongestionControl::clamp(const CcState& s, double rate) const {
  return std::clamp(rate, std::min(min_rate_, s.line_rate), s.line_rate);
}

void CongestionControl::init(CcState& s, double line_rate, Time base_rtt, double window_bytes) const {
  s = CcState{};
  s.rate = line_rate;
  s.line_rate = line_rate;
  s.target = line_rate;
  s.reference_rate = line_rate;
  s.u = 1;  // HPCC starts from a full link, so the first samples cannot multiply the rate up
  s.base_rtt = base_rtt;
  s.window_bytes = window_bytes;
}

Time CongestionControl::on_ack(CcState& s, const AckSignal& ack, Time now,
                               std::span<const double> link_bps) const {
  switch (params_.kind) {
    case CcKind::kNone:
      break;
    case CcKind::kDcqcn:
      if (ack.ecn_echo) return dcqcn_cnp(s, now);
      break;
    case CcKind::kHpcc:
      hpcc_ack(s, ack, link_bps);
      break;
    case CcKind::kTimely:
      timely_ack(s, ack);
      break;
    case CcKind::kDctcp:
      dctcp_ack(s, ack);
      break;
  }
  return Time::max();
}

void CongestionControl::advance_alpha(CcState& s, Time now) const {
  if (!s.dcqcn_started) return;
  const Time interval = params_.dcqcn.alpha_interval;
  const std::int64_t ticks = (now - s.alpha_tick).picoseconds() / interval.picoseconds();
  if (ticks <= 0) return;
  const double g = params_.dcqcn.g;
  s.alpha = (1 - g) * s.alpha + (s.cnp_seen ? g : 0.0);
  if (ticks > 1) s.alpha *= std::pow(1 - g, static_cast<double>(ticks - 1));
  s.alpha_tick += interval * ticks;
  s.cnp_seen = false;
}

Time CongestionControl::dcqcn_cnp(CcState& s, Time now) const {
  if (!s.dcqcn_started) {
    s.dcqcn_started = true;
    s.alpha = 1;
    s.alpha_tick = now;
    s.decrease_origin = now + Time::ns(1);
    s.cnp_seen = false;
    s.decrease_armed = true;
    return s.decrease_origin + params_.dcqcn.decrease_interval;
  }
  advance_alpha(s, now);
  s.cnp_seen = true;
  if (s.decrease_armed) return Time::max();
  s.decrease_armed = true;
  const std::int64_t period = params_.dcqcn.decrease_interval.picoseconds();
  const std::int64_t since = (now - s.decrease_origin).picoseconds();
  const std::int64_t ticks = (since + period - 1) / period;
  return s.decrease_origin + Time::ps(ticks * period);
}

Time CongestionControl::on_decrease(CcState& s, Time now) const {
  advance_alpha(s, now);
  if (s.stage != 0 || s.cuts == 0) ++s.cuts;
  if (params_.dcqcn.clamp_target_rate || s.stage != 0) s.target = s.rate;
  s.rate = clamp(s, s.rate * (1 - s.alpha / 2));
  s.stage = 0;
  s.decrease_armed = false;
  return now + params_.dcqcn.increase_timer;
}

Time CongestionControl::on_increase(CcState& s, Time now) const {
  const DcqcnParams& p = params_.dcqcn;
  if (s.stage >= p.fast_recovery_stages) {
    const Bandwidth step = s.stage == p.fast_recovery_stages ? p.rate_ai : p.rate_hai;
    s.target = std::min(s.line_rate, s.target + bps(step));
  }
  s.rate = clamp(s, (s.rate + s.target) / 2);
  ++s.stage;
  return now + p.increase_timer;
}

void CongestionControl::hpcc_ack(CcState& s, const AckSignal& ack,
                                 std::span<const double> link_bps) const {
  const HpccParams& p = params_.hpcc;
  const auto hops = static_cast<std::uint32_t>(ack.telemetry.size());
  const bool exact = exact_telemetry_;
  const auto read = [&p, exact](const IntHop& h) {
    if (exact) return HopSample{h.time, h.tx_bytes, h.queue_bytes};
    const std::int64_t t = p.int_time_unit.picoseconds();
    return HopSample{Time::ps(h.time.picoseconds() / t * t), h.tx_bytes / p.int_byte_unit * p.int_byte_unit,
                     h.queue_bytes / p.int_queue_unit * p.int_queue_unit};
  };
  if (s.last_update_seq == 0) {
    s.last_update_seq = ack.snd_nxt;
    s.hops = hops;
    for (std::uint32_t i = 0; i < hops; ++i) s.hop[i] = read(ack.telemetry[i]);
    return;
  }
  const bool new_rtt = ack.ack_seq > s.last_update_seq;
  if (!new_rtt && !p.fast_react) return;
  const double t_ps = static_cast<double>(s.base_rtt.picoseconds());
  double max_u = 0;
  double dt = 0;
  bool sampled = false;
  for (std::uint32_t i = 0; i < hops && i < s.hops; ++i) {
    const HopSample h = read(ack.telemetry[i]);
    const HopSample& prev = s.hop[i];
    const double tau = static_cast<double>((h.time - prev.time).picoseconds());
    if (tau > 0) {
      const double line = link_bps[ack.telemetry[i].link];
      const double tx_rate = static_cast<double>(h.tx_bytes - prev.tx_bytes) * 8e12 / tau;
      const double queue = static_cast<double>(std::min(h.queue_bytes, prev.queue_bytes));
      const double u = tx_rate / line + queue * s.line_rate / line / s.window_bytes;
      if (u > max_u) {
        max_u = u;
        dt = tau;
      }
      sampled = true;
    }
    s.hop[i] = h;
  }
  s.hops = hops;
  if (sampled) {
    dt = std::min(dt, t_ps);
    s.u = (s.u * (t_ps - dt) + max_u * dt) / t_ps;
    const double ratio = s.u / p.eta;
    double rate;
    std::uint32_t stage;
    if (ratio >= 1 || s.inc_stage >= p.max_stage) {
      rate = s.reference_rate / ratio + bps(p.rate_ai);
      stage = 0;
    } else {
      rate = s.reference_rate + bps(p.rate_ai);
      stage = s.inc_stage + 1;
    }
    rate = clamp(s, rate);
    s.rate = rate;
    if (new_rtt) {
      s.reference_rate = rate;
      s.inc_stage = stage;
    }
  }
  if (new_rtt) s.last_update_seq = ack.snd_nxt;
}

void CongestionControl::timely_ack(CcState& s, const AckSignal& ack) const {
  const TimelyParams& p = params_.timely;
  if (ack.ack_seq <= s.last_update_seq) return;
  if (s.last_update_seq != 0) {
    const double rtt = static_cast<double>(ack.rtt.picoseconds());
    const double fresh = static_cast<double>((ack.rtt - s.prev_rtt).picoseconds());
    s.rtt_diff = (1 - p.alpha) * s.rtt_diff + p.alpha * fresh;
    const double gradient = s.rtt_diff / static_cast<double>(p.min_rtt.picoseconds());
    bool increase = false;
    double factor = 1;
    if (ack.rtt < p.t_low) {
      increase = true;
    } else if (ack.rtt > p.t_high) {
      factor = 1 - p.beta * (1 - static_cast<double>(p.t_high.picoseconds()) / rtt);
    } else if (gradient <= 0) {
      increase = true;
    } else {
      factor = std::max(0.0, 1 - p.beta * gradient);
    }
    if (increase) {
      s.rate = clamp(s, s.rate + bps(s.inc_stage < 5 ? p.rate_ai : p.rate_hai));
      ++s.inc_stage;
    } else {
      s.rate = clamp(s, s.rate * factor);
      s.inc_stage = 0;
    }
  }
  s.last_update_seq = ack.snd_nxt;
  s.prev_rtt = ack.rtt;
}

void CongestionControl::dctcp_ack(CcState& s, const AckSignal& ack) const {
  const DctcpParams& p = params_.dctcp;
  bool new_window = false;
  if (ack.ecn_echo) ++s.ecn_count;
  if (ack.ack_seq > s.last_update_seq) {
    new_window = true;
    if (s.last_update_seq != 0) {
      const double fraction =
          std::min(1.0, static_cast<double>(s.ecn_count) / static_cast<double>(s.batch));
      s.alpha = (1 - p.g) * s.alpha + p.g * fraction;
    }
    s.batch = static_cast<std::uint64_t>(static_cast<double>(ack.snd_nxt - ack.ack_seq) / mtu_) + 1;
    s.last_update_seq = ack.snd_nxt;
    s.ecn_count = 0;
  }
  if (s.reducing && ack.ack_seq > s.high_seq) s.reducing = false;
  if (ack.ecn_echo && !s.reducing) {
    s.reducing = true;
    s.high_seq = ack.snd_nxt;
    s.rate = clamp(s, s.rate * (1 - s.alpha / 2));
  }
  if (!s.reducing && new_window) s.rate = clamp(s, s.rate + bps(p.rate_ai));
}

}  // namespace loom::network::packet
