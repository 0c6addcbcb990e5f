#include "loom/experiment/network_section.h"

#include <string>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "loom/config/closest_match.h"
#include "loom/config/param_reader.h"
#include "loom/experiment/located.h"
#include "loom/hpcc/hpcc_config.h"

namespace loom::experiment {

namespace {

topology::NodeId node_named(config::Reader& change, const topology::Topology& topology, const std::string& name) {
  if (const auto node = topology.find(name)) return *node;
  std::vector<std::string_view> names;
  for (topology::NodeId n = 0; n < topology.node_count(); ++n) names.push_back(topology.node(n).name);
  const auto close = config::closest_match(name, names);
  change.fail("between", fmt::format("no node named '{}' in the topology{}", name,
                                     close ? fmt::format("; did you mean '{}'?", *close) : std::string()));
}

LinkChange read_link_change(config::Reader change, const topology::Topology& topology) {
  LinkChange result;
  result.at = change.required<Time>("at");
  if (result.at < Time::zero()) change.fail("at", "must not be negative");
  const std::vector<std::string> ends = change.list<std::string>("between");
  if (ends.size() != 2) change.fail("between", fmt::format("expected two node names, got {}", ends.size()));
  const topology::NodeId a = node_named(change, topology, ends[0]);
  const topology::NodeId b = node_named(change, topology, ends[1]);
  const std::uint64_t cable = change.optional<std::uint64_t>("cable", 0);
  result.up = change.choice("state", {"down", "up"}) == "up";
  change.finish();
  std::uint64_t seen = 0;
  for (topology::LinkId l = 0; l < topology.link_count(); ++l) {
    const topology::Link& link = topology.link(l);
    if (link.src == a && link.dst == b && seen++ == cable) {
      result.link = l;
      return result;
    }
  }
  if (seen == 0) change.fail("between", fmt::format("no cable joins {} and {}", ends[0], ends[1]));
  change.fail("cable", fmt::format("{} and {} are joined by {} cable(s), numbered from 0; got {}", ends[0], ends[1],
                                   seen, cable));
}

// A mode's parameter table (its visit_parameters) from `section`, then its cross-field checks.
template <class Params>
void read_table(config::Reader section, Params& params, void (*check)(const Params&)) {
  config::ParamReader reader(section);
  visit_parameters(params, reader);
  section.finish();
  located(section, [&] { return (check(params), 0); });
}

// network.packet.profile: the parameters a file of another simulator sets, before the keys of
// the experiment override them.
void read_profile(config::Reader& packet, const std::filesystem::path& base_dir, NetworkSection& section) {
  const bool simai = packet.choice("profile", {"loom", "simai"}, "loom") == "simai";
  if (!simai) {
    if (packet.has("simai_conf")) packet.fail("simai_conf", "applies to profile: simai only");
    return;
  }
  hpcc::HpccConfig config;
  if (packet.has("simai_conf")) {
    std::filesystem::path path = packet.required<std::string>("simai_conf");
    if (path.is_relative()) path = base_dir / path;
    config = located(packet, [&] { return read_hpcc_config(path.string(), hpcc::ConfigUse::kProfile); });
  } else {
    config = hpcc::parse_hpcc_config(hpcc::simai_default_config(), "SimAI.conf", hpcc::ConfigUse::kProfile);
  }
  if (!config.ignored_keys.empty()) {
    section.warnings.push_back(fmt::format("network.packet.profile: SimAI keys without effect in an experiment: {}",
                                           fmt::join(config.ignored_keys, ", ")));
  }
  config.params.seed = section.params.packet.seed;
  section.params.packet = config.params;
}

}  // namespace

NetworkSection read_network(config::Reader s, const topology::Topology& topology, std::uint64_t seed,
                            const std::filesystem::path& base_dir, network::NetworkMode default_mode) {
  NetworkSection section;
  network::NetworkParams& p = section.params;
  std::vector<std::string_view> modes;
  for (const network::NetworkMode m : network::all_network_modes()) modes.push_back(network::to_string(m));
  p.mode = network::parse_network_mode(s.choice("mode", modes, network::to_string(default_mode)));
  section.pxn = s.optional<bool>("pxn", section.pxn);
  if (p.mode == network::NetworkMode::kFlow) {
    read_table(s.child_or_empty("flow"), p.flow, network::flow::check_flow_params);
  } else if (s.has("flow")) {
    s.fail("flow", "applies to network.mode flow only");
  }
  if (p.mode == network::NetworkMode::kPacket) {
    config::Reader packet = s.child_or_empty("packet");
    p.packet.seed = seed;
    read_profile(packet, base_dir, section);
    read_table(packet, p.packet, network::packet::check_packet_params);
    if (p.packet.fast_forward.enabled && p.packet.cc.kind == network::packet::CcKind::kDcqcn &&
        !p.packet.window_on()) {
      // Rate-only DCQCN is judged over whole sawtooth cycles, but an 8-flow incast still errs
      // 0.52% mean against the full run, more than the full run's own seed spread (0.19%).
      section.warnings.push_back(
          "network.packet.fast_forward with rate-only DCQCN (no network.packet.window, DCQCN's default): "
          "fast-forward errs up to about 0.5% in mean FCT there (an incast, measured), more than the full run's "
          "seed-to-seed spread; set network.packet.window: true, or turn fast-forward off for packet-exact results");
    }
  } else if (s.has("packet")) {
    s.fail("packet", "applies to network.mode packet only");
  }
  if (s.has("link_changes")) {
    for (config::Reader change : s.list_of_maps("link_changes")) {
      section.link_changes.push_back(read_link_change(change, topology));
    }
  }
  s.finish();
  return section;
}

std::vector<ParamEntry> network_parameter_catalog(network::NetworkMode mode) {
  network::NetworkParams defaults;
  ParamRecorder recorder;
  if (mode == network::NetworkMode::kFlow) network::flow::visit_parameters(defaults.flow, recorder);
  if (mode == network::NetworkMode::kPacket) network::packet::visit_parameters(defaults.packet, recorder);
  return recorder.entries();
}

}  // namespace loom::experiment
