// Sender-side congestion control of a queue pair: DCQCN, HPCC, TIMELY and DCTCP, as rate
// controllers. Each QP holds a CcState; the fabric calls the functions below on ACKs and on the
// DCQCN timers it schedules, and paces the QP at state.rate (bits per second). No virtual
// dispatch: one switch on the algorithm per ACK.
//
// DCQCN (Zhu et al., SIGCOMM'15; Mellanox variant as in HPCC's and SimAI's ns-3). The
// receiver echoes ECN marks in ACKs; an echo is a CNP. The first CNP sets alpha to 1 (it does
// not count as a mark itself) and starts two grids: alpha is updated every alpha_interval:
// alpha <- (1 - g) alpha + g if a CNP came in the interval, else (1 - g) alpha; and the rate
// decrease is checked every decrease_interval starting decrease_interval + 1 ns after the first
// CNP (the 1 ns orders it after the alpha update due then). A CNP arms a decrease at the next
// check: target <- rate (if clamping, or after an increase), rate <- max(min_rate,
// rate (1 - alpha / 2)), and the increase timer restarts.
// Every increase_timer period without a decrease: the first fast_recovery_stages periods set
// rate <- (rate + target) / 2; the next adds rate_ai to target (additive increase), later ones
// rate_hai (hyper-additive), each followed by rate <- (rate + target) / 2. alpha is evaluated
// lazily at whole ticks ((1 - g)^n for n quiet ticks), so no event runs per alpha tick.
// `cuts` counts decrease runs (the first decrease, and each one after an increase): the
// sawtooth cycles packet fast-forward judges rate-only DCQCN by.
//
// HPCC (Li et al., SIGCOMM'19). Each data packet collects per switch hop (time, bytes sent,
// queue bytes, line rate B); the ACK carries them back. Per hop, with the previous sample:
//   u_j = txRate_j / B_j + min(q_j, q'_j) / (B_j T),   txRate_j = delta bytes / delta time,
// (the samples first rounded down to the int_*_unit resolution of HpccParams), U = max_j u_j
// (dt its time delta); the EWMA u <- (u (T - dt) + U dt) / T (dt <= T) and
//   rate = R_c / (u / eta) + R_AI when u >= eta or the stage reached max_stage (stage <- 0),
//   rate = R_c + R_AI otherwise (stage + 1),
// clamped to [min_rate, line rate], with T the base RTT. R_c (and the stage) are the reference
// values, updated once per RTT (an ACK beyond the sequence sent at the last update); with
// fast_react every ACK sets the rate from the reference.
//
// TIMELY (Mittal et al., SIGCOMM'15). Once per RTT, with rtt the newest sample:
//   diff <- (1 - alpha) diff + alpha (rtt - prev_rtt), gradient = diff / min_rtt;
//   rtt < t_low: +rate_ai (rate_hai after 5 consecutive increases); rtt > t_high:
//   rate (1 - beta (1 - t_high / rtt)); gradient <= 0: increase; else rate (1 - beta gradient).
//
// DCTCP (Alizadeh et al., SIGCOMM'10) as a rate controller: per window the marked fraction F
// updates alpha <- (1 - g) alpha + g F; the first echo outside a reduction window cuts the
// rate to rate (1 - alpha / 2) once per window; windows without a cut add rate_ai.
#pragma once

#include <cstdint>
#include <span>

#include "loom/core/time.h"
#include "loom/network/packet/packet_params.h"
#include "loom/network/packet/packet_pool.h"

namespace loom::network::packet {

struct HopSample {
  Time time;
  std::uint64_t tx_bytes = 0;
  std::uint32_t queue_bytes = 0;
};

struct CcState {
  double rate = 0;       // current sending rate, bit/s
  double line_rate = 0;  // NIC line rate, bit/s (the ceiling)
  Time base_rtt;         // HPCC's T
  double window_bytes = 0;  // BDP at line rate (HPCC's B T / 8)
  // DCQCN
  double alpha = 1;
  double target = 0;
  Time alpha_tick;            // last applied alpha tick
  Time decrease_origin;       // the decrease grid
  std::uint32_t stage = 0;    // increase periods since the last decrease
  std::uint32_t cuts = 0;     // decrease runs begun: the first decrease, and each one after an increase
  bool cnp_seen = false;      // a CNP arrived since the last alpha tick
  bool dcqcn_started = false;
  bool decrease_armed = false;
  // HPCC, TIMELY, DCTCP: once-per-RTT bookkeeping
  std::uint64_t last_update_seq = 0;
  double reference_rate = 0;
  std::uint32_t inc_stage = 0;
  double u = 0;
  std::uint32_t hops = 0;
  HopSample hop[kMaxIntHops];
  Time prev_rtt;
  double rtt_diff = 0;
  std::uint64_t ecn_count = 0;
  std::uint64_t batch = 1;
  bool reducing = false;
  std::uint64_t high_seq = 0;
};

// What the fabric tells the controller about one ACK or NACK.
struct AckSignal {
  std::uint64_t ack_seq = 0;    // cumulative next expected byte
  std::uint64_t snd_nxt = 0;    // sender's next new byte
  bool ecn_echo = false;        // the acknowledged packet was marked
  Time rtt;                     // now - the acknowledged packet's send time
  std::span<const IntHop> telemetry;  // HPCC hops, in path order
};

class CongestionControl {
 public:
  CongestionControl(const CcParams& params, Bytes mtu);

  CcKind kind() const { return params_.kind; }
  // Starts a QP at line rate.
  void init(CcState& s, double line_rate, Time base_rtt, double window_bytes) const;
  // Reacts to an ACK. For DCQCN returns the time at which on_decrease must run (Time::max()
  // when nothing is to be scheduled); other algorithms return Time::max().
  // `link_bps` maps a link id to its bandwidth in bit/s (HPCC line rates).
  Time on_ack(CcState& s, const AckSignal& ack, Time now, std::span<const double> link_bps) const;
  // DCQCN: the armed decrease; returns when on_increase must next run.
  Time on_decrease(CcState& s, Time now) const;
  // DCQCN: the increase timer fired; returns when it must next run.
  Time on_increase(CcState& s, Time now) const;

 private:
  Time dcqcn_cnp(CcState& s, Time now) const;
  void advance_alpha(CcState& s, Time now) const;
  void hpcc_ack(CcState& s, const AckSignal& ack, std::span<const double> link_bps) const;
  void timely_ack(CcState& s, const AckSignal& ack) const;
  void dctcp_ack(CcState& s, const AckSignal& ack) const;
  double clamp(const CcState& s, double rate) const;

  CcParams params_;
  double mtu_;
  double min_rate_;
  bool exact_telemetry_;  // HPCC reads INT at full resolution (no rounding to units)
};

}  // namespace loom::network::packet
