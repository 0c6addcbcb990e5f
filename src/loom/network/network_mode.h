// The fidelity of a network model, and what a backend of that fidelity can do beyond carrying
// transfers. Drivers ask a backend's Capabilities instead of comparing names or downcasting.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

namespace loom::network {

enum class NetworkMode : std::uint8_t {
  kAnalytical,  // latency + size / bottleneck bandwidth, no contention (analytical.h)
  kFlow,        // max-min fair sharing of links (flow/flow_backend.h)
  kPacket,      // RoCEv2 packets, switch buffers, congestion control (packet/packet_backend.h)
};

// "analytical", "flow", "packet".
std::string_view to_string(NetworkMode mode);
// Inverse of to_string; throws UserError naming the text and the accepted names.
NetworkMode parse_network_mode(std::string_view text);
// Every mode, in the order above.
std::span<const NetworkMode> all_network_modes();

struct Capabilities {
  // Collectives that reduce inside switches (NVLS, in-network): the runtime sends their
  // transfers to switch nodes, which the backend must accept as transfer ends.
  bool in_switch_reduction = false;
  // Reductions in a host's scale-up switch only (NVLS, NVLS-tree: the NVSwitch; not
  // in-network reduction in fabric switches). Implied by in_switch_reduction.
  bool scale_up_reduction = false;
  // schedule_link_change: cables going down and up during a run.
  bool link_changes = false;
  // schedule_link_rate: a link's bandwidth changing during a run (a NIC slowed for a while).
  bool link_rate_changes = false;
  // carried_bytes: cumulative bytes per link (links.csv, hot links).
  bool link_loads = false;
  // write_monitors: sampled monitor CSV files (queues, rates, pauses).
  bool monitors = false;
};

// A count a backend reports about its run, e.g. {"solver.solves", 1234}: a dotted key names a
// nested field of summary.json's "network" object.
struct Statistic {
  std::string key;
  std::uint64_t value = 0;
};

}  // namespace loom::network
