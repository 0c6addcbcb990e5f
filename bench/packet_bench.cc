// The packet-level fabric on the scenarios of issue 7, single thread:
//  - incast60: HPCC's 320-host fat-tree (20 ToR, 20 aggregation, 16 core; 100 Gb/s host
//    links, 400 Gb/s fabric links, 1 us each), 60 senders x 500 KB to host 0, as in the ns-3
//    fixture (read from shared/fixtures/hpcc when present, so the inputs are identical);
//  - permutation_k8: a k = 8 fat-tree (128 hosts, 100 Gb/s, 1 us links), host i sends 2 MB to
//    host (i + 64) mod 128 (every flow crosses the core).
//  - long_incast8: 8 hosts x 50 MB into one on a 100 Gb/s star (1 us links, Loom's default
//    parameters, window on), long enough to
//    reach a steady state, run in full and with packet fast-forward (network/packet/
//    fastforward); the ratio printed is fast-forward's speed-up in data-packet hops per second
//    (credited hops count as hops), and completion_ms_sum shows the FCTs agree.
// Also (network/packet/parallel/README.md): pdes_profile/* profiles serial runs as windows over
// LPs would split them, and windowed/websearch30_fat320/* runs that load serially and with the
// windowed executor on one thread over an LP per node and over the five pods, and on 1, 2 and 4
// threads over 20 racks (items: events per second of wall time), printing the executor's cost
// and the threads' speed-up as ratios (bench/run_windowed_threads.sh);
// windowed/websearch30_fat320_3ms/* does the same with flows starting for 3 ms instead of
// 500 us (a few seconds serial, long enough to time threads), serially and over the racks.
// Each for DCQCN and HPCC. Items are data-packet hops (a data packet crossing one link), the
// unit in which ns-3's speed is quoted (0.2-0.4 M/s for HPCC's ns-3 on these machines).
// Counters: events/s, hops/s, bytes per in-flight packet and per QP, fabric heap at the end,
// the process's peak RSS, and a fingerprint of the results (ECN marks, CNPs, PAUSE frames,
// the sum of completion times) for checking that a speed-up changed nothing.
// Figures measured (and the before/after comparison of the event-queue and prefetch work):
// src/loom/network/packet/README.md, "Speed".
#include <sys/resource.h>

#include <chrono>
#include <cmath>
#include <thread>

#include <array>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "bench_registry.h"
#include "loom/core/random.h"
#include "loom/core/simulator.h"
#include "loom/hpcc/hpcc_inputs.h"
#include "loom/network/packet/packet_backend.h"
#include "loom/network/packet/parallel/window_barrier.h"
#include "loom/network/packet/parallel/window_profiler.h"
#include "loom/network/packet/parallel/windowed_executor.h"
#include "loom/topology/routing.h"

namespace loom::bench {
namespace {

using network::packet::CcKind;
using network::packet::PacketParams;

struct Scenario {
  topology::Topology topology;
  std::vector<std::pair<topology::NodeId, topology::NodeId>> flows;
  Bytes bytes = 0;
  bool loom_window = false;  // Loom's default window (on) for every CC; else on for HPCC only
};

topology::Topology fat_tree_k8() {
  constexpr std::uint32_t k = 8;
  topology::Topology t;
  std::vector<topology::NodeId> hosts, edges, aggs, cores;
  for (std::uint32_t h = 0; h < k * k * k / 4; ++h) {
    hosts.push_back(t.add_node(topology::NodeKind::kGpu, fmt::format("host.{}.gpu.0", h), h));
  }
  for (std::uint32_t i = 0; i < k * k / 2; ++i) edges.push_back(t.add_node(topology::NodeKind::kSwitch, fmt::format("edge.{}", i)));
  for (std::uint32_t i = 0; i < k * k / 2; ++i) aggs.push_back(t.add_node(topology::NodeKind::kSwitch, fmt::format("agg.{}", i), topology::kNone, 1));
  for (std::uint32_t i = 0; i < k * k / 4; ++i) cores.push_back(t.add_node(topology::NodeKind::kSwitch, fmt::format("core.{}", i), topology::kNone, 2));
  const Bandwidth bw = Bandwidth::gbps(100);
  const Time latency = Time::us(1);
  for (std::uint32_t h = 0; h < hosts.size(); ++h) t.add_duplex_link(hosts[h], edges[h / (k / 2)], bw, latency);
  for (std::uint32_t pod = 0; pod < k; ++pod) {
    for (std::uint32_t e = 0; e < k / 2; ++e) {
      for (std::uint32_t a = 0; a < k / 2; ++a) t.add_duplex_link(edges[pod * k / 2 + e], aggs[pod * k / 2 + a], bw, latency);
    }
    for (std::uint32_t a = 0; a < k / 2; ++a) {
      for (std::uint32_t c = 0; c < k / 2; ++c) t.add_duplex_link(aggs[pod * k / 2 + a], cores[a * k / 2 + c], bw, latency);
    }
  }
  return t;
}

Scenario long_incast8() {
  Scenario s;
  const auto hub = s.topology.add_node(topology::NodeKind::kSwitch, "switch.0");
  std::vector<topology::NodeId> hosts;
  for (std::uint32_t h = 0; h < 9; ++h) {
    hosts.push_back(s.topology.add_node(topology::NodeKind::kGpu, fmt::format("host.{}.gpu.0", h), h));
    s.topology.add_duplex_link(hosts.back(), hub, Bandwidth::gbps(100), Time::us(1));
  }
  for (std::uint32_t h = 1; h < 9; ++h) s.flows.emplace_back(hosts[h], hosts[0]);
  s.bytes = 50'000'000;
  s.loom_window = true;
  return s;
}

Scenario permutation() {
  Scenario s;
  s.topology = fat_tree_k8();
  const std::uint32_t n = s.topology.gpu_count();
  for (std::uint32_t i = 0; i < n; ++i) s.flows.emplace_back(s.topology.gpu_node(i), s.topology.gpu_node((i + n / 2) % n));
  s.bytes = 2'000'000;
  return s;
}

// The fixture's fat-tree and flows; empty when the fixture is not beside the checkout.
Scenario incast60() {
  Scenario s;
  const std::filesystem::path dir = std::filesystem::path(LOOM_FIXTURES_DIR) / "hpcc/inputs/fat320";
  if (!std::filesystem::exists(dir / "fat.txt")) return s;
  s.topology = hpcc::parse_hpcc_topology(
      hpcc::read_text_file((dir / "fat.txt").string(), "topology"), "fat.txt");
  for (const auto& f : hpcc::parse_hpcc_flows(
           hpcc::read_text_file((dir / "incast60_fat320.txt").string(), "flows"),
           "incast60_fat320.txt", s.topology)) {
    s.flows.emplace_back(f.src, f.dst);
  }
  s.bytes = 500'000;
  return s;
}

// Counts completions and sums their times: with the fabric's counters, a fingerprint of the
// run that shows whether a change to the hot path kept results bit-identical.
struct Counter final : network::CompletionHandler {
  explicit Counter(const Simulator& clock) : simulator(clock) {}
  void on_transfer_complete(std::uint64_t) override {
    ++done;
    completion_ps += static_cast<std::uint64_t>(simulator.now().picoseconds());
  }
  const Simulator& simulator;
  std::uint64_t done = 0;
  std::uint64_t completion_ps = 0;
};

void run(benchmark::State& state, const Scenario& scenario, CcKind kind, bool fast_forward = false) {
  if (scenario.flows.empty()) {
    state.SkipWithError("fixture shared/fixtures/hpcc/inputs/fat320 not found");
    return;
  }
  PacketParams params;
  params.cc.kind = kind;
  params.nic.window = scenario.loom_window || kind == CcKind::kHpcc;
  params.fast_forward.enabled = fast_forward;
  const topology::Routing routing(scenario.topology);
  std::uint64_t hops = 0, events = 0;
  std::size_t heap = 0;
  network::packet::FabricCounters last{};
  std::uint64_t completion_ps = 0;
  for (auto _ : state) {
    Simulator simulator;
    network::packet::PacketBackend backend(simulator, scenario.topology, routing, params);
    Counter counter(simulator);
    for (std::size_t i = 0; i < scenario.flows.size(); ++i) {
      backend.start({scenario.flows[i].first, scenario.flows[i].second, scenario.bytes, i}, counter, i);
    }
    simulator.run();
    if (counter.done != scenario.flows.size()) state.SkipWithError("transfers did not complete");
    hops += backend.fabric().counters().data_packet_hops;
    events += simulator.events_processed();
    heap = backend.fabric().memory_bytes();
    last = backend.fabric().counters();
    completion_ps = counter.completion_ps;
  }
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  state.SetItemsProcessed(static_cast<std::int64_t>(hops));
  state.counters["events_per_s"] = benchmark::Counter(static_cast<double>(events), benchmark::Counter::kIsRate);
  state.counters["events_per_run"] = static_cast<double>(events) / static_cast<double>(state.iterations());
  state.counters["events_per_hop"] = static_cast<double>(events) / static_cast<double>(hops);
  state.counters["bytes_per_packet"] = static_cast<double>(network::packet::Fabric::bytes_per_packet());
  state.counters["bytes_per_qp"] = static_cast<double>(network::packet::Fabric::bytes_per_qp());
  state.counters["fabric_heap_MiB"] = static_cast<double>(heap) / (1 << 20);
  state.counters["peak_rss_MiB"] = static_cast<double>(usage.ru_maxrss) / 1024;
  // The fingerprint of the last iteration (every iteration is the same run).
  state.counters["ecn_marks"] = static_cast<double>(last.ecn_marks);
  state.counters["cnps"] = static_cast<double>(last.cnps);
  state.counters["pauses"] = static_cast<double>(last.pauses);
  state.counters["completion_ms_sum"] = static_cast<double>(completion_ps) / 1e9;
}

// Wall time of one round of the 2-thread WindowBarrier the executor ends each window with, over
// 20,000 rounds.
double barrier_round_seconds() {
  constexpr int kRounds = 20'000;
  network::packet::parallel::WindowBarrier sync(2);
  const auto nothing = [] {};
  const auto start = std::chrono::steady_clock::now();
  std::thread other([&] {
    for (int i = 0; i < kRounds; ++i) sync.arrive_and_wait(nothing);
  });
  for (int i = 0; i < kRounds; ++i) sync.arrive_and_wait(nothing);
  other.join();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() / kRounds;
}

// Flows that start over time: (start, src, dst, bytes).
struct TimedFlow {
  Time start;
  topology::NodeId src = 0, dst = 0;
  Bytes bytes = 0;
};
struct Load {
  const topology::Topology* topology = nullptr;
  std::vector<TimedFlow> flows;
};

Load at_time_zero(const Scenario& s) {
  Load load{&s.topology, {}};
  for (const auto& [src, dst] : s.flows) load.flows.push_back({Time::zero(), src, dst, s.bytes});
  return load;
}

// A WebSearch-like load on the HPCC fixture's 320-host fat-tree: every host starts flows to
// uniformly drawn other hosts at Poisson times for `duration`, sizes from the web-search flow-size
// CDF (DCTCP, as HPCC's traffic generator ships it: 15% up to 10 kB, median about 80 kB, 3% over
// 10 MB, largest 30 MB), at a rate giving 30% of each 100 Gb/s host link on average. Seeded.
Load websearch30(const Scenario& fat, Time duration = Time::us(500)) {
  static constexpr std::array<std::pair<double, double>, 12> kCdf = {{{0, 0},
                                                                      {10'000, 0.15},
                                                                      {20'000, 0.2},
                                                                      {30'000, 0.3},
                                                                      {50'000, 0.4},
                                                                      {80'000, 0.53},
                                                                      {200'000, 0.6},
                                                                      {1'000'000, 0.7},
                                                                      {2'000'000, 0.8},
                                                                      {5'000'000, 0.9},
                                                                      {10'000'000, 0.97},
                                                                      {30'000'000, 1}}};
  Load load{&fat.topology, {}};
  if (fat.flows.empty()) return load;
  double mean = 0;  // of the piecewise-uniform distribution
  for (std::size_t i = 1; i < kCdf.size(); ++i) mean += (kCdf[i].second - kCdf[i - 1].second) * (kCdf[i].first + kCdf[i - 1].first) / 2;
  const double gap_s = mean * 8 / (0.3 * 100e9);  // mean time between a host's flow starts
  RandomStream random(1, "websearch30");
  const std::uint32_t hosts = fat.topology.gpu_count();
  for (std::uint32_t h = 0; h < hosts; ++h) {
    for (double t = random.exponential(gap_s); t < duration.seconds(); t += random.exponential(gap_s)) {
      const double u = random.uniform();
      std::size_t i = 1;
      while (kCdf[i].second < u) ++i;
      const double f = (u - kCdf[i - 1].second) / (kCdf[i].second - kCdf[i - 1].second);
      const auto bytes = static_cast<Bytes>(std::max(1.0, kCdf[i - 1].first + f * (kCdf[i].first - kCdf[i - 1].first)));
      auto dst = static_cast<std::uint32_t>(random.uniform_int(0, hosts - 2));
      if (dst >= h) ++dst;
      load.flows.push_back({Time::ps(static_cast<std::int64_t>(t * 1e12)), fat.topology.gpu_node(h),
                            fat.topology.gpu_node(dst), bytes});
    }
  }
  return load;
}

// Starts the flows of a Load at their times.
struct Starter {
  void start_next() {
    const TimedFlow& f = load->flows[next];
    backend->start({f.src, f.dst, f.bytes, next}, *handler, next);
    ++next;
  }
  const Load* load = nullptr;
  network::packet::PacketBackend* backend = nullptr;
  network::CompletionHandler* handler = nullptr;
  std::uint64_t next = 0;
};

// False (and the benchmark skipped) when the fixture the load comes from is absent.
bool has_flows(benchmark::State& state, const Load& load) {
  if (load.flows.empty()) state.SkipWithError("fixture shared/fixtures/hpcc/inputs/fat320 not found");
  return !load.flows.empty();
}

// Every node its own LP, except a host's GPU and NIC (a zero-delay cable in HPCC topologies).
network::packet::parallel::LpPartition lps_of(const Load& load) {
  return network::packet::parallel::partition_by_delay(*load.topology, Time::ps(1));
}

// The run profiled as window-synchronous parallel execution would split it (network/packet/
// parallel/README.md): every node its own LP, except that a host's GPU and NIC (a zero-delay
// cable in HPCC topologies) share one. Counters: windows, packets handed between LPs, and per
// thread count P the span bound (events / span: the speed-up with free synchronisation), the
// placement's imbalance and the model's predicted speed-up
//   S(P) = W c_e / (span_P c_e + R c_sync log2(P) + X c_e / P)
// with c_e the serial run's wall time per event, c_sync a 2-thread WindowBarrier round measured here,
// W events, R windows, X cross-LP packets.
void profile_windows(benchmark::State& state, const Load& load, CcKind kind, bool window) {
  if (!has_flows(state, load)) return;
  PacketParams params;
  params.cc.kind = kind;
  params.nic.window = window || kind == CcKind::kHpcc;
  const topology::Routing routing(*load.topology);
  const network::packet::parallel::LpPartition lps = lps_of(load);
  constexpr std::array<std::uint32_t, 5> kThreads = {1, 2, 16, 64, 256};
  network::packet::parallel::WindowProfile profile;
  double seconds = 0;
  for (auto _ : state) {
    Simulator simulator;
    network::packet::PacketBackend backend(simulator, *load.topology, routing, params);
    Counter counter(simulator);
    Starter starter{&load, &backend, &counter};
    network::packet::parallel::WindowProfiler profiler(simulator, backend.fabric(), lps);
    for (const TimedFlow& f : load.flows) {
      simulator.post_at(f.start, [](void* s, std::uint64_t) { static_cast<Starter*>(s)->start_next(); }, &starter);
    }
    const auto start = std::chrono::steady_clock::now();
    simulator.run();
    seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    profile = profiler.finish(kThreads);
    if (counter.done != load.flows.size()) state.SkipWithError("transfers did not complete");
  }
  const double c_sync = barrier_round_seconds();
  const double w = static_cast<double>(profile.events), c_e = seconds / w;
  state.counters["flows"] = static_cast<double>(load.flows.size());
  state.counters["events"] = w;
  state.counters["lps"] = profile.lps;
  state.counters["lookahead_ns"] = static_cast<double>(profile.lookahead.picoseconds()) / 1e3;
  state.counters["windows"] = static_cast<double>(profile.windows);
  state.counters["events_per_window"] = w / static_cast<double>(profile.windows);
  state.counters["busiest_lp_share"] = static_cast<double>(profile.busiest_lp) / w;
  state.counters["cross_lp_per_event"] = static_cast<double>(profile.cross_lp) / w;
  state.counters["serial_share"] = static_cast<double>(profile.serial) / w;
  state.counters["ns_per_event"] = c_e * 1e9;
  state.counters["barrier_ns"] = c_sync * 1e9;
  for (const network::packet::parallel::ThreadSplit& split : profile.splits) {
    if (split.threads == 1) continue;
    const double p = split.threads;
    const double parallel = static_cast<double>(split.balanced.span) * c_e + static_cast<double>(profile.windows) * c_sync * std::log2(p) +
                            static_cast<double>(profile.cross_lp) * c_e / p;
    state.counters[fmt::format("bound_{}", split.threads)] = w / static_cast<double>(split.balanced.span);
    state.counters[fmt::format("imbalance_{}", split.threads)] = split.balanced.imbalance;
    state.counters[fmt::format("rr_imbalance_{}", split.threads)] = split.round_robin.imbalance;
    state.counters[fmt::format("predicted_{}", split.threads)] = w * c_e / parallel;
  }
}

// The same load run serially and by the windowed executor on one thread (network/packet/
// parallel/windowed_executor.h, LPs as profile_windows's), with the flows as queue pairs of a
// driver of their own (the executor runs fixed lists of flows; a transfer's completion would
// call back into the runtime). The outputs are the same (the fingerprint counters show it); the
// ratio of the two is the executor's own cost on one thread: per-LP queues, window ends and
// handing events to other LPs' queues, what threads have to win back.
class QpStarter final : public network::packet::FabricListener {
 public:
  QpStarter(const Load& load, const topology::Routing& routing, network::packet::PacketBackend& backend)
      : load_(load), routing_(routing), backend_(backend) {}
  void start(std::uint64_t index) {
    const TimedFlow& f = load_.flows[index];
    forward_.clear();
    reverse_.clear();
    routing_.route(f.src, f.dst, index, forward_);
    routing_.route(f.dst, f.src, index, reverse_);
    network::packet::QpSpec spec;
    spec.forward = forward_;
    spec.reverse = reverse_;
    spec.bytes = f.bytes;
    spec.tag = index;
    backend_.start_queue_pair(spec, *this);
  }
  std::size_t done = 0;

 private:
  void on_qp_delivered(network::packet::QpId, std::uint64_t) override {}
  void on_qp_acked(network::packet::QpId, std::uint64_t) override { ++done; }
  const Load& load_;
  const topology::Routing& routing_;
  network::packet::PacketBackend& backend_;
  std::vector<topology::LinkId> forward_, reverse_;
};

double user_seconds() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_utime.tv_sec) + static_cast<double>(usage.ru_utime.tv_usec) * 1e-6;
}

// The fixture's five pods (4 ToRs, 4 aggregation switches, 64 hosts each, in ns-3's node
// numbering) as LPs, the 16 cores shared out over the first four: LPs of the size a thread
// would own, still with the 1 us lookahead.
network::packet::parallel::LpPartition pods_of(const Load& load) {
  std::vector<std::uint32_t> pod(load.topology->node_count());
  for (std::uint32_t n = 0; n < pod.size(); ++n) pod[n] = n < 320 ? n / 64 : (n - 320) % 20 / 4;
  return network::packet::parallel::partition_explicitly(*load.topology, pod);
}

// Twenty LPs of the size two or four threads share out evenly: a ToR with its 16 hosts, the
// aggregation switch of the same number in its pod, and one core each for the first 16.
network::packet::parallel::LpPartition racks_of(const Load& load) {
  std::vector<std::uint32_t> rack(load.topology->node_count());
  for (std::uint32_t n = 0; n < rack.size(); ++n) rack[n] = n < 320 ? n / 16 : (n - 320) % 20;
  return network::packet::parallel::partition_explicitly(*load.topology, rack);
}

enum class Lps { kNone, kNodes, kPods, kRacks };

double wall_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

void windowed_run(benchmark::State& state, const Load& load, CcKind kind, Lps partition, std::uint32_t threads) {
  if (!has_flows(state, load)) return;
  if (load.topology->node_count() != 376) {
    state.SkipWithError("expected the fat320 fixture's 376 nodes");
    return;
  }
  PacketParams params;
  params.cc.kind = kind;
  params.nic.window = true;
  const topology::Routing routing(*load.topology);
  const network::packet::parallel::LpPartition lps =
      partition == Lps::kPods ? pods_of(load) : partition == Lps::kRacks ? racks_of(load) : lps_of(load);
  const bool windowed = partition != Lps::kNone;
  std::uint64_t events = 0, windows = 0, handed_over = 0, rebalances = 0;
  double user = 0, wall = 0, imbalance = 1;
  network::packet::FabricCounters last;
  for (auto _ : state) {
    Simulator simulator;
    network::packet::PacketBackend backend(simulator, *load.topology, routing, params);
    std::optional<network::packet::parallel::WindowedExecutor> executor;
    if (windowed) executor.emplace(simulator, backend.fabric(), lps, threads);
    QpStarter starter(load, routing, backend);
    for (std::size_t i = 0; i < load.flows.size(); ++i) {
      simulator.schedule_at<&QpStarter::start>(load.flows[i].start, &starter, i);
    }
    const double before = user_seconds(), wall_before = wall_seconds();
    if (executor) {
      executor->run_until(Time::max());
      events = executor->events_processed();
      const network::packet::parallel::WindowStats stats = executor->stats();
      windows = stats.windows;
      handed_over = stats.handed_over;
      imbalance = stats.window_imbalance;
      rebalances = stats.rebalances;
    } else {
      simulator.run();
      events = simulator.events_processed();
    }
    user += user_seconds() - before;
    wall += wall_seconds() - wall_before;
    last = backend.fabric().counters();
    if (starter.done != load.flows.size()) state.SkipWithError("flows did not complete");
  }
  const double runs = static_cast<double>(state.iterations());
  state.SetItemsProcessed(static_cast<std::int64_t>(events) * state.iterations());
  state.counters["events"] = static_cast<double>(events);
  state.counters["windows"] = static_cast<double>(windows);
  state.counters["handed_over"] = static_cast<double>(handed_over);
  state.counters["lps"] = windowed ? lps.lp_count : 1;
  state.counters["user_s"] = user / runs;
  state.counters["wall_s"] = wall / runs;
  state.counters["threads"] = threads;
  state.counters["window_imbalance"] = imbalance;
  state.counters["rebalances"] = static_cast<double>(rebalances);
  state.counters["ns_per_event"] = user / runs / static_cast<double>(events) * 1e9;
  state.counters["ecn_marks"] = static_cast<double>(last.ecn_marks);
  state.counters["data_packet_hops"] = static_cast<double>(last.data_packet_hops);
}

}  // namespace

void register_packet_benchmarks(Registry& registry) {
  static const Scenario incast = incast60();
  static const Scenario perm = permutation();
  static const Scenario long_incast = long_incast8();
  for (const auto& [name, kind] : {std::pair{"dcqcn", CcKind::kDcqcn}, std::pair{"hpcc", CcKind::kHpcc}}) {
    const CcKind k = kind;
    registry.add(fmt::format("packet/incast60/{}", name), [k](benchmark::State& s) { run(s, incast, k); })
        ->Unit(benchmark::kMillisecond);
    registry.add(fmt::format("packet/permutation_k8/{}", name), [k](benchmark::State& s) { run(s, perm, k); })
        ->Unit(benchmark::kMillisecond);
    const std::string full = fmt::format("packet/long_incast8/{}", name);
    registry.add(full, [k](benchmark::State& s) { run(s, long_incast, k); })->Unit(benchmark::kMillisecond);
    registry.add(full + "/fast_forward", [k](benchmark::State& s) { run(s, long_incast, k, true); })
        ->Unit(benchmark::kMillisecond);
    registry.add_ratio(fmt::format("packet fast-forward speed-up, 8 x 50 MB incast, {}", name), full + "/fast_forward", full);
    registry.add(fmt::format("packet/pdes_profile/incast60/{}", name),
                 [k](benchmark::State& s) { profile_windows(s, at_time_zero(incast), k, incast.loom_window); })
        ->Unit(benchmark::kMillisecond)
        ->Iterations(1);
    registry.add(fmt::format("packet/pdes_profile/permutation_k8/{}", name),
                 [k](benchmark::State& s) { profile_windows(s, at_time_zero(perm), k, perm.loom_window); })
        ->Unit(benchmark::kMillisecond)
        ->Iterations(1);
    registry.add(fmt::format("packet/pdes_profile/websearch30_fat320/{}", name),
                 [k](benchmark::State& s) { profile_windows(s, websearch30(incast), k, true); })
        ->Unit(benchmark::kMillisecond)
        ->Iterations(1);
    const std::string windowed = fmt::format("packet/windowed/websearch30_fat320/{}/", name);
    struct Variant {
      const char* name;
      Lps lps;
      std::uint32_t threads;
    };
    for (const Variant v : {Variant{"serial", Lps::kNone, 1}, Variant{"one_thread", Lps::kNodes, 1},
                            Variant{"one_thread_pods", Lps::kPods, 1}, Variant{"racks_1_thread", Lps::kRacks, 1},
                            Variant{"racks_2_threads", Lps::kRacks, 2}, Variant{"racks_4_threads", Lps::kRacks, 4}}) {
      registry.add(windowed + v.name,
                   [k, v](benchmark::State& s) { windowed_run(s, websearch30(incast), k, v.lps, v.threads); })
          ->Unit(benchmark::kMillisecond)
          ->UseRealTime()  // threads: wall time, not the main thread's CPU time
          ->Iterations(1);
    }
    registry.add_ratio(fmt::format("packet windowed executor, 2 threads over 1 (20 racks), WebSearch fat320, {}", name),
                       windowed + "racks_2_threads", windowed + "racks_1_thread");
    registry.add_ratio(fmt::format("packet windowed executor, 2 threads over the serial run, WebSearch fat320, {}", name),
                       windowed + "racks_2_threads", windowed + "serial");
    const std::string longer = fmt::format("packet/windowed/websearch30_fat320_3ms/{}/", name);
    for (const Variant v : {Variant{"serial", Lps::kNone, 1}, Variant{"racks_1_thread", Lps::kRacks, 1},
                            Variant{"racks_2_threads", Lps::kRacks, 2}, Variant{"racks_4_threads", Lps::kRacks, 4}}) {
      registry.add(longer + v.name,
                   [k, v](benchmark::State& s) { windowed_run(s, websearch30(incast, Time::ms(3)), k, v.lps, v.threads); })
          ->Unit(benchmark::kMillisecond)
          ->UseRealTime()
          ->Iterations(1);
    }
    registry.add_ratio(fmt::format("packet windowed executor, 2 threads over the serial run, WebSearch 3 ms fat320, {}", name),
                       longer + "racks_2_threads", longer + "serial");
    for (const char* variant : {"one_thread", "one_thread_pods"}) {
      registry.add_ratio(fmt::format("packet windowed executor on one thread ({}), its cost (serial events/s over its), "
                                     "WebSearch fat320, {}", variant, name),
                         windowed + "serial", windowed + variant);
    }
  }
}

}  // namespace loom::bench
