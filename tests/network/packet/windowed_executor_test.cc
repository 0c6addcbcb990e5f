// The windowed executor (parallel/windowed_executor.h) must give a serial run's outputs, byte
// for byte: completion times in completion order, every counter, the PFC log and the event
// count, for every congestion control, with PFC storms, link errors and a cable going down and
// up, for LP partitions by two delay thresholds, on 1, 2 and 4 threads (the HPCC fixtures:
// tests/hpcc/hpcc_windowed_test.cc).
#include "loom/network/packet/parallel/windowed_executor.h"

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <array>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "loom/core/error.h"
#include "loom/network/models/backend_factory.h"
#include "loom/network/packet/packet_backend.h"
#include "loom/network/packet/parallel/event_stamp.h"
#include "loom/topology/routing.h"
#include "network/packet/storm_runs.h"
#include "user_error.h"

namespace loom::network::packet::parallel {
namespace {

using topology::NodeId;

// 4 leaves of 4 GPUs (100 ns cables), 2 spines (1 us cables), 100 Gb/s everywhere: at
// ζ = 1 ps every node is an LP (lookahead 100 ns), at ζ = 500 ns a leaf and its GPUs are one
// (lookahead 1 us).
topology::Topology two_tier() {
  topology::Topology t;
  std::vector<NodeId> leaves, spines;
  for (std::uint32_t s = 0; s < 2; ++s) {
    spines.push_back(t.add_node(topology::NodeKind::kSwitch, "spine." + std::to_string(s), topology::kNone, 1));
  }
  for (std::uint32_t l = 0; l < 4; ++l) {
    const NodeId leaf = t.add_node(topology::NodeKind::kSwitch, "leaf." + std::to_string(l));
    for (const NodeId spine : spines) t.add_duplex_link(leaf, spine, Bandwidth::gbps(100), Time::us(1));
    for (std::uint32_t g = 0; g < 4; ++g) {
      const std::uint32_t host = l * 4 + g;
      const NodeId gpu = t.add_node(topology::NodeKind::kGpu, "host." + std::to_string(host) + ".gpu.0", host);
      t.add_duplex_link(gpu, leaf, Bandwidth::gbps(100), Time::ns(100));
    }
  }
  return t;
}

struct Flow {
  std::uint32_t src, dst;  // ranks
  Bytes bytes;
  Time start;
};

struct CableChange {
  Time when;
  topology::LinkId link;
  bool up;
};

struct Outcome {
  std::vector<std::tuple<std::uint64_t, Time>> completions;  // (flow, end) in completion order
  std::array<std::uint64_t, 12> counters{};
  std::vector<std::tuple<Time, topology::LinkId, bool, std::uint8_t>> pfc;
  std::uint64_t events = 0;
  std::uint64_t windows = 0;
  WindowStats stats;
};

// Starts each flow as a queue pair of its own at its time (a driver event), applies the cable
// changes, and runs serially (zeta zero) or windowed over the LPs of zeta on `threads`.
class Run final : public FabricListener {
 public:
  Run(const topology::Topology& topo, const PacketParams& params) : topo_(topo), routing_(topo),
      backend_(simulator_, topo, routing_, params), fabric_(backend_.fabric()) {
    fabric_.record_pfc_events(true, 40);  // the cap applies to the merged log
  }

  Outcome go(const std::vector<Flow>& flows, const std::vector<CableChange>& changes, Time zeta,
             std::uint32_t threads) {
    flows_ = &flows;
    std::optional<LpPartition> lps;
    std::optional<WindowedExecutor> executor;
    if (zeta > Time::zero()) {
      lps = partition_by_delay(topo_, zeta);
      executor.emplace(simulator_, fabric_, *lps, threads);
    }
    for (std::size_t i = 0; i < flows.size(); ++i) simulator_.schedule_at<&Run::start>(flows[i].start, this, i);
    for (const CableChange& c : changes) backend_.schedule_link_change(c.when, c.link, c.up, routing_);
    Outcome out;
    if (executor) {
      executor->run_until(Time::max());
      out.events = executor->events_processed();
      out.stats = executor->stats();
      out.windows = out.stats.windows;
    } else {
      simulator_.run();
      out.events = simulator_.events_processed();
    }
    put_in_serial_order(completions_, stamps_);
    out.completions = completions_;
    const FabricCounters& c = fabric_.counters();
    out.counters = {c.data_packets, c.data_packet_hops, c.control_packets, c.retransmitted_bytes, c.delivered_bytes,
                    c.drops, c.ecn_marks, c.cnps, c.nacks, c.timeouts, c.pauses, c.resumes};
    for (const PfcEvent& e : fabric_.pfc_events()) out.pfc.emplace_back(e.time, e.link, e.pause, e.priority);
    out.pfc.emplace_back(Time::zero(), fabric_.pfc_events_dropped(), false, 0);
    return out;
  }
  // The listener throws a UserError when flow `tag` ends.
  void throw_when_acked(std::uint64_t tag) { fail_at_ = tag; }

 private:
  void start(std::uint64_t index) {
    const Flow& f = (*flows_)[index];
    route_and_start(backend_, routing_, f.src, f.dst, f.bytes, index, *this);
  }
  void on_qp_delivered(QpId, std::uint64_t) override {}
  void on_qp_acked(QpId, std::uint64_t tag) override {
    if (tag == fail_at_) throw UserError("flow " + std::to_string(tag) + " ended");
    const Simulator& sender = fabric_.simulator_at(topo_.gpu_node((*flows_)[tag].src));
    completions_.emplace_back(tag, sender.now());
    stamps_.push_back(stamp_of(sender));
  }

  const topology::Topology& topo_;
  Simulator simulator_;
  topology::Routing routing_;
  PacketBackend backend_;
  Fabric& fabric_;
  const std::vector<Flow>* flows_ = nullptr;
  std::uint64_t fail_at_ = ~std::uint64_t{0};  // the flow whose end throws (none by default)
  std::vector<std::tuple<std::uint64_t, Time>> completions_;
  std::vector<EventStamp> stamps_;
};

Outcome run(const topology::Topology& topo, const PacketParams& params, const std::vector<Flow>& flows,
            const std::vector<CableChange>& changes, Time zeta, std::uint32_t threads = 1) {
  Run r(topo, params);
  return r.go(flows, changes, zeta, threads);
}

// 12 GPUs of three leaves into GPU 0 at once (an incast over the spines), and background flows
// between the other leaves starting at staggered times.
std::vector<Flow> incast_and_background() {
  std::vector<Flow> flows;
  for (std::uint32_t s = 4; s < 16; ++s) flows.push_back({s, 0, 120'000 + 1'000 * Bytes{s}, Time::us(1)});
  for (std::uint32_t i = 0; i < 6; ++i) {
    flows.push_back({1 + i % 3, 8 + (i * 5) % 8, 300'000, Time::ns(1'300 * i + 7)});
  }
  return flows;
}

void expect_same(const Outcome& serial, const Outcome& windowed, const std::string& what) {
  ASSERT_GT(windowed.windows, 10u) << what;
  EXPECT_EQ(serial.completions, windowed.completions) << what;
  EXPECT_EQ(serial.counters, windowed.counters) << what;
  EXPECT_EQ(serial.pfc, windowed.pfc) << what;
  EXPECT_EQ(serial.events, windowed.events) << what;
}

PacketParams lossy_storm(CcKind cc) { return packet::lossy_storm(cc, 400'000, 0.001); }

TEST(WindowedExecutor, IncastWithPfcAndLinkErrorsEqualsSerialForEveryCcAndTwoThresholds) {
  const topology::Topology topo = two_tier();
  const std::vector<Flow> flows = incast_and_background();
  for (const CcKind cc : {CcKind::kDcqcn, CcKind::kHpcc, CcKind::kTimely, CcKind::kDctcp, CcKind::kNone}) {
    const PacketParams p = lossy_storm(cc);
    const Outcome serial = run(topo, p, flows, {}, Time::zero());
    ASSERT_EQ(serial.completions.size(), flows.size()) << to_string(cc);
    EXPECT_GT(serial.counters[10], 0u) << to_string(cc) << ": pauses";
    EXPECT_GT(serial.counters[5], 0u) << to_string(cc) << ": drops";
    for (const Time zeta : {Time::ps(1), Time::ns(500)}) {
      for (const std::uint32_t threads : {1u, 2u, 4u}) {
        const Outcome windowed = run(topo, p, flows, {}, zeta, threads);
        expect_same(serial, windowed,
                    fmt::format("{} zeta {} threads {}", to_string(cc), to_string(zeta), threads));
        EXPECT_EQ(windowed.stats.threads, threads);
      }
    }
  }
}

TEST(WindowedExecutor, CableDownAndUpEqualsSerialForEveryCc) {
  const topology::Topology topo = two_tier();
  const std::vector<Flow> flows = incast_and_background();
  // leaf.0 <-> spine.0 (the first cable): down while the incast runs, back 60 us later.
  const std::vector<CableChange> changes = {{Time::us(8), 0, false}, {Time::us(68), 0, true}};
  for (const CcKind cc : {CcKind::kDcqcn, CcKind::kHpcc, CcKind::kTimely, CcKind::kDctcp, CcKind::kNone}) {
    PacketParams p = lossy_storm(cc);
    p.link_error_rate = 0;
    const Outcome serial = run(topo, p, flows, changes, Time::zero());
    ASSERT_EQ(serial.completions.size(), flows.size()) << to_string(cc);
    EXPECT_GT(serial.counters[5], 0u) << to_string(cc) << ": the cable's packets are lost";
    for (const Time zeta : {Time::ps(1), Time::ns(500)}) {
      for (const std::uint32_t threads : {1u, 2u, 4u}) {
        expect_same(serial, run(topo, p, flows, changes, zeta, threads),
                    fmt::format("{} zeta {} threads {}", to_string(cc), to_string(zeta), threads));
      }
    }
  }
}

TEST(WindowedExecutor, RefusesAPartitionOfOneLp) {
  const topology::Topology topo = two_tier();
  Simulator simulator;
  const topology::Routing routing(topo);
  PacketBackend backend(simulator, topo, routing, PacketParams{});
  const LpPartition one = partition_by_delay(topo, Time::us(2));
  EXPECT_EQ(loom::testing::user_error_of([&] { WindowedExecutor executor(simulator, backend.fabric(), one); }),
            "windowed packet execution over LPs (delay < 2us): 1 LP, so nothing runs in windows; expected a "
            "delay threshold that splits the fabric into at least two LPs");
}

// The incast's receiver leaf holds most events: the placement by node counts is uneven, and the
// executor re-places LPs by their events (the results stay the serial run's, above).
TEST(WindowedExecutor, RebalancesLpsByTheirEvents) {
  const topology::Topology topo = two_tier();
  const PacketParams p = lossy_storm(CcKind::kDcqcn);
  const Outcome o = run(topo, p, incast_and_background(), {}, Time::ns(500), 2);
  ASSERT_GT(o.stats.windows, 2 * WindowedExecutor::kRebalanceWindows);
  EXPECT_GE(o.stats.rebalances, 1u);
  EXPECT_GE(o.stats.window_imbalance, 1.0);
  EXPECT_LE(o.stats.window_imbalance, 2.0);
}

// An event that throws on a helper thread stops every thread; the error leaves run_until.
TEST(WindowedExecutor, AnErrorOnAThreadLeavesRunUntil) {
  const topology::Topology topo = two_tier();
  for (const std::uint32_t threads : {2u, 4u}) {
    class Run r(topo, lossy_storm(CcKind::kDcqcn));  // `class`: gtest's Test::Run hides it
    r.throw_when_acked(7);
    const std::vector<Flow> flows = incast_and_background();
    EXPECT_EQ(loom::testing::user_error_of([&] { r.go(flows, {}, Time::ps(1), threads); }), "flow 7 ended");
  }
}

// Knobs that do not take effect are refused: threads without windows, windows under loom run's
// runtime (it reacts to completions at once).
TEST(WindowedExecutor, RefusesWhatItDoesNotRun) {
  PacketParams threads;
  threads.threads = 2;
  EXPECT_EQ(loom::testing::user_error_of([&] { check_packet_params(threads); }),
            "packet backend: threads = 2: expected 1 without lp_delay_threshold: threads run the windows of "
            "logical processes, and a serial run has none");
  threads.lp_delay_threshold = Time::ps(1);
  EXPECT_EQ(loom::testing::user_error_of([&] { check_packet_params(threads); }), "no error");
  PacketParams racks;
  racks.lp_racks = true;
  EXPECT_EQ(loom::testing::user_error_of([&] { check_packet_params(racks); }),
            "packet backend: lp_racks = true: expected false without lp_delay_threshold: racks join the LPs the "
            "threshold makes");
  PacketParams skipping;  // fast-forward runs in windows (fastforward_windowed_test.cc)
  skipping.lp_delay_threshold = Time::ps(1);
  skipping.fast_forward.enabled = true;
  EXPECT_EQ(loom::testing::user_error_of([&] { check_packet_params(skipping); }), "no error");
  const topology::Topology topo = two_tier();
  Simulator simulator;
  const topology::Routing routing(topo);
  NetworkParams network;
  network.mode = NetworkMode::kPacket;
  network.packet.lp_delay_threshold = Time::ps(1);
  // `loom run`'s backend runs windowed (tests/experiment/windowed_packet_run_test.cc).
  const std::unique_ptr<Backend> backend = make_backend(simulator, topo, routing, network);
  const auto* windowed = dynamic_cast<const PacketBackend*>(backend.get());
  ASSERT_NE(windowed, nullptr);
  EXPECT_TRUE(windowed->window_stats().has_value());
}

}  // namespace
}  // namespace loom::network::packet::parallel
