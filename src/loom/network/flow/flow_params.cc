#include "loom/network/flow/flow_params.h"

#include <fmt/format.h>

#include "loom/core/error.h"

namespace loom::network::flow {

void check_flow_params(const FlowParams& params) {
  if (params.queue_pairs < 1 || params.queue_pairs > 1024) {
    throw UserError(fmt::format("flow backend: queue_pairs = {}: expected 1..1024",
                                params.queue_pairs));
  }
  if (params.mtu < 1) {
    throw UserError("flow backend: mtu = 0: expected at least 1 byte of payload per packet");
  }
  if (params.header_bytes > 65536) {
    throw UserError(fmt::format("flow backend: header_bytes = {}: expected at most 65536 bytes "
                                "per packet", params.header_bytes));
  }
  if (params.solver_threads < 1 || params.solver_threads > 256) {
    throw UserError(fmt::format("flow backend: solver_threads = {}: expected 1..256",
                                params.solver_threads));
  }
}

void visit_parameters(FlowParams& p, ParamVisitor& v) {
  v.count("queue_pairs", p.queue_pairs, 1, 1024, "queue pairs (flows) per transfer, each its own ECMP hash");
  v.size("mtu", p.mtu, 1, Bytes{1} << 30, "payload bytes per packet (PACKET_PAYLOAD_SIZE)");
  v.size("header_bytes", p.header_bytes, 0, 65536, "header bytes per packet on the wire; 62 for RoCEv2, 0 = none");
  v.count("solver_threads", p.solver_threads, 1, 256, "threads of the max-min solver (results do not depend on it)");
}

Bytes wire_bytes(const FlowParams& params, Bytes payload) {
  const Bytes packets = payload / params.mtu + (payload % params.mtu != 0 ? 1 : 0);
  return payload + packets * params.header_bytes;
}

}  // namespace loom::network::flow
