#include "loom/topology/infragraph.h"

#include <fmt/format.h>

#include <charconv>
#include <map>
#include <vector>

#include "loom/config/document.h"
#include "loom/core/memory_budget.h"
#include "loom/topology/switch_tiers.h"

namespace loom::topology {

namespace {

struct Component {
  std::string name;
  std::uint32_t count = 0;
  std::string choice;
};

struct Device {
  std::vector<Component> components;
  std::vector<config::Reader> edges;
  std::map<std::string, std::pair<Bandwidth, Time>, std::less<>> links;
  bool host = false;
};

// A node to be: fabric switches get their tier once every edge is known.
struct Spec {
  NodeKind kind = NodeKind::kSwitch;
  std::string name;
  std::uint32_t host = kNone;
  std::uint16_t rail = kNoRail;
  std::uint32_t ports = 0;
};

struct Edge {
  std::uint32_t a = 0;
  std::uint32_t b = 0;
  Bandwidth bandwidth;
  Time latency;
  SourceLocation where;
};

// "nic" -> [0, count); "nic[1]" -> [1, 2); "nic[0:2]" -> [0, 2).
struct Slice {
  std::string name;
  std::uint32_t first = 0;
  std::uint32_t last = 0;  // exclusive; kNone = up to the count
};

Slice parse_slice(config::Reader& r, std::string_view key) {
  const std::string text = r.required<std::string>(key);
  Slice s{text, 0, kNone};
  const std::size_t open = text.find('[');
  if (open == std::string::npos) return s;
  s.name = text.substr(0, open);
  const std::string_view inside = std::string_view(text).substr(open + 1);
  const auto number = [&](std::string_view digits) {
    std::uint32_t v = 0;
    const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), v);
    if (ec != std::errc() || end != digits.data() + digits.size()) {
      r.fail(key, fmt::format("'{}' is not name, name[i] or name[a:b]", text));
    }
    return v;
  };
  if (inside.empty() || inside.back() != ']') {
    r.fail(key, fmt::format("'{}' is not name, name[i] or name[a:b]", text));
  }
  const std::string_view body = inside.substr(0, inside.size() - 1);
  const std::size_t colon = body.find(':');
  s.first = number(body.substr(0, colon));
  s.last = colon == std::string_view::npos ? s.first + 1 : number(body.substr(colon + 1));
  return s;
}

std::pair<Bandwidth, Time> link_properties(config::Reader& link, Bandwidth fallback) {
  Bandwidth bandwidth = fallback;
  Time latency = Time::zero();
  auto physical = link.optional_child("physical");
  if (!physical) return {bandwidth, latency};
  // The number with the key's unit appended, located at the key on a mistake.
  const auto number_in = [](config::Reader& r, const char* key, const char* unit, auto parse) {
    try {
      return parse(r.required<std::string>(key) + unit);
    } catch (const UserError& e) {
      if (e.where().known()) throw;
      r.fail(key, e.message());
    }
  };
  if (auto bw = physical->optional_child("bandwidth")) {
    if (bw->has("gigabits_per_second")) {
      bandwidth = number_in(*bw, "gigabits_per_second", "Gbps", parse_bandwidth);
    } else if (bw->has("gigabytes_per_second")) {
      bandwidth = number_in(*bw, "gigabytes_per_second", "GBps", parse_bandwidth);
    } else {
      bw->fail("", "expected gigabits_per_second or gigabytes_per_second");
    }
  }
  if (auto lat = physical->optional_child("latency")) {
    for (const char* unit : {"ms", "us", "ns"}) {
      if (lat->has(unit)) latency = number_in(*lat, unit, unit, parse_time);
    }
  }
  return {bandwidth, latency};
}

// A `count` key (default 1) that fits the 32-bit node ids every endpoint becomes.
std::uint32_t endpoint_count(config::Reader& r) {
  const std::uint64_t count = r.optional<std::uint64_t>("count", 1);
  if (count >= kNone) {
    r.fail("count", fmt::format("{} is more than Loom's 32-bit node ids can name; expected below {}", count, kNone));
  }
  return static_cast<std::uint32_t>(count);
}

class Importer {
 public:
  Importer(config::Reader& root, Bandwidth fallback, const MemoryBudget& budget)
      : root_(root), fallback_(fallback), budget_(budget) {}

  Topology run() {
    if (root_.has("links")) {
      for (config::Reader& l : root_.list_of_maps("links")) {
        links_[l.required<std::string>("name")] = link_properties(l, fallback_);
      }
    }
    for (config::Reader& d : root_.list_of_maps("devices")) read_device(d);
    for (config::Reader& i : root_.list_of_maps("instances")) add_instance(i);
    for (std::size_t i = 0; i < instances_.size(); ++i) {
      const Instance& inst = instances_[i];
      for (config::Reader& e : devices_.at(inst.device).edges) {
        for (std::uint32_t index = 0; index < inst.count; ++index) device_edge(e, i, index);
      }
    }
    if (root_.has("edges")) {
      for (config::Reader& e : root_.list_of_maps("edges")) infrastructure_edge(e);
    }
    return build();
  }

 private:
  struct Instance {
    std::string name;
    std::string device;
    std::uint32_t count = 0;
    std::uint32_t first_host = kNone;  // host instances
    // Node spec per (index, component, component index); kNone where not modelled.
    std::vector<std::uint32_t> spec;
    std::map<std::string, std::pair<std::uint32_t, std::uint32_t>, std::less<>> component;  // name -> (offset, count)
    std::uint32_t per_index = 0;
  };

  void read_device(config::Reader& d) {
    Device device;
    for (config::Reader& c : d.list_of_maps("components")) {
      Component comp{c.required<std::string>("name"), endpoint_count(c), c.optional<std::string>("choice", "custom")};
      device.host = device.host || comp.choice == "xpu";
      device.components.push_back(comp);
    }
    if (d.has("links")) {
      for (config::Reader& l : d.list_of_maps("links")) {
        device.links[l.required<std::string>("name")] = link_properties(l, fallback_);
      }
    }
    if (d.has("edges")) device.edges = d.list_of_maps("edges");
    devices_[d.required<std::string>("name")] = std::move(device);
  }

  void add_instance(config::Reader& i) {
    Instance inst;
    inst.name = i.required<std::string>("name");
    inst.device = i.required<std::string>("device");
    inst.count = endpoint_count(i);
    const auto found = devices_.find(inst.device);
    if (found == devices_.end()) {
      i.fail("device", fmt::format("no device named '{}' is defined under devices", inst.device));
    }
    const Device& device = found->second;
    std::uint64_t per_index = 0;
    for (const Component& c : device.components) {
      inst.component[c.name] = {static_cast<std::uint32_t>(per_index), c.count};
      per_index += c.count;
    }
    if (per_index >= kNone || per_index * inst.count >= kNone) {
      i.fail("count", fmt::format("{} instances x {} components of device '{}' exceed the {} endpoints Loom's "
                                  "32-bit node ids can name", inst.count, per_index, inst.device, kNone - 1));
    }
    // Each endpoint becomes a build record and a topology node, each with its name, and an
    // index entry per component: about 256 bytes before any link or route.
    constexpr double kBytesPerEndpoint = 256;
    const double endpoints = static_cast<double>(specs_.size()) + static_cast<double>(per_index) * inst.count;
    if (const auto refusal = budget_.refusal(
            endpoints * kBytesPerEndpoint, fmt::format("{:.3g} topology endpoints", endpoints))) {
      i.fail("count", *refusal);
    }
    inst.per_index = static_cast<std::uint32_t>(per_index);
    std::uint32_t switch_ports = 0;
    for (const Component& c : device.components) switch_ports += c.choice == "port" ? c.count : 0;
    if (device.host) inst.first_host = hosts_;
    for (std::uint32_t index = 0; index < inst.count; ++index) {
      if (!device.host) {
        const auto node = static_cast<std::uint32_t>(specs_.size());
        specs_.push_back(Spec{NodeKind::kSwitch, fmt::format("{}.{}", inst.name, index), kNone,
                              kNoRail, switch_ports});
        inst.spec.insert(inst.spec.end(), inst.per_index, node);
        continue;
      }
      const std::uint32_t host = hosts_++;
      for (const Component& c : device.components) {
        for (std::uint32_t j = 0; j < c.count; ++j) {
          const NodeKind kind = c.choice == "xpu"    ? NodeKind::kGpu
                                : c.choice == "nic"  ? NodeKind::kNic
                                                     : NodeKind::kScaleUpSwitch;
          if (c.choice != "xpu" && c.choice != "nic" && c.choice != "switch") {
            inst.spec.push_back(kNone);
            continue;
          }
          inst.spec.push_back(static_cast<std::uint32_t>(specs_.size()));
          specs_.push_back(Spec{kind, fmt::format("{}.{}.{}.{}", inst.name, index, c.name, j), host,
                                kind == NodeKind::kNic ? static_cast<std::uint16_t>(j) : kNoRail, 0});
        }
      }
    }
    instances_.push_back(std::move(inst));
  }

  // Node specs (kNone = not modelled) of a component slice of one instance index.
  std::vector<std::uint32_t> endpoints(config::Reader& ep, const Instance& inst,
                                       std::uint32_t index) {
    const Slice s = parse_slice(ep, "component");
    const auto found = inst.component.find(s.name);
    if (found == inst.component.end()) {
      ep.fail("component", fmt::format("device '{}' has no component '{}'", inst.device, s.name));
    }
    const auto [offset, count] = found->second;
    const std::uint32_t last = s.last == kNone ? count : s.last;
    if (s.first >= last || last > count) {
      ep.fail("component", fmt::format("'{}' is out of range: '{}' has {} components", s.name,
                                       found->first, count));
    }
    std::vector<std::uint32_t> out;
    for (std::uint32_t j = s.first; j < last; ++j) {
      out.push_back(inst.spec[index * inst.per_index + offset + j]);
    }
    return out;
  }

  std::pair<Bandwidth, Time> link_of(config::Reader& e, const Device* device) {
    const std::string name = e.required<std::string>("link");
    if (device != nullptr) {
      if (const auto it = device->links.find(name); it != device->links.end()) return it->second;
    }
    if (const auto it = links_.find(name); it != links_.end()) return it->second;
    e.fail("link", fmt::format("no link named '{}' is defined", name));
  }

  void connect(config::Reader& e, const std::vector<std::uint32_t>& a,
               const std::vector<std::uint32_t>& b, std::pair<Bandwidth, Time> link) {
    const std::string scheme = e.choice("scheme", {"one2one", "many2many", "ring"}, "one2one");
    const auto add = [&](std::uint32_t x, std::uint32_t y) {
      if (x != kNone && y != kNone && x != y) {
        edges_.push_back(Edge{x, y, link.first, link.second, e.location()});
      }
    };
    if (scheme == "many2many") {
      for (std::uint32_t x : a) {
        for (std::uint32_t y : b) add(x, y);
      }
    } else if (scheme == "ring") {
      for (std::size_t i = 0; a.size() > 1 && i < a.size(); ++i) {
        if (a.size() == 2 && i == 1) break;
        add(a[i], a[(i + 1) % a.size()]);
      }
    } else {
      if (a.size() != b.size()) {
        e.fail("scheme", fmt::format("one2one needs endpoints of equal length, got {} and {}",
                                     a.size(), b.size()));
      }
      for (std::size_t i = 0; i < a.size(); ++i) {
        if (a[i] == b[i] && a[i] != kNone) {
          e.fail("", fmt::format("the edge joins '{}' to itself; an edge joins two different endpoints",
                                 specs_[a[i]].name));
        }
        add(a[i], b[i]);
      }
    }
  }

  void device_edge(config::Reader& e, std::size_t instance, std::uint32_t index) {
    const Instance& inst = instances_[instance];
    config::Reader ep1 = e.child("ep1");
    config::Reader ep2 = e.child("ep2");
    connect(e, endpoints(ep1, inst, index), endpoints(ep2, inst, index),
            link_of(e, &devices_.at(inst.device)));
  }

  std::vector<std::uint32_t> instance_endpoints(config::Reader& ep) {
    const Slice s = parse_slice(ep, "instance");
    const auto it = std::find_if(instances_.begin(), instances_.end(),
                                 [&](const Instance& i) { return i.name == s.name; });
    if (it == instances_.end()) {
      ep.fail("instance", fmt::format("no instance named '{}'", s.name));
    }
    const std::uint32_t last = s.last == kNone ? it->count : s.last;
    if (s.first >= last || last > it->count) {
      ep.fail("instance", fmt::format("'{}' is out of range: instance '{}' has count {}", s.name,
                                      it->name, it->count));
    }
    std::vector<std::uint32_t> out;
    for (std::uint32_t index = s.first; index < last; ++index) {
      const std::vector<std::uint32_t> part = endpoints(ep, *it, index);
      out.insert(out.end(), part.begin(), part.end());
    }
    return out;
  }

  void infrastructure_edge(config::Reader& e) {
    config::Reader ep1 = e.child("ep1");
    config::Reader ep2 = e.child("ep2");
    connect(e, instance_endpoints(ep1), instance_endpoints(ep2), link_of(e, nullptr));
  }

  Topology build() {
    // Tiers: hop distance over switch-switch edges from switches next to host nodes.
    const auto n = static_cast<std::uint32_t>(specs_.size());
    std::vector<std::vector<std::uint32_t>> next(n);
    std::vector<std::uint16_t> tier(n, kNoTier);
    std::vector<std::uint32_t> queue;
    for (const Edge& e : edges_) {
      for (auto [x, y] : {std::pair{e.a, e.b}, std::pair{e.b, e.a}}) {
        if (specs_[x].host != kNone) continue;
        if (specs_[y].host == kNone) next[x].push_back(y);
        else if (tier[x] != 0) {
          tier[x] = 0;
          queue.push_back(x);
        }
      }
    }
    spread_tiers(next, tier, queue);
    Topology t;
    std::vector<NodeId> node(n);
    for (std::uint32_t i = 0; i < n; ++i) {
      const Spec& s = specs_[i];
      node[i] = t.add_node(s.kind, s.name, s.host, s.host == kNone && tier[i] != kNoTier ? tier[i] : 0);
      if (s.rail != kNoRail) t.set_rail(node[i], s.rail);
      if (s.ports != 0) t.set_ports(node[i], static_cast<std::uint16_t>(std::min(s.ports, 65535u)));
    }
    for (const Edge& e : edges_) {
      try {
        t.add_duplex_link(node[e.a], node[e.b], e.bandwidth, e.latency);
      } catch (const UserError& error) {
        throw error.located(e.where);
      }
    }
    attach_nics(t);
    try {
      t.validate();
    } catch (const UserError& error) {
      throw error.located(root_.location());
    }
    return t;
  }

  // GPU j of a host uses NIC j * nics / gpus of the same host.
  void attach_nics(Topology& t) {
    std::vector<std::vector<NodeId>> gpus(hosts_);
    std::vector<std::vector<NodeId>> nics(hosts_);
    for (NodeId v = 0; v < t.node_count(); ++v) {
      const Node& node = t.node(v);
      if (node.kind == NodeKind::kGpu) gpus[node.host].push_back(v);
      if (node.kind == NodeKind::kNic) nics[node.host].push_back(v);
    }
    for (std::uint32_t h = 0; h < hosts_; ++h) {
      if (nics[h].empty()) continue;
      for (std::size_t j = 0; j < gpus[h].size(); ++j) {
        t.attach_nic(t.rank_of_node(gpus[h][j]), nics[h][j * nics[h].size() / gpus[h].size()]);
      }
    }
  }

  config::Reader& root_;
  Bandwidth fallback_;
  std::map<std::string, std::pair<Bandwidth, Time>, std::less<>> links_;
  std::map<std::string, Device, std::less<>> devices_;
  std::vector<Instance> instances_;
  std::vector<Spec> specs_;
  std::vector<Edge> edges_;
  std::uint32_t hosts_ = 0;
  const MemoryBudget& budget_;
};

}  // namespace

Topology read_infragraph(config::Reader root, Bandwidth default_bandwidth, const MemoryBudget& budget) {
  return Importer(root, default_bandwidth, budget).run();
}

Topology parse_infragraph(std::string_view text, std::string source_name,
                          Bandwidth default_bandwidth) {
  config::Document document = config::Document::parse(text, std::move(source_name));
  return read_infragraph(document.root(), default_bandwidth);
}

}  // namespace loom::topology
