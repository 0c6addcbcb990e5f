#include "loom/topology/topology_io.h"

#include <fmt/format.h>

#include <array>
#include <cctype>
#include <fstream>
#include <map>
#include <sstream>
#include <vector>

#include "loom/config/document.h"
#include "loom/core/error.h"
#include "loom/topology/infragraph.h"
#include "loom/topology/text_topology.h"
#include "loom/topology/topology_yaml.h"

namespace loom::topology {

namespace {

constexpr std::array<std::string_view, 5> kFormats = {"auto", "loom", "simai", "hpcc",
                                                      "infragraph"};

// Text formats start with a digit: SimAI or HPCC by the header's field count. Everything else
// is YAML, returned as kAuto for the caller to tell Loom from InfraGraph by its keys.
TopologyFormat detect(std::string_view text, const std::string& source) {
  std::size_t i = 0;
  while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i])) != 0) ++i;
  if (i == text.size()) throw UserError(SourceLocation{source, 1, 0}, "the topology file is empty");
  if (std::isdigit(static_cast<unsigned char>(text[i])) == 0) return TopologyFormat::kAuto;
  std::istringstream first(std::string(text.substr(i, text.find('\n', i) - i)));
  std::size_t fields = 0;
  for (std::string word; first >> word;) ++fields;
  if (fields == 6) return TopologyFormat::kSimai;
  if (fields == 3) return TopologyFormat::kHpcc;
  throw UserError(SourceLocation{source, 1, 0},
                  fmt::format("cannot tell the topology format: the first line has {} fields; "
                              "expected 6 (SimAI), 3 (HPCC) or a YAML file",
                              fields));
}

}  // namespace

std::span<const std::string_view> topology_format_names() { return kFormats; }

TopologyFormat parse_topology_format(std::string_view text) {
  for (std::size_t i = 0; i < kFormats.size(); ++i) {
    if (kFormats[i] == text) return static_cast<TopologyFormat>(i);
  }
  throw UserError(fmt::format("unknown topology format '{}'; expected one of {}", text,
                              fmt::join(kFormats, ", ")));
}

Topology parse_topology(std::string_view text, const std::string& source, TopologyFormat format,
                        const MemoryBudget& budget) {
  if (format == TopologyFormat::kAuto) format = detect(text, source);
  if (format == TopologyFormat::kSimai || format == TopologyFormat::kHpcc) {
    std::istringstream in{std::string(text)};
    return format == TopologyFormat::kSimai ? read_simai_topology(in, source)
                                            : read_hpcc_topology(in, source);
  }
  config::Document document = config::Document::parse(text, source);
  config::Reader root = document.root();
  if (format == TopologyFormat::kAuto) {
    format = root.has("devices") || root.has("instances") ? TopologyFormat::kInfraGraph
                                                          : TopologyFormat::kLoom;
  }
  return format == TopologyFormat::kInfraGraph ? read_infragraph(root, Bandwidth::gbps(400), budget)
                                               : read_topology_yaml(root);
}

Topology load_topology(const std::string& path, TopologyFormat format, const MemoryBudget& budget) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    throw UserError(fmt::format("cannot open topology file '{}': no such file or not readable",
                                path));
  }
  std::ostringstream text;
  text << in.rdbuf();
  return parse_topology(text.str(), path, format, budget);
}

void write_dot(const Topology& t, std::ostream& out) {
  const auto quote = [](std::string_view s) { return fmt::format("\"{}\"", s); };
  out << "graph loom {\n  rankdir=BT;\n  node [fontsize=10];\n";
  std::map<std::uint32_t, std::vector<NodeId>> hosts;
  std::map<std::uint16_t, std::vector<NodeId>> tiers;
  for (NodeId v = 0; v < t.node_count(); ++v) {
    const Node& n = t.node(v);
    if (n.host != kNone) hosts[n.host].push_back(v);
    else tiers[n.tier].push_back(v);
  }
  const auto shape = [](NodeKind kind) {
    switch (kind) {
      case NodeKind::kGpu: return "shape=box, style=filled, fillcolor=palegreen";
      case NodeKind::kNic: return "shape=ellipse, style=filled, fillcolor=lightyellow";
      case NodeKind::kScaleUpSwitch: return "shape=diamond, style=filled, fillcolor=plum";
      case NodeKind::kSwitch: return "shape=box, style=filled, fillcolor=lightblue";
    }
    return "";
  };
  for (const auto& [host, nodes] : hosts) {
    out << fmt::format("  subgraph cluster_host_{} {{\n    label={};\n", host,
                       quote(fmt::format("host {}", host)));
    for (NodeId v : nodes) {
      out << fmt::format("    {} [{}];\n", quote(t.node(v).name), shape(t.node(v).kind));
    }
    out << "  }\n";
  }
  for (const auto& [tier, nodes] : tiers) {
    out << "  { rank=same;";
    for (NodeId v : nodes) out << fmt::format(" {} [{}];", quote(t.node(v).name), shape(NodeKind::kSwitch));
    out << fmt::format(" }}  // tier {}\n", tier);
  }
  for (LinkId l = 0; l < t.link_count(); l += 2) {
    const Link& k = t.link(l);
    out << fmt::format("  {} -- {} [label={}, fontsize=8];\n", quote(t.node(k.src).name),
                       quote(t.node(k.dst).name), quote(to_string(k.bandwidth)));
  }
  out << "}\n";
}

}  // namespace loom::topology
