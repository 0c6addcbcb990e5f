#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "loom/topology/blueprint_catalog.h"
#include "loom/topology/blueprints.h"
#include "loom/topology/rail_fabrics.h"
#include "loom/topology/routing.h"
#include "loom/topology/text_topology.h"
#include "loom/topology/topology_io.h"
#include "loom/topology/topology_yaml.h"
#include "user_error.h"
#include "topology/test_paths.h"
#include "fixtures.h"

namespace loom::topology {
namespace {

using ::testing::HasSubstr;
using testing::cables_between;
using testing::id;
using testing::nodes_named;
using loom::testing::user_error_of;

const std::filesystem::path kFixtures = loom::testing::fixture_path("");

// A structural fingerprint: node counts per kind, tier histogram, and the sorted multiset of
// (endpoint kinds, bandwidth, latency) per cable.
std::string fingerprint(const Topology& t) {
  std::map<std::string, int> parts;
  for (NodeId v = 0; v < t.node_count(); ++v) {
    ++parts[fmt::format("node {} tier {}", to_string(t.node(v).kind), t.node(v).tier)];
  }
  for (LinkId l = 0; l < t.link_count(); l += 2) {
    const Link& k = t.link(l);
    std::string a(to_string(t.node(k.src).kind));
    std::string b(to_string(t.node(k.dst).kind));
    if (b < a) std::swap(a, b);
    ++parts[fmt::format("cable {}-{} {} {}", a, b, k.bandwidth, k.latency)];
  }
  std::string text;
  for (const auto& [key, count] : parts) text += fmt::format("{} x{}\n", key, count);
  return text;
}

Topology reparse_yaml(const Topology& t) {
  std::ostringstream out;
  write_topology_yaml(t, out);
  return parse_topology_yaml(out.str(), "round-trip.yaml");
}

TEST(TopologyYaml, ExplicitFormRoundTrips) {
  SegmentFabricParams p;
  p.hosts = 3;
  p.host.gpus_per_host = 4;
  p.hosts_per_segment = 2;
  p.spines = 2;
  const Topology t = make_segment_fabric(SegmentLayout::kRailDualTor, p);
  const Topology back = reparse_yaml(t);
  ASSERT_EQ(back.node_count(), t.node_count());
  ASSERT_EQ(back.link_count(), t.link_count());
  for (NodeId v = 0; v < t.node_count(); ++v) {
    EXPECT_EQ(back.node(v).name, t.node(v).name);
    EXPECT_EQ(back.node(v).kind, t.node(v).kind);
    EXPECT_EQ(back.node(v).forwarding_latency, t.node(v).forwarding_latency);
    EXPECT_EQ(back.node(v).rail, t.node(v).rail);
  }
  for (LinkId l = 0; l < t.link_count(); ++l) {
    EXPECT_EQ(back.link(l).src, t.link(l).src);
    EXPECT_EQ(back.link(l).bandwidth, t.link(l).bandwidth);
    EXPECT_EQ(back.link(l).latency, t.link(l).latency);
  }
  for (std::uint32_t r = 0; r < t.gpu_count(); ++r) EXPECT_EQ(back.nic_of_rank(r), t.nic_of_rank(r));
}

TEST(TopologyYaml, BlueprintFormWithParameters) {
  const Topology t = parse_topology_yaml(
      "format: loom-topology\nblueprint: fat-tree\nk: 4\ntiers: 3\ngpus_per_host: 1\n", "ft.yaml");
  EXPECT_EQ(t.gpu_count(), 16u);
  EXPECT_EQ(nodes_named(t, "spine."), 4u);
  // The writer's output reads back to the same fabric.
  TextParameterReader source(TextParameterReader::Values{{"k", "4"}, {"gpus_per_host", "1"}});
  ParameterRecorder effective;
  effective_parameters("fat-tree", source, effective);
  std::ostringstream out;
  write_blueprint_yaml("fat-tree", effective, out);
  EXPECT_THAT(out.str(), HasSubstr("blueprint: fat-tree\nk: 4  # switch radix"));
  EXPECT_EQ(fingerprint(parse_topology_yaml(out.str(), "written.yaml")), fingerprint(t));
}

TEST(TopologyYaml, MistakesAreLocated) {
  const auto error = [](std::string_view text) {
    return user_error_of([&] { parse_topology_yaml(text, "t.yaml"); });
  };
  const std::string nodes =
      "nodes:\n"
      "  - {name: host.0.gpu.0, kind: gpu, host: 0}\n"
      "  - {name: sw, kind: switch}\n";
  EXPECT_THAT(error(nodes + "links:\n  - {a: host.0.gpu.0, b: sw.9, bandwidth: 100Gbps}\n"),
              HasSubstr("t.yaml:5:26: links[0].b: no node named 'sw.9'; a link must join two "
                        "declared nodes"));
  EXPECT_THAT(error("nodes:\n  - {name: a, kind: switch}\n  - {name: a, kind: switch}\nlinks: []\n"),
              HasSubstr("t.yaml:3:5: duplicate node name 'a'"));
  EXPECT_THAT(error(nodes + "links:\n  - {a: host.0.gpu.0, b: sw, bandwidth: 0Gbps}\n"),
              HasSubstr("t.yaml:5:5: link 'host.0.gpu.0' <-> 'sw' has zero bandwidth"));
  EXPECT_THAT(error(nodes + "links:\n  - {a: host.0.gpu.0, b: sw, bandwidth: 100}\n"),
              HasSubstr("links[0].bandwidth: '100' is not a bandwidth"));
  EXPECT_THAT(error("nodes:\n  - {name: x, kind: router}\nlinks: []\n"),
              HasSubstr("nodes[0].kind: unknown value 'router'"));
  EXPECT_THAT(error("nodes:\n  - {name: x, kind: gpu}\nlinks: []\n"),
              HasSubstr("node 'x' is a gpu but has no host index"));
  EXPECT_THAT(error(nodes + "links: []\nextra: 1\n"), HasSubstr("unknown key 'extra'"));
  EXPECT_THAT(error("blueprint: clos\nnodes: []\n"),
              HasSubstr("a topology has either a blueprint or explicit nodes and links"));
  EXPECT_THAT(error("blueprint: clos\nhots: 3\n"),
              HasSubstr("unknown key 'hots' at the top level; did you mean 'hosts'?"));
  EXPECT_THAT(error("blueprint: fat-tree\nk: 5\n"),
              HasSubstr("t.yaml:1:1: fat-tree blueprint: k = 5: expected an even switch radix"));
  EXPECT_THAT(error("nodes:\n  - {name: host.0.gpu.0, kind: gpu, host: 0, nic: n}\nlinks: []\n"),
              HasSubstr("GPU 'host.0.gpu.0' names NIC 'n', but no node has that name"));
  // Whole-graph rules, located at the file: two hosts, one GPU without a NIC.
  EXPECT_THAT(error("nodes:\n  - {name: g0, kind: gpu, host: 0}\n  - {name: g1, kind: gpu, host: 1}\n"
                    "links: []\n"),
              HasSubstr("t.yaml:1:1: GPU 'g0' (rank 0) has no NIC attached"));
}

TEST(TextTopology, SimaiFixturesImportCountAndRoundTrip) {
  const std::filesystem::path dir = kFixtures / "simai" / "inputs" / "topo";
  LOOM_SKIP_WITHOUT_FIXTURE(dir);
  int files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    ++files;
    const std::string path = entry.path().string();
    const Topology t = load_topology(path);
    std::ifstream header(path);
    std::uint32_t nodes = 0, gps = 0, nvswitches = 0, switches = 0, links = 0;
    header >> nodes >> gps >> nvswitches >> switches >> links;
    const std::uint32_t gpus = nodes - nvswitches - switches;
    EXPECT_EQ(t.gpu_count(), gpus) << path;
    EXPECT_EQ(t.host_count(), gpus / gps) << path;
    const std::uint32_t nics = nodes_named(t, "host.") - gpus - nvswitches;
    EXPECT_EQ(nics, gpus) << path << ": every GPU of these files has fabric links";
    EXPECT_EQ(t.link_count() / 2, links + nics) << path;
    EXPECT_EQ(nodes_named(t, "switch."), switches) << path;
    // Export and import again: the same structure.
    std::ostringstream out;
    write_simai_topology(t, out);
    std::istringstream in(out.str());
    EXPECT_EQ(fingerprint(read_simai_topology(in, "exported")), fingerprint(t)) << path;
    EXPECT_EQ(out.str().substr(0, out.str().find('\n')),
              fmt::format("{} {} {} {} {} H100", nodes, gps, nvswitches, switches, links));
  }
  EXPECT_EQ(files, 6);
}

TEST(TextTopology, SimaiSpectrumXMatchesTheRailOptimizedBlueprint) {
  const std::filesystem::path file = kFixtures / "simai" / "inputs" / "topo" / "Spectrum-X_16g_8gps_400Gbps_H100";
  LOOM_SKIP_WITHOUT_FIXTURE(file);
  const Topology imported = load_topology(file.string());
  SegmentFabricParams p;
  p.hosts = 2;
  p.hosts_per_segment = 2;
  p.spines = 64;
  const Topology blueprint = make_segment_fabric(SegmentLayout::kRailOptimized, p);
  EXPECT_EQ(nodes_named(imported, "switch."), nodes_named(blueprint, "leaf.") + 64);
  EXPECT_EQ(imported.link_count(), blueprint.link_count());
  const Routing ri(imported);
  const Routing rb(blueprint);
  for (std::uint32_t a = 0; a < 16; ++a) {
    for (std::uint32_t b = 0; b < 16; ++b) {
      EXPECT_EQ(ri.hop_count(imported.gpu_node(a), imported.gpu_node(b)),
                rb.hop_count(blueprint.gpu_node(a), blueprint.gpu_node(b)))
          << a << "->" << b;
    }
  }
}

TEST(TextTopology, HpccFixturesImportAndRoundTrip) {
  const std::filesystem::path fat = kFixtures / "hpcc" / "inputs" / "fat320" / "fat.txt";
  const std::filesystem::path star = kFixtures / "hpcc" / "inputs" / "shipped_star66" / "topology.txt";
  LOOM_SKIP_WITHOUT_FIXTURE(fat);
  const Topology t = load_topology(fat.string());
  EXPECT_EQ(t.gpu_count(), 320u);
  EXPECT_EQ(nodes_named(t, "switch."), 56u);
  EXPECT_EQ(t.link_count() / 2, 480u + 320u);
  std::map<std::uint16_t, int> tiers;
  for (NodeId v = 0; v < t.node_count(); ++v) {
    if (t.node(v).kind == NodeKind::kSwitch) ++tiers[t.node(v).tier];
  }
  EXPECT_EQ(tiers, (std::map<std::uint16_t, int>{{0, 20}, {1, 20}, {2, 16}}));
  const Routing r(t);
  // Hosts 0 and 16 sit in one pod under different ToRs; 0 and 319 in different pods.
  EXPECT_EQ(r.hop_count(t.gpu_node(0), t.gpu_node(1)), 4u);
  EXPECT_EQ(r.hop_count(t.gpu_node(0), t.gpu_node(319)), 8u);
  std::ostringstream out;
  write_hpcc_topology(t, out);
  std::istringstream in(out.str());
  EXPECT_EQ(fingerprint(read_hpcc_topology(in, "exported")), fingerprint(t));
  EXPECT_EQ(out.str().substr(0, out.str().find('\n')), "376 56 480");

  LOOM_SKIP_WITHOUT_FIXTURE(star);
  const Topology s = load_topology(star.string());
  EXPECT_EQ(s.gpu_count(), 65u);
  EXPECT_EQ(nodes_named(s, "switch."), 1u);
  EXPECT_EQ(Routing(s).hop_count(s.gpu_node(1), s.gpu_node(64)), 4u);
}

TEST(TextTopology, MistakesNameTheLine) {
  const auto simai = [](std::string text) {
    return user_error_of([&] { parse_topology(text, "x.txt", TopologyFormat::kSimai); });
  };
  EXPECT_THAT(simai("4 2 1 1 3\n"), HasSubstr("x.txt:1: expected the SimAI header"));
  EXPECT_THAT(simai("5 2 0 1 1 H100\n4\n0 9 100Gbps 1us 0\n"),
              HasSubstr("x.txt:3: link 0 - 9 names a node out of range; expected ids 0..4"));
  EXPECT_THAT(simai("5 2 0 1 2 H100\n4\n0 4 100Gbps 1us 0\n"),
              HasSubstr("x.txt:3: the file ends early: expected 2 link lines, found 1"));
  EXPECT_THAT(simai("5 2 0 1 1 H100\n4\n0 4 100 1us 0\n"),
              HasSubstr("x.txt:3: link 0 - 4: '100' is not a bandwidth"));
  EXPECT_THAT(simai("4 2 0 1 1 H100\n3\n0 3 100Gbps 1us 0\n"),
              HasSubstr("x.txt:1: 3 GPUs do not fill servers of gpus_per_server = 2"));
  EXPECT_THAT(simai("5 2 0 1 1 H100\n4\n0 4 100Gbps 1us 0\n"),
              HasSubstr("x.txt: GPU 'host.0.gpu.1' (rank 1) has no NIC attached"));
  EXPECT_THAT(simai("5 2 0 1 3 H100\n4\n0 4 100Gbps 1us 0\n1 4 100Gbps 1us 0\n4 0 100Gbps 1us 0\n"),
              HasSubstr("x.txt:5: link 4 - 0 repeats the link of line 3; one line per pair of nodes"));
  const auto hpcc = [](std::string text) {
    return user_error_of([&] { parse_topology(text, "h.txt", TopologyFormat::kHpcc); });
  };
  EXPECT_THAT(hpcc("3 1 2\n0\n1 2 100Gbps 1us 0\n0 1 100Gbps 1us 0\n"),
              HasSubstr("h.txt:3: link 1 - 2 joins two hosts directly"));
  EXPECT_THAT(hpcc("3 1 1\n0 0\n"), HasSubstr("h.txt:2: expected 1 switch ids, found 2"));
  EXPECT_THAT(user_error_of([] { parse_topology("1 2 3 4\n", "y.txt"); }),
              HasSubstr("y.txt:1: cannot tell the topology format: the first line has 4 fields"));
}

TEST(InfraGraph, ClosFixtureImports) {
  const std::filesystem::path file =
      kFixtures / "infragraph" / "clos_fat_tree_fabric_2level_8port_switch.current_format.yaml";
  LOOM_SKIP_WITHOUT_FIXTURE(file);
  const Topology t = load_topology(file.string());
  EXPECT_EQ(t.host_count(), 16u);
  EXPECT_EQ(t.gpu_count(), 32u);
  EXPECT_EQ(nodes_named(t, "tier_0."), 8u);
  EXPECT_EQ(nodes_named(t, "tier_1."), 4u);
  EXPECT_EQ(t.node(id(t, "tier_1.3")).tier, 1);
  EXPECT_EQ(t.node(id(t, "tier_0.0")).ports, 8);
  // Per server: 2 xpu-nvlsw, 2 xpu-pciesw, 2 nic-pciesw (cpu and mgmt are not modelled).
  EXPECT_EQ(cables_between(t, "server.5.xpu", "server.5."), 4u);
  EXPECT_EQ(t.link_count() / 2, 16u * 6u + 64u);
  EXPECT_EQ(t.link(t.out_links(id(t, "tier_1.0")).front()).bandwidth, Bandwidth::gbps(200));
  EXPECT_EQ(t.node(t.nic_of_rank(3)).name, "server.1.nic.1");
  const Routing r(t);
  // xpu -> pciesw -> nic -> tier_0 -> nic -> pciesw -> xpu.
  EXPECT_EQ(r.hop_count(id(t, "server.0.xpu.0"), id(t, "server.1.xpu.1")), 6u);
  EXPECT_EQ(r.hop_count(id(t, "server.0.xpu.0"), id(t, "server.15.xpu.0")), 8u);
  // Inside a server both the NVLink switch and the PCIe switch are 2 hops: 2 paths.
  EXPECT_EQ(r.path_count(id(t, "server.0.xpu.0"), id(t, "server.0.xpu.1")), 2u);
}

TEST(InfraGraph, MistakesAreLocated) {
  const std::string device =
      "devices:\n"
      "  - name: box\n"
      "    components:\n"
      "      - {name: xpu, count: 2, choice: xpu}\n"
      "      - {name: nic, count: 1, choice: nic}\n"
      "    edges:\n"
      "      - {ep1: {component: xpu}, ep2: {component: nic}, link: pcie, scheme: many2many}\n"
      "    links: [{name: pcie}]\n";
  const auto error = [](std::string text) {
    return user_error_of([&] { parse_topology(text, "ig.yaml"); });
  };
  EXPECT_THAT(error(device + "instances: [{name: s, device: boxx, count: 1}]\n"),
              HasSubstr("ig.yaml:9:31: instances[0].device: no device named 'boxx'"));
  EXPECT_THAT(error(device + "instances: [{name: s, device: box, count: 2}]\nlinks: [{name: eth}]\n"
                             "edges:\n  - {ep1: {instance: 's[0]', component: 'nic[3]'}, "
                             "ep2: {instance: 's[1]', component: nic}, link: eth}\n"),
              HasSubstr("'nic' is out of range: 'nic' has 1 components"));
  EXPECT_THAT(error(device + "instances: [{name: s, device: box, count: 2}]\n"
                             "edges:\n  - {ep1: {instance: 's[0:2]', component: nic}, "
                             "ep2: {instance: 's[1]', component: nic}, link: eth}\n"),
              HasSubstr("edges[0].link: no link named 'eth' is defined"));
  EXPECT_THAT(error(device + "instances: [{name: s, device: box, count: 2}]\nlinks: [{name: eth}]\n"
                             "edges:\n  - {ep1: {instance: 's[0:2]', component: nic}, "
                             "ep2: {instance: 's[1]', component: nic}, link: eth}\n"),
              HasSubstr("one2one needs endpoints of equal length, got 2 and 1"));
  EXPECT_THAT(error(device + "instances: [{name: s, device: box, count: 2}]\nlinks: [{name: eth}]\n"
                             "edges:\n  - {ep1: {instance: 's[1]', component: nic}, "
                             "ep2: {instance: 's[1]', component: nic}, link: eth}\n"),
              HasSubstr("ig.yaml:12:5: edges[0]: the edge joins 's.1.nic.0' to itself; an edge joins two different "
                        "endpoints"));
  EXPECT_THAT(error(device + "instances: [{name: s, device: box, count: 2}]\n"
                             "links: [{name: eth, physical: {bandwidth: {gigabits_per_second: -400}}}]\n"
                             "edges:\n  - {ep1: {instance: 's[0]', component: nic}, "
                             "ep2: {instance: 's[1]', component: nic}, link: eth}\n"),
              HasSubstr("ig.yaml:10:65: links[0].physical.bandwidth.gigabits_per_second: "));
  EXPECT_THAT(error(device + "instances: [{name: s, device: box, count: 2000000000}]\n"),
              HasSubstr("ig.yaml:9:43: instances[0].count: 2000000000 instances x 3 components of device 'box' exceed "
                        "the 4294967294 endpoints Loom's 32-bit node ids can name"));
  EXPECT_THAT(error(device + "instances: [{name: s, device: box, count: 5000000000}]\n"),
              HasSubstr("ig.yaml:9:43: instances[0].count: 5000000000 is more than Loom's 32-bit node ids can name; "
                        "expected below 4294967295"));
  // Fits the ids, not the memory: refused before anything is built, naming the estimate.
  EXPECT_THAT(error(device + "instances: [{name: s, device: box, count: 1000000000}]\n"),
              AllOf(HasSubstr("ig.yaml:9:43: instances[0].count: needs about"),
                    HasSubstr("for 3e+09 topology endpoints, more than the memory budget of")));
}

TEST(Dot, DrawsHostsAsClustersAndSwitchesByTier) {
  SingleSwitchParams p;
  p.hosts = 2;
  p.host.gpus_per_host = 2;
  std::ostringstream out;
  write_dot(make_single_switch(p), out);
  const std::string dot = out.str();
  EXPECT_THAT(dot, HasSubstr("graph loom {"));
  EXPECT_THAT(dot, HasSubstr("subgraph cluster_host_1 {"));
  EXPECT_THAT(dot, HasSubstr("\"host.1.nic.1\" -- \"switch.0\" [label=\"400Gbps\""));
  EXPECT_THAT(dot, HasSubstr("{ rank=same; \"switch.0\""));
  EXPECT_EQ(std::count(dot.begin(), dot.end(), '\n'), 1 + 2 + 2 * (2 + 5 + 1) + 1 + 12 + 1);
}

}  // namespace
}  // namespace loom::topology
