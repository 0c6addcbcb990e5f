#include "loom/topology/topology_yaml.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <nlohmann/json.hpp>
#include <vector>

#include "loom/config/document.h"
#include "loom/topology/config_parameters.h"

namespace loom::topology {

namespace {

constexpr std::array<std::string_view, 4> kKinds = {"gpu", "nic", "scale_up_switch", "switch"};
constexpr std::uint32_t kMaxHost = 1u << 24;

// Runs `f`, placing an unlocated UserError at `where`.
template <class F>
auto at(const SourceLocation& where, F&& f) {
  try {
    return f();
  } catch (const UserError& e) {
    if (e.where().known()) throw;
    throw e.located(where);
  }
}

NodeKind kind_of(std::string_view text) {
  for (std::size_t i = 0; i < kKinds.size(); ++i) {
    if (kKinds[i] == text) return static_cast<NodeKind>(i);
  }
  return NodeKind::kSwitch;
}

std::uint32_t read_bounded(config::Reader& r, std::string_view key, std::uint64_t fallback,
                           std::uint64_t max) {
  const std::uint64_t value = r.optional<std::uint64_t>(key, fallback);
  if (value > max) r.fail(key, fmt::format("expected at most {}, got {}", max, value));
  return static_cast<std::uint32_t>(value);
}

Topology read_explicit(config::Reader& root) {
  Topology t;
  std::vector<std::pair<std::uint32_t, std::string>> gpu_nics;  // (rank, NIC name)
  std::vector<config::Reader> nodes = root.list_of_maps("nodes");
  std::vector<SourceLocation> nic_locations;
  for (config::Reader& n : nodes) {
    const std::string name = n.required<std::string>("name");
    const NodeKind kind = kind_of(n.choice("kind", kKinds));
    const std::uint32_t host =
        n.has("host") ? read_bounded(n, "host", 0, kMaxHost) : kNone;
    const auto tier = static_cast<std::uint16_t>(read_bounded(n, "tier", 0, 0xffff));
    const Time latency = n.optional<Time>("latency", Time::zero());
    const NodeId id = at(n.location(), [&] { return t.add_node(kind, name, host, tier, latency); });
    if (n.has("rail")) {
      const auto rail = static_cast<std::uint16_t>(read_bounded(n, "rail", 0, kNoRail - 1));
      at(n.location_of("rail"), [&] { t.set_rail(id, rail); });
    }
    if (n.has("ports")) {
      const auto ports = static_cast<std::uint16_t>(read_bounded(n, "ports", 0, 0xffff));
      at(n.location_of("ports"), [&] { t.set_ports(id, ports); });
    }
    if (n.has("nic")) {
      if (kind != NodeKind::kGpu) n.fail("nic", "only GPUs name the NIC they use");
      gpu_nics.emplace_back(t.rank_of_node(id), n.required<std::string>("nic"));
      nic_locations.push_back(n.location_of("nic"));
    }
  }
  for (std::size_t i = 0; i < gpu_nics.size(); ++i) {
    const auto& [rank, nic_name] = gpu_nics[i];
    const auto nic = t.find(nic_name);
    if (!nic) {
      throw UserError(nic_locations[i],
                      fmt::format("GPU '{}' names NIC '{}', but no node has that name",
                                  t.node(t.gpu_node(rank)).name, nic_name));
    }
    at(nic_locations[i], [&] { t.attach_nic(rank, *nic); });
  }
  for (config::Reader& l : root.list_of_maps("links")) {
    NodeId ends[2] = {kNone, kNone};
    for (int side = 0; side < 2; ++side) {
      const char* key = side == 0 ? "a" : "b";
      const std::string name = l.required<std::string>(key);
      const auto found = t.find(name);
      if (!found) {
        l.fail(key, fmt::format("no node named '{}'; a link must join two declared nodes", name));
      }
      ends[side] = *found;
    }
    const Bandwidth bandwidth = l.required<Bandwidth>("bandwidth");
    const Time latency = l.optional<Time>("latency", Time::zero());
    const double error_rate = l.optional<double>("error_rate", 0.0);
    at(l.location(), [&] { t.add_duplex_link(ends[0], ends[1], bandwidth, latency, error_rate); });
  }
  return t;
}

// A YAML scalar for `text`: plain when it is made of safe characters, else a JSON string
// (which is valid YAML).
std::string yaml_string(std::string_view text) {
  const bool plain = !text.empty() && std::all_of(text.begin(), text.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '.' || c == '_' || c == '-';
  });
  return plain ? std::string(text) : nlohmann::json(std::string(text)).dump();
}

}  // namespace

Topology read_topology_yaml(config::Reader root) {
  root.choice("format", {"loom-topology"}, "loom-topology");
  Topology topology = [&] {
    if (root.has("blueprint")) {
      if (root.has("nodes") || root.has("links")) {
        root.fail("blueprint", "a topology has either a blueprint or explicit nodes and links, "
                               "not both");
      }
      return read_blueprint(root, "single-switch");
    }
    if (!root.has("nodes")) {
      root.fail("", "expected 'blueprint: NAME' with parameters, or explicit 'nodes' and 'links'");
    }
    Topology explicit_topology = read_explicit(root);
    root.finish();
    return explicit_topology;
  }();
  at(root.location(), [&] { topology.validate(); });
  return topology;
}

Topology parse_topology_yaml(std::string_view text, std::string source_name) {
  config::Document document = config::Document::parse(text, std::move(source_name));
  return read_topology_yaml(document.root());
}

void write_topology_yaml(const Topology& t, std::ostream& out) {
  out << "format: loom-topology\nnodes:\n";
  for (NodeId v = 0; v < t.node_count(); ++v) {
    const Node& n = t.node(v);
    std::string line = fmt::format("  - {{name: {}, kind: {}", yaml_string(n.name), to_string(n.kind));
    if (n.host != kNone) line += fmt::format(", host: {}", n.host);
    if (n.tier != 0) line += fmt::format(", tier: {}", n.tier);
    if (n.forwarding_latency != Time::zero()) line += fmt::format(", latency: {}", n.forwarding_latency);
    if (n.rail != kNoRail) line += fmt::format(", rail: {}", n.rail);
    if (n.ports != 0) line += fmt::format(", ports: {}", n.ports);
    if (const std::uint32_t rank = t.rank_of_node(v); rank != kNone && t.nic_of_rank(rank) != kNone) {
      line += fmt::format(", nic: {}", yaml_string(t.node(t.nic_of_rank(rank)).name));
    }
    out << line << "}\n";
  }
  out << "links:\n";
  for (LinkId l = 0; l < t.link_count(); l += 2) {
    const Link& k = t.link(l);
    std::string line = fmt::format("  - {{a: {}, b: {}, bandwidth: {}, latency: {}",
                                   yaml_string(t.node(k.src).name), yaml_string(t.node(k.dst).name),
                                   k.bandwidth, k.latency);
    if (k.error_rate != 0) line += fmt::format(", error_rate: {}", k.error_rate);
    out << line << "}\n";
  }
}

void write_blueprint_yaml(std::string_view blueprint, const ParameterRecorder& effective,
                          std::ostream& out) {
  out << fmt::format("format: loom-topology\nblueprint: {}\n", blueprint);
  for (const ParameterRecorder::Entry& e : effective.entries()) {
    out << fmt::format("{}: {}  # {}\n", e.name, yaml_string(e.value),
                       e.doc);
  }
}

}  // namespace loom::topology
