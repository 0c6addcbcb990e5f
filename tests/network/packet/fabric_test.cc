#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>

#include "loom/core/error.h"
#include "loom/topology/blueprints.h"
#include "network/packet/star.h"
#include "user_error.h"

namespace loom::network::packet {
namespace {

using testing::Star;

PacketParams with_cc(CcKind kind) {
  PacketParams p;
  p.cc.kind = kind;
  return p;
}

double relative_error(Time got, Time want) {
  return std::abs(static_cast<double>(got.picoseconds() - want.picoseconds())) /
         static_cast<double>(want.picoseconds());
}

// 10 MB in 1000-byte payloads: 10,000 packets of 1048 wire bytes = 10,480,000 bytes = 838.4 us
// at 100 Gb/s; the first packet also crosses the second hop (83.84 ns) and both links' 1 us.
TEST(PacketFabric, OneFlowAloneTakesItsIdealTime) {
  Star star(1, with_cc(CcKind::kDcqcn));
  const Time ideal = Time::ps(838'400'000 + 83'840 + 2'000'000);
  EXPECT_EQ(star.backend->ideal_time({star.senders[0], star.receiver, 10'000'000, 0}), ideal);
  const auto done = star.incast(10'000'000);
  EXPECT_LT(relative_error(done[0], ideal), 0.01) << done[0];
  EXPECT_GE(done[0], ideal);
  EXPECT_EQ(star.backend->fabric().counters().ecn_marks, 0u);
  EXPECT_EQ(star.backend->fabric().counters().delivered_bytes, 10'000'000u);
}

// Two 10 MB flows into one 100 Gb/s port: 20,960,000 wire bytes take 1676.8 us; FIFO sharing
// lets both finish together.
TEST(PacketFabric, TwoFlowsShareTheBottleneck) {
  Star star(2, with_cc(CcKind::kNone));
  const auto done = star.incast(10'000'000);
  const Time all = Time::ps(1'676'800'000);
  for (const Time t : done) EXPECT_LT(relative_error(t, all), 0.01) << t;
  EXPECT_EQ(star.backend->fabric().counters().drops, 0u);
}

TEST(PacketFabric, BytesAreConservedAndPacketsRecycled) {
  Star star(4, with_cc(CcKind::kDcqcn));
  const auto done = star.incast(1'234'567);
  for (const Time t : done) EXPECT_NE(t, Time::max());
  const Fabric& fabric = star.backend->fabric();
  EXPECT_EQ(fabric.counters().delivered_bytes, 4u * 1'234'567u);
  EXPECT_EQ(fabric.packets_in_flight(), 0u);
  EXPECT_EQ(star.backend->active_transfers(), 0u);
  // Every sent data byte crossed two links: packets x 2 hops.
  EXPECT_EQ(fabric.counters().data_packet_hops, 2 * fabric.counters().data_packets);
}

TEST(PacketFabric, LossyFabricDropsAndGoBackNDeliversEveryByte) {
  PacketParams p = with_cc(CcKind::kNone);
  p.sw.pfc = false;
  p.sw.egress_limit = 20'000;
  p.nic.window = false;
  p.nic.retransmit_timeout = Time::us(100);
  Star star(4, p);
  const auto done = star.incast(2'000'000);
  for (const Time t : done) EXPECT_NE(t, Time::max());
  const FabricCounters& c = star.backend->fabric().counters();
  EXPECT_GT(c.drops, 0u);
  EXPECT_GT(c.nacks, 0u);
  EXPECT_GT(c.retransmitted_bytes, 0u);
  EXPECT_EQ(c.delivered_bytes, 4u * 2'000'000u);
  EXPECT_LE(star.backend->fabric().peak_queue_bytes(star.bottleneck), 20'000u);
}

// One sender, two QPs to different receivers, line-rate senders without windows: the sender's
// 100 Gb/s NIC is the only bottleneck. Weighted round robin 3:1 gives 75 and 25 Gb/s while
// both run (received bytes 3:1 within 1%), equal weights 50/50.
TEST(PacketFabric, NicWeightedRoundRobinBetweenQps) {
  for (const std::uint32_t heavy : {3u, 1u}) {
    PacketParams p = with_cc(CcKind::kNone);
    p.nic.window = false;
    Star star(2, p);
    Fabric fabric(star.simulator, star.topo, p);
    std::vector<QpId> qps;
    for (const auto& [dst, weight] : {std::pair{star.receiver, heavy}, std::pair{star.senders[1], 1u}}) {
      std::vector<topology::LinkId> forward, reverse;
      star.routing->route(star.senders[0], dst, 0, forward);
      star.routing->route(dst, star.senders[0], 0, reverse);
      QpSpec spec;
      spec.forward = forward;
      spec.reverse = reverse;
      spec.bytes = 10'000'000;
      spec.weight = weight;
      qps.push_back(fabric.add_qp(spec));
    }
    star.simulator.run_until(Time::us(200));
    const double a = static_cast<double>(fabric.qp_received(qps[0]));
    const double b = static_cast<double>(fabric.qp_received(qps[1]));
    EXPECT_NEAR(a / b, heavy, 0.01 * heavy) << heavy;
    // together at line rate: 200 us minus the first packet's 2 hops
    EXPECT_NEAR((a + b) * 1048 / 1000 * 8 / 100e9, Time::us(200).seconds(), 0.03 * Time::us(200).seconds());
  }
}

// Every link loses 1 packet in 500 at random (seeded): receivers NACK the gaps, go-back-N
// resends, and every byte arrives, under DCQCN with PFC as under HPCC. Same seed, same run.
TEST(PacketFabric, RandomLinkErrorsAreRecovered) {
  for (const CcKind kind : {CcKind::kDcqcn, CcKind::kHpcc}) {
    PacketParams p = with_cc(kind);
    p.link_error_rate = 0.002;
    p.nic.retransmit_timeout = Time::us(100);
    Star star(4, p);
    const auto done = star.incast(2'000'000);
    for (const Time t : done) EXPECT_NE(t, Time::max()) << to_string(kind);
    const FabricCounters& c = star.backend->fabric().counters();
    EXPECT_GT(c.drops, 0u) << to_string(kind);
    EXPECT_GT(c.nacks, 0u) << to_string(kind);
    EXPECT_GT(c.retransmitted_bytes, 0u) << to_string(kind);
    EXPECT_EQ(c.delivered_bytes, 4u * 2'000'000u) << to_string(kind);
    // drops ~ Binomial(arrivals, 0.002), arrivals ~ data packets x 2 hops each way (data and
    // ACK): within 3 standard deviations of the mean; and, with the seed fixed, exactly the
    // count this seed gives (per-port streams: the draws do not depend on event order).
    const double mean = 0.002 * 4 * static_cast<double>(c.data_packets);
    EXPECT_NEAR(static_cast<double>(c.drops), mean, 3 * std::sqrt(mean)) << to_string(kind);
    EXPECT_EQ(c.drops, kind == CcKind::kDcqcn ? 88u : 61u) << to_string(kind);
    EXPECT_EQ(c.data_packets, kind == CcKind::kDcqcn ? 12949u : 8397u) << to_string(kind);
    Star again(4, p);
    EXPECT_EQ(again.incast(2'000'000), done) << to_string(kind);
  }
}

// Random link errors (1 packet in 500 per link) on a lossless DCQCN incast: with selective
// repeat every byte arrives and only lost packets are sent again (at most one payload per
// drop), several times fewer bytes than go-back-N resends for the same losses.
TEST(PacketFabric, SelectiveRepeatResendsOnlyLostPackets) {
  const auto lossy = [](bool selective) {
    PacketParams p = with_cc(CcKind::kDcqcn);
    p.link_error_rate = 0.002;
    p.nic.retransmit_timeout = Time::us(100);
    p.nic.selective_repeat = selective;
    Star star(4, p);
    const auto done = star.incast(2'000'000);
    for (const Time t : done) EXPECT_NE(t, Time::max());
    return star.backend->fabric().counters();
  };
  const FabricCounters go_back = lossy(false);
  const FabricCounters selective = lossy(true);
  EXPECT_EQ(selective.delivered_bytes, 4u * 2'000'000u);
  EXPECT_GT(selective.drops, 0u);
  EXPECT_GT(selective.retransmitted_bytes, 0u);
  EXPECT_LE(selective.retransmitted_bytes, selective.drops * 1000);
  EXPECT_LT(selective.retransmitted_bytes * 4, go_back.retransmitted_bytes);
}

TEST(PacketFabric, PfcPausesInsteadOfDropping) {
  PacketParams p = with_cc(CcKind::kNone);
  p.nic.window = false;
  // 6 ingress ports x (37,500 headroom + 4,096 reserve) = 249,576 fixed bytes.
  p.sw.buffer_bytes = 400'000;
  Star star(5, p);
  star.backend->fabric();
  const auto done = star.incast(2'000'000);
  for (const Time t : done) EXPECT_NE(t, Time::max());
  const FabricCounters& c = star.backend->fabric().counters();
  EXPECT_GT(c.pauses, 0u);
  EXPECT_GT(c.resumes, 0u);
  EXPECT_EQ(c.drops, 0u);
  EXPECT_EQ(c.retransmitted_bytes, 0u);
  EXPECT_EQ(c.delivered_bytes, 5u * 2'000'000u);
  EXPECT_LT(star.backend->fabric().peak_queue_bytes(star.bottleneck), 400'000u);
}

// N-to-1 incast of long flows straight on a Fabric: per-flow goodput between `from` and `to`
// (after convergence), as a fraction of `fair_bps`.
struct IncastResult {
  std::vector<double> share;
  std::uint64_t peak_queue = 0;
  FabricCounters counters;
};

IncastResult long_incast(const PacketParams& params, std::uint32_t senders, Time from, Time to,
                         double fair_bps) {
  Star star(senders, params);
  Fabric fabric(star.simulator, star.topo, params);
  std::vector<QpId> qps;
  for (std::uint32_t i = 0; i < senders; ++i) qps.push_back(star.add_qp_to_receiver(fabric, i, 1'000'000'000));
  star.simulator.run_until(from);
  std::vector<std::uint64_t> before;
  for (const QpId q : qps) before.push_back(fabric.qp_received(q));
  star.simulator.run_until(to);
  IncastResult result;
  for (std::size_t i = 0; i < qps.size(); ++i) {
    const double bps = static_cast<double>(fabric.qp_received(qps[i]) - before[i]) * 8 / (to - from).seconds();
    result.share.push_back(bps / fair_bps);
  }
  result.peak_queue = fabric.peak_queue_bytes(star.bottleneck);
  result.counters = fabric.counters();
  return result;
}

void expect_within(const IncastResult& r, double tolerance, Bytes queue_bound, std::string_view what) {
  for (const double share : r.share) EXPECT_NEAR(share, 1.0, tolerance) << what;
  EXPECT_LT(r.peak_queue, queue_bound) << what;
  EXPECT_EQ(r.counters.drops, 0u) << what;
}

// Fair share of goodput: 100 Gb/s / N, 1000 payload bytes per 1048 on the wire.
double fair_goodput(std::uint32_t senders) { return 100e9 / senders * 1000.0 / 1048.0; }

double jain_index(const std::vector<double>& x) {
  double sum = 0, squares = 0;
  for (const double v : x) {
    sum += v;
    squares += v * v;
  }
  return sum * sum / (static_cast<double>(x.size()) * squares);
}

// DCQCN with SimAI.conf's parameters (900 us increase timer, 50/100 Mb/s increases, window
// on): 8 windows of one BDP keep the queue below kmin, so no CNP is needed and each
// flow gets its fair share to 1%.
TEST(PacketFabric, DcqcnWithTheWindowIncastIsFair) {
  PacketParams p = with_cc(CcKind::kDcqcn);
  p.nic.window = true;
  p.nic.variable_window = true;
  const IncastResult r = long_incast(p, 8, Time::ms(2), Time::ms(12), fair_goodput(8));
  expect_within(r, 0.01, 450'000, "dcqcn");
}

// DCQCN with its defaults: rate control only (HAS_WIN 0, as HPCC's run.py) and the 900 us timer: after the first cuts
// the flows share the goodput the link delivers within 10% of an equal split over 40 ms
// (seeds 1-6: 0.942 .. 1.094 of the mean, Jain's index 0.998-0.999; over 200 ms seeds 1-2:
// 0.973 .. 1.031), the link over 90% busy (the slow recovery leaves it idle at times), the
// queue bounded by PFC. Not closer: without a byte counter DCQCN converges only through the
// randomness of marks.
TEST(PacketFabric, DcqcnRateOnlyIncastSharesFairly) {
  const IncastResult r = long_incast(with_cc(CcKind::kDcqcn), 8, Time::ms(2), Time::ms(42), fair_goodput(8));
  const double mean = std::accumulate(r.share.begin(), r.share.end(), 0.0) / 8;
  EXPECT_GT(mean, 0.9);
  for (const double share : r.share) EXPECT_NEAR(share / mean, 1.0, 0.10);
  EXPECT_GT(jain_index(r.share), 0.995);
  EXPECT_GT(r.counters.cnps, 0u);
  EXPECT_EQ(r.counters.drops, 0u);
}

// HPCC with the HPCC paper's choices: W_AI = (1 - eta) B T / N (here 625 Mb/s) and maxStage 5.
// Its target is eta of the link, and every data packet carries 42 INT bytes: the fair goodput
// is 0.95 x 100 Gb/s / 8 x 1000 / 1090. The queue peaks in the first round trip (one BDP per
// flow at line rate, ~400 KB) and stays within a few packets after.
TEST(PacketFabric, HpccIncastIsFairAndKeepsQueuesShort) {
  PacketParams p = with_cc(CcKind::kHpcc);
  p.cc.hpcc.rate_ai = Bandwidth::bits_per_second(625'000'000);
  p.cc.hpcc.max_stage = 5;
  const IncastResult r = long_incast(p, 8, Time::ms(2), Time::ms(6), 0.95 * 100e9 / 8 * 1000.0 / 1090.0);
  expect_within(r, 0.05, 450'000, "hpcc");
}

// DCTCP and TIMELY: shares within 5% of each other (their mean), the link over 90% busy.
TEST(PacketFabric, DctcpAndTimelyIncastsAreFair) {
  for (const CcKind kind : {CcKind::kDctcp, CcKind::kTimely}) {
    PacketParams p = with_cc(kind);
    p.nic.window = false;
    const IncastResult r = long_incast(p, 4, Time::ms(2), Time::ms(22), fair_goodput(4));
    const double mean = std::accumulate(r.share.begin(), r.share.end(), 0.0) / 4;
    EXPECT_GT(mean, 0.9) << to_string(kind);
    for (const double share : r.share) EXPECT_NEAR(share / mean, 1.0, 0.05) << to_string(kind);
    EXPECT_EQ(r.counters.drops, 0u);
  }
}

TEST(PacketFabric, IdenticalRunsGiveIdenticalResults) {
  Star a(6, with_cc(CcKind::kDcqcn));
  Star b(6, with_cc(CcKind::kDcqcn));
  EXPECT_EQ(a.incast(3'000'000), b.incast(3'000'000));
  EXPECT_EQ(a.backend->fabric().counters().ecn_marks, b.backend->fabric().counters().ecn_marks);
  EXPECT_EQ(a.simulator.events_processed(), b.simulator.events_processed());
}

TEST(PacketFabric, SeveralQueuePairsPerTransfer) {
  PacketParams p = with_cc(CcKind::kDcqcn);
  p.nic.queue_pairs = 3;
  Star star(1, p);
  const auto done = star.incast(1'000'001);
  EXPECT_NE(done[0], Time::max());
  EXPECT_EQ(star.backend->fabric().counters().delivered_bytes, 1'000'001u);
}

TEST(PacketFabric, ZeroByteTransferTakesThePathLatency) {
  Star star(1, with_cc(CcKind::kDcqcn));
  const auto done = star.incast(0);
  // one header-only packet: 48 bytes = 3.84 ns per hop, plus 2 us.
  EXPECT_EQ(done[0], Time::ps(2'000'000 + 2 * 3'840));
}

// A Loom blueprint (GPU -PCIe- NIC -400G- leaf - spine): transfers across leaves and inside a
// host (over the scale-up switch, as packets: scale_up_flow off) finish at their ideal times,
// and ACK coalescing still delivers every byte with one ACK per 8 packets.
TEST(PacketFabric, LeafSpineBlueprintTransfersTakeTheirIdealTime) {
  topology::LeafSpineParams lp;
  lp.hosts = 8;
  const topology::Topology topo = topology::make_leaf_spine(lp);
  const topology::Routing routing(topo);
  for (const std::uint32_t ack_interval : {1u, 8u}) {
    Simulator simulator;
    PacketParams p;
    p.nic.mtu = 4096;
    p.nic.ack_interval = ack_interval;
    p.nic.window = false;
    p.scale_up_flow = false;
    PacketBackend backend(simulator, topo, routing, p);
    Star::Recorder recorder;
    recorder.simulator = &simulator;
    recorder.done.assign(2, Time::max());
    const TransferRequest across{topo.gpu_node(0), topo.gpu_node(63), 8'000'000, 5};
    const TransferRequest inside{topo.gpu_node(8), topo.gpu_node(9), 8'000'000, 6};
    backend.start(across, recorder, 0);
    backend.start(inside, recorder, 1);
    simulator.run();
    EXPECT_LT(relative_error(recorder.done[0], backend.ideal_time(across)), 0.01) << recorder.done[0];
    EXPECT_LT(relative_error(recorder.done[1], backend.ideal_time(inside)), 0.01) << recorder.done[1];
    const FabricCounters& c = backend.fabric().counters();
    EXPECT_EQ(c.delivered_bytes, 16'000'000u);
    const std::uint64_t packets = 2 * (8'000'000 / 4096 + 1);
    EXPECT_EQ(c.data_packets, packets);
    EXPECT_EQ(c.control_packets, ack_interval == 1 ? packets : 2 * (1953 / 8 + 1));
  }
}

// A cable on a running transfer's path goes down: the QP moves to another spine, the packets
// lost on the old path are resent, every byte arrives; the cable comes back up later.
TEST(PacketFabric, LinkDownReroutesRunningQueuePairs) {
  topology::LeafSpineParams lp;
  lp.hosts = 8;
  lp.spines = 2;
  lp.links_per_pair = 1;
  const topology::Topology topo = topology::make_leaf_spine(lp);
  topology::Routing routing(topo);
  Simulator simulator;
  PacketParams p;
  p.nic.mtu = 4096;
  PacketBackend backend(simulator, topo, routing, p);
  Star::Recorder recorder;
  recorder.simulator = &simulator;
  recorder.done.assign(1, Time::max());
  const TransferRequest across{topo.gpu_node(0), topo.gpu_node(63), 8'000'000, 5};
  backend.start(across, recorder, 0);
  // the leaf -> spine link of the QP's path (third link: GPU-NIC, NIC-leaf, leaf-spine)
  const topology::LinkId cut = backend.fabric().qp_path(0, true)[2];
  backend.schedule_link_change(Time::us(40), cut, false, routing);
  backend.schedule_link_change(Time::us(400), cut, true, routing);
  simulator.run();
  ASSERT_NE(recorder.done[0], Time::max());
  EXPECT_GT(recorder.done[0], backend.ideal_time(across));
  const FabricCounters& c = backend.fabric().counters();
  EXPECT_EQ(c.delivered_bytes, 8'000'000u);
  EXPECT_GT(c.drops, 0u);
  EXPECT_GT(c.retransmitted_bytes, 0u);
  EXPECT_TRUE(routing.link_up(cut));
  EXPECT_TRUE(backend.fabric().link_up(cut));
}

using loom::testing::user_error_of;

TEST(PacketParams, RejectsBadValuesWithTheirNames) {
  PacketParams p;
  p.nic.mtu = 0;
  EXPECT_THROW(
      try { check_packet_params(p); } catch (const UserError& e) {
        EXPECT_STREQ(e.what(), "packet backend: nic.mtu = 0: expected 1..65536 bytes");
        throw;
      },
      UserError);
  p = PacketParams{};
  p.cc.hpcc.eta = 1.5;
  EXPECT_THROW(check_packet_params(p), UserError);
  p = PacketParams{};
  p.sw.kmax_per_gbps = p.sw.kmin_per_gbps;
  EXPECT_THROW(check_packet_params(p), UserError);
  p = PacketParams{};
  p.link_error_rate = 1;
  EXPECT_EQ(user_error_of([&] { check_packet_params(p); }),
            "packet backend: link_error_rate = 1: expected a probability in [0, 1)");
  p = PacketParams{};
  p.monitor.interval = Time::zero();
  EXPECT_THROW(check_packet_params(p), UserError);
  p = PacketParams{};
  p.cc.hpcc.int_byte_unit = 0;
  EXPECT_THROW(check_packet_params(p), UserError);
  EXPECT_THROW(parse_cc_kind("reno"), UserError);
  EXPECT_EQ(parse_cc_kind("hpcc"), CcKind::kHpcc);
}

}  // namespace
}  // namespace loom::network::packet
