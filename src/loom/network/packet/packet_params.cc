#include "loom/network/packet/packet_params.h"

#include <array>
#include <string>

#include <fmt/format.h>

#include "loom/core/error.h"

namespace loom::network::packet {

namespace {

constexpr std::array<std::pair<CcKind, std::string_view>, 5> kCcNames = {{
    {CcKind::kNone, "none"},
    {CcKind::kDcqcn, "dcqcn"},
    {CcKind::kHpcc, "hpcc"},
    {CcKind::kTimely, "timely"},
    {CcKind::kDctcp, "dctcp"},
}};

constexpr std::array<std::pair<QueueScheduler, std::string_view>, 2> kSchedulerNames = {{
    {QueueScheduler::kStrict, "strict"},
    {QueueScheduler::kWrr, "wrr"},
}};

[[noreturn]] void fail(std::string_view field, const std::string& value, std::string_view expected) {
  throw UserError(fmt::format("packet backend: {} = {}: expected {}", field, value, expected));
}

void check_fraction(std::string_view field, double value, bool zero_allowed) {
  if (!(value <= 1.0) || (zero_allowed ? value < 0.0 : value <= 0.0)) {
    fail(field, fmt::format("{}", value), zero_allowed ? "a value in [0, 1]" : "a value in (0, 1]");
  }
}

void check_positive(std::string_view field, Time value) {
  if (value <= Time::zero()) fail(field, to_string(value), "a positive time");
}

}  // namespace

std::string_view to_string(CcKind kind) {
  for (const auto& [k, name] : kCcNames) {
    if (k == kind) return name;
  }
  LOOM_ASSERT(false, "unknown CcKind");
  return {};
}

bool window_by_default(CcKind kind) { return kind != CcKind::kDcqcn && kind != CcKind::kTimely; }

CcKind parse_cc_kind(std::string_view text) {
  for (const auto& [k, name] : kCcNames) {
    if (name == text) return k;
  }
  throw UserError(fmt::format("packet backend: congestion control '{}': expected one of none, "
                              "dcqcn, hpcc, timely, dctcp", text));
}

std::string_view to_string(QueueScheduler scheduler) {
  for (const auto& [k, name] : kSchedulerNames) {
    if (k == scheduler) return name;
  }
  LOOM_ASSERT(false, "unknown QueueScheduler");
  return {};
}

QueueScheduler parse_queue_scheduler(std::string_view text) {
  for (const auto& [k, name] : kSchedulerNames) {
    if (name == text) return k;
  }
  throw UserError(fmt::format("packet backend: switch.scheduler '{}': expected strict or wrr", text));
}

void check_packet_params(const PacketParams& params) {
  const NicParams& nic = params.nic;
  if (nic.mtu < 1 || nic.mtu > 65536) fail("nic.mtu", std::to_string(nic.mtu), "1..65536 bytes");
  if (nic.header_bytes > 4096) {
    fail("nic.header_bytes", std::to_string(nic.header_bytes), "at most 4096 bytes");
  }
  if (nic.int_header_bytes > 4096) {
    fail("nic.int_header_bytes", std::to_string(nic.int_header_bytes), "at most 4096 bytes");
  }
  if (nic.ack_bytes < 1 || nic.ack_bytes > 4096) {
    fail("nic.ack_bytes", std::to_string(nic.ack_bytes), "1..4096 bytes");
  }
  if (nic.ack_interval < 1) fail("nic.ack_interval", "0", "at least 1 packet per ACK");
  if (nic.queue_pairs < 1 || nic.queue_pairs > 1024) {
    fail("nic.queue_pairs", std::to_string(nic.queue_pairs), "1..1024");
  }
  check_positive("nic.nack_interval", nic.nack_interval);
  check_positive("nic.retransmit_timeout", nic.retransmit_timeout);

  const SwitchParams& sw = params.sw;
  if (sw.buffer_bytes < 1) fail("switch.buffer_bytes", "0", "a positive size");
  if (sw.alpha_shift > 16) fail("switch.alpha_shift", std::to_string(sw.alpha_shift), "0..16");
  if (!(sw.headroom_bdps >= 0) || sw.headroom_bdps > 1000) {
    fail("switch.headroom_bdps", fmt::format("{}", sw.headroom_bdps), "0..1000 link BDPs");
  }
  if (!sw.dynamic_threshold && sw.pfc && sw.static_threshold == 0) {
    fail("switch.static_threshold", "0", "a positive size when dynamic_threshold is off");
  }
  if (sw.kmax_per_gbps <= sw.kmin_per_gbps) {
    fail("switch.kmax_per_gbps", std::to_string(sw.kmax_per_gbps),
         fmt::format("more than kmin_per_gbps ({})", sw.kmin_per_gbps));
  }
  check_fraction("switch.pmax", sw.pmax, true);
  for (const EcnSetting& e : sw.ecn_table) {
    if (e.kmax <= e.kmin) {
      fail("switch.ecn_table kmax", fmt::format("{} at {}", e.kmax, e.speed),
           fmt::format("more than kmin ({})", e.kmin));
    }
    check_fraction("switch.ecn_table pmax", e.pmax, true);
  }
  if (sw.queues < 2 || sw.queues > kMaxQueues) {
    fail("switch.queues", std::to_string(sw.queues), fmt::format("2..{} (class 0 is control)", kMaxQueues));
  }
  for (std::uint32_t c = 1; c < sw.queues; ++c) {
    if (sw.class_weights[c] < 1 || sw.class_weights[c] > 1024) {
      fail(fmt::format("switch.class_weights[{}]", c), std::to_string(sw.class_weights[c]), "1..1024 packets per turn");
    }
  }
  if (params.data_priority < 1 || params.data_priority >= sw.queues) {
    fail("data_priority", std::to_string(params.data_priority),
         fmt::format("1..{} (0 is the control class; switch.queues = {})", sw.queues - 1, sw.queues));
  }

  if (!(params.link_error_rate >= 0 && params.link_error_rate < 1)) {
    fail("link_error_rate", fmt::format("{}", params.link_error_rate), "a probability in [0, 1)");
  }
  const CcParams& cc = params.cc;
  if (cc.min_rate.is_zero()) fail("cc.min_rate", "0bps", "a positive rate");
  check_fraction("cc.dcqcn.g", cc.dcqcn.g, false);
  check_positive("cc.dcqcn.alpha_interval", cc.dcqcn.alpha_interval);
  check_positive("cc.dcqcn.decrease_interval", cc.dcqcn.decrease_interval);
  check_positive("cc.dcqcn.increase_timer", cc.dcqcn.increase_timer);
  check_fraction("cc.hpcc.eta", cc.hpcc.eta, false);
  if (cc.hpcc.int_byte_unit < 1) fail("cc.hpcc.int_byte_unit", "0", "at least 1 byte");
  if (cc.hpcc.int_queue_unit < 1) fail("cc.hpcc.int_queue_unit", "0", "at least 1 byte");
  if (cc.hpcc.int_time_unit <= Time::zero()) {
    fail("cc.hpcc.int_time_unit", to_string(cc.hpcc.int_time_unit), "a positive time");
  }
  check_fraction("cc.timely.alpha", cc.timely.alpha, false);
  check_fraction("cc.timely.beta", cc.timely.beta, false);
  check_positive("cc.timely.min_rtt", cc.timely.min_rtt);
  if (cc.timely.t_high <= cc.timely.t_low) {
    fail("cc.timely.t_high", to_string(cc.timely.t_high),
         fmt::format("more than t_low ({})", cc.timely.t_low));
  }
  check_fraction("cc.dctcp.g", cc.dctcp.g, false);
  check_positive("monitor.interval", params.monitor.interval);
  if (params.lp_delay_threshold < Time::zero()) {
    fail("lp_delay_threshold", to_string(params.lp_delay_threshold), "a delay >= 0 (0: serial)");
  }
  if (params.threads > 1 && params.lp_delay_threshold == Time::zero()) {
    fail("threads", std::to_string(params.threads),
         "1 without lp_delay_threshold: threads run the windows of logical processes, and a serial run has none");
  }
  if (params.lp_racks && params.lp_delay_threshold == Time::zero()) {
    fail("lp_racks", "true", "false without lp_delay_threshold: racks join the LPs the threshold makes");
  }
  if (params.lp_groups > 0 && params.lp_delay_threshold == Time::zero()) {
    fail("lp_groups", std::to_string(params.lp_groups), "0 without lp_delay_threshold: groups merge the LPs the threshold makes");
  }
  if (params.lp_groups == 1) fail("lp_groups", "1", "0 (every LP kept) or at least 2: one group leaves nothing to run in windows");
  if (params.fast_forward.twins && !params.fast_forward.memo) {
    fail("fast_forward.twins", "true", "false with fast_forward.memo off: a twin follows a transient the memo records");
  }
  if (params.fast_forward.twins && params.lp_delay_threshold > Time::zero()) {
    fail("fast_forward.twins", "true",
         fmt::format("false with lp_delay_threshold > 0 (here {}): a twin's copy reads and rewrites the serial "
                     "simulator's event queue, which the windowed executor splits over its logical processes",
                     to_string(params.lp_delay_threshold)));
  }
  if (params.fast_forward.whole_life && !params.fast_forward.memo) {
    fail("fast_forward.whole_life", "true", "false with fast_forward.memo off: whole lives are memo entries");
  }
  if (params.monitor.max_rows < 1) fail("monitor.max_rows", "0", "at least 1 row per file");
}

}  // namespace loom::network::packet
