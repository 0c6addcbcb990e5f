// network.packet.fast_forward: whether and how steady partitions are skipped.
//
// A QP's sending rate is sampled every `interval` (its receiver's in-order bytes over the
// interval; by default the time the fastest NIC takes to send kSampleBits, see
// sampling_interval); it is steady when its last l samples satisfy (max - min) / mean < threshold, and
// its rate in the skip is their mean. Wormhole's bound (its Theorems 2 and 3): the rate
// estimate is within threshold / (1 - threshold) of the true steady mean and a skipped
// span's length within `threshold` of the true one.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "loom/core/param_visitor.h"
#include "loom/core/time.h"

namespace loom::network::packet::fastforward {

struct FastForwardParams {
  bool enabled = false;
  double threshold = 0.05;       // theta: largest (max - min) / mean of a steady window
  std::uint32_t window = 0;      // l: samples per window; 0 = from the congestion control
  Time interval = Time::zero();  // sampling period; zero = from the NICs' line rate
  bool memo = true;              // replay memoized transients (transient_memo.h)
  // A partition beginning the same transient at the same instant as another, in the same
  // state, follows it instead of being simulated (fast_forward.h: twins); needs the memo.
  bool twins = false;
  // A partition whose transient ends in a completion before it is found steady is memoized
  // whole, up to that completion (its QPs' remaining sizes in the key), and replayed to just
  // before it (fast_forward.h: whole lives); needs the memo. Off by default: on MoE/64 it
  // moves other flows' FCTs (README, Whole lives).
  bool whole_life = false;
  // Not a key: where the memo persists across runs (`loom run --memo DIR`); empty: in memory only.
  std::string memo_dir;
};

// What a sample holds at line rate when `interval` follows the line rate: 50 us at 100 Gb/s,
// 12.5 us at 400 Gb/s (625 KB; 625 packets of 1000 B).
inline constexpr double kSampleBits = 5e6;

// How `interval` is written when it follows the line rate (it is zero then).
inline constexpr std::string_view kIntervalFromLineRate = "from line rate";

// The sampling period of a run whose scale-out line rate (fastest NIC) is `nic_bps`:
// params.interval when set, else kSampleBits / nic_bps (whole picoseconds; 50 us without a
// scale-out link).
Time sampling_interval(const FastForwardParams& params, double nic_bps);

// The experiment's network.packet.fast_forward keys.
void visit_fast_forward(FastForwardParams& params, ParamVisitor& visitor);

}  // namespace loom::network::packet::fastforward
