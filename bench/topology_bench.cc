// Topology at scale: generating three-tier Clos fabrics and building their routing tables.
//
// Scenarios (hosts x 8 GPUs, one 400 Gbit/s NIC per GPU, non-blocking):
//   small   512 hosts,  4,096 GPUs, radix 64
//   large   4,096 hosts, 32,768 GPUs, radix 64  (the target: <= 5 s, <= 2 GiB)
//   huge    16,384 hosts, 131,072 GPUs, radix 128
// Benchmarks per scenario: clos_build (generate the Topology), routing_build (Routing over an
// already built Topology) and route (route() between random GPU pairs of different hosts).
// Counters: bytes_per_node and bytes_per_link of the Topology, table_bytes_per_entry (one
// entry = one (destination group, fabric switch) pair) and routing_bytes_per_entry (all the
// Routing holds divided by the entries), groups, and peak_rss_MiB of the process so far.
// Baseline: routing_build_per_gpu builds the table layout of the first Routing (one byte per
// (GPU destination, node), one full search per GPU) on the small scenario, the candidate being
// routing_build on the same scenario.
#include <sys/resource.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "bench_registry.h"
#include "loom/core/random.h"
#include "loom/topology/clos.h"
#include "loom/topology/routing.h"

namespace loom::bench {
namespace {

using topology::ClosParams;
using topology::LinkId;
using topology::NodeId;
using topology::Routing;
using topology::Topology;

struct Scenario {
  const char* name;
  std::uint32_t hosts;
  std::uint32_t radix;
};
constexpr Scenario kScenarios[] = {{"small", 512, 64}, {"large", 4096, 64}, {"huge", 16384, 128}};

ClosParams params_of(const Scenario& s) {
  ClosParams p;
  p.hosts = s.hosts;
  p.radix = s.radix;
  p.tiers = 3;
  return p;
}

double peak_rss_mib() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_maxrss) / 1024.0;  // ru_maxrss is in KiB on Linux
}

// Bytes per node of a Topology, estimated from what it stores per node (the class does not
// expose its capacities): the Node, three 32-bit rank/NIC/index slots, the adjacency slice
// header, the name index (at most two slots) and names longer than the small-string buffer.
double bytes_per_node(const Topology& t) {
  double bytes = static_cast<double>(t.node_count()) * (sizeof(topology::Node) + 3 * 4 + 12 + 8);
  for (NodeId v = 0; v < t.node_count(); ++v) {
    if (t.node(v).name.size() > 15) bytes += static_cast<double>(t.node(v).name.size() + 1);
  }
  return bytes / t.node_count();
}

void add_topology_counters(benchmark::State& state, const Topology& t) {
  state.counters["nodes"] = t.node_count();
  state.counters["links"] = t.link_count();
  state.counters["bytes_per_node"] = bytes_per_node(t);
  // The Link plus its slot in the adjacency pool (which holds up to twice the links).
  state.counters["bytes_per_link"] =
      static_cast<double>(sizeof(topology::Link) + 2 * sizeof(LinkId));
  state.counters["peak_rss_MiB"] = peak_rss_mib();
}

void add_routing_counters(benchmark::State& state, const Routing& r) {
  const double entries = static_cast<double>(r.group_count()) * r.fabric_switch_count();
  state.counters["groups"] = r.group_count();
  state.counters["fabric_switches"] = r.fabric_switch_count();
  state.counters["table_MiB"] = static_cast<double>(r.table_bytes()) / (1 << 20);
  state.counters["table_bytes_per_entry"] = static_cast<double>(r.table_bytes()) / entries;
  state.counters["routing_bytes_per_entry"] = static_cast<double>(r.memory_bytes()) / entries;
  state.counters["peak_rss_MiB"] = peak_rss_mib();
}

// The first Routing's layout: one breadth-first search per GPU destination over every node,
// GPUs not forwarding, one byte per (GPU, node).
std::vector<std::uint8_t> per_gpu_tables(const Topology& t) {
  const std::size_t n = t.node_count();
  std::vector<std::uint8_t> table(static_cast<std::size_t>(t.gpu_count()) * n, 0xff);
  std::vector<NodeId> queue;
  for (std::uint32_t rank = 0; rank < t.gpu_count(); ++rank) {
    std::uint8_t* dist = table.data() + rank * n;
    queue.assign(1, t.gpu_node(rank));
    dist[queue[0]] = 0;
    for (std::size_t head = 0; head < queue.size(); ++head) {
      const NodeId v = queue[head];
      if (head > 0 && !topology::forwards(t.node(v).kind)) continue;
      for (LinkId l : t.out_links(v)) {
        const NodeId u = t.link(l).dst;
        if (dist[u] != 0xff) continue;
        dist[u] = static_cast<std::uint8_t>(dist[v] + 1);
        queue.push_back(u);
      }
    }
  }
  return table;
}

void register_scenario(Registry& registry, const Scenario& s) {
  const std::string suffix = fmt::format("{}/{}", s.name, s.hosts * 8);
  registry
      .add("topology/clos_build/" + suffix,
           [s](benchmark::State& state) {
             for (auto _ : state) {
               const Topology t = topology::make_clos(params_of(s));
               benchmark::DoNotOptimize(t.link_count());
               state.PauseTiming();
               add_topology_counters(state, t);
               state.ResumeTiming();
             }
             state.SetItemsProcessed(state.iterations() * std::int64_t{s.hosts} * 8);
           })
      ->Unit(benchmark::kMillisecond)
      ->Iterations(1);
  registry
      .add("topology/routing_build/" + suffix,
           [s](benchmark::State& state) {
             const Topology t = topology::make_clos(params_of(s));
             for (auto _ : state) {
               const Routing r(t);
               benchmark::DoNotOptimize(r.table_bytes());
               state.PauseTiming();
               add_routing_counters(state, r);
               state.ResumeTiming();
             }
             state.SetItemsProcessed(state.iterations() * std::int64_t{s.hosts} * 8);
           })
      ->Unit(benchmark::kMillisecond)
      ->Iterations(s.hosts > 4096 ? 1 : 3);
  registry
      .add("topology/route/" + suffix,
           [s](benchmark::State& state) {
             const Topology t = topology::make_clos(params_of(s));
             const Routing r(t);
             RandomStream rng(1, "route");
             std::vector<LinkId> path;
             const std::uint32_t gpus = t.gpu_count();
             for (auto _ : state) {
               const std::uint32_t a = static_cast<std::uint32_t>(rng.next() % gpus);
               const std::uint32_t b = (a + 8 + static_cast<std::uint32_t>(rng.next() % (gpus - 8))) % gpus;
               path.clear();
               r.route(t.gpu_node(a), t.gpu_node(b), rng.next(), path);
               benchmark::DoNotOptimize(path.data());
             }
             state.SetItemsProcessed(state.iterations());
           })
      ->Unit(benchmark::kMicrosecond);
}

}  // namespace

void register_topology_benchmarks(Registry& registry) {
  for (const Scenario& s : kScenarios) register_scenario(registry, s);
  const Scenario& small = kScenarios[0];
  registry
      .add("topology/routing_build_per_gpu/small/4096",
           [small](benchmark::State& state) {
             const Topology t = topology::make_clos(params_of(small));
             for (auto _ : state) {
               const std::vector<std::uint8_t> table = per_gpu_tables(t);
               benchmark::DoNotOptimize(table.data());
               state.counters["table_MiB"] = static_cast<double>(table.size()) / (1 << 20);
             }
             state.SetItemsProcessed(state.iterations() * std::int64_t{small.hosts} * 8);
           })
      ->Unit(benchmark::kMillisecond)
      ->Iterations(1);
  registry.add_ratio("routing build, grouped tables vs per-GPU tables (4,096 GPUs)",
                     "topology/routing_build/small/4096",
                     "topology/routing_build_per_gpu/small/4096");
}

}  // namespace loom::bench
