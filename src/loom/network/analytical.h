// Analytical backend: every transfer takes its route's latency plus its size over the route's
// bottleneck bandwidth, with no contention between transfers (alpha-beta model):
//
//   T(transfer) = sum over links of propagation latency
//               + sum over forwarding nodes on the path of their forwarding latency
//               + serialization_time(bytes, min over links of bandwidth / concurrency)
//
// where concurrency (TransferRequest) is how many transfers of the same operation share the
// path at once (a collective's channels): the one interaction the model keeps, so that splitting
// a collective into channels does not multiply its bandwidth. The ideal time is that of the
// transfer alone (concurrency 1).
//
// This is the fastest fidelity and the closed form other backends are compared against: on a
// fabric where no link is shared, flow and packet modes must agree with it. Routes come from
// topology::Routing (ECMP by the request's flow_hash). Cost per transfer: O(path length).
//
// Link changes: a transfer is timed when it starts, so a cable going down reroutes the
// transfers that start afterwards; transfers already under way finish as timed.
#pragma once

#include <vector>

#include "loom/core/simulator.h"
#include "loom/network/backend.h"
#include "loom/network/link_change_schedule.h"
#include "loom/topology/routing.h"

namespace loom::network {

class AnalyticalBackend final : public Backend {
 public:
  AnalyticalBackend(Simulator& simulator, const topology::Topology& topology, const topology::Routing& routing);

  NetworkMode mode() const override { return NetworkMode::kAnalytical; }
  Capabilities capabilities() const override { return {.in_switch_reduction = true, .link_changes = true}; }
  void start(const TransferRequest& request, CompletionHandler& handler, std::uint64_t cookie) override;

  // The modelled duration of a transfer, without scheduling anything (contention-free, so it is
  // also the ideal time).
  Time transfer_time(const TransferRequest& request) const;
  Time ideal_time(const TransferRequest& request) const override;
  void schedule_link_change(Time when, topology::LinkId link, bool up, topology::Routing& routing) override {
    link_changes_.add(when, link, up, routing);
  }

 private:
  Simulator& simulator_;
  const topology::Topology& topology_;
  const topology::Routing& routing_;
  LinkChangeSchedule link_changes_{simulator_, routing_, [](void*, topology::LinkId, bool) {}, nullptr};
  mutable std::vector<topology::LinkId> path_;  // scratch, reused to avoid allocation per transfer
};

}  // namespace loom::network
