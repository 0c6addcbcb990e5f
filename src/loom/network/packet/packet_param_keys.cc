// network.packet keys: the one description of the packet backend's parameters that the
// experiment reader, `loom list` and the parameter tests all use.
#include <algorithm>
#include <array>
#include <limits>
#include <string>

#include "loom/network/packet/packet_params.h"

namespace loom::network::packet {

namespace {

constexpr Bytes kMaxBuffer = Bytes{1} << 40;
constexpr std::uint32_t kMaxCount = std::numeric_limits<std::uint32_t>::max();
const Time kMaxTime = Time::s(1000);
constexpr RealRange kUnit{0, 1};              // [0, 1]
constexpr RealRange kPositiveUnit{0, 1, true};  // (0, 1]

template <class Enum, std::size_t N>
void enum_choice(ParamVisitor& v, std::string_view key, Enum& value, const std::array<Enum, N>& all,
                 std::string_view doc) {
  std::array<std::string_view, N> names;
  std::transform(all.begin(), all.end(), names.begin(), [](Enum e) { return to_string(e); });
  std::string text(to_string(value));
  v.choice(key, text, names, doc);
  value = *std::find_if(all.begin(), all.end(), [&](Enum e) { return to_string(e) == text; });
}

void visit_dcqcn(DcqcnParams& p, ParamVisitor& v) {
  v.real("g", p.g, kPositiveUnit, "alpha EWMA gain (EWMA_GAIN)");
  v.time("alpha_interval", p.alpha_interval, Time::ps(1), kMaxTime, "alpha update period (ALPHA_RESUME_INTERVAL)");
  v.time("decrease_interval", p.decrease_interval, Time::ps(1), kMaxTime,
         "rate-decrease check period after a CNP (RATE_DECREASE_INTERVAL)");
  v.time("increase_timer", p.increase_timer, Time::ps(1), kMaxTime, "rate-increase timer period (RP_TIMER)");
  v.count("fast_recovery_stages", p.fast_recovery_stages, 0, 1000,
          "timer periods of fast recovery before additive increase (FAST_RECOVERY_TIMES)");
  v.bandwidth("rate_ai", p.rate_ai, true, "additive increase (RATE_AI)");
  v.bandwidth("rate_hai", p.rate_hai, true, "hyper-additive increase (RATE_HAI)");
  v.flag("clamp_target_rate", p.clamp_target_rate, "set target = rate on every decrease (CLAMP_TARGET_RATE)");
}

void visit_hpcc(HpccParams& p, ParamVisitor& v) {
  v.real("eta", p.eta, kPositiveUnit, "target utilisation (U_TARGET)");
  v.count("max_stage", p.max_stage, 0, 1000, "additive-increase stages before a forced decrease (MI_THRESH)");
  v.bandwidth("rate_ai", p.rate_ai, true, "additive increase as a rate (RATE_AI)");
  v.flag("fast_react", p.fast_react, "react per ACK, update the reference once per RTT (FAST_REACT)");
  v.count("int_byte_unit", p.int_byte_unit, 1, 1 << 20, "telemetry byte-counter resolution, bytes (128 x INT_MULTI)");
  v.count("int_queue_unit", p.int_queue_unit, 1, 1 << 20, "telemetry queue resolution, bytes (80 x INT_MULTI)");
  v.time("int_time_unit", p.int_time_unit, Time::ps(1), Time::us(1), "telemetry time resolution (ns-3: 1ns)");
}

void visit_timely(TimelyParams& p, ParamVisitor& v) {
  v.real("alpha", p.alpha, kPositiveUnit, "EWMA weight of the newest RTT difference");
  v.real("beta", p.beta, kPositiveUnit, "multiplicative-decrease factor");
  v.time("t_low", p.t_low, Time::zero(), kMaxTime, "below this RTT: additive increase");
  v.time("t_high", p.t_high, Time::zero(), kMaxTime, "above this RTT: decrease by beta (1 - t_high / rtt)");
  v.time("min_rtt", p.min_rtt, Time::ps(1), kMaxTime, "normalises the RTT gradient");
  v.bandwidth("rate_ai", p.rate_ai, true, "additive increase");
  v.bandwidth("rate_hai", p.rate_hai, true, "increase after 5 increase steps");
}

void visit_dctcp(DctcpParams& p, ParamVisitor& v) {
  v.real("g", p.g, kPositiveUnit, "alpha EWMA gain per window");
  v.bandwidth("rate_ai", p.rate_ai, true, "increase per window (DCTCP_RATE_AI)");
}

void visit_ecn_setting(EcnSetting& e, ParamVisitor& v) {
  v.bandwidth("speed", e.speed, false, "ports of exactly this speed");
  v.size("kmin", e.kmin, 0, kMaxBuffer, "queue bytes where marking starts (KMIN_MAP)");
  v.size("kmax", e.kmax, 0, kMaxBuffer, "queue bytes where marking reaches pmax (KMAX_MAP)");
  v.real("pmax", e.pmax, kUnit, "marking probability at kmax (PMAX_MAP)");
}

void visit_tier_buffer(TierBuffer& t, ParamVisitor& v) {
  v.count("tier", t.tier, 0, 255, "fabric switch tier: 0 leaf/ToR, 1 spine, 2 core");
  v.size("buffer", t.bytes, 1, kMaxBuffer, "shared buffer of each switch of that tier");
}

void visit_switch(PacketParams& p, ParamVisitor& v) {
  SwitchParams& sw = p.sw;
  v.size("buffer", sw.buffer_bytes, 1, kMaxBuffer, "shared buffer per switch (BUFFER_SIZE)");
  VectorRecords tiers(sw.tier_buffers, visit_tier_buffer);
  v.records("tier_buffers", "per fabric switch tier, its own shared buffer (others keep `buffer`)", tiers);
  v.flag("pfc", sw.pfc, "lossless: pause upstream instead of dropping");
  v.flag("ecn", sw.ecn, "RED/ECN marking at switch egress");
  v.size("egress_limit", sw.egress_limit, 0, kMaxBuffer, "lossy mode: drop beyond this many bytes per queue; 0 = none");
  v.group("pfc_thresholds", "PFC: when an ingress queue pauses its upstream", [&] {
    v.flag("dynamic", sw.dynamic_threshold, "threshold = free shared buffer >> shift (USE_DYNAMIC_PFC_THRESHOLD)");
    v.size("static", sw.static_threshold, 0, kMaxBuffer, "with dynamic off: shared bytes per ingress queue");
    v.count("alpha_shift", sw.alpha_shift, 0, 16, "dynamic threshold shift at NIC speed (3: alpha = 1/8)");
    v.real("headroom_bdps", sw.headroom_bdps, RealRange{0, 1000}, "headroom per ingress port in link BDPs");
    v.size("reserve", sw.reserve_bytes, 0, kMaxBuffer, "reserved bytes per ingress queue");
    v.size("resume_offset", sw.resume_offset, 0, kMaxBuffer, "resume when shared use + offset <= threshold");
    v.size("pause_frame", sw.pause_frame_bytes, 1, 4096, "PFC frame size on the wire");
  });
  v.group("ecn_thresholds", "RED marking thresholds (a speed in per_speed overrides the per-Gb/s rule)", [&] {
    v.size("kmin_per_gbps", sw.kmin_per_gbps, 0, kMaxBuffer, "kmin = this x link Gb/s");
    v.size("kmax_per_gbps", sw.kmax_per_gbps, 1, kMaxBuffer, "kmax = this x link Gb/s (more than kmin)");
    v.real("pmax", sw.pmax, kUnit, "marking probability at kmax");
    VectorRecords speeds(sw.ecn_table, visit_ecn_setting);
    v.records("per_speed", "thresholds for ports of one exact speed", speeds);
  });
  v.group("classes", "priority queues of switch egress ports", [&] {
    v.count("queues", sw.queues, 2, kMaxQueues, "priority queues per port; class 0 is control");
    v.count("data", p.data_priority, 1, sw.queues - 1, "class of data packets");
    enum_choice(v, "scheduler", sw.scheduler, std::array{QueueScheduler::kStrict, QueueScheduler::kWrr},
                "between data classes: strict (lowest class first) or wrr");
    std::vector<std::uint32_t> weights(sw.class_weights.begin() + 1, sw.class_weights.begin() + sw.queues);
    v.counts("weights", weights, 1, 1024, sw.queues - 1, "WRR packets per turn of classes 1, 2, ...");
    std::copy(weights.begin(), weights.end(), sw.class_weights.begin() + 1);
  });
}

}  // namespace

void visit_parameters(PacketParams& p, ParamVisitor& v) {
  NicParams& nic = p.nic;
  CcParams& cc = p.cc;
  enum_choice(v, "cc", cc.kind,
              std::array{CcKind::kNone, CcKind::kDcqcn, CcKind::kHpcc, CcKind::kTimely, CcKind::kDctcp},
              "congestion control of every queue pair");
  v.bandwidth("min_rate", cc.min_rate, false, "rate floor of every congestion control (MIN_RATE)");
  v.group("dcqcn", "DCQCN parameters", [&] { visit_dcqcn(cc.dcqcn, v); });
  v.group("hpcc", "HPCC parameters", [&] { visit_hpcc(cc.hpcc, v); });
  v.group("timely", "TIMELY parameters", [&] { visit_timely(cc.timely, v); });
  v.group("dctcp", "DCTCP parameters", [&] { visit_dctcp(cc.dctcp, v); });
  v.size("mtu", nic.mtu, 1, 65536, "payload bytes per data packet (PACKET_PAYLOAD_SIZE)");
  v.size("header_bytes", nic.header_bytes, 0, 4096, "header bytes per data packet on the wire, without INT");
  v.size("int_header_bytes", nic.int_header_bytes, 0, 4096, "INT bytes per data packet and ACK under HPCC");
  v.size("ack_bytes", nic.ack_bytes, 1, 4096, "ACK/NACK bytes on the wire");
  v.count("queue_pairs", nic.queue_pairs, 1, 1024, "queue pairs per transfer, each its own ECMP hash");
  v.count("ack_interval", nic.ack_interval, 1, 1'000'000, "data packets per ACK (the last is always ACKed)");
  // Unset, the window follows the congestion control read above (window_by_default); the value
  // in force is what the reader records, so the effective configuration shows it.
  bool window = p.window_on();
  v.flag("window", window,
         "cap in-flight bytes at the pair's BDP (HAS_WIN); default per cc (shown: dcqcn's), as HPCC's run.py: off for dcqcn "
         "and timely, on for hpcc, dctcp and none (profile: simai: on, as SimAI.conf)");
  nic.window = window;
  bool variable_window = p.variable_window_on();
  v.flag("variable_window", variable_window,
         "scale the window by rate / line rate (VAR_WIN); default per cc, as window");
  nic.variable_window = variable_window;
  v.flag("ack_high_priority", nic.ack_high_priority, "ACK/NACK in the control class 0 (ACK_HIGH_PRIO)");
  v.time("nack_interval", nic.nack_interval, Time::ps(1), kMaxTime, "a receiver repeats a NACK at most this often");
  v.flag("selective_repeat", nic.selective_repeat, "IRN-like: keep out-of-order data, resend only holes");
  v.time("retransmit_timeout", nic.retransmit_timeout, Time::ps(1), kMaxTime,
         "go back to the oldest unACKed byte after this silence");
  v.bandwidth("nic_rate", p.nic_rate_hint, true, "NIC speed the PFC alpha_shift refers to; 0 = slowest endpoint link");
  visit_switch(p, v);
  v.real("link_error_rate", p.link_error_rate, RealRange{0, 1, false, true},
         "random loss per packet per link, recovered by retransmission (ERROR_RATE_PER_LINK)");
  v.flag("scale_up_flow", p.scale_up_flow, "GPU-to-GPU transfers inside a host at flow level (NVLink has no ECN/CNP), as SimAI and Arcadia; false: RoCEv2 packets");
  v.flag("packet_spraying", p.packet_spraying, "per-packet ECMP over up to 8 equal-cost paths");
  v.time("lp_delay_threshold", p.lp_delay_threshold, Time::zero(), kMaxTime,
         "windowed execution over logical processes of the nodes that cables shorter than this join "
         "(parallel/README.md; same outputs); 0 = one serial event queue");
  v.flag("lp_racks", p.lp_racks,
         "with lp_delay_threshold: an LP cabled to one other LP only joins it (a host its ToR), so racks are LPs");
  v.count("lp_groups", p.lp_groups, 0, 1 << 20,
          "with lp_delay_threshold: the LPs merged into this many, placed by node count (fewer event queues, each "
          "thread running a few large LPs; same outputs); 0 = every LP kept");
  v.count("threads", p.threads, 1, 1024, "threads running the windows of a windowed run (lp_delay_threshold > 0; same outputs)");
  v.group("fast_forward", "skip steady partitions (fastforward/README.md)",
          [&] { fastforward::visit_fast_forward(p.fast_forward, v); });
  MonitorOptions& m = p.monitor;
  v.group("monitor", "sampled monitors, each a packet_*.csv file", [&] {
    v.time("interval", m.interval, Time::ps(1), kMaxTime, "sampling period");
    v.flag("queues", m.queues, "queue bytes per port");
    v.flag("throughput", m.throughput, "bits per second sent per port");
    v.flag("qp_rates", m.qp_rates, "congestion-control rate of every running queue pair");
    v.flag("cnps", m.cnps, "CNPs received per queue pair and interval");
    v.flag("pfc", m.pfc, "every PAUSE / RESUME taking effect at a port");
    v.flag("drops", m.drops, "packets dropped per port and interval");
    std::uint32_t rows = static_cast<std::uint32_t>(std::min<std::uint64_t>(m.max_rows, kMaxCount));
    v.count("max_rows", rows, 1, kMaxCount, "rows kept per file");
    m.max_rows = rows;
  });
}

Bytes SwitchParams::buffer_for(const topology::Node& node) const {
  if (node.kind == topology::NodeKind::kSwitch) {
    for (const TierBuffer& t : tier_buffers) {
      if (t.tier == node.tier) return t.bytes;
    }
  }
  return buffer_bytes;
}

}  // namespace loom::network::packet
