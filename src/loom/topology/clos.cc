#include "loom/topology/clos.h"

#include <fmt/format.h>

#include <charconv>
#include <vector>

#include "loom/core/error.h"
#include "loom/topology/blueprints.h"
#include "loom/topology/fabric_builder.h"
#include "loom/topology/parameter_checks.h"

namespace loom::topology {

namespace {

constexpr std::uint64_t kMaxSwitches = std::uint64_t{1} << 20;
constexpr std::uint64_t kMaxCables = std::uint64_t{1} << 26;

void check_links(const ClosLinks& links) {
  require_positive("fabric_bandwidth", links.fabric_bandwidth);
  require_non_negative("link_latency", links.link_latency);
  require_non_negative("switch_latency", links.switch_latency);
}

std::uint32_t ceil_div(std::uint64_t a, std::uint64_t b) {
  return static_cast<std::uint32_t>((a + b - 1) / b);
}

// Sanity limits every shape must respect, whatever described it.
void check_size(const ClosShape& s, std::uint32_t nics_per_host) {
  const std::uint64_t switches = std::uint64_t{s.leaves} + s.aggs() + s.spines;
  if (switches > kMaxSwitches) {
    throw UserError(fmt::format("the fabric would need {} switches; expected at most {}",
                                switches, kMaxSwitches));
  }
  const std::uint64_t cables =
      std::uint64_t{s.hosts} * nics_per_host +
      (s.tiers == 2 ? std::uint64_t{s.leaves} * s.spines
                    : std::uint64_t{s.leaves} * s.aggs_per_pod +
                          std::uint64_t{s.aggs()} * (s.spines / s.planes));
  if (cables > kMaxCables) {
    throw UserError(fmt::format("the fabric would need {} cables; expected at most {}", cables,
                                kMaxCables));
  }
}

// "32:8:1" -> {32, 8, 1}; two or three positive whole numbers.
std::vector<std::uint32_t> parse_ratio(std::string_view text) {
  std::vector<std::uint32_t> parts;
  std::string_view rest = text;
  while (true) {
    const std::size_t colon = rest.find(':');
    const std::string_view part = rest.substr(0, colon);
    std::uint32_t value = 0;
    const auto [end, ec] = std::from_chars(part.data(), part.data() + part.size(), value);
    if (ec != std::errc() || end != part.data() + part.size() || value == 0 || parts.size() == 3) {
      throw UserError(fmt::format("switch_ratio = '{}': expected leaf:agg:spine or leaf:spine "
                                  "switch counts, positive whole numbers such as 32:8:1",
                                  text));
    }
    parts.push_back(value);
    if (colon == std::string_view::npos) break;
    rest = rest.substr(colon + 1);
  }
  if (parts.size() < 2) {
    throw UserError(fmt::format("switch_ratio = '{}': expected leaf:agg:spine or leaf:spine "
                                "switch counts, such as 32:8:1",
                                text));
  }
  return parts;
}

}  // namespace

ClosShape clos_shape(const ClosParams& p) {
  ClosShape s;
  check_blueprint("clos", [&] {
    check_hosts(p.hosts, p.host);
    require_in_range("tiers", p.tiers, 2, 3);
    require_in_range("radix", p.radix, 4, 65535);
    require_in_range("oversubscription", p.oversubscription, 1, p.radix - 1);
    check_links(p.links);
    const std::uint32_t k = p.radix;
    const std::uint32_t o = p.oversubscription;
    if (k % (o + 1) != 0) {
      throw UserError(fmt::format("radix = {} with oversubscription = {}: the radix must split "
                                  "into {}:1 downlinks:uplinks, i.e. be a multiple of {}",
                                  k, o, o, o + 1));
    }
    if (p.tiers == 3 && k % 2 != 0) {
      throw UserError(fmt::format("radix = {}: three tiers need an even radix (aggregation "
                                  "switches use half their ports down, half up)",
                                  k));
    }
    const std::uint32_t down = k / (o + 1) * o;
    const std::uint32_t n = p.host.nic_count();
    if (down < n) {
      throw UserError(fmt::format("radix = {} with oversubscription = {} leaves {} NIC ports per "
                                  "leaf, fewer than the {} NICs of one host",
                                  k, o, down, n));
    }
    s.tiers = p.tiers;
    s.hosts = p.hosts;
    s.hosts_per_leaf = down / n;
    s.leaves = ceil_div(p.hosts, s.hosts_per_leaf);
    s.ports = k;
    const std::uint32_t up = k / (o + 1);
    if (p.tiers == 2) {
      s.spines = up;
      if (s.leaves > k) {
        throw UserError(fmt::format("hosts = {} need {} leaves, but two tiers of radix-{} "
                                    "switches hold at most {} leaves ({} hosts); use tiers = 3 or "
                                    "a larger radix",
                                    p.hosts, s.leaves, k, k, std::uint64_t{k} * s.hosts_per_leaf));
      }
    } else {
      s.leaves_per_pod = k / 2;
      s.aggs_per_pod = up;
      s.planes = up;
      s.spines = up * (k / 2);
      if (s.pods() > k) {
        throw UserError(fmt::format(
            "hosts = {} need {} pods, but three tiers of radix-{} switches hold at most {} pods "
            "({} hosts); use a larger radix",
            p.hosts, s.pods(), k, k, std::uint64_t{k} * s.leaves_per_pod * s.hosts_per_leaf));
      }
    }
    check_size(s, n);
  });
  return s;
}

ClosShape clos_shape(const FatTreeParams& p) {
  ClosParams c;
  check_blueprint("fat-tree", [&] {
    check_host_params(p.host);
    require_in_range("tiers", p.tiers, 2, 3);
    require_in_range("k", p.k, 2, 65534);
    if (p.k % 2 != 0) {
      throw UserError(fmt::format("k = {}: expected an even switch radix (half the ports of a "
                                  "switch face down, half up)",
                                  p.k));
    }
    const std::uint32_t n = p.host.nic_count();
    if ((p.k / 2) % n != 0) {
      throw UserError(fmt::format("k = {} with {} NICs per host: k/2 = {} leaf ports must be a "
                                  "multiple of the NICs per host so that a host sits on one leaf",
                                  p.k, n, p.k / 2));
    }
    std::uint64_t ports = 2;
    for (std::uint32_t t = 0; t < p.tiers; ++t) ports *= p.k / 2;
    if (ports / n > kMaxBlueprintGpus / p.host.gpus_per_host) {
      throw UserError(fmt::format("k = {} with {} tiers holds {} hosts; expected at most {}", p.k,
                                  p.tiers, ports / n, kMaxBlueprintGpus / p.host.gpus_per_host));
    }
    c.hosts = static_cast<std::uint32_t>(ports / n);
  });
  c.host = p.host;
  c.tiers = p.tiers;
  c.radix = p.k;
  c.oversubscription = 1;
  c.links = p.links;
  return clos_shape(c);
}

ClosShape clos_shape(const ClosRatioParams& p) {
  ClosShape s;
  check_blueprint("clos-ratio", [&] {
    check_hosts(p.hosts, p.host);
    require_in_range("hosts_per_leaf", p.hosts_per_leaf, 1, 65536);
    check_links(p.links);
    const std::vector<std::uint32_t> ratio = parse_ratio(p.switch_ratio);
    s.tiers = static_cast<std::uint32_t>(ratio.size());
    s.hosts = p.hosts;
    s.hosts_per_leaf = p.hosts_per_leaf;
    s.leaves = ceil_div(p.hosts, p.hosts_per_leaf);
    if (s.leaves % ratio.front() != 0) {
      throw UserError(fmt::format("switch_ratio = '{}' needs the leaf count to be a multiple of "
                                  "{}, but hosts = {} with hosts_per_leaf = {} give {} leaves",
                                  p.switch_ratio, ratio.front(), p.hosts, p.hosts_per_leaf,
                                  s.leaves));
    }
    const std::uint64_t unit = s.leaves / ratio.front();
    s.spines = static_cast<std::uint32_t>(unit * ratio.back());
    if (s.tiers == 3) {
      const std::uint64_t aggs = unit * ratio[1];
      s.leaves_per_pod = p.leaves_per_pod == 0 ? s.leaves : p.leaves_per_pod;
      if (s.leaves % s.leaves_per_pod != 0 || aggs % s.pods() != 0) {
        throw UserError(fmt::format("leaves_per_pod = {}: expected a divisor of the {} leaves "
                                    "that splits the {} aggregation switches evenly over pods",
                                    p.leaves_per_pod, s.leaves, aggs));
      }
      s.aggs_per_pod = static_cast<std::uint32_t>(aggs / s.pods());
    }
    check_size(s, p.host.nic_count());
  });
  return s;
}

Topology build_clos(const ClosShape& s, const HostParams& host, const ClosLinks& links) {
  Topology t;
  const std::vector<HostNodes> hosts = add_hosts(t, s.hosts, host);
  const Time lat = links.link_latency;
  const Bandwidth bw = links.fabric_bandwidth;
  const NodeId first_leaf = add_switches(t, "leaf", s.leaves, 0, links.switch_latency, s.ports);
  for (std::uint32_t h = 0; h < s.hosts; ++h) {
    cable_nics(t, hosts[h], host, first_leaf + h / s.hosts_per_leaf, lat);
  }
  if (s.tiers == 2) {
    const NodeId first_spine = add_switches(t, "spine", s.spines, 1, links.switch_latency, s.ports);
    for (std::uint32_t i = 0; i < s.leaves; ++i) {
      for (std::uint32_t j = 0; j < s.spines; ++j) {
        t.add_duplex_link(first_leaf + i, first_spine + j, bw, lat);
      }
    }
    return t;
  }
  const NodeId first_agg = add_switches(t, "agg", s.aggs(), 1, links.switch_latency, s.ports);
  const NodeId first_spine = add_switches(t, "spine", s.spines, 2, links.switch_latency, s.ports);
  for (std::uint32_t i = 0; i < s.leaves; ++i) {
    const std::uint32_t pod = i / s.leaves_per_pod;
    for (std::uint32_t a = 0; a < s.aggs_per_pod; ++a) {
      t.add_duplex_link(first_leaf + i, first_agg + pod * s.aggs_per_pod + a, bw, lat);
    }
  }
  const std::uint32_t per_plane = s.spines / s.planes;
  for (std::uint32_t a = 0; a < s.aggs(); ++a) {
    const std::uint32_t plane = (a % s.aggs_per_pod) % s.planes;
    for (std::uint32_t j = 0; j < per_plane; ++j) {
      t.add_duplex_link(first_agg + a, first_spine + plane * per_plane + j, bw, lat);
    }
  }
  return t;
}

Topology make_clos(const ClosParams& params) {
  return build_clos(clos_shape(params), params.host, params.links);
}

Topology make_fat_tree(const FatTreeParams& params) {
  return build_clos(clos_shape(params), params.host, params.links);
}

Topology make_clos_ratio(const ClosRatioParams& params) {
  return build_clos(clos_shape(params), params.host, params.links);
}

}  // namespace loom::topology
