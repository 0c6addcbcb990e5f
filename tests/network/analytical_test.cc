#include "loom/network/analytical.h"

#include <gtest/gtest.h>

#include <map>
#include <vector>

namespace loom::network {
namespace {

using namespace time_literals;
using topology::NodeKind;

// gpu0 -(100G, 1us)- sw0 -(40G, 2us)- sw1 -(100G, 3us)- gpu1, switches forwarding in 500ns and
// 700ns: latency 1+0.5+2+0.7+3 = 7.2us, bottleneck 40Gbps.
struct Line {
  Line() {
    const auto g0 = topo.add_node(NodeKind::kGpu, "host.0.gpu.0", 0);
    const auto s0 = topo.add_node(NodeKind::kSwitch, "sw.0", topology::kNone, 0, 500_ns);
    const auto s1 = topo.add_node(NodeKind::kSwitch, "sw.1", topology::kNone, 0, 700_ns);
    const auto g1 = topo.add_node(NodeKind::kGpu, "host.1.gpu.0", 1);
    topo.add_duplex_link(g0, s0, Bandwidth::gbps(100), 1_us);
    topo.add_duplex_link(s0, s1, Bandwidth::gbps(40), 2_us);
    topo.add_duplex_link(s1, g1, Bandwidth::gbps(100), 3_us);
    gpu0 = g0;
    gpu1 = g1;
  }
  topology::Topology topo;
  topology::NodeId gpu0 = 0, gpu1 = 0;
};

struct Recorder final : CompletionHandler {
  void on_transfer_complete(std::uint64_t cookie) override { done.emplace_back(cookie, simulator->now()); }
  Simulator* simulator = nullptr;
  std::vector<std::pair<std::uint64_t, Time>> done;
};

// A backend on the two-GPU line, with a recorder of its completions.
class AnalyticalLine : public ::testing::Test {
 protected:
  AnalyticalLine() { recorder.simulator = &simulator; }
  Line line;
  const topology::Routing routing{line.topo};
  Simulator simulator;
  AnalyticalBackend backend{simulator, line.topo, routing};
  Recorder recorder;
};

TEST_F(AnalyticalLine, LatencyPlusSizeOverBottleneck) {
  const Time latency = Time::ps(7'200'000);
  EXPECT_EQ(backend.ideal_time({line.gpu0, line.gpu1, 0, 0}), latency);
  // 1 MB at 40 Gbps = 200 us, in both directions.
  EXPECT_EQ(backend.ideal_time({line.gpu0, line.gpu1, 1'000'000, 0}), latency + 200_us);
  EXPECT_EQ(backend.ideal_time({line.gpu1, line.gpu0, 1'000'000, 7}), latency + 200_us);
}

TEST_F(AnalyticalLine, CompletionsArriveAsEventsWithTheirCookies) {
  backend.start({line.gpu0, line.gpu1, 1'000'000, 0}, recorder, 41);
  backend.start({line.gpu1, line.gpu0, 0, 0}, recorder, 42);  // no contention: independent
  EXPECT_TRUE(recorder.done.empty());  // never synchronous
  simulator.run();
  ASSERT_EQ(recorder.done.size(), 2u);
  EXPECT_EQ(recorder.done[0], std::make_pair(std::uint64_t{42}, Time::ps(7'200'000)));
  EXPECT_EQ(recorder.done[1], std::make_pair(std::uint64_t{41}, Time::ps(7'200'000) + 200_us));
}

// Two 1 MB transfers over the same 40 Gbps link: 200 us each alone.
TEST_F(AnalyticalLine, TransfersOfOneGroupSplitTheLinksTheyShare) {
  const Time latency = Time::ps(7'200'000);
  // Same group, same instant: each gets half of the link (k = 2).
  backend.start({.src = line.gpu0, .dst = line.gpu1, .bytes = 1'000'000, .share_group = 5}, recorder, 1);
  backend.start({.src = line.gpu0, .dst = line.gpu1, .bytes = 1'000'000, .share_group = 5}, recorder, 2);
  // Another group, and no group: no contention with either.
  backend.start({.src = line.gpu0, .dst = line.gpu1, .bytes = 1'000'000, .share_group = 6}, recorder, 3);
  backend.start({.src = line.gpu0, .dst = line.gpu1, .bytes = 1'000'000}, recorder, 4);
  // Same group, opposite direction: other links.
  backend.start({.src = line.gpu1, .dst = line.gpu0, .bytes = 1'000'000, .share_group = 5}, recorder, 5);
  simulator.run();
  ASSERT_EQ(recorder.done.size(), 5u);
  std::map<std::uint64_t, Time> at(recorder.done.begin(), recorder.done.end());
  EXPECT_EQ(at[1], latency + 400_us);
  EXPECT_EQ(at[2], latency + 400_us);
  EXPECT_EQ(at[3], latency + 200_us);
  EXPECT_EQ(at[4], latency + 200_us);
  EXPECT_EQ(at[5], latency + 200_us);
}

// A share is fixed when a transfer starts: one that starts while another of its group is being
// sent gets half the link; the one under way keeps its time. Links are held while sending,
// not while the last byte propagates.
TEST_F(AnalyticalLine, SharesAreFixedWhenATransferStarts) {
  const Time latency = Time::ps(7'200'000);
  const TransferRequest request{.src = line.gpu0, .dst = line.gpu1, .bytes = 1'000'000, .share_group = 1};
  backend.start(request, recorder, 1);
  simulator.run_until(100_us);
  backend.start(request, recorder, 2);  // the first is half sent
  simulator.run_until(200_us + 1_us);   // the first has left the link, its last byte is on the way
  backend.start(request, recorder, 3);  // alone again
  simulator.run();
  std::map<std::uint64_t, Time> at(recorder.done.begin(), recorder.done.end());
  EXPECT_EQ(at[1], latency + 200_us);
  EXPECT_EQ(at[2], 100_us + latency + 400_us);
  EXPECT_EQ(at[3], 201_us + latency + 400_us);  // the second is still being sent: k = 2
  EXPECT_EQ(backend.ideal_time(request), latency + 200_us);
}

}  // namespace
}  // namespace loom::network
