#include "loom/network/flow/flow_backend.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <vector>

#include "loom/core/error.h"
#include "loom/core/random.h"
#include "loom/network/analytical.h"
#include "loom/network/link_sampler.h"
#include "loom/topology/blueprints.h"
#include "user_error.h"

namespace loom::network::flow {
namespace {

using namespace time_literals;
using ::testing::HasSubstr;
using topology::NodeId;

struct Recorder final : CompletionHandler {
  explicit Recorder(Simulator& s) : simulator(s) {}
  void on_transfer_complete(std::uint64_t cookie) override { done[cookie] = simulator.now(); order.push_back(cookie); }
  Simulator& simulator;
  std::map<std::uint64_t, Time> done;
  std::vector<std::uint64_t> order;
};

// A topology, its routing, a simulator, both backends and a recorder.
struct Bench {
  explicit Bench(topology::Topology t, FlowParams params = {})
      : topo(std::move(t)), routing(topo), flow(simulator, topo, routing, params),
        analytical(simulator, topo, routing), recorder(simulator) {}
  NodeId gpu(std::uint32_t rank) const { return topo.gpu_node(rank); }

  topology::Topology topo;
  topology::Routing routing;
  Simulator simulator;
  FlowBackend flow;
  AnalyticalBackend analytical;
  Recorder recorder;
};

topology::Topology two_hosts() {
  topology::SingleSwitchParams p;
  p.hosts = 2;
  return topology::make_single_switch(p);
}

// host.0.gpu.g -> host.1.gpu.0 on the single switch crosses PCIe (250 ns), the NIC (300 ns),
// the cable (500 ns), the switch (300 ns), the cable (500 ns), the NIC (300 ns) and PCIe
// (250 ns): 2.4 us of latency; the bottleneck is the 400 Gbit/s NIC port.
constexpr Time kCrossHostLatency = Time::ns(2400);

TEST(FlowBackend, LoneTransferTakesTheAnalyticalTime) {
  Bench b(two_hosts());
  const TransferRequest request{b.gpu(0), b.gpu(8), 1'000'000, 0};
  b.flow.start(request, b.recorder, 1);
  EXPECT_TRUE(b.recorder.done.empty());  // never synchronous
  b.simulator.run();
  // 1 MB at 400 Gbit/s = 20 us.
  EXPECT_EQ(b.recorder.done.at(1), kCrossHostLatency + 20_us);
  EXPECT_EQ(b.analytical.ideal_time(request), kCrossHostLatency + 20_us);
  EXPECT_EQ(b.flow.ideal_time(request), kCrossHostLatency + 20_us);
  EXPECT_EQ(b.flow.active_transfers(), 0u);
  EXPECT_EQ(b.flow.active_flows(), 0u);
}

TEST(FlowBackend, ZeroBytesTakeTheLatency) {
  Bench b(two_hosts());
  b.flow.start({b.gpu(1), b.gpu(8), 0, 5}, b.recorder, 3);
  b.simulator.run();
  EXPECT_EQ(b.recorder.done.at(3), kCrossHostLatency);
}

// Two transfers into host.1.gpu.0 share the switch -> NIC link (400 Gbit/s): A (1 MB) and
// B (3 MB) start together at 200 Gbit/s each. A drains at 8e6 bit / 2e11 bit/s = 40 us,
// when B has 2 MB left; alone at 400 Gbit/s B needs 40 us more. Deliveries add 2.4 us:
// A at 42.4 us, B at 82.4 us.
TEST(FlowBackend, TwoFlowsSharingALinkClosedForm) {
  Bench b(two_hosts());
  b.flow.start({b.gpu(0), b.gpu(8), 1'000'000, 0}, b.recorder, 10);
  b.flow.start({b.gpu(1), b.gpu(8), 3'000'000, 0}, b.recorder, 20);
  std::vector<topology::LinkId> path;
  b.routing.route(b.gpu(0), b.gpu(8), 0, path);
  b.simulator.run_until(1_us);
  EXPECT_EQ(b.flow.link_rate(path[0]), 2e11);  // host.0.gpu.0 -> host.0.nic.0: A alone
  EXPECT_EQ(b.flow.link_rate(path[2]), 4e11);  // switch.0 -> host.1.nic.0: shared
  b.simulator.run();
  EXPECT_THAT(b.recorder.order, ::testing::ElementsAre(10, 20));
  EXPECT_EQ(b.recorder.done.at(10), 42'400_ns);
  EXPECT_EQ(b.recorder.done.at(20), 82'400_ns);
}

// Incast of four 1 MB transfers into one GPU: 100 Gbit/s each, all drain at 80 us.
TEST(FlowBackend, IncastSharesTheReceiverEqually) {
  Bench b(two_hosts());
  for (std::uint32_t g = 0; g < 4; ++g) b.flow.start({b.gpu(g), b.gpu(8), 1'000'000, g}, b.recorder, g);
  b.simulator.run();
  for (std::uint64_t g = 0; g < 4; ++g) EXPECT_EQ(b.recorder.done.at(g), kCrossHostLatency + 80_us);
}

// Split over four QPs, a lone transfer still takes the analytical time: the QPs share the
// NIC port at 100 Gbit/s each and all drain at 20 us.
TEST(FlowBackend, QueuePairsDoNotSlowALoneTransfer) {
  FlowParams params;
  params.queue_pairs = 4;
  Bench b(two_hosts(), params);
  b.flow.start({b.gpu(0), b.gpu(8), 1'000'000, 9}, b.recorder, 1);
  b.simulator.run_until(1_us);
  EXPECT_EQ(b.flow.active_flows(), 4u);
  b.simulator.run();
  EXPECT_EQ(b.recorder.done.at(1), kCrossHostLatency + 20_us);
}

// With RoCEv2 headers (62 B per 4096 B packet), 1 MB needs ceil(1e6 / 4096) = 245 packets:
// 1'015'190 wire bytes, 20.3038 us at 400 Gbit/s.
TEST(FlowBackend, PacketisationAddsHeaderBytes) {
  FlowParams params;
  params.header_bytes = kRoceV2HeaderBytes;
  EXPECT_EQ(wire_bytes(params, 1'000'000), 1'015'190u);
  EXPECT_EQ(wire_bytes(params, 4096), 4158u);
  EXPECT_EQ(wire_bytes(params, 4097), 4097u + 124u);
  EXPECT_EQ(wire_bytes(params, 0), 0u);
  Bench b(two_hosts(), params);
  b.flow.start({b.gpu(0), b.gpu(8), 1'000'000, 0}, b.recorder, 1);
  b.simulator.run();
  EXPECT_EQ(b.recorder.done.at(1), kCrossHostLatency + Time::ps(20'303'800));
}

TEST(FlowBackend, RejectsInvalidParameters) {
  const topology::Topology topo = two_hosts();
  const topology::Routing routing(topo);
  Simulator simulator;
  const auto message = [&](FlowParams p) {
    try {
      FlowBackend backend(simulator, topo, routing, p);
    } catch (const UserError& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  FlowParams p;
  p.queue_pairs = 0;
  EXPECT_THAT(message(p), HasSubstr("flow backend: queue_pairs = 0: expected 1..1024"));
  p = {};
  p.mtu = 0;
  EXPECT_THAT(message(p), HasSubstr("flow backend: mtu = 0: expected at least 1 byte"));
  p = {};
  p.header_bytes = 70000;
  EXPECT_THAT(message(p), HasSubstr("flow backend: header_bytes = 70000: expected at most 65536"));
  p = {};
  p.solver_threads = 0;
  EXPECT_THAT(message(p), HasSubstr("flow backend: solver_threads = 0: expected 1..256"));
}

// A ring (rank r sends to r + 1) on the default non-blocking leaf-spine: every transfer has
// its links to itself, so flow and analytical agree (within 0.1%, here exactly).
TEST(FlowBackend, RingOnNonBlockingFabricMatchesAnalytical) {
  topology::LeafSpineParams p;
  p.hosts = 8;
  Bench b(topology::make_leaf_spine(p));
  const std::uint32_t n = b.topo.gpu_count();
  for (std::uint32_t r = 0; r < n; ++r) {
    b.flow.start({b.gpu(r), b.gpu((r + 1) % n), 16'777'216, r}, b.recorder, r);
  }
  b.simulator.run();
  for (std::uint32_t r = 0; r < n; ++r) {
    const Time expected = b.analytical.ideal_time({b.gpu(r), b.gpu((r + 1) % n), 16'777'216, r});
    const double error = std::abs((b.recorder.done.at(r) - expected).seconds()) / expected.seconds();
    EXPECT_LT(error, 1e-3) << "rank " << r;
  }
}

// The backend sums a stream's latency from per-link terms; it must be path_latency() of the
// route exactly: on a leaf-spine (NVLink, PCIe, NIC, leaf and spine hops), lone transfers
// between random pairs on random ECMP hashes finish at path_latency + serialization_time.
TEST(FlowBackend, LoneTransfersFinishAtPathLatencyPlusSerialisation) {
  topology::LeafSpineParams p;
  p.hosts = 8;
  Bench b(topology::make_leaf_spine(p));
  RandomStream random(7, "latency");
  const std::uint32_t n = b.topo.gpu_count();
  for (std::uint64_t i = 0; i < 200; ++i) {
    const std::uint32_t src = static_cast<std::uint32_t>(random.uniform_int(0, n - 1));
    const std::uint32_t dst = (src + 1 + static_cast<std::uint32_t>(random.uniform_int(0, n - 2))) % n;
    const TransferRequest request{b.gpu(src), b.gpu(dst), 1'000 + i, random.next()};
    std::vector<topology::LinkId> path;
    b.routing.route(request.src, request.dst, request.flow_hash, path);
    Bandwidth bottleneck = b.topo.link(path.front()).bandwidth;
    for (const topology::LinkId l : path) bottleneck = std::min(bottleneck, b.topo.link(l).bandwidth);
    const Time start = b.simulator.now();
    b.flow.start(request, b.recorder, i);
    b.simulator.run();
    EXPECT_EQ(b.recorder.done.at(i) - start,
              path_latency(b.topo, path) + serialization_time(request.bytes, bottleneck))
        << src << " -> " << dst;
  }
}

// Hosts 0-3 (leaf 0) send to hosts 4-7 (leaf 1), GPU g to GPU g: 32 flows of 400 Gbit/s
// over 6.4 Tbit/s of uplinks (spine links at 200 Gbit/s: 2:1 oversubscribed). Capacity alone
// says the last byte cannot leave before 32 x 8 MB / 6.4 Tbit/s = 2 x (8 MB / 400 Gbit/s).
TEST(FlowBackend, OversubscriptionMakesFlowSlowerThanAnalytical) {
  topology::LeafSpineParams p;
  p.hosts = 8;
  p.spine_link_bandwidth = Bandwidth::gbps(200);
  ASSERT_DOUBLE_EQ(topology::oversubscription(p), 2.0);
  Bench b(topology::make_leaf_spine(p));
  const Bytes bytes = 8'000'000;
  Time analytical_last;
  for (std::uint32_t r = 0; r < 32; ++r) {
    const TransferRequest request{b.gpu(r), b.gpu(r + 32), bytes, r};
    analytical_last = std::max(analytical_last, b.analytical.ideal_time(request));
    b.flow.start(request, b.recorder, r);
  }
  b.simulator.run();
  Time flow_last;
  for (const auto& [cookie, when] : b.recorder.done) flow_last = std::max(flow_last, when);
  EXPECT_GT(flow_last, analytical_last);
  EXPECT_GE(flow_last, 2 * serialization_time(bytes, Bandwidth::gbps(400)));
  for (std::uint32_t r = 0; r < 32; ++r) {
    EXPECT_GE(b.recorder.done.at(r), b.analytical.ideal_time({b.gpu(r), b.gpu(r + 32), bytes, r}));
  }
}

// Random traffic on a small, oversubscribed leaf-spine, checked as it runs and at the end.
struct RandomTraffic {
  explicit RandomTraffic(FlowParams params, std::uint64_t seed = 5) : b(fabric(), params), rng(seed, "traffic") {}
  static topology::Topology fabric() {
    topology::LeafSpineParams p;
    p.hosts = 4;
    p.host.gpus_per_host = 4;
    p.hosts_per_leaf = 2;
    p.spines = 2;
    p.links_per_pair = 1;
    return topology::make_leaf_spine(p);
  }
  // 200 transfers from random sources to random other GPUs, started in groups at 40 random
  // multiples of 5 us in [0, 200 us) (so that solves meet several components at once).
  void start_all() {
    const std::uint32_t n = b.topo.gpu_count();
    for (std::uint64_t i = 0; i < 200; ++i) {
      const auto src = static_cast<std::uint32_t>(rng.uniform_int(0, n - 1));
      const auto dst = static_cast<std::uint32_t>((src + rng.uniform_int(1, n - 1)) % n);
      requests.push_back({b.gpu(src), b.gpu(dst), rng.uniform_int(0, 2'000'000), rng.next()});
      b.simulator.schedule_at(5_us * static_cast<std::int64_t>(rng.uniform_int(0, 39)),
                              &RandomTraffic::start_one, this, i);
    }
  }
  static void start_one(void* self, std::uint64_t i) {
    auto* t = static_cast<RandomTraffic*>(self);
    t->b.flow.start(t->requests[i], t->b.recorder, i);
  }
  Bench b;
  RandomStream rng;
  std::vector<TransferRequest> requests;
};

// Every microsecond, and at the end: no link carries more than its bandwidth.
struct CapacityProbe {
  static void check(void* self, std::uint64_t) {
    auto* probe = static_cast<CapacityProbe*>(self);
    const FlowBackend& flow = probe->traffic->b.flow;
    for (topology::LinkId l = 0; l < flow.topology().link_count(); ++l) {
      const double capacity = static_cast<double>(flow.topology().link(l).bandwidth.bps());
      if (flow.link_rate(l) > capacity * (1 + 1e-12)) ++probe->violations;
      probe->busiest = std::max(probe->busiest, flow.link_rate(l) / capacity);
    }
    ++probe->checks;
    if (probe->traffic->b.recorder.done.size() < probe->traffic->requests.size()) {
      probe->traffic->b.simulator.schedule_in(1_us, &CapacityProbe::check, probe);
    }
  }
  RandomTraffic* traffic;
  int violations = 0, checks = 0;
  double busiest = 0.0;
};

TEST(FlowBackend, NoLinkOverCapacityAndBytesConserved) {
  FlowParams params;
  params.header_bytes = kRoceV2HeaderBytes;
  RandomTraffic traffic(params);
  traffic.start_all();
  CapacityProbe probe{&traffic};
  traffic.b.simulator.schedule_at(0_us, &CapacityProbe::check, &probe);
  traffic.b.simulator.run();
  EXPECT_EQ(probe.violations, 0);
  EXPECT_GT(probe.checks, 100);
  EXPECT_GT(probe.busiest, 0.999);  // some link was saturated: the test has teeth
  ASSERT_EQ(traffic.b.recorder.done.size(), 200u);

  // Every directed link carried exactly the wire bytes of the transfers routed over it.
  std::vector<double> expected(traffic.b.topo.link_count(), 0.0);
  std::vector<topology::LinkId> path;
  for (const TransferRequest& r : traffic.requests) {
    path.clear();
    traffic.b.routing.route(r.src, r.dst, r.flow_hash, path);
    for (const topology::LinkId l : path) expected[l] += static_cast<double>(wire_bytes(params, r.bytes));
  }
  std::vector<double> carried;
  traffic.b.flow.carried_bytes(carried);
  double total = 0.0;
  for (topology::LinkId l = 0; l < expected.size(); ++l) {
    EXPECT_NEAR(carried[l], expected[l], 1e-9 * expected[l] + 1.0) << "link " << l;
    total += expected[l];
  }
  EXPECT_GT(total, 1e8);
  for (topology::LinkId l = 0; l < expected.size(); ++l) EXPECT_EQ(traffic.b.flow.link_rate(l), 0.0);
}

// The same traffic with 1 and 3 solver threads (and 4 QPs) completes at identical times.
TEST(FlowBackend, SolverThreadsDoNotChangeResults) {
  FlowParams params;
  params.queue_pairs = 4;
  RandomTraffic single(params);
  params.solver_threads = 3;
  params.solver_parallel_threshold = 0;  // every solve with two or more components in parallel
  RandomTraffic parallel(params);
  single.start_all();
  parallel.start_all();
  single.b.simulator.run();
  parallel.b.simulator.run();
  EXPECT_EQ(single.b.recorder.order, parallel.b.recorder.order);
  EXPECT_EQ(single.b.recorder.done, parallel.b.recorder.done);
  EXPECT_EQ(single.b.flow.solver_stats().link_visits, parallel.b.flow.solver_stats().link_visits);
  EXPECT_EQ(single.b.flow.solver_stats().parallel_solves, 0u);
  EXPECT_GT(parallel.b.flow.solver_stats().parallel_solves, 10u);
}

TEST(FlowBackend, RecordsFlowsWhenAsked) {
  FlowParams params;
  params.record_flows = true;
  Bench b(two_hosts(), params);
  b.flow.start({b.gpu(0), b.gpu(8), 1'000'000, 0}, b.recorder, 10);
  b.flow.start({b.gpu(1), b.gpu(8), 3'000'000, 0}, b.recorder, 20);
  b.simulator.run();
  ASSERT_EQ(b.flow.flow_records().size(), 2u);
  const FlowRecord& a = b.flow.flow_records()[0];
  EXPECT_EQ(a.src, b.gpu(0));
  EXPECT_EQ(a.dst, b.gpu(8));
  EXPECT_EQ(a.bytes, 1'000'000u);
  EXPECT_EQ(a.start, 0_us);
  EXPECT_EQ(a.finish, 42'400_ns);
  EXPECT_EQ(a.ideal, kCrossHostLatency + 20_us);
  EXPECT_EQ(b.flow.flow_records()[1].ideal, kCrossHostLatency + 60_us);
  b.flow.clear_flow_records();
  EXPECT_TRUE(b.flow.flow_records().empty());

  Bench quiet(two_hosts());
  quiet.flow.start({quiet.gpu(0), quiet.gpu(8), 1'000, 0}, quiet.recorder, 1);
  quiet.simulator.run();
  EXPECT_TRUE(quiet.flow.flow_records().empty());
}

// One 1 MB transfer drains over [0, 20 us]: its NIC port is fully used over [0, 10 us],
// half used over [10 us, 30 us], idle over [30 us, 40 us]; the PCIe link before it runs at
// 400/512; the reverse direction stays idle.
TEST(FlowBackend, LinkSamplerReportsUtilisation) {
  Bench b(two_hosts());
  const TransferRequest request{b.gpu(0), b.gpu(8), 1'000'000, 0};
  std::vector<topology::LinkId> path;
  b.routing.route(request.src, request.dst, request.flow_hash, path);
  b.flow.start(request, b.recorder, 1);
  // A later event, so that run_until() below reaches its limit after the transfer is done.
  b.simulator.schedule_at(50_us, [](void*, std::uint64_t) {}, nullptr);
  LinkSampler sampler(b.simulator, b.topo, b.flow);
  const topology::LinkId nic_port = path[1];  // host.0.nic.0 -> switch.0, 400 Gbit/s
  const topology::LinkId pcie = path[0];      // host.0.gpu.0 -> host.0.nic.0, 512 Gbit/s
  const topology::LinkId idle = b.topo.link(path[1]).reverse;
  b.simulator.run_until(10_us);
  std::span<const double> u = sampler.sample();
  EXPECT_NEAR(u[nic_port], 1.0, 1e-12);
  EXPECT_NEAR(u[pcie], 400.0 / 512.0, 1e-12);
  EXPECT_EQ(u[idle], 0.0);
  EXPECT_EQ(sampler.begin(), 0_us);
  EXPECT_EQ(sampler.end(), 10_us);
  b.simulator.run_until(30_us);
  EXPECT_NEAR(sampler.sample()[nic_port], 0.5, 1e-12);
  b.simulator.run_until(40_us);
  EXPECT_EQ(sampler.sample()[nic_port], 0.0);
  b.simulator.run();
  EXPECT_NEAR(b.flow.carried_bytes(nic_port), 1e6, 1e-6);
}

// Link rate changes (schedule_link_rate): 1 MB from host.0.gpu.0 to host.1.gpu.0 takes 20 us
// at its bottleneck, the 400 Gbit/s port host.0.nic.0 -> switch.0 (its route's second link).
TransferRequest cross_host(const Bench& b) { return {b.gpu(0), b.gpu(8), 1'000'000, 0}; }
topology::LinkId nic_port(const Bench& b) {
  std::vector<topology::LinkId> path;
  b.routing.route(b.gpu(0), b.gpu(8), 0, path);
  return path[1];
}
// Starts cross_host at 0 on `backend` with the NIC port at 100 Gbit/s from 10 us; its arrival.
Time arrival_with_nic_port_slowed_at_10us(Bench& b, Backend& backend) {
  EXPECT_TRUE(backend.capabilities().link_rate_changes);
  backend.schedule_link_rate(10_us, nic_port(b), Bandwidth::gbps(100));
  backend.start(cross_host(b), b.recorder, 1);
  b.simulator.run();
  return b.recorder.done.at(1);
}

// The NIC port drops to 100 Gbit/s at 10 us: 0.5 MB left the NIC at 400 Gbit/s, the other
// 0.5 MB take 4e6 bit / 1e11 bit/s = 40 us more, so the last byte leaves at 50 us and arrives
// at 52.4 us (instead of 22.4 us).
TEST(FlowLinkRate, AFlowUnderWayDrainsItsBytesLeftAtTheNewRate) {
  Bench b(two_hosts());
  EXPECT_EQ(arrival_with_nic_port_slowed_at_10us(b, b.flow), 50_us + kCrossHostLatency);
}

// A window [10 us, 30 us) at 100 Gbit/s: 0.5 MB before it, 20 us x 100 Gbit/s = 0.25 MB in it,
// the last 0.25 MB at 400 Gbit/s in 5 us: sent at 35 us = 20 us + (1 - 1/4) x 20 us.
TEST(FlowLinkRate, AWindowCostsItsLengthTimesTheRateLost) {
  Bench b(two_hosts());
  b.flow.schedule_link_rate(10_us, nic_port(b), Bandwidth::gbps(100));
  b.flow.schedule_link_rate(30_us, nic_port(b), Bandwidth::gbps(400));
  b.flow.start(cross_host(b), b.recorder, 1);
  b.simulator.run();
  EXPECT_EQ(b.recorder.done.at(1), 35_us + kCrossHostLatency);
  EXPECT_NEAR(b.flow.carried_bytes(nic_port(b)), 1e6, 1e-3);
}

// A change before the transfer starts: it runs at the new rate from the start, and the ideal
// time follows the link's rate of the moment. Two flows sharing the slowed link split it.
TEST(FlowLinkRate, LaterTransfersAndIdealTimesSeeTheNewRate) {
  Bench b(two_hosts());
  b.flow.schedule_link_rate(Time::zero(), nic_port(b), Bandwidth::gbps(100));
  const Time before = b.flow.ideal_time(cross_host(b));
  b.simulator.run();
  EXPECT_EQ(before, 20_us + kCrossHostLatency);
  EXPECT_EQ(b.flow.ideal_time(cross_host(b)), 80_us + kCrossHostLatency);
  b.flow.start(cross_host(b), b.recorder, 1);
  b.flow.start({b.gpu(0), b.gpu(9), 1'000'000, 0}, b.recorder, 2);
  b.simulator.run();
  // 2 MB through one 100 Gbit/s port, shared equally: both leave at 160 us.
  EXPECT_EQ(b.recorder.done.at(1), 160_us + kCrossHostLatency);
  EXPECT_EQ(b.recorder.done.at(2), 160_us + kCrossHostLatency);
}

TEST(FlowLinkRate, ARateOfZeroIsRefused) {
  Bench b(two_hosts());
  EXPECT_THAT(loom::testing::user_error_of([&] { b.flow.schedule_link_rate(1_us, 3, Bandwidth{}); }),
              HasSubstr("link 3: a rate change to 0 bit/s"));
}

// The analytical backend times a transfer when it starts: one under way keeps its rate, one
// started after the change sees the new bottleneck (1 MB at 100 Gbit/s = 80 us).
TEST(AnalyticalLinkRate, TransfersTimedAfterTheChangeSeeTheNewRate) {
  Bench b(two_hosts());
  EXPECT_EQ(arrival_with_nic_port_slowed_at_10us(b, b.analytical), 20_us + kCrossHostLatency);
  TransferRequest grouped = cross_host(b);
  grouped.share_group = 7;
  b.analytical.start(grouped, b.recorder, 2);
  b.analytical.start(cross_host(b), b.recorder, 3);
  const Time now = b.simulator.now();
  b.simulator.run();
  EXPECT_EQ(b.recorder.done.at(2) - now, 80_us + kCrossHostLatency);
  EXPECT_EQ(b.recorder.done.at(3) - now, 80_us + kCrossHostLatency);
  EXPECT_EQ(b.analytical.ideal_time(cross_host(b)), 80_us + kCrossHostLatency);
}

// A backend without the capability names its mode.
TEST(FlowLinkRate, BackendsWithoutTheCapabilityNameTheirMode) {
  struct Carrier final : Backend {
    NetworkMode mode() const override { return NetworkMode::kAnalytical; }
    Capabilities capabilities() const override { return {}; }
    void start(const TransferRequest&, CompletionHandler&, std::uint64_t) override {}
    Time ideal_time(const TransferRequest&) const override { return Time::zero(); }
  } carrier;
  EXPECT_THAT(loom::testing::user_error_of([&] { carrier.schedule_link_rate(1_us, 0, Bandwidth::gbps(1)); }),
              HasSubstr("network.mode analytical does not model link rate changes"));
}

}  // namespace
}  // namespace loom::network::flow
