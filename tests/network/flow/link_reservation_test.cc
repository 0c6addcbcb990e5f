// FlowBackend's link reservations for closed-form collective timing (flow_backend.h "Link
// reservations"): which links may be reserved, the conflict a flow on a reserved link raises
// (naming the owner, stopping the simulator), none once the reservation has ended, and the
// per-link last drains a backend that records link uses reports.
#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "loom/network/flow/flow_backend.h"
#include "loom/topology/blueprints.h"

namespace loom::network::flow {
namespace {

struct Ignore final : CompletionHandler {
  void on_transfer_complete(std::uint64_t) override {}
};

struct Fabric {
  Fabric() : topo(make()), routing(topo), flow(simulator, topo, routing) {}
  static topology::Topology make() {
    topology::SingleSwitchParams p;
    p.hosts = 2;
    return topology::make_single_switch(p);
  }
  // The route from GPU 0 of host 0 to GPU 0 of host 1, with every link used until `until`.
  std::vector<FlowBackend::LinkUse> uses(Time until) const {
    std::vector<topology::LinkId> path;
    routing.route(topo.gpu_node(0), topo.gpu_node(8), 0, path);
    std::vector<FlowBackend::LinkUse> out;
    for (const topology::LinkId l : path) out.push_back({l, until});
    return out;
  }
  // 1 MB from GPU 0 of host 0 to GPU 0 of host 1, now.
  void send() { flow.start(TransferRequest{topo.gpu_node(0), topo.gpu_node(8), 1'000'000, 0}, ignore, 0); }
  static void send_event(void* self, std::uint64_t) { static_cast<Fabric*>(self)->send(); }
  static void nothing(void*, std::uint64_t) {}
  topology::Topology topo;
  topology::Routing routing;
  Simulator simulator;
  FlowBackend flow;
  Ignore ignore;
};

TEST(FlowLinkReservation, AFlowOnAReservedLinkIsAConflictThatStopsTheRun) {
  Fabric f;
  const auto uses = f.uses(Time::us(10));
  ASSERT_TRUE(f.flow.may_reserve(uses, 7));
  f.flow.reserve(uses, 7);
  EXPECT_FALSE(f.flow.may_reserve(uses, 7));  // reserved until 10 us
  EXPECT_FALSE(f.flow.may_reserve(uses, 8));
  f.simulator.schedule_at(Time::us(4), &Fabric::send_event, &f);
  f.simulator.schedule_at(Time::us(5), &Fabric::nothing, nullptr);
  f.simulator.run();
  EXPECT_EQ(f.flow.conflicts(), std::vector<std::uint32_t>{7});
  EXPECT_EQ(f.simulator.now(), Time::us(4));  // stopped at the conflict
}

TEST(FlowLinkReservation, AnEndedReservationIsNoConflictButOnlyItsOwnerMayReserveAgain) {
  Fabric f;
  const auto uses = f.uses(Time::us(10));
  f.flow.reserve(uses, 7);
  f.simulator.schedule_at(Time::us(11), &Fabric::nothing, nullptr);
  f.simulator.run();
  EXPECT_TRUE(f.flow.may_reserve(uses, 7));
  EXPECT_FALSE(f.flow.may_reserve(uses, 8));  // shared with another owner: not reserved
  f.send();
  f.simulator.run();
  EXPECT_TRUE(f.flow.conflicts().empty());
  // The flow crossed the links: no owner may reserve them from now on.
  EXPECT_FALSE(f.flow.may_reserve(uses, 7));
}

TEST(FlowLinkReservation, LinksAFlowCrossesNowOrCrossedBeforeAreNotReserved) {
  Fabric f;
  const auto uses = f.uses(Time::us(1));
  f.send();
  EXPECT_FALSE(f.flow.may_reserve(uses, 1));  // crossing now
  f.simulator.run();
  EXPECT_FALSE(f.flow.may_reserve(uses, 1));  // crossed before
  // A link no flow touched is free: the reverse direction's first link.
  std::vector<topology::LinkId> back;
  f.routing.route(f.topo.gpu_node(8), f.topo.gpu_node(0), 0, back);
  EXPECT_TRUE(f.flow.may_reserve(std::vector<FlowBackend::LinkUse>{{back.front(), Time::us(1)}}, 1));
}

TEST(FlowLinkReservation, RecordedLinkUsesAreTheLastDrainsByLink) {
  Fabric f;
  f.flow.record_link_uses();
  f.simulator.schedule_at(Time::us(3), &Fabric::send_event, &f);
  f.simulator.run();
  const Time start = Time::us(2);
  const std::vector<FlowBackend::LinkUse> uses = f.flow.link_uses_since(start);
  const auto expected = f.uses(Time::zero());
  ASSERT_EQ(uses.size(), expected.size());
  // 1 MB at the 400 Gbit/s bottleneck: 20 us of draining from 3 us on.
  const Time drained = Time::us(3) + serialization_time(1'000'000, Bandwidth::gbps(400)) - start;
  std::vector<topology::LinkId> links;
  for (const auto& u : expected) links.push_back(u.link);
  std::sort(links.begin(), links.end());
  for (std::size_t i = 0; i < uses.size(); ++i) {
    EXPECT_EQ(uses[i].link, links[i]);
    EXPECT_EQ(uses[i].offset, drained);
  }
  EXPECT_TRUE(f.flow.link_uses_since(start).empty());  // forgotten once reported
}

}  // namespace
}  // namespace loom::network::flow
