#include "loom/hpcc/hpcc_config.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "loom/core/error.h"

namespace loom::hpcc {

namespace {

using network::packet::CcKind;
using network::packet::EcnSetting;
using network::packet::PacketParams;

constexpr std::array<std::string_view, 20> kIgnored = {
    "TRACE_FILE",    "TRACE_OUTPUT_FILE", "ENABLE_TRACE",    "QLEN_MON_FILE",  "QLEN_MON_START", "QLEN_MON_END",
    "BW_MON_FILE",   "RATE_MON_FILE",     "CNP_MON_FILE",    "MON_START",      "MON_END",        "QP_MON_INTERVAL",
    "QLEN_MON_INTERVAL", "BW_MON_INTERVAL", "PINT_LOG_BASE", "PINT_PROB",      "L2_CHUNK_SIZE",  "L2_BACK_TO_ZERO",
    "PAUSE_TIME",    "LINK_DELAY"};
// Keys of a whole run that an experiment's profile has no use for.
constexpr std::array<std::string_view, 6> kRunOnly = {"TOPOLOGY_FILE",   "FLOW_FILE",           "FCT_OUTPUT_FILE",
                                                      "PFC_OUTPUT_FILE", "SIMULATOR_STOP_TIME", "GLOBAL_T"};

// SimAI.conf's network settings (its file and monitor keys left out).
constexpr std::string_view kSimaiDefaults = R"(ENABLE_QCN 1
USE_DYNAMIC_PFC_THRESHOLD 1
PACKET_PAYLOAD_SIZE 9000
CC_MODE 1
ALPHA_RESUME_INTERVAL 1
RATE_DECREASE_INTERVAL 4
CLAMP_TARGET_RATE 0
RP_TIMER 900
EWMA_GAIN 0.00390625
FAST_RECOVERY_TIMES 1
RATE_AI 50Mb/s
RATE_HAI 100Mb/s
MIN_RATE 100Mb/s
DCTCP_RATE_AI 1000Mb/s
ERROR_RATE_PER_LINK 0.0000
L2_ACK_INTERVAL 1
HAS_WIN 1
VAR_WIN 1
FAST_REACT 1
U_TARGET 0.95
MI_THRESH 0
INT_MULTI 1
MULTI_RATE 0
SAMPLE_FEEDBACK 0
RATE_BOUND 1
ACK_HIGH_PRIO 0
KMAX_MAP 6 25000000000 400 50000000000 800 100000000000 1600 200000000000 1200 400000000000 3200 1600000000000 2400
KMIN_MAP 6 25000000000 100 50000000000 200 100000000000 400 200000000000 300 400000000000 800 1600000000000 600
PMAX_MAP 6 25000000000 0.2 50000000000 0.2 100000000000 0.2 200000000000 0.8 400000000000 0.2 1600000000000 0.2
BUFFER_SIZE 32
)";

// One line's key and values, with its location for messages.
class Line {
 public:
  Line(const std::string& name, int number, std::string key, std::vector<std::string> values)
      : where_{name, number, 0}, key_(std::move(key)), values_(std::move(values)) {}

  const std::string& key() const { return key_; }
  [[noreturn]] void fail(std::string_view expected) const {
    std::string given;
    for (const std::string& v : values_) given += " " + v;
    throw UserError(where_, fmt::format("{}{}: expected {}", key_, given, expected));
  }
  const std::string& text(std::size_t i = 0) const {
    if (i >= values_.size()) fail(fmt::format("at least {} value(s)", i + 1));
    return values_[i];
  }
  std::size_t count() const { return values_.size(); }
  double number(std::size_t i = 0) const {
    const std::string& s = text(i);
    double value = 0;
    const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
    if (ec != std::errc() || end != s.data() + s.size()) fail("a number");
    return value;
  }
  std::uint64_t whole(std::size_t i = 0) const {
    const std::string& s = text(i);
    std::uint64_t value = 0;
    const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
    if (ec != std::errc() || end != s.data() + s.size()) fail("a whole number");
    return value;
  }
  // A whole number that fits 32 bits (ns-3 reads these into uint32_t).
  std::uint32_t u32() const {
    const std::uint64_t v = whole();
    if (v > 0xffffffffu) fail("a whole number below 2^32");
    return static_cast<std::uint32_t>(v);
  }
  // A number in [0, limit] (finite), for values that become integers after scaling.
  double bounded(std::size_t i, double limit, std::string_view expected) const {
    const double v = number(i);
    if (!(v >= 0 && v <= limit)) fail(expected);
    return v;
  }
  bool flag() const {
    const std::uint64_t v = whole();
    if (v > 1) fail("0 or 1");
    return v == 1;
  }
  Bandwidth rate() const {
    try {
      return parse_bandwidth(text());
    } catch (const UserError&) {
      fail("a rate such as 50Mb/s or 100Gbps");
    }
  }
  Time microseconds() const {
    const double us = number();
    if (!(us > 0 && us <= 1e9)) fail("a positive number of microseconds, at most 1e9");
    return Time::ps(static_cast<std::int64_t>(us * 1e6 + 0.5));
  }
  // "n k1 v1 ... kn vn" (KMIN_MAP and friends).
  std::vector<std::pair<std::uint64_t, double>> rate_map() const {
    const std::uint64_t n = whole(0);
    if (n > count() || count() != 1 + 2 * n) fail(fmt::format("{} pairs of <rate in bit/s> <value>", n));
    std::vector<std::pair<std::uint64_t, double>> map;
    for (std::uint64_t i = 0; i < n; ++i) {
      map.emplace_back(whole(1 + 2 * i), bounded(2 + 2 * i, 1e9, "values in [0, 1e9]"));
    }
    return map;
  }

 private:
  SourceLocation where_;
  std::string key_;
  std::vector<std::string> values_;
};

EcnSetting& ecn_entry(PacketParams& p, std::uint64_t bps) {
  const Bandwidth speed = Bandwidth::bits_per_second(bps);
  for (EcnSetting& e : p.sw.ecn_table) {
    if (e.speed == speed) return e;
  }
  p.sw.ecn_table.push_back(EcnSetting{speed, 0, 0, 0});
  return p.sw.ecn_table.back();
}

void apply(HpccConfig& c, const Line& line, ConfigUse use) {
  PacketParams& p = c.params;
  const std::string& k = line.key();
  const bool run_only = std::find(kRunOnly.begin(), kRunOnly.end(), k) != kRunOnly.end();
  if (std::find(kIgnored.begin(), kIgnored.end(), k) != kIgnored.end() || (run_only && use == ConfigUse::kProfile)) {
    c.ignored_keys.push_back(k);
  } else if (k == "ENABLE_QCN") {
    p.sw.ecn = line.flag();
  } else if (k == "USE_DYNAMIC_PFC_THRESHOLD") {
    if (!line.flag()) line.fail("1 (Loom models the dynamic PFC threshold of HPCC's ns-3)");
  } else if (k == "PACKET_PAYLOAD_SIZE") {
    p.nic.mtu = line.whole();
  } else if (k == "TOPOLOGY_FILE") {
    c.topology_file = line.text();
  } else if (k == "FLOW_FILE") {
    c.flow_file = line.text();
  } else if (k == "FCT_OUTPUT_FILE") {
    c.fct_output_file = line.text();
  } else if (k == "PFC_OUTPUT_FILE") {
    c.pfc_output_file = line.text();
  } else if (k == "SIMULATOR_STOP_TIME") {
    const double s = line.number();
    if (!(s > 0 && s <= 1e6)) line.fail("a positive number of seconds, at most 1e6");
    c.stop_time = Time::ps(static_cast<std::int64_t>(s * 1e12 + 0.5));
  } else if (k == "INT_MULTI") {
    const std::uint64_t multi = line.whole();
    if (multi < 1 || multi > 1024) line.fail("a multiplier of INT units, 1..1024");
    p.cc.hpcc.int_byte_unit = static_cast<std::uint32_t>(128 * multi);
    p.cc.hpcc.int_queue_unit = static_cast<std::uint32_t>(80 * multi);
  } else if (k == "CC_MODE") {
    const std::uint64_t mode = line.whole();
    switch (mode) {
      case 1: p.cc.kind = CcKind::kDcqcn; break;
      case 3: p.cc.kind = CcKind::kHpcc; break;
      case 7: p.cc.kind = CcKind::kTimely; break;
      case 8: p.cc.kind = CcKind::kDctcp; break;
      default: line.fail("1 (DCQCN), 3 (HPCC), 7 (TIMELY) or 8 (DCTCP); 10 (HPCC-PINT) is not modelled");
    }
    c.cc_mode = static_cast<int>(mode);
  } else if (k == "ALPHA_RESUME_INTERVAL") {
    p.cc.dcqcn.alpha_interval = line.microseconds();
  } else if (k == "RATE_DECREASE_INTERVAL") {
    p.cc.dcqcn.decrease_interval = line.microseconds();
  } else if (k == "CLAMP_TARGET_RATE") {
    p.cc.dcqcn.clamp_target_rate = line.flag();
  } else if (k == "RP_TIMER") {
    p.cc.dcqcn.increase_timer = line.microseconds();
  } else if (k == "EWMA_GAIN") {
    p.cc.dcqcn.g = line.number();
    p.cc.dctcp.g = p.cc.dcqcn.g;
  } else if (k == "FAST_RECOVERY_TIMES") {
    p.cc.dcqcn.fast_recovery_stages = line.u32();
  } else if (k == "RATE_AI") {
    p.cc.dcqcn.rate_ai = p.cc.hpcc.rate_ai = p.cc.timely.rate_ai = line.rate();
  } else if (k == "RATE_HAI") {
    p.cc.dcqcn.rate_hai = p.cc.timely.rate_hai = line.rate();
  } else if (k == "MIN_RATE") {
    p.cc.min_rate = line.rate();
  } else if (k == "DCTCP_RATE_AI") {
    p.cc.dctcp.rate_ai = line.rate();
  } else if (k == "ERROR_RATE_PER_LINK") {
    c.error_rate = line.number();
    if (!(c.error_rate >= 0 && c.error_rate < 1)) line.fail("a probability in [0, 1)");
    p.link_error_rate = c.error_rate;
  } else if (k == "L2_ACK_INTERVAL") {
    p.nic.ack_interval = std::max<std::uint32_t>(1, line.u32());
  } else if (k == "HAS_WIN") {
    p.nic.window = line.flag();
  } else if (k == "GLOBAL_T") {
    c.global_t = line.flag();
  } else if (k == "VAR_WIN") {
    p.nic.variable_window = line.flag();
  } else if (k == "FAST_REACT") {
    p.cc.hpcc.fast_react = line.flag();
  } else if (k == "U_TARGET") {
    p.cc.hpcc.eta = line.number();
  } else if (k == "MI_THRESH") {
    p.cc.hpcc.max_stage = line.u32();
  } else if (k == "MULTI_RATE" || k == "SAMPLE_FEEDBACK") {
    if (line.flag()) line.fail("0 (Loom models HPCC with one rate and INT on every packet)");
  } else if (k == "RATE_BOUND") {
    if (!line.flag()) line.fail("1 (Loom always paces queue pairs at their rate)");
  } else if (k == "ACK_HIGH_PRIO") {
    p.nic.ack_high_priority = line.flag();
  } else if (k == "LINK_DOWN") {
    if (line.count() != 3 || line.whole(0) != 0 || line.whole(1) != 0 || line.whole(2) != 0) {
      line.fail("0 0 0 (link failures are not modelled by `loom hpcc`)");
    }
  } else if (k == "KMAX_MAP" || k == "KMIN_MAP") {
    for (const auto& [bps, kb] : line.rate_map()) {
      EcnSetting& e = ecn_entry(p, bps);
      (k == "KMAX_MAP" ? e.kmax : e.kmin) = static_cast<Bytes>(kb * 1000);
    }
  } else if (k == "PMAX_MAP") {
    for (const auto& [bps, pmax] : line.rate_map()) ecn_entry(p, bps).pmax = pmax;
  } else if (k == "BUFFER_SIZE") {
    p.sw.buffer_bytes = static_cast<Bytes>(line.bounded(0, 1e6, "a size in MB, at most 1e6") * 1024 * 1024);
  } else {
    line.fail("a key of HPCC's config.txt (see loom/hpcc/hpcc_config.h)");
  }
}

// ns-3's packets on the wire (RdmaHw): a data packet is payload + PPP 2 + IPv4 20 + UDP 8 +
// sequence/priority 6 + the INT header of the mode (HPCC 42, TIMELY's timestamp 8, else 0); an
// ACK/NACK is PPP 2 + IPv4 20 + the 12-byte ACK header + INT, padded so that the part after
// PPP and IPv4 is at least 60 - 14 - 20 = 26 bytes.
void set_wire_sizes(PacketParams& p) {
  constexpr Bytes kFrame = 2 + 20;
  constexpr Bytes kAckHeader = 12;
  constexpr Bytes kAckMinimum = 60 - 14 - 20;
  p.nic.header_bytes = kFrame + 8 + 6 + (p.cc.kind == CcKind::kTimely ? 8 : 0);
  p.nic.int_header_bytes = kHpccIntBytes;
  const Bytes int_bytes = p.cc.kind == CcKind::kHpcc ? kHpccIntBytes : 0;
  // The fabric adds int_header_bytes to ack_bytes under HPCC.
  p.nic.ack_bytes = kFrame + std::max(kAckMinimum, kAckHeader + int_bytes) - int_bytes;
}

}  // namespace

HpccConfig parse_hpcc_config(std::string_view text, const std::string& name, ConfigUse use) {
  HpccConfig config;
  config.params.cc.hpcc.int_byte_unit = 128;  // INT_MULTI 1
  config.params.cc.hpcc.int_queue_unit = 80;
  // A file without HAS_WIN / VAR_WIN runs as ns-3's third.cc defaults them (1 and 0), whatever
  // its CC_MODE: the file is explicit, not Loom's per-cc default.
  config.params.nic.window = true;
  config.params.nic.variable_window = false;
  std::istringstream in{std::string(text)};
  std::string raw;
  int number = 0;
  while (std::getline(in, raw)) {
    ++number;
    std::istringstream words(raw);
    std::string key;
    if (!(words >> key)) continue;
    std::vector<std::string> values;
    for (std::string w; words >> w;) values.push_back(w);
    apply(config, Line(name, number, key, std::move(values)), use);
  }
  set_wire_sizes(config.params);
  config.params.cc.hpcc.int_time_unit = Time::ns(1);
  if (use == ConfigUse::kRun && (config.topology_file.empty() || config.flow_file.empty())) {
    throw UserError(SourceLocation{name, 0, 0}, "missing TOPOLOGY_FILE or FLOW_FILE: expected both keys");
  }
  try {
    check_packet_params(config.params);
  } catch (const UserError& e) {
    throw UserError(SourceLocation{name, 0, 0}, e.message());
  }
  return config;
}

HpccConfig read_hpcc_config(const std::string& path, ConfigUse use) {
  std::ifstream in(path);
  if (!in) throw UserError(fmt::format("cannot read HPCC config '{}': expected a readable file", path));
  std::ostringstream text;
  text << in.rdbuf();
  return parse_hpcc_config(text.str(), path, use);
}

std::string_view simai_default_config() { return kSimaiDefaults; }

}  // namespace loom::hpcc
