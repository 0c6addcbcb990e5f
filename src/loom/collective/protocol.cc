#include "loom/collective/protocol.h"

#include <string>

#include <fmt/format.h>

#include "loom/core/error.h"

namespace loom::collective {

std::string_view to_string(Protocol protocol) {
  switch (protocol) {
    case Protocol::kSimple: return "simple";
    case Protocol::kLL: return "ll";
    case Protocol::kLL128: return "ll128";
  }
  LOOM_ASSERT(false, "unknown Protocol value");
  return {};
}

const std::vector<Protocol>& all_protocols() {
  static const std::vector<Protocol> kAll = {Protocol::kSimple, Protocol::kLL, Protocol::kLL128};
  return kAll;
}

Protocol parse_protocol(std::string_view text) {
  std::string valid;
  for (const Protocol p : all_protocols()) {
    if (to_string(p) == text) return p;
    valid += valid.empty() ? "" : ", ";
    valid += to_string(p);
  }
  throw UserError(fmt::format("unknown protocol '{}'; expected one of: {}", text, valid));
}

double protocol_efficiency(Protocol protocol) {
  switch (protocol) {
    case Protocol::kSimple: return 1.0;
    case Protocol::kLL: return 0.5;
    case Protocol::kLL128: return 120.0 / 128.0;
  }
  LOOM_ASSERT(false, "unknown Protocol value");
  return 1.0;
}

Bytes wire_bytes(Bytes payload, Protocol protocol) {
  switch (protocol) {
    case Protocol::kSimple: return payload;
    case Protocol::kLL: return (payload + 3) / 4 * 8;
    case Protocol::kLL128: return (payload + 119) / 120 * 128;
  }
  LOOM_ASSERT(false, "unknown Protocol value");
  return payload;
}

ProtocolCosts nccl_protocol_costs() {
  using namespace time_literals;
  ProtocolCosts costs;
  const auto set = [](ProtocolCosts::Table& table, Protocol p, Time intra, Time inter) {
    table[static_cast<std::size_t>(p)] = {intra, inter};
  };
  set(costs.hop_latency, Protocol::kLL, 600_ns, 2700_ns);
  set(costs.hop_latency, Protocol::kLL128, 1900_ns, 4000_ns);
  set(costs.hop_latency, Protocol::kSimple, 3400_ns, 14_us);
  set(costs.tree_hop_latency, Protocol::kLL, 600_ns, 5_us);
  set(costs.tree_hop_latency, Protocol::kLL128, 1250_ns, 8500_ns);
  set(costs.tree_hop_latency, Protocol::kSimple, 4_us, 14_us);
  costs.net_overhead = 1_us;
  return costs;
}

}  // namespace loom::collective
