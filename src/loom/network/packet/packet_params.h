// Parameters of the packet-level RoCEv2 backend: units, defaults and one-line meanings.
//
// Defaults follow the published algorithms as configured by the HPCC simulator and SimAI
// (HPCC's mix/config.txt, SimAI.conf): DCQCN g = 1/256, RP timer 900 us, rate-decrease
// interval 4 us, alpha interval 1 us, AI 50 Mb/s, HAI 100 Mb/s, one fast-recovery stage;
// HPCC eta = 0.95, maxStage = 0; ECN RED with kmin/kmax per link speed (K = 1000 bytes):
// 100/400 KB at 25G scaled linearly with speed, pmax 0.2; PFC headroom 3 x link BDP, 4 KiB
// reserve and 3 KiB resume offset per ingress queue, dynamic threshold alpha = 1/8 at the
// NIC speed, doubling per doubling of port speed; 32 MiB shared buffer per switch.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "loom/core/param_visitor.h"
#include "loom/core/time.h"
#include "loom/core/units.h"
#include "loom/network/packet/fastforward/fast_forward_params.h"
#include "loom/topology/topology.h"

namespace loom::network::packet {

// Priority queues (traffic classes) an egress port can have; class 0 is the control class.
inline constexpr std::uint32_t kMaxQueues = 8;

// How a switch egress port chooses among its data classes (1..queues-1). The control class 0
// (ACK/NACK with the CNP echo when nic.ack_high_priority is on) is always served first, as in
// ns-3/SimAI; PFC frames travel out of band, ahead of every queue.
enum class QueueScheduler : std::uint8_t {
  kStrict,  // the lowest-numbered ready class first (1 before 2 ...)
  kWrr,     // weighted round robin: a class's turn lasts up to its weight in packets
};
// "strict", "wrr".
std::string_view to_string(QueueScheduler scheduler);
// Inverse of to_string; throws UserError naming the text and the accepted names.
QueueScheduler parse_queue_scheduler(std::string_view text);

// Congestion control of every queue pair.
enum class CcKind : std::uint8_t {
  kNone,    // line-rate senders (window only, if any)
  kDcqcn,   // ECN -> CNP, multiplicative decrease with alpha EWMA, timer-driven increase
  kHpcc,    // INT per hop, utilisation target eta, additive increase stages
  kTimely,  // RTT gradient
  kDctcp,   // ECN fraction per window, rate-based
};
// "none", "dcqcn", "hpcc", "timely", "dctcp".
std::string_view to_string(CcKind kind);
// Whether a congestion control runs with the NIC window (HAS_WIN and VAR_WIN) when the
// experiment does not say: as HPCC's ns-3 run.py configures each one (dcqcn and timely rate-only,
// hpcc and dctcp with the window); none keeps the window (Loom's: a line-rate sender without one
// fills every buffer). SimAI.conf runs DCQCN with the window: `profile: simai` sets it.
bool window_by_default(CcKind kind);
// Inverse of to_string; throws UserError naming the text and the accepted names.
CcKind parse_cc_kind(std::string_view text);

struct DcqcnParams {
  double g = 1.0 / 256;                          // alpha EWMA gain, (0, 1]
  Time alpha_interval = Time::us(1);             // alpha update period
  Time decrease_interval = Time::us(4);          // rate-decrease check period after a CNP
  Time increase_timer = Time::us(900);           // rate-increase (RP) timer period
  std::uint32_t fast_recovery_stages = 1;        // timer periods of fast recovery before AI
  Bandwidth rate_ai = Bandwidth::bits_per_second(50'000'000);    // additive increase
  Bandwidth rate_hai = Bandwidth::bits_per_second(100'000'000);  // hyper-additive increase
  bool clamp_target_rate = false;                // always set target = rate on a decrease
};

struct HpccParams {
  double eta = 0.95;                    // target utilisation, (0, 1]
  std::uint32_t max_stage = 0;          // additive-increase stages before a forced MD
  Bandwidth rate_ai = Bandwidth::bits_per_second(50'000'000);  // W_AI as a rate
  bool fast_react = true;               // react per ACK, update the reference once per RTT
  // Telemetry resolution as the sender reads it (ns-3 encodes bytes sent in units of 128 x
  // INT_MULTI, queue bytes in units of 80 x INT_MULTI and time in whole ns); 1 = exact.
  std::uint32_t int_byte_unit = 1;      // bytes, >= 1
  std::uint32_t int_queue_unit = 1;     // bytes, >= 1
  Time int_time_unit = Time::ps(1);     // > 0
};

struct TimelyParams {
  double alpha = 0.875;               // EWMA weight of the newest RTT difference, (0, 1]
  double beta = 0.8;                  // multiplicative-decrease factor, (0, 1]
  Time t_low = Time::us(50);          // below: additive increase
  Time t_high = Time::us(500);        // above: decrease by beta (1 - t_high / rtt)
  Time min_rtt = Time::us(20);        // normalises the gradient
  Bandwidth rate_ai = Bandwidth::bits_per_second(50'000'000);    // additive increase
  Bandwidth rate_hai = Bandwidth::bits_per_second(100'000'000);  // after 5 increase steps
};

struct DctcpParams {
  double g = 1.0 / 16;  // alpha EWMA gain per window, (0, 1]
  Bandwidth rate_ai = Bandwidth::bits_per_second(1'000'000'000);  // increase per window
};

struct CcParams {
  CcKind kind = CcKind::kDcqcn;
  Bandwidth min_rate = Bandwidth::bits_per_second(100'000'000);  // floor of every algorithm
  DcqcnParams dcqcn;
  HpccParams hpcc;
  TimelyParams timely;
  DctcpParams dctcp;
};

struct NicParams {
  Bytes mtu = 1000;              // payload bytes per data packet (PACKET_PAYLOAD_SIZE), >= 1
  Bytes header_bytes = 48;       // per data packet on the wire, without INT (ns-3 sends 36)
  Bytes int_header_bytes = 42;   // INT bytes per data packet and ACK under HPCC (5 hops)
  Bytes ack_bytes = 60;          // ACK/NACK bytes on the wire (plus INT under HPCC)
  std::uint32_t ack_interval = 1;  // data packets per ACK (the last packet is always ACKed)
  // Unset: the congestion control's default (window_by_default); PacketParams::window_on resolves.
  std::optional<bool> window;            // cap in-flight bytes at the pair's BDP
  std::optional<bool> variable_window;   // scale the window by rate / line rate
  bool ack_high_priority = false;  // ACKs in the control queue (0) instead of the data queue
  Time nack_interval = Time::us(500);  // a receiver repeats a NACK for one gap at most this often
  bool selective_repeat = false;  // IRN-like: keep out-of-order data, resend only holes (fabric.h)
  Time retransmit_timeout = Time::ms(1);  // go back to the oldest unACKed byte after silence
  std::uint32_t queue_pairs = 1;   // QPs per transfer (backend), each its own flow hash, 1..1024
};

// ECN RED thresholds of ports of one exact speed (HPCC's KMIN_MAP / KMAX_MAP / PMAX_MAP).
struct EcnSetting {
  Bandwidth speed;
  Bytes kmin = 0;
  Bytes kmax = 0;   // > kmin
  double pmax = 0;  // [0, 1]
};

// Shared buffer of the fabric switches of one tier (0 = leaf/ToR, 1 = spine, ...).
struct TierBuffer {
  std::uint32_t tier = 0;
  Bytes bytes = 32ull << 20;
};

struct SwitchParams {
  Bytes buffer_bytes = 32ull << 20;  // shared buffer per switch
  std::vector<TierBuffer> tier_buffers;  // fabric switch tiers listed here get their own size
  bool pfc = true;                   // lossless: pause upstream instead of dropping
  bool dynamic_threshold = true;     // PFC threshold = free shared buffer >> shift
  Bytes static_threshold = 0;        // with dynamic_threshold off: shared bytes per ingress queue
  std::uint32_t alpha_shift = 3;     // dynamic threshold shift at NIC speed (alpha = 1/8)
  double headroom_bdps = 3;          // headroom per ingress port in link BDPs
  Bytes reserve_bytes = 4096;        // reserved bytes per ingress queue
  Bytes resume_offset = 3072;        // resume when shared use + offset <= threshold
  bool ecn = true;                   // RED marking at egress
  Bytes kmin_per_gbps = 4000;        // kmin = this x link Gb/s (400 KB at 100G)
  Bytes kmax_per_gbps = 16000;       // kmax = this x link Gb/s (1600 KB at 100G)
  double pmax = 0.2;                 // marking probability at kmax
  std::vector<EcnSetting> ecn_table; // per-speed settings; a speed listed here overrides the rule
  Bytes egress_limit = 0;            // lossy mode: drop beyond this many bytes per queue; 0 = none
  Bytes pause_frame_bytes = 64;      // PFC frame size on the wire
  // Priority queues per egress port, 2..kMaxQueues: class 0 for control, 1..queues-1 for data.
  // PFC accounting, pause and resume are per (ingress port, class).
  std::uint32_t queues = kMaxQueues;
  QueueScheduler scheduler = QueueScheduler::kStrict;  // between the data classes
  // Weighted round robin: packets per turn of class c at class_weights[c], 1..1024 (the entry of
  // class 0 is not used: control is strict).
  std::array<std::uint32_t, kMaxQueues> class_weights = {1, 1, 1, 1, 1, 1, 1, 1};

  // The shared buffer of a forwarding node: its tier's entry for a fabric switch, else
  // buffer_bytes.
  Bytes buffer_for(const topology::Node& node) const;
};

// Monitors of a run (monitor.h) and their CSV files (monitor_csv.h). All off by default; each
// file keeps at most max_rows rows (later rows are counted, not kept), so none grows without
// bound.
struct MonitorOptions {
  Time interval = Time::us(100);   // sampling period, > 0
  bool queues = false;             // queue bytes per port
  bool throughput = false;         // bits per second sent per port (host ports = host throughput)
  bool qp_rates = false;           // congestion-control rate of every running QP
  bool cnps = false;               // CNPs received per QP in each interval (rows only when > 0)
  bool pfc = false;                // every PAUSE / RESUME taking effect at a port
  bool drops = false;              // packets dropped per port in each interval (rows only when > 0)
  std::uint64_t max_rows = 1'000'000;  // per file, >= 1
  bool any() const { return queues || throughput || qp_rates || cnps || pfc || drops; }
};

struct PacketParams {
  NicParams nic;
  SwitchParams sw;
  CcParams cc;
  MonitorOptions monitor;
  fastforward::FastForwardParams fast_forward;
  // Traffic class of data packets unless a QP names its own (HPCC's pg 3), 1..sw.queues-1.
  std::uint32_t data_priority = 3;
  double link_error_rate = 0;        // every link also loses each packet with this probability, [0, 1)
  bool scale_up_flow = true;         // PacketBackend: GPU-to-GPU transfers inside a host at flow level
  bool packet_spraying = false;      // per-packet ECMP over up to 8 equal-cost paths (use selective repeat)
  Bandwidth nic_rate_hint;           // NIC speed for alpha_shift; zero = slowest endpoint link
  std::uint64_t seed = 1;            // RED marking random stream
  // Windowed (parallel) execution, parallel/windowed_executor.h: nodes joined by cables shorter
  // than this share a logical process; zero runs the one event queue of a serial run.
  Time lp_delay_threshold;
  bool lp_racks = false;             // ... and an LP cabled to one other LP only joins it (a host its ToR)
  std::uint32_t lp_groups = 0;       // ... then the LPs are merged into this many by node count (0: kept)
  std::uint32_t threads = 1;         // threads running the LPs' windows (> 1 only with lp_delay_threshold)

  // The NIC window settings in force: the explicit ones, else the congestion control's default.
  bool window_on() const { return nic.window.value_or(window_by_default(cc.kind)); }
  bool variable_window_on() const { return nic.variable_window.value_or(window_by_default(cc.kind)); }
};

// Throws loom::UserError "packet backend: <field> = <value>: expected ..." for the first bad
// field.
void check_packet_params(const PacketParams& params);

// The experiment file's network.packet keys: every field above a user may set, with its unit,
// range and meaning (core/param_visitor.h). `seed` is the experiment's, not a key.
void visit_parameters(PacketParams& params, ParamVisitor& visitor);

}  // namespace loom::network::packet
