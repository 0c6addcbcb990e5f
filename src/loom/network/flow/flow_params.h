// Parameters of the flow-level backend: units, defaults and what each one means.
//
// Packetisation. A transfer of B payload bytes is cut into ceil(B / mtu) packets, each
// carrying `header_bytes` of headers on the wire, so the links carry
//
//   wire_bytes(B) = B + ceil(B / mtu) * header_bytes
//
// and goodput is B over the transfer time. With RoCEv2 over IPv4 the per-packet overhead is
// Ethernet 14 + IPv4 20 + UDP 8 + InfiniBand BTH 12 + ICRC 4 + FCS 4 = 62 bytes
// (kRoceV2HeaderBytes; 82 counting the preamble and inter-frame gap): 1.5% of the wire bytes
// at a 4096-byte MTU, 20% for a 256-byte message (Arcadia §7.3: ~4% at a 1500-byte MTU).
// The default is header_bytes = 0 (no overhead) because the analytical backend charges none:
// so the two fidelities agree exactly on a fabric without sharing, and a user who turns the
// overhead on sees its effect rather than a difference between models.
#pragma once

#include <cstddef>
#include <cstdint>

#include "loom/core/param_visitor.h"
#include "loom/core/units.h"

namespace loom::network::flow {

// Per-packet bytes of RoCEv2 over IPv4 on Ethernet, without preamble and inter-frame gap.
inline constexpr Bytes kRoceV2HeaderBytes = 62;

struct FlowParams {
  // Queue pairs (flows) a transfer is split over, each with its own ECMP hash and an equal
  // share of the bytes (the first bytes % queue_pairs get one more). 1..1024. The first QP
  // uses the request's flow_hash, so with 1 the route is the analytical backend's.
  std::uint32_t queue_pairs = 1;
  // Payload bytes per packet (the RDMA path MTU; SimAI's PACKET_PAYLOAD_SIZE), >= 1.
  Bytes mtu = 4096;
  // Header bytes each packet adds on the wire, 0..65536; 0 turns packetisation overhead off.
  Bytes header_bytes = 0;
  // Threads of the max-min solver (components are solved in parallel); results do not
  // depend on it. 1..256.
  std::uint32_t solver_threads = 1;
  // With solver_threads > 1, a solve uses the threads only when the components it touches
  // hold at least this many flow-link incidences (smaller solves are cheaper on one thread).
  std::size_t solver_parallel_threshold = 4096;
  // Keep one FlowRecord per finished transfer (for flows.csv); off so memory stays bounded.
  bool record_flows = false;
};

// Throws loom::UserError "flow backend: <field> = <value>: expected ..." for the first bad
// field.
void check_flow_params(const FlowParams& params);

// The experiment file's network.flow keys (core/param_visitor.h).
void visit_parameters(FlowParams& params, ParamVisitor& visitor);

// Bytes on the wire for `payload` bytes, per the formula above (0 for 0).
Bytes wire_bytes(const FlowParams& params, Bytes payload);

}  // namespace loom::network::flow
